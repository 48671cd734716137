"""Redis relay: events put into a room on node A reach spectators on node B through Redis; ours against a bare
redis-py relay (two bench/servers/bare_aiohttp.py processes, one PUBLISH per event, a pattern subscription
relaying each message to the local sockets) doing the same work in the same run.

Both nodes of a pair run pinned to core 0, the load on core 1. Redis is a private `redis-server` started for the
run when one is installed (nothing else publishes on it), else `--redis-url`/REDIS_URL. Redis's own count of
PUBLISH calls gives the publishes per event (1 for the bare relay; below 1 when ours coalesces a tick's events).
The per-room rate rises as in bench/fanout.py; reported per pair: the highest
sustainable delivered frames/s at node B, latency there, CPU of both nodes per delivered frame, and ours ÷ bare.
Our nodes use a fresh key prefix, deleted afterwards.

    python -m bench.relay [--n 200] [--payload turn] [--servers ours,bare] [--seconds 2]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench import loadgen, targets
from bench.common import free_port, pin_self, ratio, run, write_result
from bench.fanout import ceiling, cpu_per_frame
from bench.payloads import frame_size, payload

DEFAULT_REDIS = "redis://127.0.0.1:6379/0"


async def _forget(redis_url: str, prefix: str) -> None:
    from redis.asyncio import Redis

    client = Redis.from_url(redis_url)
    try:
        keys = [k async for k in client.scan_iter(match=f"{prefix}:*", count=1000)]
        if keys:
            await client.delete(*keys)
    finally:
        await client.aclose()


async def _publishes(redis_url: str) -> int:
    from redis.asyncio import Redis

    client = Redis.from_url(redis_url)
    try:
        stats = await client.info("commandstats")
    finally:
        await client.aclose()
    return int(stats.get("cmdstat_publish", {}).get("calls", 0))


@contextlib.contextmanager
def private_redis() -> Iterator[str | None]:
    """A throw-away redis-server on a free loopback port (None when redis-server is not installed)."""
    binary = shutil.which("redis-server")
    if binary is None:
        yield None
        return
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="bench-redis-") as folder:
        proc = subprocess.Popen(
            [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", folder],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        try:
            for _ in range(100):
                with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
                time.sleep(0.05)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            proc.terminate()
            proc.wait(10)


async def run_pair(kind: str, args: argparse.Namespace) -> dict[str, Any]:
    prefix = f"bench{secrets.token_hex(4)}"
    a = await targets.start(kind, cap=args.cap, redis_url=args.redis_url, redis_prefix=prefix)
    b: targets.Target | None = None
    clients: list[loadgen.WsClient] = []
    try:
        b = await targets.start(kind, cap=args.cap, redis_url=args.redis_url, redis_prefix=prefix, existing=a.rooms)
        access = a.rooms[0]
        probes = min(10, max(2, args.n // 5))
        clients = await loadgen.spectators(
            b.host, b.port, [(access.spectator_token, access.room, i < probes) for i in range(args.n)]
        )
        pub = await loadgen.publisher(a.host, a.port, access.moderator_token, access.room,
                                      payload(args.payload, access.room))
        published = await _publishes(args.redis_url)
        result = await ceiling(
            f"{kind:<5} A→B N={args.n}", [a.pid, b.pid], clients, [pub], args.start_fps / args.n, args.factor,
            args.max_steps, args.seconds, args.retries,
        )
        published = await _publishes(args.redis_url) - published
        return {
            "server": kind, "n": args.n, "frame_bytes": frame_size(args.payload, access.room),
            "redis_publishes": published,
            "publishes_per_event": round(published / max(1, result["events_per_room"]), 3),
            **result,
        }
    except Exception:
        for t in (a, b):
            if t is not None:
                print(targets.log_tail(t))
        raise
    finally:
        for c in clients:
            c.close()
        for t in (a, b):
            if t is not None:
                t.stop()
        if kind == "ours":
            await _forget(args.redis_url, prefix)


async def amain(args: argparse.Namespace) -> dict[str, Any]:
    rows = [await run_pair(kind, args) for kind in args.servers.split(",") if kind]
    by = {r["server"]: r for r in rows}
    ratios: dict[str, Any] = {}
    if "ours" in by and "bare" in by:
        ratios = {
            "throughput": ratio(by["ours"]["max_sustainable_fps"], by["bare"]["max_sustainable_fps"]),
            "cpu_per_frame": ratio(cpu_per_frame(by["ours"]), cpu_per_frame(by["bare"])),
        }
    return {
        "target": {"throughput_ours_vs_bare_at_least": 0.7},
        "settings": {k: v for k, v in vars(args).items() if k not in ("out", "redis_url")},
        "rows": rows,
        "ratios_ours_vs_bare": ratios,
    }


def table(result: dict[str, Any]) -> str:
    lines = [f"{'server':<6} {'N':>5} {'max fr/s':>9} {'p50':>7} {'p99':>7} {'p99.9':>7} {'µs/fr A+B':>9}"]
    for r in result["rows"]:
        at = r["at"] or {}
        lines.append(
            f"{r['server']:<6} {r['n']:>5} {r['max_sustainable_fps']:>9.0f} {at.get('p50_ms', float('nan')):>7.2f} "
            f"{at.get('p99_ms', float('nan')):>7.2f} {at.get('p999_ms', float('nan')):>7.2f} "
            f"{at.get('cpu_us_per_frame', float('nan')):>9.2f}"
            + ("" if r["limit_reached"] else "  (limit not reached)")
        )
    if result["ratios_ours_vs_bare"]:
        lines.append(f"ours÷bare: {result['ratios_ours_vs_bare']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=200, help="spectators on node B")
    p.add_argument("--payload", default="turn", choices=["small", "turn"])
    p.add_argument("--servers", default="ours,bare")
    p.add_argument("--seconds", type=float, default=2.0)
    p.add_argument("--start-fps", type=float, default=4000.0)
    p.add_argument("--factor", type=float, default=1.6)
    p.add_argument("--max-steps", type=int, default=12)
    p.add_argument("--retries", type=int, default=1)
    p.add_argument("--cap", type=int, default=2 << 20)
    p.add_argument("--redis-url", default=None,
                   help="use this Redis instead of a private redis-server (default without one: REDIS_URL, else "
                        f"{DEFAULT_REDIS})")
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    pin_self(1)
    with contextlib.ExitStack() as stack:
        if args.redis_url is None:
            args.redis_url = stack.enter_context(private_redis()) or os.environ.get("REDIS_URL") or DEFAULT_REDIS
        result = run(amain(args))
    print(table(result))
    print("wrote", write_result("relay", result, args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
