"""The figures of bench/results/*.json as Markdown tables; `--write` puts them into bench/README.md between the
`<!-- figures -->` markers.

    python -m bench.report [--write]
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from bench.common import RESULTS, ROOT

README = ROOT / "bench" / "README.md"
BEGIN, END = "<!-- figures -->", "<!-- /figures -->"


def _load(name: str) -> dict[str, Any] | None:
    path = RESULTS / f"{name}.json"
    if not path.exists():
        return None
    doc: dict[str, Any] = json.loads(path.read_text())
    return doc


def _f(value: Any, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "—"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _source(doc: dict[str, Any]) -> str:
    m = doc["machine"]
    return (f"*{doc['utc']}, commit {doc['commit']}, {m['cpu']} ({m['cores']} cores), load average "
            f"{m['loadavg_1m']:.1f} at the start, BENCH_NICE={m.get('bench_nice', 0)}.*")


def codec(doc: dict[str, Any]) -> list[str]:
    out = ["### Codec (ns per message; ratio = baseline time ÷ ours, > 1: ours faster)", "", _source(doc), "",
           "| message | bytes msgpack/JSON | encode ours | ormsgpack | JSON | decode+validate ours | ormsgpack | JSON "
           "| ours÷orm enc/dec |", "|---|---|---|---|---|---|---|---|---|"]
    for r in doc["rows"]:
        e, d, q = r["encode_ns"], r["decode_validate_ns"], r["ratio_speed_vs_ormsgpack"]
        out.append(f"| {r['message']} ({r['direction']}) | {r['bytes']['msgpack']}/{r['bytes']['json']} "
                   f"| {_f(e['ours_msgpack'])} | {_f(e['ormsgpack'])} | {_f(e['json'])} | {_f(d['ours_msgpack'])} "
                   f"| {_f(d['ormsgpack'])} | {_f(d['json'])} | {q['encode']} / {q['decode']} |")
    return out


def fanout(doc: dict[str, Any]) -> list[str]:
    out = ["### Fan-out ceiling", "", _source(doc), "",
           "| server | N | payload | max delivered fr/s | p50 ms | p99 ms | p99.9 ms | CPU µs/frame | KiB/conn "
           "| load CPU |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in doc["rows"]:
        for name, p in r["by_payload"].items():
            at = p["at"] or {}
            flag = "" if p["limit_reached"] else " (no limit reached)"
            if not at and p["steps"]:
                at, flag = p["steps"][-1], " (failed at the first rate)"
            out.append(f"| {r['server']} | {r['n']} | {name} ({p['frame_bytes']} B) | "
                       f"{_f(p['max_sustainable_fps'], 0)}{flag} | {_f(at.get('p50_ms'), 2)} | "
                       f"{_f(at.get('p99_ms'), 2)} | {_f(at.get('p999_ms'), 2)} | {_f(at.get('cpu_us_per_frame'), 2)} "
                       f"| {_f(r['rss_per_conn_bytes'] / 1024)} | {_f(at.get('load_cpu_util'), 2)} |")
    out += ["", "| ours ÷ | N | payload | throughput | CPU/frame | p99 at the highest common rate (ours / base) "
            "| memory/conn (ours − base) |", "|---|---|---|---|---|---|---|"]
    for c in doc["ratios"]:
        common = c["p99_at_common_rate_ms"]
        p99 = f"{common['ours']} / {common['baseline']} ms at {common['rate']} ev/s" if common else "—"
        out.append(f"| {c['baseline']} | {c['n']} | {c['payload']} | {c['throughput']} | {c['cpu_per_frame']} "
                   f"| {p99} | {c['rss_per_conn_delta_bytes']:+,} B |")
    return out


def _ceiling_rows(doc: dict[str, Any], title: str, what: str) -> list[str]:
    out = [f"### {title}", "", _source(doc), "",
           f"| server | {what} | max delivered fr/s | ev/s per room | p50 ms | p99 ms | p99.9 ms | CPU µs/frame |",
           "|---|---|---|---|---|---|---|---|"]
    for r in doc["rows"]:
        at = r["at"] or {}
        flag = "" if r["limit_reached"] else " (no limit reached)"
        if not at and r["steps"]:
            at, flag = r["steps"][-1], f" (failed at the first rate: {r['steps'][-1]['delivered_fps']:,.0f} fr/s)"
        size = r.get("rooms", r.get("n"))
        out.append(f"| {r['server']} | {size} | {_f(r['max_sustainable_fps'], 0)}{flag} | {_f(at.get('rate'))} | "
                   f"{_f(at.get('p50_ms'), 2)} | {_f(at.get('p99_ms'), 2)} | {_f(at.get('p999_ms'), 2)} | "
                   f"{_f(at.get('cpu_us_per_frame'), 2)} |")
    if any("publishes_per_event" in r for r in doc["rows"]):
        out += ["", "Redis PUBLISH calls per event: " + ", ".join(
            f"{r['server']} {r.get('publishes_per_event')}" for r in doc["rows"]) + "."]
    ratios = doc.get("ratios_ours_vs_bare") or {}
    if ratios:
        out += ["", f"ours ÷ bare: throughput {ratios['throughput']}, CPU per frame {ratios['cpu_per_frame']}."]
    return out


def slow(doc: dict[str, Any]) -> list[str]:
    s = doc["settings"]
    out = ["### Slow consumers", "", _source(doc), "",
           f"{s['n']} spectators, {s['stalled']:.0%} stop reading, {s['rate']} events/s of the {s['payload']} payload.",
           "", "| server | p99 without ms | p99 with ms | with ÷ without | healthy delivered | stalled cut off after s "
           "| RSS growth MiB |", "|---|---|---|---|---|---|---|"]
    for r in doc["rows"]:
        cut_s = [c for c in r["cut_off_s"] if c is not None]
        cut = (f"{len(cut_s)} of {len(r['cut_off_s'])} cut, last after {max(cut_s)} s" if cut_s
               else f"none of {len(r['cut_off_s'])} within {r['with_slow']['seconds']:.0f} s")
        out.append(f"| {r['server']} | {_f(r['without_slow']['p99_ms'], 2)} | {_f(r['with_slow']['p99_ms'], 2)} "
                   f"| {r['p99_ratio_with_vs_without']} | {r['with_slow']['healthy_delivered_ratio']} | {cut} "
                   f"| {_f(r['rss_growth_bytes'] / 2**20)} |")
    return out


def figures() -> str:
    parts: list[str] = []
    for name, render in (
        ("codec", codec), ("fanout", fanout),
        ("rooms", lambda d: _ceiling_rows(d, "Many rooms", "rooms")),
        ("slow", slow),
        ("relay", lambda d: _ceiling_rows(d, "Redis relay (node A → Redis → node B)", "N on B")),
    ):
        doc = _load(name)
        if doc is not None:
            parts.append("\n".join(render(doc)))
    return "\n\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--write", action="store_true", help="replace the figures in bench/README.md")
    args = p.parse_args(argv)
    text = figures()
    if args.write:
        readme = README.read_text()
        head, rest = readme.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        README.write_text(f"{head}{BEGIN}\n{text}\n{END}{tail}")
        print("updated", README)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
