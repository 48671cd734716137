"""A room's fan-out on one node: the room's events arrive from the bus and go to the local sessions following it.

Each event is encoded and framed once (msgpack, and JSON only if a JSON client follows) and the same bytes are
written to every socket whose viewer class may see it; outbound messages are not re-validated. A subscription
starts *pending*: events that arrive while its catch-up is being built are held, then everything after the
catch-up's sequence number is released, so a (re)joining client gets no gap and no duplicate.

After the events of a command, each viewer class that has sockets here gets a `view` (the engine's projection of
the room for that class, with the clocks) when it differs from the last one posted for that class: its state is
packed once per class and format, compared with the last bytes, and the frame written to every socket of the
class. A view waits until the events up to its `seq` have gone out; a newer view of a class replaces a waiting
one. Spectators of a delayed room get it when the command's events are released to them (docs/protocol.md).
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from server.core.engine import MODERATOR, PUBLIC, SPECTATOR
from server.rooms import channels, secret_module
from server.rooms.ids import RoomId
from server.rooms.scheduler import LoopScheduler, Scheduler, Timer, wall_ms
from server.store.records import LoggedEvent
from shared.protocol.codec import encode, encode_json, encode_with
from shared.protocol.server import event_head, event_message, view_head


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
    __slots__ = ("delay_ms", "last", "outlet", "pending", "since", "spectator", "viewer")

    def __init__(self, outlet: Outlet, viewer: str, spectator: bool = False):
        self.outlet = outlet
        self.viewer = viewer
        self.spectator = spectator
        """A spectator's socket (its class may be the public one: the spectating policy, issue 12 item 1)."""
        self.delay_ms = 0
        """How long its frames wait by the spectating policy (the spectators' link under `full`); the room's own
        spectator delay comes on top for the spectator class."""
        self.last = -1
        self.since = -1  # where its catch-up left it
        self.pending: list[LoggedEvent] | None = []


@dataclass(slots=True)
class _View:
    """A view posted for one viewer class, waiting for its events to go out."""

    seq: int
    at_ms: int
    head: dict[str, Any]  # t, room, seq, clocks, server_ms
    packed: bytes  # the msgpack of the state (compared with the last one posted for the class)
    state: Mapping[str, Any]


