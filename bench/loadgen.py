"""The load generator: raw-socket websocket clients on asyncio, cheap enough not to be the bottleneck.

- `Sink`: a spectator that only walks frame headers and counts `ev` frames and bytes (no msgpack parsing).
- `Probe`: a spectator that parses every `ev` frame and records end-to-end latency from `data.bt`, the sender's
  `time.perf_counter()` (CLOCK_MONOTONIC, the same clock in every process of the machine).
- `Publisher`: the room's moderator sending `mod_ruling` `{"type": "emit", "kind", "data"}` at a paced rate, each
  of which becomes one event (our server: through the bench engine, bench/servers/bench_engine.py).

Every server in the benchmarks speaks the same small part of the protocol to these clients: `hello` → `welcome`,
`join` → (snapshot, history) `joined`, then `ev` frames; `mod_ruling` → events and `ack`; `ping` messages are
answered with `pong`.
Client frames use the zero mask (legal per RFC 6455; the server still unmasks), so that the load generator spends
nothing on masking. No extension is offered, so there is no permessage-deflate.
"""

from __future__ import annotations

import asyncio
import base64
import os
import socket
import struct
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import msgpack

EV_PREFIX = b"\xa1t\xa2ev"  # a packed map starting {"t": "ev", ...}: bytes 1..6 of every ev frame
LAZY_BYTES = 32 * 1024
_SENTINEL = 1234.5678901234
_BT_KEY = b"\xa2bt\xcb"  # "bt": float64
_SEQ_KEY = b"\xa3seq"
_DOUBLE = struct.Struct(">d")
_OP_TEXT, _OP_BINARY, _OP_CLOSE, _OP_PING, _OP_PONG = 0x1, 0x2, 0x8, 0x9, 0xA


class HandshakeError(Exception):
    pass


def _read_uint(buf: bytearray, at: int) -> int:
    """A msgpack unsigned int at `at` (fixint, uint8/16/32/64)."""
    tag = buf[at]
    if tag < 0x80:
        return tag
    width = {0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8}.get(tag)
    if width is None:
        return -1
    return int.from_bytes(buf[at + 1 : at + 1 + width], "big")


def client_frame(payload: bytes, opcode: int = _OP_BINARY) -> bytes:
    """A masked client frame with the zero mask key (the payload goes out as is)."""
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
    elif n < 65536:
        head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
    return head + b"\0\0\0\0" + payload


