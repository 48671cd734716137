"""Many rooms: R rooms of 2 players + 10 spectators, each fed by its moderator at 5 events/s, the rate rising
(×`--factor` per step) until fewer than 99.9% of frames arrive or p99 passes 100 ms; ours against bare aiohttp.

One probe per room (a spectator) measures latency; the rest count. Our server gets one campaign per room through
its HTTP API (players hello with their seat tokens); the baseline takes any token.

    python -m bench.rooms [--rooms 100] [--rate 5] [--payload small] [--servers ours,bare] [--seconds 2]
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from bench import loadgen, targets
from bench.common import pin_self, ratio, rss_bytes, run, write_result
from bench.fanout import ceiling, cpu_per_frame
from bench.payloads import frame_size, payload

PLAYERS, SPECTATORS = 2, 10


async def run_server(kind: str, args: argparse.Namespace) -> dict[str, Any]:
    target = await targets.start(kind, cap=args.cap, rooms=args.rooms)
    clients: list[loadgen.WsClient] = []
    publishers: list[loadgen.Publisher] = []
    try:
        idle = rss_bytes(target.pid)
        plan: list[tuple[str, str, bool]] = []
        for access in target.rooms:
            plan += [(token, access.room, False) for token in access.player_tokens[:PLAYERS]]
            plan += [(access.spectator_token, access.room, i == 0) for i in range(SPECTATORS)]
        clients = await loadgen.spectators(target.host, target.port, plan)
        for access in target.rooms:
            publishers.append(await loadgen.publisher(
                target.host, target.port, access.moderator_token, access.room, payload(args.payload, access.room)
            ))
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
    except Exception:
        print(targets.log_tail(target))
        raise
    finally:
        for c in clients:
            c.close()
        target.stop()


async def amain(args: argparse.Namespace) -> dict[str, Any]:
    rows = [await run_server(kind, args) for kind in args.servers.split(",") if kind]
    by = {r["server"]: r for r in rows}
    ratios: dict[str, Any] = {}
    if "ours" in by and "bare" in by:
        ratios = {
            "throughput": ratio(by["ours"]["max_sustainable_fps"], by["bare"]["max_sustainable_fps"]),
            "cpu_per_frame": ratio(cpu_per_frame(by["ours"]), cpu_per_frame(by["bare"])),
        }
    return {
        "settings": {k: v for k, v in vars(args).items() if k != "out"},
        "room": {"players": PLAYERS, "spectators": SPECTATORS, "moderator": 1},
        "rows": rows,
        "ratios_ours_vs_bare": ratios,
    }


def table(result: dict[str, Any]) -> str:
    lines = [f"{'server':<6} {'rooms':>5} {'ev/s/room':>9} {'fr/s':>9} {'p50':>7} {'p99':>7} {'p99.9':>7} "
             f"{'µs/fr':>7} {'KiB/conn':>8}"]
    for r in result["rows"]:
        at = r["at"] or {}
        lines.append(
            f"{r['server']:<6} {r['rooms']:>5} {r['max_sustainable_rate_per_room']:>9.1f} "
            f"{r['max_sustainable_fps']:>9.0f} {at.get('p50_ms', float('nan')):>7.2f} "
            f"{at.get('p99_ms', float('nan')):>7.2f} {at.get('p999_ms', float('nan')):>7.2f} "
            f"{at.get('cpu_us_per_frame', float('nan')):>7.2f} {r['rss_per_conn_bytes'] / 1024:>8.1f}"
            + ("" if r["limit_reached"] else "  (limit not reached)")
        )
    if result["ratios_ours_vs_bare"]:
        lines.append(f"ours÷bare: {result['ratios_ours_vs_bare']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rooms", type=int, default=100)
    p.add_argument("--rate", type=float, default=5.0, help="events/s per room at the first step")
    p.add_argument("--factor", type=float, default=2.0)
    p.add_argument("--max-steps", type=int, default=8)
    p.add_argument("--payload", default="small", choices=["small", "turn"])
    p.add_argument("--servers", default="ours,bare")
    p.add_argument("--seconds", type=float, default=2.0)
    p.add_argument("--retries", type=int, default=1)
    p.add_argument("--cap", type=int, default=2 << 20)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    pin_self(1)
    result = run(amain(args))
    print(table(result))
    print("wrote", write_result("rooms", result, args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
