"""Benchmark: the web client's battlefield while it is panned and zoomed with 50 units on it and a resolution
animating, in headless Chromium (Debian's, driven by Playwright), and the size of what a player downloads.

    python -m bench.client_frames [--seconds 6] [--width 1280 --height 800] [--out DIR]

It opens the client's preview of an engaged 25-against-25 battle (`#preview=battle`, the engine's own view from
client_web/test/fixtures/battle-engaged.json), then for `--seconds` drags the field about and zooms it in and out
with the wheel — real pointer and wheel events through the gesture controller — while the resolution's 40-odd
events are played again and again (volleys, canister, round shot, melee, floating losses). It records:

- **frame time**: the main-thread time of every paint of the field (BattleView.draw), p50/p95/p99 and max — the
  work a display frame has to fit in 16.7 ms;
- **frame interval**: the time between display frames (requestAnimationFrame), p95, and the frames later than
  25 ms (a frame dropped at 60 Hz);
- the same pan and zoom over the bare ground in the same run (no units, nothing animating): the baseline the units
  and effects are set against;
- **bundle**: the gzipped size of the game's entry (client_web/dist/assets/index-*.js and *.css) — lazy chunks
  (the preview, the replay page) are not in it.

Targets (issue 17): frame-time p95 <= 16 ms and bundle <= 120 KB gzipped. Writes bench/results/client_frames.json
and prints this run ÷ the last commit's stored figures. Builds client_web/dist when it is older than the sources.
"""

from __future__ import annotations

import argparse
import gzip
import http.server
import os
import shutil
import subprocess
import sys
import threading
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import cli
from bench.common import ROOT, against, git_commit, percentile, previous_result

CLIENT = ROOT / "client_web"
DIST = CLIENT / "dist"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
TARGET_P95_MS = 16.0
TARGET_BUNDLE_KB = 120.0
COMPARED = {"frame_ms.p95": False, "frame_ms.p50": False, "interval_ms.p95": False, "bundle_gzip_kb": False}

# In the page: drag and wheel the field for `seconds`, replaying the resolution, timing every paint.
SCRIPT = """async ({seconds, bare}) => {
  const v = globalThis.__field, fixture = globalThis.__engaged;
  const canvas = document.querySelector('[data-testid=battle-field]');
  if (bare) v.setState({ ...fixture.before, units: [], melees: [] }, null, true);
  const paint = [], intervals = [];
  const draw = v.draw.bind(v);
  v.draw = () => { const t0 = performance.now(); draw(); paint.push(performance.now() - t0); };
  const replay = () => { if (!bare) for (const e of fixture.events) v.play(e.kind, e.data, e.kind); };
  const r = canvas.getBoundingClientRect();
  const cx = r.left + r.width / 2, cy = r.top + r.height / 2;
  const ev = (type, x, y) => canvas.dispatchEvent(new PointerEvent(type, { bubbles: true, clientX: x,
    clientY: y, pointerId: 1, pointerType: 'mouse', buttons: type === 'pointerup' ? 0 : 1 }));
  const end = performance.now() + seconds * 1000;
  let last = performance.now(), frame = 0, replayed = 0, down = false;
  await new Promise((done) => {
    const tick = (now) => {
      intervals.push(now - last);
      last = now;
      frame++;
      if (now - replayed > 1500) { replay(); replayed = now; }
      const phase = Math.floor(frame / 90) % 3;
      const a = frame * 0.07;
      if (phase < 2) {
        // drag in a circle
        if (!down) { ev('pointerdown', cx, cy); down = true; }
        ev('pointermove', cx + Math.cos(a) * 160, cy + Math.sin(a) * 110);
      } else {
        if (down) { ev('pointerup', cx, cy); down = false; }
        canvas.dispatchEvent(new WheelEvent('wheel', { bubbles: true, cancelable: true, clientX: cx + Math.cos(a) * 80,
          clientY: cy, deltaY: Math.sin(frame * 0.21) > 0 ? -100 : 100 }));
      }
      if (now < end) requestAnimationFrame(tick); else { if (down) ev('pointerup', cx, cy); done(); }
    };
    requestAnimationFrame(tick);
  });
  v.draw = draw;
  return { paint, intervals: intervals.slice(2), frames: frame, units: v.modelForTests.units.length };
}"""


def build() -> None:
    index = DIST / "index.html"
    stamp = index.stat().st_mtime if index.exists() else 0.0
    newer = any(p.stat().st_mtime > stamp for p in (CLIENT / "src").rglob("*") if p.is_file())
    if index.exists() and not newer:
        return
    npx = shutil.which("npx")
    if npx is None:
        raise SystemExit("client_web/dist is missing or stale and npx is not installed")
    if not (CLIENT / "node_modules").is_dir():
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error"], cwd=CLIENT, check=True)
    subprocess.run([npx, "vite", "build"], cwd=CLIENT, check=True, capture_output=True)