class WsClient(asyncio.Protocol):
    """One websocket connection. Until `counting` is set, every data frame is parsed and queued as a message."""

    def __init__(self, path: str, host: str, port: int, probe: bool = False) -> None:
        self.path, self.host, self.port, self.probe = path, host, port, probe
        self.transport: asyncio.Transport | None = None
        self.handshaken: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.counting = False
        self.buf = bytearray()
        self.frames = 0
        self.bytes = 0
        self.others = 0
        self.latencies: list[float] = []
        self.last_seq = -1
        self.gaps = 0
        self.closed_at: float | None = None
        self.local_port = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's transports are not asyncio subclasses
        self.local_port = int(self.transport.get_extra_info("sockname")[1])
        key = base64.b64encode(os.urandom(16)).decode()
        self.transport.write(
            f"GET {self.path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
        )

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed_at = time.perf_counter()
        if not self.handshaken.done():
            self.handshaken.set_exception(HandshakeError(f"closed during handshake: {exc}"))
        if not self.closed.done():
            self.closed.set_result(None)

    def data_received(self, data: bytes) -> None:
        buf = self.buf
        buf += data
        if not self.handshaken.done():
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            status = bytes(buf[: buf.find(b"\r\n")])
            del buf[: end + 4]
            if b" 101 " not in status:
                self.handshaken.set_exception(HandshakeError(status.decode(errors="replace")))
                return
            self.handshaken.set_result(None)
        self._frames()

    def _frames(self) -> None:
        buf = self.buf
        pos, end = 0, len(buf)
        counting, probe = self.counting, self.probe
        frames = nbytes = 0
        while end - pos >= 2:
            b0, b1 = buf[pos], buf[pos + 1]
            n = b1 & 0x7F
            head = 2
            if n == 126:
                if end - pos < 4:
                    break
                n = (buf[pos + 2] << 8) | buf[pos + 3]
                head = 4
            elif n == 127:
                if end - pos < 10:
                    break
                n = int.from_bytes(buf[pos + 2 : pos + 10], "big")
                head = 10
            stop = pos + head + n
            if stop > end:
                break
            start = pos + head
            pos = stop
            opcode = b0 & 0x0F
            if counting and opcode == _OP_BINARY and buf.startswith(EV_PREFIX, start + 1):
                frames += 1
                nbytes += n
                if probe:
                    self._probe(buf, start, stop)
                continue
            self._control(opcode, bytes(buf[start:stop]))
        self.frames += frames
        self.bytes += nbytes
        if pos:
            del buf[:pos]

    def _probe(self, buf: bytearray, start: int, stop: int) -> None:
        """Latency from `data.bt` and a gap check on `seq`, read in place (both are found by their packed keys)."""
        now = time.perf_counter()
        at = buf.find(_BT_KEY, start, stop)
        if at < 0:
            return
        (bt,) = _DOUBLE.unpack_from(buf, at + len(_BT_KEY))
        self.latencies.append(now - bt)
        at = buf.find(_SEQ_KEY, start, stop) + len(_SEQ_KEY)
        seq = _read_uint(buf, at)
        if self.last_seq >= 0 and seq != self.last_seq + 1:
            self.gaps += 1
        self.last_seq = seq

    def _control(self, opcode: int, payload: bytes) -> None:
        if opcode == _OP_PING:
            self.send(payload, _OP_PONG)
        elif opcode == _OP_CLOSE:
            if self.transport is not None:
                self.transport.close()
        elif opcode in (_OP_BINARY, _OP_TEXT):
            msg = msgpack.unpackb(payload, raw=False) if opcode == _OP_BINARY else {"t": "text"}
            if isinstance(msg, dict) and msg.get("t") == "ping":
                self.send(msgpack.packb({"t": "pong", "cid": 0, "nonce": msg.get("nonce", 0)}))
            if self.counting:
                self.others += 1
            else:
                self.inbox.put_nowait(msg)

    def lazy(self, on: bool) -> None:
        """Sinks: have the kernel wake this socket only once `LAZY_BYTES` have arrived (SO_RCVLOWAT), so that
        a read takes many frames at once; switched off (1 byte) to drain at the end of a step."""
        transport = self.transport
        if transport is None or transport.is_closing() or self.probe:
            return  # a socket the server cut off (a slow consumer at a rate past its ceiling) has no options left
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.fileno() >= 0:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVLOWAT, LAZY_BYTES if on else 1)

    def stall(self) -> None:
        """Stop reading, as a client on a dead mobile link does: the receive window closes, the server's queue
        for this socket grows."""
        if self.transport is None:
            return
        sock = self.transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.transport.pause_reading()

    def send(self, payload: bytes, opcode: int = _OP_BINARY) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(client_frame(payload, opcode))

    async def request(self, msg: dict[str, Any], until: str, limit: float = 30.0) -> list[dict[str, Any]]:
        """Send a message; return the messages received up to and including the first of type `until`."""
        self.send(msgpack.packb(msg))
        got: list[dict[str, Any]] = []
        async with asyncio.timeout(limit):
            while True:
                reply = await self.inbox.get()
                got.append(reply)
                if reply.get("t") == until:
                    return got
                if reply.get("t") == "error":
                    raise HandshakeError(f"{msg.get('t')} refused: {reply}")

    def close(self) -> None:
        if self.transport is not None:
            self.transport.abort()


async def open_ws(host: str, port: int, path: str, probe: bool = False) -> WsClient:
    loop = asyncio.get_running_loop()
    _, proto = await loop.create_connection(lambda: WsClient(path, host, port, probe), host, port)
    await asyncio.wait_for(proto.handshaken, 30)
    return proto


async def spectator(host: str, port: int, token: str, room: str, probe: bool = False) -> WsClient:
    """A spectator that said hello, joined `room` and now only counts (or probes) `ev` frames."""
    ws = await open_ws(host, port, "/ws", probe)
    await ws.request({"t": "hello", "cid": 1, "token": token}, "welcome")
    await ws.request({"t": "join", "cid": 2, "room": room}, "joined")
    ws.counting = True
    ws._frames()
    return ws


async def spectators(host: str, port: int, plan: Sequence[tuple[str, str, bool]], batch: int = 50) -> list[WsClient]:
    """One spectator per (token, room, probe) of `plan`, connected `batch` at a time."""
    out: list[WsClient] = []
    for first in range(0, len(plan), batch):
        out += await asyncio.gather(*(spectator(host, port, *entry) for entry in plan[first : first + batch]))
    return out


