"""A room's fan-out on one node: the room's events arrive from the bus and go to the local sessions following it.

Each event is encoded and framed once (msgpack, and JSON only if a JSON client follows) and the same bytes are
written to every socket whose viewer class may see it; outbound messages are not re-validated. A subscription
starts *pending*: events that arrive while its catch-up is being built are held, then everything after the
catch-up's sequence number is released, so a (re)joining client gets no gap and no duplicate.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from server.bus.base import LoggedEvent
from server.core.engine import MODERATOR, PUBLIC, SPECTATOR
from shared.protocol.codec import encode, encode_json


class Outlet(Protocol):
    """A session's socket as the feed sees it."""

    json: bool
    player: str | None

    def frame(self, payload: bytes | str) -> bytes:
        """The complete websocket frame carrying `payload`: the same bytes for every socket."""
        ...

    def write(self, wire: bytes) -> None:
        """Write a frame without waiting (the session cuts off a consumer whose buffer stays full)."""
        ...

    def lockout_changed(self, room: str, away: bool) -> None:
        """The player was sent to or came back from the secret module (the session resyncs its view)."""
        ...

    def resync(self, room: str, since: int) -> None:
        """Events after `since` were lost on the way (pub/sub is at most once): catch up from the room's log."""
        ...


class Subscription:
    __slots__ = ("last", "outlet", "pending", "viewer")

    def __init__(self, outlet: Outlet, viewer: str):
        self.outlet = outlet
        self.viewer = viewer
        self.last = -1
        self.pending: list[LoggedEvent] | None = []


def _wall_ms() -> int:
    return time.time_ns() // 1_000_000


class Feed:
    def __init__(self, room: str, now: Callable[[], int] = _wall_ms):
        self.room = room
        self.subs: dict[Outlet, Subscription] = {}
        self.now = now
        self.spectator_delay_ms = 0
        """Spectators get each event this long after it happened (the moderator's `spectator_delay` ruling)."""
        self.seen: int | None = None  # the last sequence number the bus brought (or a catch-up reached)
        self.joining = 0  # joins in progress (the hub keeps the feed while > 0)
        self.frames_out = 0

    def add(self, outlet: Outlet, viewer: str) -> Subscription:
        sub = Subscription(outlet, viewer)
        self.subs[outlet] = sub
        return sub

    def activate(self, sub: Subscription, seq: int) -> None:
        """The catch-up up to `seq` has been queued: release what arrived meanwhile."""
        held, sub.pending, sub.last = sub.pending or [], None, seq
        if self.seen is None or seq > self.seen:
            self.seen = seq
        if held:
            self.on_events(self.room, held, only=sub)

    def remove(self, outlet: Outlet) -> None:
        self.subs.pop(outlet, None)

    def on_events(self, room: str, events: Sequence[LoggedEvent], only: Subscription | None = None) -> None:
        if only is None and events:
            if self.seen is not None and events[0].seq > self.seen + 1:
                self._gap()
            self.seen = max(self.seen or 0, events[-1].seq)
        subs = [only] if only is not None else list(self.subs.values())
        for ev in events:
            if ev.kind == "secret_module":
                self._lockout(ev, subs)
            if ev.kind == "spectator_delay":
                self.spectator_delay_ms = int(ev.data.get("ms", 0))
            msg: dict[str, Any] | None = None
            binary: bytes | None = None  # the event's websocket frames, built once for every socket
            text: bytes | None = None
            aud = ev.audience
            seq = ev.seq
            for sub in subs:
                if sub.pending is not None:
                    sub.pending.append(ev)
                    continue
                if seq <= sub.last:
                    continue
                sub.last = seq
                viewer = sub.viewer
                if aud is not None and viewer != MODERATOR and viewer not in aud:
                    continue
                outlet = sub.outlet
                if msg is None:
                    msg = {"t": "ev", "room": room, "seq": seq, "at_ms": ev.at_ms, "kind": ev.kind, "data": ev.data}
                if outlet.json:
                    if text is None:
                        text = outlet.frame(encode_json(msg))
                    frame = text
                else:
                    if binary is None:
                        binary = outlet.frame(encode(msg))
                    frame = binary
                if viewer == SPECTATOR and self.spectator_delay_ms:
                    due = ev.at_ms + self.spectator_delay_ms - self.now()
                    if due > 0:
                        asyncio.get_running_loop().call_later(due / 1000, self._send_late, sub, frame)
                        continue
                outlet.write(frame)
                self.frames_out += 1

    def _send_late(self, sub: Subscription, frame: bytes) -> None:
        if self.subs.get(sub.outlet) is sub:
            sub.outlet.write(frame)
            self.frames_out += 1

    def _gap(self) -> None:
        """A batch went missing: every live subscription catches up from the log (held events wait meanwhile)."""
        for outlet, sub in list(self.subs.items()):
            if sub.pending is None:
                sub.pending = []
                outlet.resync(self.room, sub.last)

    def _lockout(self, ev: LoggedEvent, subs: Sequence[Subscription]) -> None:
        player = ev.data.get("player")
        sent = ev.data.get("action") == "sent"
        for sub in subs:
            if sub.pending is None and sub.outlet.player == player and ev.seq > sub.last:
                if sent and self.room.startswith("c-"):
                    sub.viewer = PUBLIC
                sub.outlet.lockout_changed(self.room, sent)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for sub in self.subs.values():
            role = "moderator" if sub.viewer == MODERATOR else "spectator" if sub.viewer == "spectator" else "player"
            out[role] = out.get(role, 0) + 1
        return out
