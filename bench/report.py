"""The figures of bench/results/*.json as Markdown tables, led by the issue's targets (ours ÷ baseline, met or
not); `--write` puts them into bench/README.md between the `<!-- figures -->` markers.

    python -m bench.report [--write] [--results DIR]
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.common import RESULTS, ROOT

README = ROOT / "bench" / "README.md"
BEGIN, END = "<!-- figures -->", "<!-- /figures -->"


def _load(name: str, results: Path) -> dict[str, Any] | None:
    path = results / f"{name}.json"
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
    if not isinstance(m, dict):
        return f"*commit {doc.get('commit', 'unknown')}, {m}.*"
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
    for r in doc["rows"]:
        if r.get("redis_calls_per_event"):
            out += ["", f"Redis calls per event, {r['server']} (both nodes): " + ", ".join(
                f"{cmd.upper()} {n}" for cmd, n in r["redis_calls_per_event"].items()) + "."]
    for base in ("bare", "picows"):
        ratios = doc.get(f"ratios_ours_vs_{base}") or {}
        if ratios:
            out += ["", f"ours ÷ {base}: throughput {ratios['throughput']}, CPU per frame {ratios['cpu_per_frame']}."]
    return out


def slow(doc: dict[str, Any]) -> list[str]:
    s = doc["settings"]
    out = ["### Slow consumers", "", _source(doc), "",
           f"{s['n']} spectators, {s['stalled']:.0%} stop reading, {s['rate']} events/s of the {s['payload']} payload; "
           "cut off: the server let go of the socket (from the kernel's table of connections); kernel: the most "
           "bytes queued for one stalled socket in the server's kernel send queue.",
           "", "| server | p99 without ms | p99 with ms | with ÷ without | control's p99 meanwhile ms | with ÷ control "
           "| healthy delivered | stalled cut off after s | kernel MiB | RSS growth MiB | of it from the stalled |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in doc["rows"]:
        cut_s = [c for c in r["cut_off_s"] if c is not None]
        cut = (f"{len(cut_s)} of {len(r['cut_off_s'])} cut, last after {max(cut_s)} s" if cut_s
               else f"none of {len(r['cut_off_s'])} within {r['with_slow']['seconds']:.0f} s")
        kernel = r.get("stalled_server_send_queue_max_bytes")
        stalled_rss = r.get("rss_growth_from_stalled_bytes")
        out.append(f"| {r['server']} | {_f(r['without_slow']['p99_ms'], 2)} | {_f(r['with_slow']['p99_ms'], 2)} "
                   f"| {r['p99_ratio_with_vs_without']} | {_f((r.get('control_during_with') or {}).get('p99_ms'), 2)} "
                   f"| {_f(r.get('p99_ratio_with_vs_control'), 3)} | {r['with_slow']['healthy_delivered_ratio']} "
                   f"| {cut} "
                   f"| {_f(kernel / 2**20 if kernel is not None else None)} | {_f(r['rss_growth_bytes'] / 2**20)} "
                   f"| {_f(stalled_rss / 2**20 if stalled_rss is not None else None)} |")
    return out


def battle_turn(doc: dict[str, Any]) -> list[str]:
    out = ["### Turn resolution (25v25, fixed seed)", "", _source(doc), ""]
    vs = doc.get("vs_previous")
    then = f"÷ commit {vs['commit']}" if vs else "÷ previous"
    out += [f"| figure | this run | same-run baseline (copy + JSON of the state) | this run {then} |",
            "|---|---|---|---|"]
    ratios = vs["ratios"] if vs else {}
    base = doc.get("baseline_copy_and_json_ms", {})
    for key, label in (("resolution_ms", "resolution, wall ms"), ("resolution_cpu_ms", "resolution, CPU ms")):
        for q in ("median", "p99"):
            b = base.get(q) if key == "resolution_ms" else None
            out.append(f"| {label} {q} | {_f(doc[key][q], 3)} | {_f(b, 3)} | {_f(ratios.get(f'{key}.{q}'), 3)} |")
    out.append(f"| battles/s ({doc.get('commander', '')}) | {_f(doc['battles_per_second'], 2)} | — "
               f"| {_f(ratios.get('battles_per_second'), 3)} |")
    return out


def client_frames(doc: dict[str, Any]) -> list[str]:
    out = ["### The web client's battlefield (issue 17: 50 units, a resolution animating, panned and zoomed)", "",
           _source(doc), ""]
    vs = doc.get("vs_previous")
    then = f"÷ commit {vs['commit']}" if vs else "÷ previous"
    ratios = vs["ratios"] if vs else {}
    out += [f"| figure | this run | same-run baseline (the bare ground) | this run {then} |", "|---|---|---|---|"]
    for q in ("p50", "p95", "p99"):
        out.append(f"| paint ms {q} | {_f(doc['frame_ms'][q], 2)} | {_f(doc['bare_frame_ms'][q], 2)} "
                   f"| {_f(ratios.get(f'frame_ms.{q}'), 3)} |")
    out.append(f"| display frame interval ms p95 ({doc['late_frames']} frames > 25 ms) "
               f"| {_f(doc['interval_ms']['p95'], 1)} | — | {_f(ratios.get('interval_ms.p95'), 3)} |")
    out.append(f"| game bundle, KB gzipped | {_f(doc['bundle_gzip_kb'], 1)} | — "
               f"| {_f(ratios.get('bundle_gzip_kb'), 3)} |")
    return out


def durable(doc: dict[str, Any]) -> list[str]:
    out = ["### Durable commands (group commit against one fsync / round trip per command)", "", _source(doc), "",
           "| store | mode | acked cmds/s (closed loop) | ack p50 / p99 ms | mean group | server CPU µs/cmd "
           "| paced ev/s | paced ack p50 / p99 ms |", "|---|---|---|---|---|---|---|---|"]
    for r in doc["rows"]:
        if "skipped" in r:
            out.append(f"| {r['store']} | skipped: {r['skipped']} | | | | | | |")
            continue
        for mode in ("grouped", "one_per_command", "not_durable"):
            if mode not in r:  # written before the floor (bench/durable.py FLOOR) was measured
                continue
            m, q = r[mode], r[mode]["paced"]
            out.append(f"| {r['store']} ({r['rooms']} rooms) | {mode.replace('_', ' ')} | {_f(m['acked_per_s'])} "
                       f"| {_f(m['ack_ms']['p50'], 2)} / {_f(m['ack_ms']['p99'], 2)} | {_f(m['mean_group'])} "
                       f"| {_f(m.get('server_cpu_us_per_command'), 0)} "
                       f"| {_f(q['rate'])} | {_f(q['ack_ms']['p50'], 2)} / {_f(q['ack_ms']['p99'], 2)} |")
        one = r.get("one_fsync_ms") or r.get("one_write_ms") or {}
        what = "one fsync" if "one_fsync_ms" in r else "one Redis write (appendfsync always)"
        out += ["", f"{r['store']}: {what} p50 {_f(one.get('p50'), 3)} ms, p99 {_f(one.get('p99'), 3)} ms "
                    "(same run)." + (" *Not durable* is the floor: the same server with nothing to wait for (embedded, "
                                     "`--no-fsync`)." if "not_durable" in r else "")]
    return out


def _durable_targets(doc: dict[str, Any]) -> list[tuple[str, str, str]]:
    rows = []
    for r in doc["rows"]:
        if "skipped" in r:
            continue
        ratio, p99 = r["acked_ratio_grouped_vs_one_per_command"], r["paced_ack_p99_vs_one"]
        one, per = ("one fsync", "fsync") if "one_fsync_ms" in r else ("one Redis write", "round trip")
        rows.append((f"durable ({r['store']}): acked cmds/s ≥ 5 × one {per} per command (issue 20)", _ratio(ratio),
                     _verdict(r["verdicts"]["acked_ratio"])))
        rows.append((f"durable ({r['store']}): ack p99 ≤ 2 × {one} (paced at {r['paced_rate']} cmds/s; issue 20)",
                     _f(p99, 2), _verdict(r["verdicts"]["ack_p99"])))
        if r.get("floor_paced_ack_p50_p99_vs_one_p50"):
            rows.append((f"durable ({r['store']}): the floor, nothing durable to wait for: paced ack p99 ÷ {one} (no "
                         "target: what a store adding nothing would score)",
                         _f(r["floor_paced_ack_p50_p99_vs_one_p50"][1], 2), "—"))
            rows.append((f"durable ({r['store']}): the floor's acked cmds/s ÷ one {per} per command (no target: the "
                         "most any grouping could give)", _ratio(r.get("floor_acked_vs_one_per_command")), "—"))
    return rows


def _verdict(ok: bool | None) -> str:
    return "—" if ok is None else ("met" if ok else "**not met**")


def _ratio(value: float | None) -> str:
    return "baseline sustained no rate" if value is None else _f(value, 3)


def targets(docs: dict[str, dict[str, Any]]) -> list[str]:
    """Every target of issues 8 and 20 with the figure that decides it, from the stored results."""
    rows: list[tuple[str, str, str]] = []
    fan = docs.get("fanout")
    for c in (fan or {}).get("ratios", []):
        if c["payload"] != "turn":
            continue
        where = f"N = {c['n']}"
        if c["baseline"] == "bare":
            t, cpu = c["throughput"], c["cpu_per_frame"]
            rows.append((f"fan-out throughput ≥ 0.8 × bare aiohttp ({where})", _ratio(t),
                         _verdict(None if t is None else t >= 0.8)))
            rows.append((f"fan-out CPU/frame ≤ 1.3 × bare ({where})", _f(cpu, 3),
                         _verdict(None if cpu is None else cpu <= 1.3)))
            common = c["p99_at_common_rate_ms"]
            if common:
                limit = 1.5 * common["baseline"] + 1
                rows.append((f"fan-out p99 ≤ 1.5 × bare + 1 ms ({where}, {common['rate']} ev/s)",
                             f"{common['ours']} vs ≤ {limit:.1f} ms", _verdict(common["ours"] <= limit)))
            else:
                rows.append((f"fan-out p99 ≤ 1.5 × bare + 1 ms ({where})", "no rate both sustained", "—"))
            mem = c["rss_per_conn_delta_bytes"]
            rows.append((f"memory/conn ≤ bare + 16 KiB ({where})", f"{mem / 1024:+.1f} KiB",
                         _verdict(mem <= 16 * 1024)))
        elif c["baseline"] == "picows":
            t = c["throughput"]
            rows.append((f"fan-out throughput ≥ 0.7 × picows, the baseline at the limit ({where}; issue 20)",
                         _ratio(t), _verdict(None if t is None else t >= 0.7)))
        else:
            t = c["throughput"]
            rows.append((f"fan-out throughput ≥ 1.0 × Node ws ({where})", _ratio(t),
                         _verdict(None if t is None else t >= 1)))
    rooms = docs.get("rooms") or {}
    bare, fast = rooms.get("ratios_ours_vs_bare") or {}, rooms.get("ratios_ours_vs_picows") or {}
    if bare:
        t, cpu = bare["throughput"], bare["cpu_per_frame"]
        rows.append(("many rooms throughput ≥ 0.8 × bare aiohttp (issue 20)", _ratio(t),
                     _verdict(None if t is None else t >= 0.8)))
        rows.append(("many rooms CPU/frame ≤ 1.3 × bare (issue 20)", _f(cpu, 3),
                     _verdict(None if cpu is None else cpu <= 1.3)))
    if fast:
        t = fast["throughput"]
        met = bare.get("throughput") is not None and bare["throughput"] >= 0.8
        rows.append(("many rooms throughput ≥ 0.7 × picows once ≥ 0.8 × bare (issue 20)", _ratio(t),
                     _verdict(None if t is None or not met else t >= 0.7)))
    relay = docs.get("relay")
    if relay and relay.get("ratios_ours_vs_bare"):
        t = relay["ratios_ours_vs_bare"]["throughput"]
        rows.append(("Redis relay ≥ 0.7 × bare relay", _f(t, 3), _verdict(None if t is None else t >= 0.7)))
    if relay and relay.get("ratios_ours_vs_picows"):
        t = relay["ratios_ours_vs_picows"]["throughput"]
        rows.append(("Redis relay ÷ picows relay (no target: how far from the limit)", _ratio(t), "—"))
    slow = docs.get("slow") or {"rows": []}
    for r in slow["rows"]:
        if r["server"] != "ours":
            continue
        p = r.get("p99_ratio_with_vs_control", r["p99_ratio_with_vs_without"])
        against = "a control server without them, same seconds" if "p99_ratio_with_vs_control" in r else "without"
        rows.append((f"slow consumers: healthy p99 with them ÷ {against} ≤ 1.5", _f(p, 3),
                     _verdict(None if p is None else p <= 1.5)))
        cut = r["all_cut_within_s"]
        rows.append(("slow consumers: stalled cut off within 10 s", "none" if cut is None else f"{cut} s",
                     _verdict(cut is not None and cut <= 10)))
        bound = r["stalled"] * slow["settings"]["cap"]
        grown = r.get("rss_growth_from_stalled_bytes", r["rss_growth_bytes"])
        rows.append((f"slow consumers: RSS growth from the stalled ≤ stalled × cap ({bound / 2**20:.0f} MiB)",
                     f"{grown / 2**20:.1f} MiB", _verdict(grown <= bound)))
    if docs.get("durable"):
        rows += _durable_targets(docs["durable"])
    turn = docs.get("battle_turn")
    if turn:
        p99, cpu = turn["resolution_ms"]["p99"], turn["resolution_cpu_ms"]["p99"]
        rows.append(("25v25 turn p99 ≤ 5 ms (wall; CPU time in brackets)", f"{p99} ms ({cpu} ms)",
                     _verdict(p99 <= 5)))
    for v in (docs.get("startup") or {}).get("verdicts", []):
        figure = v["figure"]
        shown = f"{figure / 1024:.1f} KiB" if "KiB" in v["target"] else _f(figure, 2)
        rows.append((f"{v['target']} (issue 20)", shown, _verdict(v["met"])))
    frames = docs.get("client_frames")
    if frames:
        rows.append(("client: field paint p95 ≤ 16 ms (issue 17)", f"{frames['frame_ms']['p95']} ms",
                     _verdict(frames["target_p95_met"])))
        rows.append(("client: game bundle ≤ 120 KB gzipped (issue 17)", f"{frames['bundle_gzip_kb']} KB",
                     _verdict(frames["target_bundle_met"])))
    if not rows:
        return []
    return ["### Targets of issue 8 and issue 20 (ours ÷ baseline, same run)", "", "| target | figure | verdict |",
            "|---|---|---|", *(f"| {a} | {b} | {c} |" for a, b, c in rows)]


def _kib(value: Any) -> str:
    return "—" if value is None else f"{value / 1024:.1f}"


def startup(doc: dict[str, Any]) -> list[str]:
    s = doc["settings"]
    out = ["### Start-up and memory of a large host (issue 20 item 3)", "", _source(doc), "",
           f"{s['campaigns']:,} campaigns x {s['records']} records; {s['open']} campaign rooms opened (a spectator "
           f"joins and leaves) after {s.get('warm', 0)} not counted (the node's fixed costs: the store client's "
           "connections, code run the first time) for the memory per open idle room; the state's size is its deep "
           "size in Python; the last column counts from the node's first room, fixed costs in.", "",
           "| store | code | healthy s (again) | rooms open at start | KiB per unloaded campaign | KiB per open idle "
           "room | of it the state | beyond the state | per room from the first |",
           "|---|---|---|---|---|---|---|---|---|"]
    for store, trees in doc["stores"].items():
        for name, f in trees.items():
            out.append(f"| {store} | {name} | {f['healthy_s'][0]:.2f} ({f['healthy_s'][1]:.2f}) "
                       f"| {_f(f['rooms_owned_at_start'], 0)} | {f['rss_per_unloaded_campaign_bytes'] / 1024:.2f} "
                       f"| {f['rss_per_open_room_bytes'] / 1024:.1f} | {f['room_state_bytes'] / 1024:.1f} "
                       f"| {f['rss_per_open_room_beyond_state_bytes'] / 1024:.1f} "
                       f"| {_kib(f.get('rss_per_open_room_from_start_bytes'))} |")
    for store, vs in (doc.get("vs_previous") or {}).items():
        if vs:
            out += ["", f"{store}, this run ÷ commit {vs['commit']}: " + ", ".join(
                f"{k} {_f(v, 3)}" for k, v in vs["ratios"].items()) + "."]
    return out


RENDER: dict[str, Callable[[dict[str, Any]], list[str]]] = {
    "codec": codec, "fanout": fanout,
    "rooms": lambda d: _ceiling_rows(d, "Many rooms", "rooms"),
    "slow": slow,
    "relay": lambda d: _ceiling_rows(d, "Redis relay (node A → Redis → node B)", "N on B"),
    "battle_turn": battle_turn,
    "client_frames": client_frames,
    "durable": durable,
    "startup": startup,
}


def machine(docs: dict[str, dict[str, Any]]) -> list[str]:
    """The machine the figures came from, and how busy it was (the load average as each benchmark started)."""
    named = {name: d["machine"] for name, d in docs.items() if isinstance(d.get("machine"), dict)}
    ms = list(named.values())
    if not ms:
        return []
    m = ms[-1]
    loads = [x["loadavg_1m"] for x in ms]
    node = f", Node {m['node']}" if m.get("node") else ""
    by_cpu: dict[str, list[str]] = {}
    for name, x in named.items():
        by_cpu.setdefault(str(x["cpu"]), []).append(name)
    cpu = m["cpu"] if len(by_cpu) == 1 else " / ".join(f"{c} ({', '.join(names)})" for c, names in by_cpu.items())
    return [f"Machine: {cpu}, {m['cores']} cores, {m['mem_gib']} GiB, Linux {m['kernel']}, Python {m['python']} "
            f"+ uvloop{node}; shared with other developers' work (load average {min(loads):.1f}–{max(loads):.1f} "
            f"on {m['cores']} cores as the benchmarks started); BENCH_NICE={m.get('bench_nice', 0)}."]


def figures(results: Path = RESULTS) -> str:
    docs = {name: doc for name in RENDER if (doc := _load(name, results)) is not None}
    parts = [machine(docs), targets(docs)] + [RENDER[name](doc) for name, doc in docs.items()]
    return "\n\n".join("\n".join(p) for p in parts if p)


def write(text: str) -> None:
    """Put `text` into bench/README.md between the figure markers."""
    readme = README.read_text()
    head, rest = readme.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    README.write_text(f"{head}{BEGIN}\n{text}\n{END}{tail}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--write", action="store_true", help="replace the figures in bench/README.md")
    p.add_argument("--results", type=Path, default=RESULTS, help="results directory (default bench/results)")
    args = p.parse_args(argv)
    text = figures(args.results)
    if args.write:
        write(text)
        print("updated", README)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