class Feed:
    def __init__(self, room: str, now: Callable[[], int] = wall_ms, *, scheduler: Scheduler | None = None):
        self.room = room
        self.subs: dict[Outlet, Subscription] = {}
        self.now = now
        self.scheduler = scheduler or LoopScheduler(now)
        self._late: list[tuple[int, int, Subscription, bytes]] = []  # spectators' frames held back: a heap by due
        self._late_timer: Timer | None = None
        self.spectator_delay_ms = 0
        """Spectators get each event this long after it happened (the moderator's `spectator_delay` ruling)."""
        self.seen: int | None = None  # the last sequence number the bus brought (or a catch-up reached)
        self.joining = 0  # joins in progress (the hub keeps the feed while > 0)
        self.frames_out = 0
        self.views_out = 0
        self._views: dict[str, _View] = {}  # viewer class → view waiting for its events
        self._last_view: dict[str, bytes] = {}  # viewer class → packed state of the last view posted
        self._last_state: dict[str, Mapping[str, Any]] = {}  # viewer class → that state
        self._order = 0
        self.on_spectating: Callable[[Feed], None] | None = None
        """Called when the campaign's spectating policy changed (its spectators, here and in its battles, resync)."""
        self.after_events: Callable[[Feed], None] | None = None
        """Called after each batch from the bus (the hub builds views there on nodes that do not own the room)."""

    def add(self, outlet: Outlet, viewer: str, *, spectator: bool = False) -> Subscription:
        sub = Subscription(outlet, viewer, spectator)
        self.subs[outlet] = sub
        return sub

    def activate(self, sub: Subscription, seq: int) -> None:
        """The catch-up up to `seq` has been queued: release what arrived meanwhile."""
        held, sub.pending, sub.last, sub.since = sub.pending or [], None, seq, seq
        if self.seen is None or seq > self.seen:
            self.seen = seq
        if held:
            self.on_events(self.room, held, only=sub)
        self._flush_views()

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
            if ev.kind == "spectating" and only is None and self.on_spectating is not None:
                self.on_spectating(self)
            binary: bytes | None = None  # the event's websocket frames, built once for every socket
            text: bytes | None = None
            aud = ev.audience
            seq = ev.seq
            public_spectators = ev.kind == "chat" and aud == channels.PUBLIC_SPECTATORS_AUDIENCE
            room_delay = self.spectator_delay_ms
            written = 0  # frames written here, not put off (the common case: no delay, no method call per socket)
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
                if public_spectators and not sub.spectator and viewer == PUBLIC:
                    continue  # a player away in the secret module: players never read the spectators' channel
                outlet = sub.outlet
                if outlet.json:
                    if text is None:
                        text = outlet.frame(encode_json(
                            event_message(room, seq, ev.at_ms, ev.kind, ev.plain_data())))
                    frame = text
                else:
                    if binary is None:
                        binary = outlet.frame(encode_with(
                            event_head(room, seq, ev.at_ms, ev.kind), "data", ev.packed_data()))
                    frame = binary
                if sub.delay_ms or (room_delay and viewer == SPECTATOR):
                    self._deliver(sub, frame, ev.at_ms)
                else:
                    outlet.write(frame)
                    written += 1
            self.frames_out += written
        if only is None:
            self._flush_views()
            if self.after_events is not None and events:
                self.after_events(self)

    def _deliver(self, sub: Subscription, frame: bytes, at_ms: int) -> bool:
        """Write one frame; a spectator's waits out the moderator's delay first (False when it was put off)."""
        delay = sub.delay_ms
        if sub.viewer == SPECTATOR:  # the room's own delay (the moderator's ruling) for every spectator
            delay = max(delay, self.spectator_delay_ms)
        if delay:
            due = at_ms + delay
            if due > self.now():
                self._order += 1  # a socket's frames all wait as long: by due, then arrival, they keep their order
                heapq.heappush(self._late, (due, self._order, sub, frame))
                if self._late_timer is None:
                    self._late_timer = self.scheduler.at(due, lambda: self._send_late(due))
                return False
        sub.outlet.write(frame)
        self.frames_out += 1
        return True

    async def _send_late(self, until: int) -> None:
        """The frames held back until `until` go out, in the order they came (never reordered)."""
        late = self._late
        while late and late[0][0] <= until:
            _, _, sub, frame = heapq.heappop(late)
            if self.subs.get(sub.outlet) is sub:
                sub.outlet.write(frame)
                self.frames_out += 1
        self._late_timer = None
        if late:
            due = late[0][0]
            self._late_timer = self.scheduler.at(due, lambda: self._send_late(due))

    # --- views -------------------------------------------------------------------------------------------------

    def view_classes(self) -> set[str]:
        """The viewer classes with sockets here: the only ones whose view is worth building."""
        return {sub.viewer for sub in self.subs.values()}

    def changed(self, viewer: str, state: Mapping[str, Any]) -> bool:
        """Whether `state` may differ from the last view posted for the class: a dict comparison, which costs far
        less than packing when nothing changed (most commands change what only some classes see). Values equal
        in Python but not in msgpack (1, 1.0, True) count as unchanged."""
        return self._last_state.get(viewer) != state

    def post_view(self, viewer: str, seq: int, at_ms: int, state: Mapping[str, Any], clocks: Mapping[str, Any],
                  server_ms: int, active: Sequence[str] = ()) -> bool:
        """The room as `viewer` sees it after event `seq`: queued for the class's sockets unless its state is the
        same as the last one posted for the class. Returns whether it was queued."""
        packed: bytes = encode(dict(state))
        if self._last_view.get(viewer) == packed:
            return False
        self._last_view[viewer] = packed
        self._last_state[viewer] = state
        head = view_head(self.room, seq, clocks, server_ms, active)
        self._views[viewer] = _View(seq, at_ms, head, packed, state)
        self._flush_views()
        return True

    def _flush_views(self) -> None:
        """Send the waiting views whose events have all gone out (while a socket of the class is still joining,
        the class's view waits until it is live: that socket's catch-up may end before the view)."""
        if not self._views or self.seen is None:
            return
        for viewer, view in list(self._views.items()):
            if view.seq > self.seen:
                continue
            subs = [s for s in self.subs.values() if s.viewer == viewer]
            if any(s.pending is not None for s in subs):
                continue
            del self._views[viewer]
            binary: bytes | None = None
            text: bytes | None = None
            for sub in subs:
                if sub.since > view.seq:
                    continue  # it joined after this view: its snapshot is newer
                outlet = sub.outlet
                if outlet.json:
                    if text is None:
                        text = outlet.frame(_view_json(view))
                    frame = text
                else:
                    if binary is None:
                        binary = outlet.frame(_view_msgpack(view))
                    frame = binary
                if self._deliver(sub, frame, view.at_ms):
                    self.views_out += 1

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
                if sent and secret_module.sees_public_while_away(RoomId(self.room).kind):
                    sub.viewer = PUBLIC
                sub.outlet.lockout_changed(self.room, sent)

    def note_snapshot(self, viewer: str, state: Mapping[str, Any]) -> None:
        """A socket of a class that has had no view yet got this state in its snapshot: the class's next view is
        compared with it."""
        if viewer not in self._last_view:
            self._last_view[viewer] = encode(dict(state))
            self._last_state[viewer] = state

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for sub in self.subs.values():
            role = "moderator" if sub.viewer == MODERATOR else "spectator" if sub.spectator or \
                sub.viewer == SPECTATOR else "player"
            out[role] = out.get(role, 0) + 1
        return out

    def seats(self) -> dict[str, int]:
        """The players' seats with a session here, as `seat:<player>` (the lobby's seat occupancy)."""
        return {f"seat:{sub.outlet.player}": 1 for sub in self.subs.values()
                if sub.outlet.player is not None and sub.viewer != MODERATOR and sub.viewer != SPECTATOR
                and not sub.spectator}


def _view_msgpack(view: _View) -> bytes:
    """The `view` message packed around the state's bytes, so the state is packed once per class."""
    return encode_with(view.head, "state", view.packed)


def _view_json(view: _View) -> str:
    return encode_json(view.head)[:-1] + ',"state":' + json.dumps(view.state, separators=(",", ":"),
                                                                   ensure_ascii=False) + "}"
