"""A websocket's outbound side: flow control and closing, apart from what the session does with its messages.

Frames are complete websocket frames (server/net/frames.py), queued without waiting; the node's outbox writes a
socket's frames of one turn of the event loop in one go (server/net/outbox.py). A slow consumer is cut off with
close code 4008 rather than slowing the room: when the transport's buffer stays past `send_buffer_bytes` for
`stall_s` or goes past four times that, or when bytes stay queued (the transport's and the kernel's,
server/net/sockets.py) and the peer reads none of them for `drain_timeout_s`.

Close codes the server uses: 1008 flooding past the rate limit or guessing tokens, 1009 oversized frame (aiohttp),
4001 no `hello` in time, 4008 slow consumer, 4009 the same seat signed in again elsewhere, 4010 the token was
re-issued, 1001 server shutting down.
"""

from __future__ import annotations

import asyncio
import time

from aiohttp import web

from server.net.metrics import Metrics
from server.net.outbox import Outbox
from server.net.sockets import kernel_unsent, reset, socket_of
from server.settings import Settings

CLOSE_GOING_AWAY = 1001
CLOSE_POLICY = 1008
CLOSE_NO_HELLO = 4001
CLOSE_SLOW_CONSUMER = 4008
CLOSE_REPLACED = 4009
CLOSE_REVOKED = 4010
CLOSE_GRACE_S = 2.0  # for the peer to answer our close frame
SLOW_CLOSE_GRACE_S = 0.5


class SocketWriter:
    __slots__ = ("_answer", "_deferred", "_fd", "_limit", "_out", "_outbox", "_over_since", "_read", "_sent_at",
                 "_stuck_since", "_written", "closing", "closing_task", "metrics", "settings", "transport", "ws")

    def __init__(self, ws: web.WebSocketResponse, transport: asyncio.Transport | None, settings: Settings,
                 outbox: Outbox, metrics: Metrics):
        self.ws = ws
        self.transport = transport
        self.settings = settings
        self.metrics = metrics
        self.closing = False
        self.closing_task: asyncio.Task[None] | None = None
        self._outbox = outbox
        self._out: list[bytes] | None = None  # frames held since the last write
        self._answer = False  # an answer to this socket's own message is held: it leaves at the end of the turn
        self._deferred = False  # waiting out the outbox's write interval (in its `later` list)
        self._sent_at = float("-inf")  # loop time of the last write
        self._limit = settings.send_buffer_bytes
        self._over_since: float | None = None
        sock = socket_of(transport)
        self._fd = sock.fileno() if sock is not None else -1
        self._written = 0  # bytes written to the transport
        self._read = 0  # of which the peer had acknowledged at the last check
        self._stuck_since: float | None = None

    def write(self, wire: bytes) -> None:
        """Queue one broadcast frame, never waiting: it leaves at the end of the turn, or with the next write once the
        outbox's write interval since the last one is up (server/net/outbox.py)."""
        if self.closing:
            return
        out = self._out
        if out is None:
            self._out = [wire]
            held = self._outbox.held
            if held is None:
                self._outbox.hold(self)
            else:
                held.append(self)
        else:
            out.append(wire)

    def answer(self, wire: bytes) -> None:
        """Queue a frame answering this socket's own message (an ack, an error, a snapshot, a ping): it leaves at the
        end of this turn with whatever is held before it, write interval or not."""
        if self.closing:
            return
        self._answer = True
        out = self._out
        if out is None:
            self._out = [wire]
            self._outbox.hold(self)
        else:
            out.append(wire)
            if self._deferred:  # held for the interval: this turn's flush must see it again
                self._outbox.hold(self)

    def flush(self) -> None:
        """The turn is over: write what is held, unless this socket was written to less than the write interval ago
        and holds no answer (then the outbox writes it when the interval is up)."""
        if self._out is None:
            return  # written already (an answer's flush, or the interval's timer)
        outbox = self._outbox
        if not self._answer and outbox.now - self._sent_at < outbox.interval:
            if not self._deferred:
                self._deferred = True
                outbox.defer(self, self._sent_at + outbox.interval)
            return
        self.send_held()

    def send_held(self) -> None:
        """Write the frames held now. A transport whose buffer stays over `send_buffer_bytes` for `stall_s`, or goes
        over four times that, is a slow consumer and is cut off."""
        self._deferred = False
        out = self._out
        if out is None:
            return
        self._out, self._answer, self._sent_at = None, False, self._outbox.now
        transport = self.transport
        if self.closing or transport is None or transport.is_closing():
            return  # closing: what was queued before went out in close(); nothing follows a close frame
        if len(out) == 1:
            transport.write(out[0])
            self._written += len(out[0])
        else:
            transport.writelines(out)
            self._written += sum(map(len, out))
        buffered = transport.get_write_buffer_size()
        if buffered:  # the kernel's queue is full: look at the peer (the rare case, tested first only when true)
            if buffered > self._limit:
                self._backlogged(buffered)
            elif self._over_since is not None:
                self._over_since = None
            self._watch_drain(buffered)
        elif self._over_since is not None or self._stuck_since is not None:
            self._over_since = self._stuck_since = None  # the kernel took everything: the peer is reading

    def _watch_drain(self, buffered: int) -> None:
        """The kernel's queue is full (the transport holds bytes): has the peer read anything since the last
        look? Nothing for `drain_timeout_s` is a consumer that stopped reading."""
        now = time.monotonic()
        queued = buffered + (kernel_unsent(self._fd) or 0)
        read = self._written - queued
        if self._stuck_since is None or read > self._read:
            self._read, self._stuck_since = read, now
        elif now - self._stuck_since > self.settings.drain_timeout_s:
            self.close(CLOSE_SLOW_CONSUMER, "slow consumer: nothing read")

    def _backlogged(self, buffered: int) -> None:
        now = time.monotonic()
        if self._over_since is None:
            self._over_since = now
        if buffered > 4 * self._limit or now - self._over_since > self.settings.stall_s:
            self.close(CLOSE_SLOW_CONSUMER, "slow consumer: send buffer full")

    def close(self, code: int, reason: str) -> None:
        if self.closing:
            return
        if code != CLOSE_SLOW_CONSUMER:
            self.send_held()  # what was said before the close (an error, the last events) goes before it
        self.closing = True
        self.metrics.closes[code] += 1
        self.closing_task = asyncio.get_running_loop().create_task(self._close(code, reason))

    async def _close(self, code: int, reason: str) -> None:
        """Close with `code`; a peer that does not complete the closing handshake in time (a slow consumer cannot:
        it reads nothing) has its connection aborted, since a graceful close would wait to flush what it never
        reads and the peer would never learn it was cut off."""
        clean = False
        try:
            grace = SLOW_CLOSE_GRACE_S if code == CLOSE_SLOW_CONSUMER else CLOSE_GRACE_S
            await asyncio.wait_for(self.ws.close(code=code, message=reason.encode()), timeout=grace)
            clean = code != CLOSE_SLOW_CONSUMER
        except (TimeoutError, ConnectionError, RuntimeError):
            pass
        finally:
            if self.transport is not None and not clean:
                if code == CLOSE_SLOW_CONSUMER:
                    reset(self.transport)
                else:
                    self.transport.abort()
