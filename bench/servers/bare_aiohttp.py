"""Baseline: the barest aiohttp broadcast server that speaks the benchmarks' part of the protocol.

`/ws`: any `hello` → `welcome`, `join` → `joined` (the socket is then in the room), nothing validated;
`mod_ruling` `{"room", "ruling": {"kind", "data"}}` → one `ev` message, packed once, framed once, the same bytes
written to every transport in the room, then `ack`. A socket whose write buffer passes `--cap` bytes is cut off.
With `--redis-url` the packed event goes through Redis pub/sub (channel `bench:<room>`,
one PUBLISH per event) and every process subscribed relays it to its own spectators: the bare redis-py relay.

    python -m bench.servers.bare_aiohttp --port N [--cap BYTES] [--redis-url URL]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import struct
import time
from collections import defaultdict
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import msgpack
from aiohttp import WSMsgType, web
from redis.asyncio import Redis


@dataclass
class Hub:
    cap: int
    redis: Redis | None
    rooms: defaultdict[str, set[asyncio.Transport]] = field(default_factory=lambda: defaultdict(set))
    seqs: defaultdict[str, int] = field(default_factory=lambda: defaultdict(int))


HUB = web.AppKey("hub", Hub)


def ws_frame(payload: bytes) -> bytes:
    n = len(payload)
    if n < 126:
        return struct.pack("!BB", 0x82, n) + payload
    if n < 65536:
        return struct.pack("!BBH", 0x82, 126, n) + payload
    return struct.pack("!BBQ", 0x82, 127, n) + payload


def broadcast(app: web.Application, room: str, payload: bytes) -> None:
    frame = ws_frame(payload)
    cap = app[HUB].cap
    members = app[HUB].rooms[room]
    for transport in list(members):
        if transport.is_closing():
            members.discard(transport)
        elif transport.get_write_buffer_size() > cap:
            members.discard(transport)
            transport.abort()
        else:
            transport.write(frame)


async def session(request: web.Request) -> web.WebSocketResponse:
    ws = web.WebSocketResponse(compress=False, autoping=True)
    await ws.prepare(request)
    transport = request.transport
    hub = request.app[HUB]
    joined: str | None = None
    try:
        async for msg in ws:
            if msg.type != WSMsgType.BINARY:
                continue
            m = msgpack.unpackb(msg.data, raw=False)
            t = m.get("t")
            if t == "mod_ruling":
                await emit(request.app, str(m["room"]), m["ruling"])
                await ws.send_bytes(msgpack.packb({"t": "ack", "cid": m.get("cid", 0), "seq": hub.seqs[m["room"]]}))
            elif t == "hello":
                await ws.send_bytes(msgpack.packb({"t": "welcome", "cid": m.get("cid", 0), "role": "spectator"}))
            elif t == "join" and transport is not None:
                joined = str(m["room"])
                hub.rooms[joined].add(transport)
                await ws.send_bytes(msgpack.packb({"t": "joined", "cid": m.get("cid", 0), "room": joined}))
    finally:
        if joined is not None and transport is not None:
            hub.rooms[joined].discard(transport)
    return ws


async def emit(app: web.Application, room: str, ruling: dict[str, Any]) -> None:
    """One event: packed once, then broadcast here or published once on Redis."""
    hub = app[HUB]
    hub.seqs[room] += 1
    ev = {"t": "ev", "room": room, "seq": hub.seqs[room], "at_ms": int(time.time() * 1000),
          "kind": ruling["kind"], "data": ruling["data"]}
    payload = msgpack.packb(ev, use_bin_type=True)
    if hub.redis is None:
        broadcast(app, room, payload)
    else:
        await hub.redis.publish(f"bench:{room}", payload)


async def relay(app: web.Application) -> AsyncIterator[None]:
    redis = app[HUB].redis
    if redis is None:
        yield
        return
    pubsub = redis.pubsub()
    await pubsub.psubscribe("bench:*")

    async def pump() -> None:
        async for message in pubsub.listen():
            if message["type"] == "pmessage":
                broadcast(app, message["channel"].decode()[len("bench:"):], message["data"])

    task = asyncio.create_task(pump())
    yield
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    await pubsub.aclose()  # type: ignore[no-untyped-call,unused-ignore]
    await redis.aclose()


def create_app(cap: int, redis_url: str | None) -> web.Application:
    app = web.Application()
    app[HUB] = Hub(cap=cap, redis=Redis.from_url(redis_url) if redis_url else None)
    app.cleanup_ctx.append(relay)
    app.router.add_get("/ws", session)
    return app


def baseline_args() -> argparse.Namespace:
    """The flags every Python baseline server takes (this one and bench/servers/picows_server.py), with uvloop
    installed when it is there."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--cap", type=int, default=1 << 20, help="write-buffer cap per spectator, bytes")
    parser.add_argument("--redis-url", default=None)
    args = parser.parse_args()
    with contextlib.suppress(ImportError):
        import uvloop

        uvloop.install()
    return args


def main() -> None:
    args = baseline_args()
    web.run_app(create_app(args.cap, args.redis_url), host=args.host, port=args.port, print=None,
                access_log=None)


if __name__ == "__main__":
    main()
