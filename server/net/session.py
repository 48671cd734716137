"""One websocket session: decode and validate each frame, rate-limit, authenticate (`hello`), route the message to
the rooms layer and answer with its result or typed error — no rule of the game or of the rooms is decided here.
The socket's outbound side (queueing, flow control, the cut-off of a slow consumer, closing) is server/net/flow.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import secrets
import time
from collections.abc import Callable
from typing import Any

from aiohttp import web
from pydantic import BaseModel

from server.core.errors import RuleError
from server.net.flow import CLOSE_POLICY, SocketWriter
from server.net.frames import frame
from server.net.limits import FloodLimits
from server.net.metrics import Metrics
from server.net.outbox import Outbox
from server.net.ratelimit import TokenBucket
from server.rooms.errors import Retryable, RoomError
from server.rooms.hub import Hub
from server.rooms.members import Member
from server.rooms.requests import Request
from server.settings import Settings
from server.store import unreachable
from shared.protocol import client as c
from shared.protocol.codec import ProtocolError, decode_client, encode, encode_json
from shared.protocol.server import ERROR_CODES, Error, Joined, Options, Ping, Welcome, ack_message

log = logging.getLogger(__name__)

MAX_BAD_TOKENS = 5  # a connection guessing tokens is closed (1008) after this many
_COMMANDS = (c.Order, c.EndTurn, c.Chat, c.ModClock, c.ModRuling, c.ModSecretModule, c.ModRelease, c.ModMute,
             c.ModAi)

Command = tuple[str | None, str, dict[str, Any]]
"""(room, room command, its body): room None for the campaign room."""


def _order(s: Session, m: Any) -> Command:
    return m.room, "order", {"order": m.order, "lag_ms": s.rtt_ms}  # CLK-5: the link's measured lag


def _end_turn(s: Session, m: Any) -> Command:
    return m.room, "end_turn", {"lag_ms": s.rtt_ms}


def _chat(s: Session, m: Any) -> Command:
    return m.room, "chat", {"channel": m.channel, "text": m.text, "name": s.name}


def _clock(s: Session, m: Any) -> Command:
    return m.room, "clock", {"action": m.action, "team": m.team, "delta_ms": m.delta_ms}


def _ruling(s: Session, m: Any) -> Command:
    return m.room, "ruling", {"ruling": m.ruling}


def _mute(s: Session, m: Any) -> Command:
    return m.room, "mute", {"who": m.who, "muted": m.muted}


def _lock(s: Session, m: Any) -> Command:
    return None, "lock", {"player": m.player, "minutes": m.minutes, "reason": m.reason}


def _release(s: Session, m: Any) -> Command:
    return None, "release", {"player": m.player, "by": "moderator"}


def _ai(s: Session, m: Any) -> Command:
    return None, "mod_ai", {"player": m.player, "on": m.on}


ROUTES: dict[type[BaseModel], Callable[[Session, Any], Command]] = {
    c.Order: _order, c.EndTurn: _end_turn, c.Chat: _chat, c.ModClock: _clock, c.ModRuling: _ruling,
    c.ModSecretModule: _lock, c.ModRelease: _release, c.ModMute: _mute, c.ModAi: _ai,
}
"""Each client command as the room command it is, and the room it goes to."""


class Session:
    __slots__ = ("_bad_tokens", "_bucket", "_nonce", "_pings", "_strikes", "_tasks", "address", "flood", "hub", "id",
                 "json", "member", "metrics", "name", "out", "player", "rooms", "rtt_ms", "settings", "view_as",
                 "write")

    def __init__(self, ws: web.WebSocketResponse, hub: Hub, settings: Settings, outbox: Outbox, metrics: Metrics,
                 transport: asyncio.Transport | None = None, *, flood: FloodLimits | None = None,
                 address: str | None = None):
        self.id = secrets.token_hex(4)
        self.flood = flood
        self.address = address
        """The client address its token and address limits count (None: not limited, e.g. loopback)."""
        self.hub = hub
        self.settings = settings
        self.metrics = metrics
        self.out = SocketWriter(ws, transport, settings, outbox, metrics)
        self.write = self.out.write
        """Queue one complete frame (the rooms' feeds write the frames they built once for many sockets)."""
        self.member: Member | None = None
        self.player: str | None = None
        self.name: str | None = None
        self.json = False
        self.rooms: set[str] = set()
        self.view_as: dict[str, str | None] = {}
        self.rtt_ms = 0
        self._bucket = TokenBucket(self.settings.rate_per_s, self.settings.rate_burst)
        self._strikes = 0
        self._bad_tokens = 0
        self._pings: dict[int, float] = {}
        self._nonce = 0
        self._tasks: set[asyncio.Task[Any]] = set()

    @property
    def key(self) -> str:
        """`<node>/<id>`: how the deployment names this session."""
        return f"{self.hub.node}/{self.id}"

    @property
    def closing(self) -> bool:
        return self.out.closing

    @property
    def closing_task(self) -> asyncio.Task[None] | None:
        return self.out.closing_task

    def close(self, code: int, reason: str) -> None:
        self.out.close(code, reason)

    # --- outbound --------------------------------------------------------------------------------------------------

    def frame(self, payload: bytes | str) -> bytes:
        return frame(payload)

    def send(self, message: BaseModel | dict[str, Any]) -> None:
        """A message to this socket alone (answers, snapshots, pings)."""
        wire = frame(encode_json(message) if self.json else encode(message))
        metrics = self.metrics
        metrics.messages_out += 1
        metrics.bytes_out += len(wire)
        self.out.answer(wire)

    def error(self, cid: int | None, code: str, message: str, rule: str | None = None,
              details: dict[str, Any] | None = None, retry_after_ms: int | None = None) -> None:
        known = code if code in ERROR_CODES else "illegal_order"
        self.metrics.errors[known] += 1
        self.send(Error(cid=cid, code=known, message=message, rule=rule, details=details or {},
                        retry_after_ms=retry_after_ms))

    def spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def lockout_changed(self, room: str, away: bool) -> None:
        """Sent to or back from the secret module: resend the room as this player may now see it."""
        if self.member is not None and room in self.rooms:
            self.spawn(self._resync(self.member, room))

    def resync(self, room: str, since: int) -> None:
        """The feed saw a gap: join again from the last event this socket got."""
        if self.member is not None:
            self.spawn(self._resync(self.member, room, since))

    async def _resync(self, member: Member, room: str, since: int | None = None) -> None:
        with contextlib.suppress(RuleError):
            await self.hub.join(self, member, room, since, self.send, view_as=self.view_as.get(room))

    # --- pings (round trip for lag credit) ---------------------------------------------------------------------

    async def pinger(self) -> None:
        while not self.closing:
            await asyncio.sleep(self.settings.ping_interval_s)
            self._nonce += 1
            self._pings[self._nonce] = time.monotonic()
            if len(self._pings) > 64:
                self._pings.pop(next(iter(self._pings)))
            self.send(Ping(nonce=self._nonce, server_ms=self.hub.now()))

    def _pong(self, nonce: int) -> None:
        sent = self._pings.pop(nonce, None)
        if sent is not None:
            rtt = int((time.monotonic() - sent) * 1000)
            self.rtt_ms = rtt if self.rtt_ms == 0 else (self.rtt_ms * 3 + rtt) // 4

    # --- inbound ---------------------------------------------------------------------------------------------------

    def _refuse_rate(self, cid: int | None, message: str, wait_s: float) -> None:
        """A message over a rate limit is refused unread, answering its cid so the client knows which and may send
        it again after `retry_after_ms`; past `rate_strikes` refusals the socket is closed."""
        self._strikes += 1
        if self._strikes > self.settings.rate_strikes:
            self.close(CLOSE_POLICY, "flooding")
        else:
            self.error(cid, "rate_limited", message, retry_after_ms=max(1, math.ceil(wait_s * 1000)))

    def _over_rate(self, cid: int | None) -> bool:
        """The connection's own budget: one message taken from it, or refused when it is spent."""
        wait = self._bucket.take()
        if wait is not None:
            self._refuse_rate(cid, f"more than {self.settings.rate_per_s:g} messages a second", wait)
        return wait is not None

    async def on_frame(self, data: bytes | str) -> None:
        try:
            msg = decode_client(data)
        except ProtocolError as exc:
            if not self._over_rate(exc.cid):  # garbage counts against the rate like any message
                self.error(exc.cid, exc.code, exc.message)
            return
        if isinstance(msg, c.Pong) and msg.nonce in self._pings:  # the server asked for it: not counted
            self._pong(msg.nonce)
            return
        if self._over_rate(msg.cid):
            return
        if self.flood is not None and not isinstance(msg, (c.Pong, c.Hello)):
            member = self.member  # issue 12 §13: a shared token or one address over many sockets is limited too
            over = self.flood.over(f"{member.campaign}/{member.player}" if member is not None else None,
                                   self.address)
            if over is not None:
                self._refuse_rate(msg.cid, f"too many messages a second from {over[0]}", over[1])
                return
        self.metrics.messages_in[msg.t] += 1
        started = time.perf_counter()
        try:
            await self._dispatch(msg, isinstance(data, str))
        except Retryable as exc:
            self.error(msg.cid, exc.code, exc.message, exc.rule, exc.details, exc.retry_after_ms)
        except RuleError as exc:
            self.error(msg.cid, exc.code, exc.message, exc.rule, exc.details)
        except Exception as exc:
            if unreachable(exc):  # the store is out of reach: nothing was done, retry later (docs/protocol.md)
                self.error(msg.cid, "unavailable", "the server cannot reach its store just now; try again", None,
                           None, 1000)
            else:
                log.exception("internal error on %s", msg.t)
                self.error(msg.cid, "internal", "internal error")
        if isinstance(msg, _COMMANDS):
            self.metrics.observe_command((time.perf_counter() - started) * 1000)

    async def _dispatch(self, msg: c.ClientMessage, json_frame: bool) -> None:
        if isinstance(msg, c.Hello):
            await self._hello(msg, json_frame)
            return
        if isinstance(msg, c.Pong):
            self._pong(msg.nonce)
            return
        member = self.member
        if member is None:
            raise RoomError("not_authenticated", "send hello with your token first")
        if isinstance(msg, c.Join):
            entry = await self.hub.enter(self, member, msg.room, msg.since, self.send, view_as=msg.view_as)
            self.view_as[msg.room] = msg.view_as
            self.rooms.add(msg.room)
            self.send(Joined(cid=msg.cid, room=msg.room, seq=entry.seq, channels=entry.channels))
            return
        if isinstance(msg, c.Leave):
            self.rooms.discard(msg.room)
            await self.hub.leave(self, msg.room)
            self.send(ack_message(msg.cid, None))
            return
        if isinstance(msg, c.OptionsRequest):
            if msg.room not in self.rooms:
                raise RoomError("not_joined", f"join {msg.room} first")
            answer = await self.hub.options(member, msg.room, msg.unit)
            self.send(Options.model_validate({"cid": msg.cid, "room": msg.room, "unit": msg.unit,
                                              "options": answer}))
            return
        room, kind, body = ROUTES[type(msg)](self, msg)
        if room is not None and room not in self.rooms:
            raise RoomError("not_joined", f"join {room} first")
        request = Request.of_message(msg)  # None for cid 0, which opts out of exactly-once (requests.py)
        seq = await self.hub.command(member, room, kind, body, request)
        self.send(ack_message(msg.cid, seq))

    async def _hello(self, msg: c.Hello, json_frames: bool) -> None:
        if self.member is not None:
            raise RoomError("bad_token", "this session is already signed in; open a new connection")
        self.json = json_frames
        signed = await self.hub.sign_in(msg.token, self.key)
        if signed is None:
            self._bad_tokens += 1
            if self._bad_tokens >= MAX_BAD_TOKENS:
                self.close(CLOSE_POLICY, "too many bad tokens")
            raise RoomError("bad_token", "unknown token")
        member = signed.member
        self.member, self.player, self.name = member, member.player, msg.name
        self.send(Welcome(cid=msg.cid, session=self.key, player=member.player, role=member.role, team=member.team,
                          seat=member.seat, campaign=member.campaign, rooms=signed.rooms,
                          server_ms=self.hub.now(), locked_until_ms=signed.locked_until_ms))

    async def finish(self) -> None:
        self.out.closing = True
        for room in list(self.rooms):
            await self.hub.leave(self, room)
        if self.member is not None:
            self.hub.sign_out(self.member, self.key)
        for task in list(self._tasks):
            if task is not asyncio.current_task():
                task.cancel()
