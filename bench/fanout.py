"""Fan-out ceiling: one room, N spectators, a rising event rate, our server against bare aiohttp, picows and Node
`ws`.

For each N, every server runs at once with its N spectators; for each payload (128 B; the recorded few-KB turn
result) the offered event rate rises by `--factor` per step, the servers taking their steps in turn at each rate
(bench/ceiling.py), until fewer than 99.9% of frames arrive or p99 passes 100 ms; two more
steps then bisect between the last good and the first bad rate. A failed step is run once more before it counts
(the machine is shared; another process's burst should not end a series). Reported per server: the highest sustainable
delivered frames/s, p50/p99/p99.9 end-to-end latency there, server CPU µs per delivered frame, RSS per connection;
and the ratios ours ÷ baseline. The server runs pinned to core 0, this process (the load) to core 1; the load
generator's own CPU use is reported for every step, and a step where it passed 90% is marked `load_bound`.

    python -m bench.fanout [--n 50,200,1000] [--payloads small,turn] [--servers ours,bare,node] [--seconds 2]
    python -m bench.fanout --servers ours,ours@d383dfc,bare   # this tree's server against an earlier commit's
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from typing import Any

from bench import cli, loadgen, targets
from bench.ceiling import LOSS_LIMIT, P99_LIMIT_MS, Contestant, ceilings, common_step, cpu_per_frame
from bench.common import ratio, rss_bytes
from bench.payloads import frame_size, payload


async def run_n(n: int, kinds: list[str], payloads: list[str], args: argparse.Namespace) -> list[dict[str, Any]]:
    """Every server with `n` spectators at once; per payload, their ceilings climbed in lockstep."""
    async with contextlib.AsyncExitStack() as stack:
        servers = [await stack.enter_async_context(targets.serving(kind, cap=args.cap)) for kind in kinds]
        rows: list[dict[str, Any]] = []
        clients: list[list[loadgen.WsClient]] = []
        for target in servers:
            idle = rss_bytes(target.pid)
            clients.append(await target.spectators(n, probes=min(args.probes, max(2, n // 5))))
            await asyncio.sleep(0.2)
            rows.append({"server": target.kind, "n": n, "rss_idle_bytes": idle,
                         "rss_per_conn_bytes": round((rss_bytes(target.pid) - idle) / n), "by_payload": {}})
        for name in payloads:
            contestants = [
                Contestant(f"{t.kind:<6} N={n:<5} {name:<5}", [t.pid], mine,
                           [await t.publisher(payload(name, t.rooms[0].room))])
                for t, mine in zip(servers, clients, strict=True)
            ]
            results = await ceilings(contestants, args.start_fps / n, args.factor, args.max_steps, args.seconds,
                                     args.retries)
            for row, result, t in zip(rows, results, servers, strict=True):
                size = frame_size(name, t.rooms[0].room)
                row["by_payload"][name] = {"payload": name, "frame_bytes": size, **result}
        for row, target in zip(rows, servers, strict=True):
            row["rss_per_conn_after_load_bytes"] = round((rss_bytes(target.pid) - row["rss_idle_bytes"]) / n)
        return rows


def compare(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Ours ÷ each baseline, per N and payload: throughput, CPU per frame, p99 at the highest common rate, memory."""
    out: list[dict[str, Any]] = []
    by = {(r["server"], r["n"]): r for r in rows}
    earlier = sorted({r["server"] for r in rows if r["server"].startswith("ours@")})
    for (kind, n), ours in by.items():
        if kind != "ours":
            continue
        for base_kind in ("bare", "picows", "node", *earlier):
            base = by.get((base_kind, n))
            if base is None:
                continue
            for name, mine in ours["by_payload"].items():
                theirs = base["by_payload"].get(name)
                if theirs is None:
                    continue
                common = common_step(mine["steps"], theirs["steps"])
                out.append({
                    "n": n, "payload": name, "baseline": base_kind,
                    "throughput": ratio(mine["max_sustainable_fps"], theirs["max_sustainable_fps"]),
                    "cpu_per_frame": ratio(cpu_per_frame(mine), cpu_per_frame(theirs)),
                    "p99_at_common_rate_ms": common,
                    "rss_per_conn_delta_bytes": ours["rss_per_conn_bytes"] - base["rss_per_conn_bytes"],
                })
    return out


def table(result: dict[str, Any]) -> str:
    lines = [f"{'server':<6} {'N':>5} {'payload':<7} {'max fr/s':>10} {'p50':>7} {'p99':>7} {'p99.9':>7} "
             f"{'µs/fr':>7} {'KiB/conn':>8} {'load':>5}"]
    for r in result["rows"]:
        for name, p in r["by_payload"].items():
            at = p["at"] or {}
            lines.append(
                f"{r['server']:<6} {r['n']:>5} {name:<7} {p['max_sustainable_fps']:>10.0f} "
                f"{at.get('p50_ms', float('nan')):>7.2f} {at.get('p99_ms', float('nan')):>7.2f} "
                f"{at.get('p999_ms', float('nan')):>7.2f} {at.get('cpu_us_per_frame', float('nan')):>7.2f} "
                f"{r['rss_per_conn_bytes'] / 1024:>8.1f} {at.get('load_cpu_util', float('nan')):>5.2f}"
                + ("" if p["limit_reached"] else "  (limit not reached)")
            )
    for c in result["ratios"]:
        lines.append(
            f"ours÷{c['baseline']:<4} N={c['n']:<5} {c['payload']:<5} throughput {c['throughput']}  "
            f"cpu/frame {c['cpu_per_frame']}  p99@common {c['p99_at_common_rate_ms']}  "
            f"mem/conn {c['rss_per_conn_delta_bytes']:+d} B"
        )
    return "\n".join(lines)


async def amain(args: argparse.Namespace) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    servers = cli.servers(args)
    if "node" in servers and not targets.node_ready():
        print("skipping node: run `npm ci` in bench/node first")
        servers.remove("node")
    for n in (int(x) for x in args.n.split(",")):
        rows += await run_n(n, servers, args.payloads.split(","), args)
    return {
        "criteria": {"delivered_at_least": LOSS_LIMIT, "p99_ms_at_most": P99_LIMIT_MS},
        "settings": cli.settings(args),
        "rows": rows,
        "ratios": compare(rows),
    }


def parser() -> argparse.ArgumentParser:
    p = cli.parser(__doc__, servers=",".join(targets.KINDS), seconds_help="length of each rate step")
    p.add_argument("--n", default="50,200,1000", help="spectator counts, comma-separated")
    p.add_argument("--payloads", default="small,turn")
    p.add_argument("--start-fps", type=float, default=4000.0, help="delivered frames/s offered at the first step")
    cli.rising(p, factor=1.6, max_steps=12)
    p.add_argument("--probes", type=int, default=10, help="spectators that parse frames and measure latency")
    return p


def main(argv: list[str] | None = None) -> int:
    return cli.main("fanout", parser().parse_args(argv), amain, table)


if __name__ == "__main__":
    raise SystemExit(main())
