"""One websocket session: authentication, roles, the command loop and the bounded outbound queue.

Outbound payloads are framed once (server/net/frames.py) and queued; the node's outbox writes each socket's frames
of one turn of the event loop in one go (server/net/outbox.py); nothing waits. A slow consumer is cut off with close
code 4008 rather than slowing the room: when the transport's buffer stays past `send_buffer_bytes` for `stall_s` or
goes past four times that, or when bytes stay queued (the transport's and the kernel's, server/net/sockets.py) and
the peer reads none of them for `drain_timeout_s`.

Close codes the server uses: 1008 flooding past the rate limit, 1009 oversized frame (aiohttp), 4001 no `hello` in
time, 4008 slow consumer, 4009 the same seat signed in again elsewhere, 4010 the token was re-issued, 1001 server
shutting down.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from typing import TYPE_CHECKING, Any

from aiohttp import web

from server.core.errors import RuleError
from server.net.frames import frame
from server.net.sockets import kernel_unsent, reset, socket_of
from server.rooms import channels
from server.rooms.errors import RoomError
from server.rooms.ids import RoomId
from server.rooms.members import Member
from shared.protocol import client as c
from shared.protocol.codec import ProtocolError, decode_client, encode, encode_json

if TYPE_CHECKING:
    from server.net.app import Node

log = logging.getLogger(__name__)

CLOSE_POLICY = 1008
CLOSE_NO_HELLO = 4001
CLOSE_SLOW_CONSUMER = 4008
CLOSE_REPLACED = 4009
CLOSE_REVOKED = 4010
_COMMANDS = (c.Order, c.EndTurn, c.Chat, c.ModClock, c.ModRuling, c.ModSecretModule, c.ModRelease)
CLOSE_GRACE_S = 2.0  # for the peer to answer our close frame
SLOW_CLOSE_GRACE_S = 0.5
MAX_BAD_TOKENS = 5  # a connection guessing tokens is closed (1008) after this many
_KNOWN_CODES = {
    "bad_frame", "bad_message", "unknown_type", "frame_too_large", "not_authenticated", "bad_token", "forbidden",
    "not_your_team", "not_joined", "no_such_room", "no_such_player", "no_such_channel", "rate_limited",
    "locked_out", "not_your_turn", "game_over", "illegal_order", "bad_order", "unknown_order", "not_your_unit",
    "clock_error", "internal",
}


class Session:
    def __init__(self, ws: web.WebSocketResponse, node: Node, transport: asyncio.Transport | None = None):
        self.ws = ws
        self.transport = transport
        self.id = secrets.token_hex(4)
        self.node = node
        self.settings = node.settings
        self.member: Member | None = None
        self.player: str | None = None
        self.name: str | None = None
        self.json = False
        self.rooms: set[str] = set()
        self.view_as: dict[str, str | None] = {}
        self.rtt_ms = 0
        self.closing = False
        self._over_since: float | None = None
        sock = socket_of(transport)
        self._fd = sock.fileno() if sock is not None else -1
        self._written = 0  # bytes this session wrote to the transport
        self._read = 0  # of which the peer had acknowledged at the last check
        self._stuck_since: float | None = None
        self._limit = self.settings.send_buffer_bytes
        self._tokens = float(self.settings.rate_burst)
        self._refill_at = time.monotonic()
        self._strikes = 0
        self._bad_tokens = 0
        self._pings: dict[int, float] = {}
        self._nonce = 0
        self._tasks: set[asyncio.Task[Any]] = set()
        self.closing_task: asyncio.Task[None] | None = None
        self._out: list[bytes] | None = None  # frames written this turn of the loop (server/net/outbox.py)
        self._outbox = node.outbox

    # --- outbound --------------------------------------------------------------------------------------------------

    def frame(self, payload: bytes | str) -> bytes:
        return frame(payload)

    def write(self, wire: bytes) -> None:
        """Queue one complete frame, never waiting: the node's outbox writes this turn's frames in one go."""
        if self.closing:
            return
        out = self._out
        if out is None:
            self._out = [wire]
            self._outbox.hold(self)
        else:
            out.append(wire)

    def flush(self) -> None:
        """Write the frames queued this turn. A transport whose buffer stays over `send_buffer_bytes` for
        `stall_s`, or goes over four times that, is a slow consumer and is cut off."""
        out, self._out = self._out, None
        transport = self.transport
        if not out or self.closing or transport is None or transport.is_closing():
            return  # closing: what was queued before went out in close(); nothing follows a close frame
        if len(out) == 1:
            transport.write(out[0])
            self._written += len(out[0])
        else:
            transport.writelines(out)
            self._written += sum(map(len, out))
        buffered = transport.get_write_buffer_size()
        if buffered > self._limit:
            self._backlogged(buffered)
        elif self._over_since is not None:
            self._over_since = None
        if buffered:
            self._watch_drain(buffered)
        elif self._stuck_since is not None:
            self._stuck_since = None  # the kernel took everything: the peer is reading

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

    def send_frame(self, payload: bytes | str) -> None:
        """A message to this socket alone (answers, snapshots, pings)."""
        wire = frame(payload)
        metrics = self.node.metrics
        metrics.messages_out += 1
        metrics.bytes_out += len(wire)
        self.write(wire)

    def send(self, message: dict[str, Any]) -> None:
        self.send_frame(encode_json(message) if self.json else encode(message))

    def error(self, cid: int | None, code: str, message: str, rule: str | None = None,
              details: dict[str, Any] | None = None) -> None:
        code = code if code in _KNOWN_CODES else "illegal_order"
        self.node.metrics.errors[code] += 1
        self.send({"t": "error", "cid": cid, "code": code, "message": message, "rule": rule,
                   "details": details or {}})

    def close(self, code: int, reason: str) -> None:
        if self.closing:
            return
        if code != CLOSE_SLOW_CONSUMER:
            self.flush()  # what was said before the close (an error, the last events) goes before it
        self.closing = True
        self.node.metrics.closes[code] += 1
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

    def spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def lockout_changed(self, room: str, away: bool) -> None:
        """Sent to or back from the secret module: resend the room as this player may now see it."""
        if self.member is not None and room in self.rooms:
            member = self.member
            self.spawn(self._resync(member, room))

    def resync(self, room: str, since: int) -> None:
        """The feed saw a gap: join again from the last event this socket got."""
        if self.member is not None:
            self.spawn(self._resync(self.member, room, since))

    async def _resync(self, member: Member, room: str, since: int | None = None) -> None:
        with contextlib.suppress(RuleError):
            await self.node.hub.join(self, member, room, since, self.send, view_as=self.view_as.get(room))

    # --- pings (round trip for lag credit) ----------------------------------------------------------------------

    async def pinger(self) -> None:
        while not self.closing:
            await asyncio.sleep(self.settings.ping_interval_s)
            self._nonce += 1
            self._pings[self._nonce] = time.monotonic()
            if len(self._pings) > 64:
                self._pings.pop(next(iter(self._pings)))
            self.send({"t": "ping", "nonce": self._nonce, "server_ms": self.node.hub.now()})

    def _pong(self, nonce: int) -> None:
        sent = self._pings.pop(nonce, None)
        if sent is not None:
            rtt = int((time.monotonic() - sent) * 1000)
            self.rtt_ms = rtt if self.rtt_ms == 0 else (self.rtt_ms * 3 + rtt) // 4

    # --- inbound ---------------------------------------------------------------------------------------------------

    def _allow(self) -> bool:
        now = time.monotonic()
        s = self.settings
        self._tokens = min(float(s.rate_burst), self._tokens + (now - self._refill_at) * s.rate_per_s)
        self._refill_at = now
        if self._tokens >= 1:
            self._tokens -= 1
            return True
        return False

    async def on_frame(self, frame: bytes | str) -> None:
        if not self._allow():
            self._strikes += 1
            if self._strikes > self.settings.rate_strikes:
                self.close(CLOSE_POLICY, "flooding")
            else:
                self.error(None, "rate_limited", f"more than {self.settings.rate_per_s:g} messages a second")
            return
        try:
            msg = decode_client(frame)
        except ProtocolError as exc:
            self.error(exc.cid, exc.code, exc.message)
            return
        self.node.metrics.messages_in[msg.t] += 1
        started = time.perf_counter()
        try:
            await self._dispatch(msg, frame)
        except RuleError as exc:
            self.error(msg.cid, exc.code, exc.message, exc.rule, exc.details)
        except Exception:
            log.exception("internal error on %s", msg.t)
            self.error(msg.cid, "internal", "internal error")
        if isinstance(msg, _COMMANDS):
            self.node.metrics.observe_command((time.perf_counter() - started) * 1000)

    async def _dispatch(self, msg: c.ClientMessage, frame: bytes | str) -> None:
        if isinstance(msg, c.Hello):
            await self._hello(msg, isinstance(frame, str))
            return
        if isinstance(msg, c.Pong):
            self._pong(msg.nonce)
            return
        member = self.member
        if member is None:
            raise RoomError("not_authenticated", "send hello with your token first")
        if isinstance(msg, c.Join):
            await self._join(member, msg)
        elif isinstance(msg, c.Leave):
            self.rooms.discard(msg.room)
            await self.node.hub.leave(self, msg.room)
            self.send({"t": "ack", "cid": msg.cid, "seq": None})
        elif isinstance(msg, c.ModSecretModule | c.ModRelease):
            if member.role != "moderator":
                raise RoomError("forbidden", "only the moderator sends players to the secret module")
            room = RoomId.campaign_room(member.campaign)
            if isinstance(msg, c.ModSecretModule):
                body: dict[str, Any] = {"player": msg.player, "minutes": msg.minutes, "reason": msg.reason}
                await self._command(msg.cid, room, "lock", body, member)
            else:
                await self._command(msg.cid, room, "release", {"player": msg.player, "by": "moderator"}, member)
        else:
            if msg.room not in self.rooms:
                raise RoomError("not_joined", f"join {msg.room} first")
            if isinstance(msg, c.Order):
                await self._command(msg.cid, msg.room, "order", {"order": msg.order}, member)
            elif isinstance(msg, c.EndTurn):
                await self._command(msg.cid, msg.room, "end_turn", {"lag_ms": self.rtt_ms}, member)
            elif isinstance(msg, c.Chat):
                secret = RoomId(msg.room).kind == "secret_module"
                if secret and member.role == "player" and not await self.node.hub.lockout_of(member):
                    raise RoomError("forbidden", "you are back from the secret module", rule="D-N-14")
                await self._command(msg.cid, msg.room, "chat", {"channel": msg.channel, "text": msg.text,
                                                                  "name": self.name}, member)
            elif isinstance(msg, c.ModClock):
                body = {"action": msg.action, "team": msg.team, "delta_ms": msg.delta_ms}
                await self._command(msg.cid, msg.room, "clock", body, member)
            elif isinstance(msg, c.ModRuling):
                await self._command(msg.cid, msg.room, "ruling", {"ruling": msg.ruling}, member)

    async def _command(self, cid: int, room: str, kind: str, body: dict[str, Any], member: Member) -> None:
        seq = await self.node.hub.submit(room, kind, body, member)
        self.send({"t": "ack", "cid": cid, "seq": seq})

    async def _hello(self, msg: c.Hello, json_frames: bool) -> None:
        if self.member is not None:
            raise RoomError("bad_token", "this session is already signed in; open a new connection")
        self.json = json_frames
        member = await self.node.hub.authenticate(msg.token)
        if member is None:
            self._bad_tokens += 1
            if self._bad_tokens >= MAX_BAD_TOKENS:
                self.close(CLOSE_POLICY, "too many bad tokens")
            raise RoomError("bad_token", "unknown token")
        self.member, self.player, self.name = member, member.player, msg.name
        self.node.sign_in(self)
        away = await self.node.hub.lockout_of(member)
        rooms = [RoomId.campaign_room(member.campaign)]
        if member.role == "moderator" or away is not None:
            rooms.append(RoomId.secret_room(member.campaign))
        self.send({
            "t": "welcome", "cid": msg.cid, "session": f"{self.node.hub.node}/{self.id}", "player": member.player,
            "role": member.role, "team": member.team, "seat": member.seat, "campaign": member.campaign,
            "rooms": rooms, "server_ms": self.node.hub.now(), "locked_until_ms": away.until_ms if away else None,
        })

    async def _join(self, member: Member, msg: c.Join) -> None:
        room_id = RoomId.parse(msg.room)
        if room_id is None or room_id.campaign != member.campaign:
            raise RoomError("no_such_room", f"no room {msg.room} in your campaign")
        if room_id.kind == "secret_module" and member.role != "moderator" and (
                member.role == "spectator" or await self.node.hub.lockout_of(member) is None):
                raise RoomError("forbidden", "only the moderator and players sent there enter the secret module",
                                rule="D-N-14")
        if msg.view_as is not None and member.role != "moderator":
            raise RoomError("forbidden", "only the moderator sees the room as others see it")
        _, seq, viewer = await self.node.hub.join(self, member, msg.room, msg.since, self.send,
                                                  view_as=msg.view_as)
        self.view_as[msg.room] = msg.view_as
        self.rooms.add(msg.room)
        teams = [t["colour"] for t in (await self._teams(member))]
        self.send({"t": "joined", "cid": msg.cid, "room": msg.room, "seq": seq,
                   "channels": channels.readable(viewer, teams)})

    async def _teams(self, member: Member) -> list[dict[str, Any]]:
        meta = await self.node.hub.store.grants.get_campaign(member.campaign)
        return list(meta["teams"]) if meta else []

    async def finish(self) -> None:
        self.closing = True
        for room in list(self.rooms):
            await self.node.hub.leave(self, room)
        self.node.sign_out(self)
        for task in list(self._tasks):
            if task is not asyncio.current_task():
                task.cancel()
