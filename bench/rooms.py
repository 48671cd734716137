"""Many rooms: R rooms of 2 players + 10 spectators, each fed by its moderator at 5 events/s, the rate rising
(×`--factor` per step) until fewer than 99.9% of frames arrive or p99 passes 100 ms; ours against bare aiohttp.

One probe per room (a spectator) measures latency; the rest count. Our server gets one campaign per room through
its HTTP API (players hello with their seat tokens); the baseline takes any token.

    python -m bench.rooms [--rooms 100] [--rate 5] [--payload small] [--servers ours,bare] [--seconds 2]
"""

from __future__ import annotations

import argparse
from typing import Any

from bench import cli, loadgen, targets
from bench.ceiling import ceiling, ours_vs_bare
from bench.common import rss_bytes
from bench.payloads import frame_size, payload

PLAYERS, SPECTATORS = 2, 10


async def run_server(kind: str, args: argparse.Namespace) -> dict[str, Any]:
    async with targets.serving(kind, cap=args.cap, rooms=args.rooms) as target:
        idle = rss_bytes(target.pid)
        plan: list[tuple[str, str, bool]] = []
        for access in target.rooms:
            plan += [(token, access.room, False) for token in access.player_tokens[:PLAYERS]]
            plan += [(access.spectator_token, access.room, i == 0) for i in range(SPECTATORS)]
        clients = await loadgen.spectators(target.host, target.port, plan)
        target.clients += clients
        publishers = [await target.publisher(payload(args.payload, access.room), room)
                      for room, access in enumerate(target.rooms)]
        rss_per_conn = round((rss_bytes(target.pid) - idle) / len(clients))
        result = await ceiling(
            f"{kind:<5} rooms={len(target.rooms)}", [target.pid], clients, publishers, args.rate, args.factor,
            args.max_steps, args.seconds, args.retries,
        )
        return {
            "server": kind, "rooms": len(target.rooms), "connections": len(clients) + len(publishers),
            "frame_bytes": frame_size(args.payload, target.rooms[0].room),
            "rss_per_conn_bytes": rss_per_conn,
            "max_sustainable_rate_per_room": result["at"]["rate"] if result["at"] else 0.0,
            **result,
        }


async def amain(args: argparse.Namespace) -> dict[str, Any]:
    rows = [await run_server(kind, args) for kind in cli.servers(args)]
    return {
        "settings": cli.settings(args),
        "room": {"players": PLAYERS, "spectators": SPECTATORS, "moderator": 1},
        "rows": rows,
        "ratios_ours_vs_bare": ours_vs_bare(rows),
    }


def main(argv: list[str] | None = None) -> int:
    p = cli.parser(__doc__, seconds_help="length of each rate step")
    p.add_argument("--rooms", type=int, default=100)
    p.add_argument("--rate", type=float, default=5.0, help="events/s per room at the first step")
    p.add_argument("--payload", default="small", choices=["small", "turn"])
    cli.rising(p, factor=2.0, max_steps=8)
    return cli.main("rooms", p.parse_args(argv), amain, lambda result: cli.ceiling_table(result, "rooms"))


if __name__ == "__main__":
    raise SystemExit(main())
