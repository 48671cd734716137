"""CPU per delivered frame at one fixed rate, several servers in the same run, their steps alternating: the A/B
for a change when the machine is too busy for ceilings (bench/ceiling.py's climbs swing by 2× between steps on a
shared machine, and each server's best step comes at its own rate). Typical: this tree against an earlier commit.

    python -m bench.fixed_rate --servers ours,ours@d383dfc --n 200 --rate 800 [--payload turn] [--repeat 5]
    python -m bench.fixed_rate --servers ours,ours@HEAD~3,bare --rooms 100 --rate 10 --payload small

One room of `--n` spectators, or with `--rooms R` R rooms of 2 players + 10 spectators (bench/rooms.py); every
room fed `--rate` events/s for `--seconds`, `--repeat` times per server, the order reversed each round. Printed per
server: the median and the least CPU µs per frame (the least is the run other work disturbed least) and ÷ the
first server's, and the median of the runs' p99 latency and of the server's share of a core (a change that saves
CPU by holding frames, server/net/outbox.py, shows its cost there).
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
from typing import Any

from bench import cli, loadgen, rooms, targets
from bench.ceiling import step
from bench.payloads import payload


async def _serve(kind: str, args: argparse.Namespace, stack: contextlib.AsyncExitStack,
                 ) -> tuple[targets.Target, list[loadgen.WsClient], list[loadgen.Publisher]]:
    if args.rooms:
        target = await stack.enter_async_context(targets.serving(kind, cap=args.cap, rooms=args.rooms))
        _, contestant = await rooms.connect(target, args)
        return target, contestant.clients, list(contestant.publishers)
    target = await stack.enter_async_context(targets.serving(kind, cap=args.cap))
    clients = await target.spectators(args.n, probes=min(10, max(2, args.n // 5)))
    return target, clients, [await target.publisher(payload(args.payload, target.rooms[0].room))]


async def amain(args: argparse.Namespace) -> dict[str, Any]:
    kinds = cli.servers(args)
    async with contextlib.AsyncExitStack() as stack:
        served = [(kind, *await _serve(kind, args, stack)) for kind in kinds]
        runs: dict[str, list[float]] = {kind: [] for kind in kinds}
        p99s: dict[str, list[float]] = {kind: [] for kind in kinds}
        busy: dict[str, list[float]] = {kind: [] for kind in kinds}
        for r in range(args.repeat):
            for kind, target, clients, publishers in (served if r % 2 == 0 else served[::-1]):
                s = await step([target.pid], clients, publishers, args.rate, args.seconds)
                runs[kind].append(s.cpu_us_per_frame)
                p99s[kind].append(s.p99_ms)
                busy[kind].append(s.server_cpu_util)
                print(f"  {kind:<14} {s.cpu_us_per_frame:7.2f} µs/frame (delivered {s.delivered_ratio:.4f})  "
                      f"p50/p99 {s.p50_ms:.2f}/{s.p99_ms:.2f} ms  server {s.server_cpu_util:.2f} core", flush=True)
    first = statistics.median(runs[kinds[0]])
    rows = [{"server": kind, "cpu_us_per_frame": v, "median": statistics.median(v), "least": min(v),
             "median_vs_first": 1.0 if kind == kinds[0] else round(statistics.median(v) / first, 3) if first else None,
             "p99_ms": p99s[kind], "median_p99_ms": statistics.median(p99s[kind]),
             "median_server_cpu_util": round(statistics.median(busy[kind]), 3)}
            for kind, v in runs.items()]
    return {"settings": cli.settings(args), "rows": rows}


def table(result: dict[str, Any]) -> str:
    nan = float("nan")  # results written before these columns
    return "\n".join(f"{r['server']:<14} median {r['median']:7.2f}  least {r['least']:7.2f} µs/frame  "
                     f"÷ first {r['median_vs_first']}  p99 (median of runs) {r.get('median_p99_ms', nan):.2f} ms  "
                     f"server {r.get('median_server_cpu_util', nan):.2f} core" for r in result["rows"])


def main(argv: list[str] | None = None) -> int:
    p = cli.parser(__doc__, servers="ours,bare", seconds_help="length of each run")
    p.add_argument("--n", type=int, default=200, help="spectators of the one room (without --rooms)")
    p.add_argument("--rooms", type=int, default=0, help="rooms of 2 players + 10 spectators instead of one room")
    p.add_argument("--rate", type=float, default=800.0, help="events/s into each room")
    p.add_argument("--payload", default="turn", choices=["small", "turn"])
    p.add_argument("--repeat", type=int, default=5)
    return cli.main("fixed_rate", p.parse_args(argv), amain, table)


if __name__ == "__main__":
    raise SystemExit(main())
