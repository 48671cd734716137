"""Many rooms: R rooms of 2 players + 10 spectators, each fed by its moderator at 5 events/s, the rate rising
(×`--factor` per step) until fewer than 99.9% of frames arrive or p99 passes 100 ms; ours against bare aiohttp
and picows, all running at once and taking their steps in turn at each rate (bench/ceiling.py).

One probe per room (a spectator) measures latency; the rest count. Our server gets one campaign per room through
its HTTP API (players hello with their seat tokens); the baseline takes any token.

    python -m bench.rooms [--rooms 100] [--rate 5] [--payload small] [--servers ours,bare,picows] [--seconds 2]
"""

from __future__ import annotations

import argparse
import contextlib
from typing import Any

from bench import cli, loadgen, targets
from bench.ceiling import Contestant, ceilings, ratio_fields
from bench.common import rss_bytes
from bench.payloads import frame_size, payload

PLAYERS, SPECTATORS = 2, 10


async def connect(target: targets.Target, args: argparse.Namespace) -> tuple[dict[str, Any], Contestant]:
    """Every room's players, spectators (the first of each a probe) and moderator on one server."""
    idle = rss_bytes(target.pid)
    plan: list[tuple[str, str, bool]] = []
    for access in target.rooms:
        plan += [(token, access.room, False) for token in access.player_tokens[:PLAYERS]]
        plan += [(access.spectator_token, access.room, i == 0) for i in range(SPECTATORS)]
    clients = await loadgen.spectators(target.host, target.port, plan)
    target.clients += clients
    publishers = [await target.publisher(payload(args.payload, access.room), room)
                  for room, access in enumerate(target.rooms)]
    row = {
        "server": target.kind, "rooms": len(target.rooms), "connections": len(clients) + len(publishers),
        "frame_bytes": frame_size(args.payload, target.rooms[0].room),
        "rss_per_conn_bytes": round((rss_bytes(target.pid) - idle) / len(clients)),
    }
    return row, Contestant(f"{target.kind:<6} rooms={len(target.rooms)}", [target.pid], clients, publishers)


async def amain(args: argparse.Namespace) -> dict[str, Any]:
    async with contextlib.AsyncExitStack() as stack:
        servers = [await stack.enter_async_context(targets.serving(kind, cap=args.cap, rooms=args.rooms))
                   for kind in cli.servers(args)]
        connected = [await connect(target, args) for target in servers]
        results = await ceilings([c for _, c in connected], args.rate, args.factor, args.max_steps, args.seconds,
                                 args.retries)
    rows = [{**row, "max_sustainable_rate_per_room": result["at"]["rate"] if result["at"] else 0.0, **result}
            for (row, _), result in zip(connected, results, strict=True)]
    return {
        "settings": cli.settings(args),
        "room": {"players": PLAYERS, "spectators": SPECTATORS, "moderator": 1},
        "rows": rows,
        **ratio_fields(rows),
    }


def main(argv: list[str] | None = None) -> int:
    p = cli.parser(__doc__, servers="ours,bare,picows", seconds_help="length of each rate step")
    p.add_argument("--rooms", type=int, default=100)
    p.add_argument("--rate", type=float, default=5.0, help="events/s per room at the first step")
    p.add_argument("--payload", default="small", choices=["small", "turn"])
    cli.rising(p, factor=2.0, max_steps=8)
    return cli.main("rooms", p.parse_args(argv), amain, lambda result: cli.ceiling_table(result, "rooms"))


if __name__ == "__main__":
    raise SystemExit(main())