def bundle_kb() -> dict[str, float]:
    """Gzipped sizes (level 9, as the build's twins) of the game's entry script and style."""
    out: dict[str, float] = {}
    for pattern in ("index-*.js", "index-*.css"):
        files = sorted((DIST / "assets").glob(pattern))
        out[pattern] = round(sum(len(gzip.compress(f.read_bytes(), 9)) for f in files) / 1024, 2)
    return out


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def serve() -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = partial(_Quiet, directory=str(DIST))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


def stats(values: list[float]) -> dict[str, float]:
    return {"p50": round(percentile(values, 0.5), 3), "p95": round(percentile(values, 0.95), 3),
            "p99": round(percentile(values, 0.99), 3), "max": round(max(values, default=float("nan")), 3)}


def measure(url: str, seconds: float, width: int, height: int) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=flags)
        runs: dict[str, Any] = {}
        for bare in (True, False):
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(f"{url}/#preview=battle&still")
            page.wait_for_function("globalThis.__field !== undefined")
            page.wait_for_timeout(300)
            runs["bare" if bare else "field"] = page.evaluate(SCRIPT, {"seconds": seconds, "bare": bare})
            page.close()
        browser.close()
    return runs


def show(r: dict[str, Any]) -> str:
    f, b, i = r["frame_ms"], r["bare_frame_ms"], r["interval_ms"]
    lines = [
        f"field with {r['units']} units and a resolution animating, panned and zoomed for {r['seconds']} s "
        f"({r['frames']} display frames, {r['paints']} paints):",
        f"  frame time p50 {f['p50']} ms, p95 {f['p95']} ms, p99 {f['p99']} ms, max {f['max']} ms "
        f"(target p95 <= {TARGET_P95_MS} ms: {'met' if r['target_p95_met'] else 'NOT met'})",
        f"  frame interval p95 {i['p95']} ms; {r['late_frames']} frames later than 25 ms",
        f"baseline, the bare ground panned and zoomed the same way: frame time p50 {b['p50']} ms, p95 {b['p95']} ms; "
        f"field ÷ bare p95 {r['ratio_p95_vs_bare']}",
        f"bundle (gzip): {r['bundle_gzip_kb']} KB (script {r['bundle']['index-*.js']} KB, style "
        f"{r['bundle']['index-*.css']} KB; target <= {TARGET_BUNDLE_KB} KB: "
        f"{'met' if r['target_bundle_met'] else 'NOT met'})",
    ]
    vs = r["vs_previous"]
    shown = "" if vs is None else ", ".join(f"{k} {v}" for k, v in vs["ratios"].items())
    lines.append("no stored result to compare with" if vs is None
                 else f"this run ÷ commit {vs['commit']} ({vs['utc']}): {shown}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=6.0, help="how long each run pans and zooms")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=800)
    cli.out_flag(ap)
    args = ap.parse_args(argv)
    build()
    httpd, url = serve()
    try:
        runs = measure(url, args.seconds, args.width, args.height)
    finally:
        httpd.shutdown()
    field, bare = runs["field"], runs["bare"]
    bundle = bundle_kb()
    frame = stats(field["paint"])
    figures: dict[str, Any] = {
        "settings": cli.settings(args),
        "seconds": args.seconds, "units": field["units"], "frames": field["frames"], "paints": len(field["paint"]),
        "frame_ms": frame, "interval_ms": stats(field["intervals"]),
        "late_frames": sum(1 for x in field["intervals"] if x > 25),
        "bare_frame_ms": stats(bare["paint"]),
        "ratio_p95_vs_bare": round(frame["p95"] / max(1e-3, percentile(bare["paint"], 0.95)), 2),
        "bundle": bundle, "bundle_gzip_kb": round(sum(bundle.values()), 2),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "target_p95_ms": TARGET_P95_MS, "target_bundle_kb": TARGET_BUNDLE_KB,
    }
    figures["target_p95_met"] = frame["p95"] <= TARGET_P95_MS
    figures["target_bundle_met"] = figures["bundle_gzip_kb"] <= TARGET_BUNDLE_KB
    figures["vs_previous"] = against(figures, previous_result("client_frames", git_commit(), args.out), COMPARED)
    return cli.report("client_frames", figures, show, args.out)


if __name__ == "__main__":
    raise SystemExit(main())
