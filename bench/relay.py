"""Redis relay: events put into a room on node A reach spectators on node B through Redis; ours against a bare
redis-py relay (two bench/servers/bare_aiohttp.py processes, one PUBLISH per event, a pattern subscription
relaying each message to the local sockets) and a picows relay (bench/servers/picows_server.py, the same over
redis-py, its frames coalesced per socket per loop turn) doing the same work in the same run.

Both nodes of a pair run pinned to core 0, the load on core 1; all pairs run at once and climb in lockstep
(bench/ceiling.py). Each pair gets a private `redis-server` started for the run when one is installed (nothing
else publishes on it), else both share `--redis-url`/REDIS_URL. Redis's own count of PUBLISH calls gives the
publishes per event (1 for the bare relay; below 1 when ours coalesces a tick's events; not separable when the
pairs share a Redis). The per-room rate rises as in bench/fanout.py; reported per pair: the highest
sustainable delivered frames/s at node B, latency there, CPU of both nodes per delivered frame, and ours ÷ bare.
Our nodes use a fresh key prefix, deleted afterwards.

    python -m bench.relay [--n 200] [--payload turn] [--servers ours,bare,picows] [--seconds 2]
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
from collections import Counter
from collections.abc import Iterator
from typing import Any

from bench import cli, targets
from bench.ceiling import Contestant, ceilings, ratio_fields
from bench.common import free_port
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


async def _calls(redis_url: str) -> Counter[str]:
    """Redis's own count of calls, per command (INFO commandstats)."""
    from redis.asyncio import Redis

    client = Redis.from_url(redis_url)
    try:
        stats = await client.info("commandstats")
    finally:
        await client.aclose()
    return Counter({k.removeprefix("cmdstat_"): int(v.get("calls", 0)) for k, v in stats.items()})


@contextlib.contextmanager
def private_redis(appendfsync: str | None = None) -> Iterator[str | None]:
    """A throw-away redis-server on a free loopback port (None when redis-server is not installed); with
    `appendfsync` ("always": bench/durable.py), its append-only file on, fsynced so."""
    binary = shutil.which("redis-server")
    if binary is None:
        yield None
        return
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="bench-redis-") as folder:
        proc = subprocess.Popen(
            [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", folder,
             *(["--appendonly", "yes", "--appendfsync", appendfsync] if appendfsync else ["--appendonly", "no"])],
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


async def pair(
    kind: str, redis_url: str, args: argparse.Namespace, stack: contextlib.AsyncExitStack,
) -> tuple[Contestant, int]:
    """Node A (the room's owner, its moderator publishing) and node B (the spectators) of one server kind, and the
    size of the frames its spectators get."""
    nodes = {"cap": args.cap, "redis_url": redis_url, "redis_prefix": args.prefix}
    a = await stack.enter_async_context(targets.serving(kind, **nodes))
    b = await stack.enter_async_context(targets.serving(kind, **nodes, existing=a.rooms))
    clients = await b.spectators(args.n, probes=min(10, max(2, args.n // 5)))
    room = a.rooms[0].room
    pub = await a.publisher(payload(args.payload, room))
    return Contestant(f"{kind:<6} A→B N={args.n}", [a.pid, b.pid], clients, [pub]), frame_size(args.payload, room)


async def amain(args: argparse.Namespace) -> dict[str, Any]:
    kinds = cli.servers(args)
    urls = {kind: args.redis_urls[i % len(args.redis_urls)] for i, kind in enumerate(kinds)}
    own = len(set(urls.values())) == len(kinds)  # one Redis each: its PUBLISH count is that server's alone
    try:
        async with contextlib.AsyncExitStack() as stack:
            pairs = [await pair(kind, urls[kind], args, stack) for kind in kinds]
            before = {kind: await _calls(urls[kind]) for kind in kinds}
            results = await ceilings([c for c, _ in pairs], args.start_fps / args.n, args.factor, args.max_steps,
                                     args.seconds, args.retries)
            calls = {kind: await _calls(urls[kind]) - before[kind] for kind in kinds}
    finally:
        if "ours" in urls:
            await _forget(urls["ours"], args.prefix)
    rows = [{
        "server": kind, "n": args.n, "frame_bytes": size,
        "redis_publishes": calls[kind]["publish"] if own else None,
        "publishes_per_event": round(calls[kind]["publish"] / max(1, result["events_per_room"]), 3) if own else None,
        "redis_calls_per_event": {
            cmd: round(n / max(1, result["events_per_room"]), 3) for cmd, n in calls[kind].most_common() if n > 0
        } if own else None,
        **result,
    } for kind, (_, size), result in zip(kinds, pairs, results, strict=True)]
    return {
        "target": {"throughput_ours_vs_bare_at_least": 0.7},  # and ours ÷ picows beside it
        "settings": cli.settings(args, "redis_urls", "prefix"),
        "redis": "a private redis-server per server kind" if own else "one Redis (PUBLISH counts not separable)",
        "rows": rows,
        **ratio_fields(rows),
    }


def main(argv: list[str] | None = None) -> int:
    p = cli.parser(__doc__, servers="ours,bare,picows", seconds_help="length of each rate step")
    p.add_argument("--n", type=int, default=200, help="spectators on node B")
    p.add_argument("--payload", default="turn", choices=["small", "turn"])
    p.add_argument("--start-fps", type=float, default=4000.0)
    cli.rising(p, factor=1.6, max_steps=12)
    p.add_argument("--redis-url", default=None,
                   help="use this Redis instead of a private redis-server (default without one: REDIS_URL, else "
                        f"{DEFAULT_REDIS})")
    args = p.parse_args(argv)
    args.prefix = f"bench{secrets.token_hex(4)}"
    with contextlib.ExitStack() as stack:
        if args.redis_url is not None:
            args.redis_urls = [args.redis_url]
        else:
            private = [stack.enter_context(private_redis()) for _ in cli.servers(args)]
            args.redis_urls = [u for u in private if u] or [os.environ.get("REDIS_URL") or DEFAULT_REDIS]
        return cli.main("relay", args, amain, lambda result: cli.ceiling_table(result, "n"))


if __name__ == "__main__":
    raise SystemExit(main())