class Publisher:
    """The room's moderator, sending `mod_ruling` `{"type": "emit", "kind", "data"}` at a paced rate; each becomes
    one event. `data.bt` is patched into the pre-packed frame at send time."""

    def __init__(self, ws: WsClient, room: str, data: dict[str, Any], kind: str = "bench") -> None:
        self.ws = ws
        body = {"bt": _SENTINEL, **{k: v for k, v in data.items() if k != "bt"}}
        ruling = {"type": "emit", "kind": kind, "data": body}
        packed = msgpack.packb({"t": "mod_ruling", "cid": 0, "room": room, "ruling": ruling}, use_bin_type=True)
        marker = b"\xcb" + struct.pack(">d", _SENTINEL)
        at = packed.find(marker)
        assert at >= 0 and packed.count(marker) == 1
        self.frame = bytearray(client_frame(packed))
        self.bt_at = len(self.frame) - len(packed) + at + 1
        self.sent = 0

    def send_one(self) -> None:
        struct.pack_into(">d", self.frame, self.bt_at, time.perf_counter())
        transport = self.ws.transport
        if transport is not None and not transport.is_closing():
            transport.write(bytes(self.frame))
            self.sent += 1

    def close(self) -> None:
        self.ws.close()


async def pace(publishers: Sequence[Publisher], rate: float, seconds: float, tick: float = 0.002) -> int:
    """Each publisher sends `rate` events/s for `seconds`, catching up every tick; returns how many each sent."""
    start = time.perf_counter()
    sent = 0
    while True:
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
        due = int(elapsed * rate) + 1 - sent
        for _ in range(due):
            for p in publishers:
                p.send_one()
        sent += max(0, due)
        await asyncio.sleep(tick)
    return sent


def frames(clients: Sequence[WsClient]) -> int:
    """`ev` frames received so far by all of `clients`."""
    return sum(c.frames for c in clients)


async def publisher(host: str, port: int, token: str, room: str, data: dict[str, Any]) -> Publisher:
    ws = await spectator(host, port, token, room)
    return Publisher(ws, room, data)


def take_latencies(clients: Sequence[WsClient]) -> list[float]:
    out: list[float] = []
    for c in clients:
        out += c.latencies
        c.latencies = []
    return out


async def drain(clients: Sequence[WsClient], expected: int, base: int, quiet: float = 0.3, limit: float = 3.0) -> int:
    """Wait until `expected` frames beyond `base` arrived, or nothing arrived for `quiet` s, or `limit` s passed."""
    for c in clients:
        c.lazy(False)
    deadline = time.perf_counter() + limit
    last = -1
    last_change = time.perf_counter()
    while time.perf_counter() < deadline:
        got = sum(c.frames for c in clients) - base
        if got >= expected:
            return got
        if got != last:
            last, last_change = got, time.perf_counter()
        elif time.perf_counter() - last_change > quiet:
            break
        await asyncio.sleep(0.02)
    return sum(c.frames for c in clients) - base


@dataclass(frozen=True)
class TcpEnd:
    """One end of a TCP connection as the kernel has it (/proc/net/tcp)."""

    state: int  # 1 established; 4 FIN_WAIT1 (closed by its process, the FIN queued behind unsent bytes); …
    send_queue: int  # bytes written and not yet acknowledged by the peer
    receive_queue: int  # bytes received and not yet read by the process
    inode: int  # 0: no process holds it any more


def tcp_ends(port: int) -> dict[tuple[int, int], TcpEnd]:
    """The IPv4 connections with `port` on either end, by (local port, remote port)."""
    out: dict[tuple[int, int], TcpEnd] = {}
    mark = f":{port:04X} "
    with open("/proc/net/tcp") as table:
        next(table)
        for line in table:
            if mark not in line:
                continue
            f = line.split()
            local, remote = int(f[1].rsplit(":", 1)[1], 16), int(f[2].rsplit(":", 1)[1], 16)
            if port in (local, remote):
                tx, rx = f[4].split(":")
                out[local, remote] = TcpEnd(int(f[3], 16), int(tx, 16), int(rx, 16), int(f[9]))
    return out


def alive(clients: Sequence[WsClient]) -> int:
    return sum(1 for c in clients if not c.closed.done())
