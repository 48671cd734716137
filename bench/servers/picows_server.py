"""Baseline at the limit: a broadcast server on picows (a Cython websocket library) built for speed, speaking the
benchmarks' part of the protocol as bench/servers/bare_aiohttp.py does.

`/ws`: any `hello` → `welcome`, `join` → `joined`, nothing validated; `mod_ruling` `{"room", "ruling": {"kind",
"data"}}` → one `ev` message, packed once and framed once, then `ack`. Unlike the bare aiohttp baseline, each
socket's frames are coalesced per loop turn: a frame is appended to the socket's pending list and one write per
socket goes out at the end of the turn (the same bytes object shared by every socket of the room). A socket whose
write buffer passes `--cap` bytes is cut off. With `--redis-url` the packed event goes through Redis pub/sub (channel
`bench:<room>`, one PUBLISH per event) and every process relays what it receives to its own spectators.

    python -m bench.servers.picows_server --port N [--cap BYTES] [--redis-url URL]
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import defaultdict
from typing import Any

import msgpack
from picows import WSFrame, WSListener, WSMsgType, WSTransport, WSUpgradeRequest, ws_create_server
from redis.asyncio import Redis

from bench.servers.bare_aiohttp import baseline_args, ws_frame


class Hub:
    """The rooms, their sequence numbers, and the sockets with frames waiting for the end of this loop turn."""

    def __init__(self, cap: int, redis: Redis | None) -> None:
        self.cap, self.redis = cap, redis
        self.rooms: defaultdict[str, set[Socket]] = defaultdict(set)
        self.seqs: defaultdict[str, int] = defaultdict(int)
        self.dirty: list[Socket] = []
        self.loop = asyncio.get_running_loop()

    def queue(self, sock: Socket, frame: bytes) -> None:
        if not sock.pending:
            if not self.dirty:
                self.loop.call_soon(self.flush)
            self.dirty.append(sock)
        sock.pending.append(frame)

    def flush(self) -> None:
        dirty, self.dirty = self.dirty, []
        for sock in dirty:
            pending, sock.pending = sock.pending, []
            transport = sock.transport
            if transport is None or transport.is_closing():
                continue
            transport.write(pending[0] if len(pending) == 1 else b"".join(pending))

    def broadcast(self, room: str, payload: bytes) -> None:
        frame = ws_frame(payload)
        members = self.rooms[room]
        for sock in list(members):
            transport = sock.transport
            if transport is None or transport.is_closing():
                members.discard(sock)
            elif transport.get_write_buffer_size() > self.cap:
                members.discard(sock)
                transport.abort()
            else:
                self.queue(sock, frame)

    def emit(self, room: str, ruling: dict[str, Any]) -> None:
        self.seqs[room] += 1
        ev = {"t": "ev", "room": room, "seq": self.seqs[room], "at_ms": int(time.time() * 1000),
              "kind": ruling["kind"], "data": ruling["data"]}
        payload = msgpack.packb(ev, use_bin_type=True)
        if self.redis is None:
            self.broadcast(room, payload)
        else:
            task = self.loop.create_task(self.publish(room, payload))
            PUBLISHING.add(task)
            task.add_done_callback(PUBLISHING.discard)

    async def publish(self, room: str, payload: bytes) -> None:
        assert self.redis is not None
        await self.redis.publish(f"bench:{room}", payload)


PUBLISHING: set[asyncio.Task[None]] = set()


class Socket(WSListener):
    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.transport: asyncio.Transport | None = None
        self.pending: list[bytes] = []
        self.joined: str | None = None

    def on_ws_connected(self, transport: WSTransport) -> None:
        self.transport = transport.underlying_transport

    def on_ws_disconnected(self, transport: WSTransport) -> None:
        if self.joined is not None:
            self.hub.rooms[self.joined].discard(self)
        self.transport = None

    def reply(self, msg: dict[str, Any]) -> None:
        self.hub.queue(self, ws_frame(msgpack.packb(msg)))

    def on_ws_frame(self, transport: WSTransport, frame: WSFrame) -> None:
        if frame.msg_type == WSMsgType.CLOSE:
            transport.send_close(frame.get_close_code())
            transport.disconnect()
            return
        if frame.msg_type != WSMsgType.BINARY:
            return
        m = msgpack.unpackb(frame.get_payload_as_bytes(), raw=False)
        t = m.get("t")
        hub = self.hub
        if t == "mod_ruling":
            room = str(m["room"])
            hub.emit(room, m["ruling"])
            self.reply({"t": "ack", "cid": m.get("cid", 0), "seq": hub.seqs[room]})
        elif t == "hello":
            self.reply({"t": "welcome", "cid": m.get("cid", 0), "role": "spectator"})
        elif t == "join":
            self.joined = str(m["room"])
            hub.rooms[self.joined].add(self)
            self.reply({"t": "joined", "cid": m.get("cid", 0), "room": self.joined})


async def relay(hub: Hub) -> None:
    if hub.redis is None:
        return
    pubsub = hub.redis.pubsub()
    await pubsub.psubscribe("bench:*")
    async for message in pubsub.listen():
        if message["type"] == "pmessage":
            hub.broadcast(message["channel"].decode()[len("bench:"):], message["data"])


async def serve(host: str, port: int, cap: int, redis_url: str | None) -> None:
    hub = Hub(cap, Redis.from_url(redis_url) if redis_url else None)

    def listener(request: WSUpgradeRequest) -> Socket | None:
        return Socket(hub) if request.path == b"/ws" else None

    server = await ws_create_server(listener, host, port, websocket_handshake_timeout=30)
    pump = asyncio.create_task(relay(hub))
    try:
        await server.serve_forever()
    finally:
        pump.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await pump


def main() -> None:
    args = baseline_args()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(args.host, args.port, args.cap, args.redis_url))


if __name__ == "__main__":
    main()
