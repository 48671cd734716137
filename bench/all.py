"""Every benchmark in sequence, each as its own process (as its own command runs it), then the figures.

    python -m bench.all              # the full set into bench/results/, then bench/README.md's figures rewritten
    python -m bench.all --quick      # tiny sizes into a fresh temporary folder: does everything still run?
    python -m bench.all --only fanout,slow [--out DIR] [--no-readme]

The README is rewritten only from a run into bench/results/ (never from `--quick` or `--out` elsewhere). A
benchmark that fails is reported and the rest still run; the exit status is then 1. `BENCH_NICE` is passed on.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import report
from bench.common import RESULTS, ROOT
from bench.targets import NODE_DIR

ORDER = ("codec", "battle_turn", "client_frames", "fanout", "rooms", "slow", "relay", "durable", "startup")

QUICK: dict[str, list[str]] = {
    "codec": ["--seconds", "0.003"],
    "battle_turn": ["--turns", "2", "--repeat", "2", "--battles", "1"],
    "client_frames": ["--seconds", "0.5"],
    "fanout": ["--n", "4", "--payloads", "small,turn", "--seconds", "0.3", "--max-steps", "2", "--start-fps", "40",
               "--retries", "0"],
    "rooms": ["--rooms", "3", "--seconds", "0.3", "--max-steps", "2", "--retries", "0"],
    "slow": ["--n", "20", "--rate", "20", "--seconds", "0.4", "--without", "0.4", "--limit", "0.8"],
    "relay": ["--n", "5", "--seconds", "0.3", "--max-steps", "2", "--retries", "0", "--start-fps", "50"],
    "durable": ["--rooms", "4", "--seconds", "0.3", "--warmup", "0.1", "--probes", "20"],
    "startup": ["--campaigns", "6", "--records", "3", "--open", "3", "--stores", "embedded"],
}


def node_baseline() -> bool:
    """The Node `ws` baseline installed from its lock file (`npm ci`) when Node and npm exist and it is not yet."""
    if (NODE_DIR / "node_modules" / "ws").is_dir():
        return True
    if shutil.which("node") is None or shutil.which("npm") is None:
        return False
    done = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=NODE_DIR, capture_output=True, timeout=300,
                          check=False)
    return done.returncode == 0


def command(name: str, out: Path, quick: bool) -> list[str]:
    return [sys.executable, "-m", f"bench.{name}", "--out", str(out), *(QUICK[name] if quick else [])]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="tiny sizes (the smoke tests' own); results to a temp folder")
    p.add_argument("--only", default=",".join(ORDER), help=f"benchmarks to run, comma-separated, of {','.join(ORDER)}")
    p.add_argument("--out", type=Path, default=None, help="results folder (default bench/results; --quick: a temp one)")
    p.add_argument("--no-readme", action="store_true", help="leave bench/README.md alone")
    args = p.parse_args(argv)
    names = [n for n in args.only.split(",") if n]
    unknown = set(names) - set(ORDER)
    if unknown:
        p.error(f"unknown benchmarks {sorted(unknown)}; of {', '.join(ORDER)}")
    out: Path = args.out or (Path(tempfile.mkdtemp(prefix="bench-quick-")) if args.quick else RESULTS)
    if "fanout" in names and not node_baseline():
        print("the Node `ws` baseline is not installed (needs node and npm): fanout runs without it", flush=True)
    failed: list[str] = []
    for name in names:
        print(f"== bench.{name}", flush=True)
        t0 = time.perf_counter()
        done = subprocess.run(command(name, out, args.quick), cwd=ROOT, check=False)
        print(f"== bench.{name}: {'ok' if done.returncode == 0 else f'FAILED ({done.returncode})'} "
              f"in {time.perf_counter() - t0:.0f} s", flush=True)
        if done.returncode != 0:
            failed.append(name)
    text = report.figures(out)
    if out.resolve() == RESULTS.resolve() and not args.no_readme:
        report.write(text)
        print("updated", report.README)
    else:
        print(text)
    print(f"results in {out}")
    if failed:
        print("failed:", ", ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
