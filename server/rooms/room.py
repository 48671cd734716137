"""The room: the one authority over a campaign (or battle, or the secret module) on the node that owns it.

A command goes role → phase → order allowed → apply (boardgame.io's master in spirit). When the engine accepts
it, the room writes the command and its events to the durable log *before* it acknowledges, then adopts the new
state and publishes the events with the room's sequence numbers. Replaying the log through `_step` rebuilds the
room exactly (clock times come from the records); snapshots bound the replay. Timers are armed at the clocks'
deadlines and the secret-module returns, and what they do is logged like any command.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from server.bus import EventBus
from server.clock import Clocks, ClockSettings
from server.core import errors
from server.core.engine import MODERATOR, PUBLIC, Engine, Event
from server.core.errors import IllegalOrder, NotYourTurn, RuleError
from server.rooms import channels
from server.rooms.engines import find_engine
from server.rooms.errors import RoomError, forbidden, game_over
from server.rooms.ids import RoomId
from server.rooms.members import Member
from server.store import Store
from server.store.records import LoggedEvent, Record, RoomSnapshot

log = logging.getLogger(__name__)

CHAT_HISTORY = 100
MAX_SPECTATOR_DELAY_MS = 3_600_000
HISTORY_RECORDS = 200  # records before a snapshot whose events are kept for resumes after a restart
LOCKOUT_MS = 20 * 60_000  # D-N-14: twenty minutes unless the campaign sets otherwise


@dataclass(frozen=True, slots=True)
class Away:
    """A player in the secret module (N-VICTORY-3, D-N-14) until `until_ms`."""

    player: str
    team: str | None
    since_ms: int
    until_ms: int
    reason: str = ""

    def dump(self) -> dict[str, Any]:
        return {"player": self.player, "team": self.team, "since_ms": self.since_ms, "until_ms": self.until_ms,
                "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Core:
    """Everything a room decides from: the engine state, the clocks, who is away, recent chat."""

    state: Any
    clocks: Clocks | None
    away: Mapping[str, Away] = field(default_factory=dict)
    chat: Mapping[str, tuple[Mapping[str, Any], ...]] = field(default_factory=dict)

    def with_state(self, state: Any) -> Core:
        """`replace(core, state=...)` without `dataclasses.replace`'s field walk (once or twice per command)."""
        return Core(state, self.clocks, self.away, self.chat)


class _NoChange(Exception):
    """A timer fired but nothing was due (the moderator added time meanwhile): nothing to log."""


def visible(audience: frozenset[str] | None, viewer: str) -> bool:
    return audience is None or viewer == MODERATOR or viewer in audience


class Room:
    def __init__(self, room_id: str, setup: Mapping[str, Any], store: Store, bus: EventBus,
                 now: Callable[[], int], *, snapshot_every: int = 200, history: int = 5000):
        self.id = room_id
        self.kind = RoomId(room_id).kind
        self.setup = dict(setup)
        self.engine: Engine[Any] | None = find_engine(setup["engine"]) if setup.get("engine") else None
        self.teams: list[str] = list(setup.get("teams") or [])
        self.players: dict[str, str] = dict(setup.get("players") or {})
        self.store, self.bus, self.now = store, bus, now
        self.snapshot_every = snapshot_every
        self.core = Core(state=None, clocks=None)
        self.seq = 0
        self.index = 0
        self.last_at = 0
        self.history: deque[LoggedEvent] = deque(maxlen=history)
        self.lock = asyncio.Lock()
        self.closed = False
        self._timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.listeners: list[Callable[[Room, tuple[LoggedEvent, ...]], None]] = []
        self.spectator_delay_ms = 0

    # --- creation and recovery -----------------------------------------------------------------------------------

    @classmethod
    async def create(cls, room_id: str, setup: Mapping[str, Any], store: Store, bus: EventBus,
                     now: Callable[[], int], **kw: Any) -> Room:
        room = cls(room_id, setup, store, bus, now, **kw)
        async with room.lock:
            await room._run("setup", dict(setup), None)
        await store.leases.mark_alive([room_id], now())  # owned from now on: if its node dies, it is an orphan
        room._arm()
        return room

    @classmethod
    async def open(cls, room_id: str, store: Store, bus: EventBus, now: Callable[[], int], *,
                   owner: bool = True, until_ms: int | None = None, **kw: Any) -> Room | None:
        """Rebuild a room from its snapshot and log. As owner, the downtime since the last sign of life is
        charged to nobody (a logged `downtime` record) and timers are armed; otherwise it is a read-only copy —
        with `until_ms`, the room as it was at that time (from the whole log: a delayed spectator's view)."""
        snap = await store.log.load_snapshot(room_id) if until_ms is None else None
        if snap is not None:
            room = cls(room_id, snap.data["setup"], store, bus, now, **kw)
            room._restore(snap)
            records = await store.log.read(room_id, max(0, snap.index - HISTORY_RECORDS))
            for record in records:  # already in the snapshot: only their events, for resumes
                if record.index <= snap.index:
                    room.history.extend(record.events)
            records = [r for r in records if r.index > snap.index]
        else:
            records = await store.log.read(room_id, 0)
            if not records or records[0].kind != "setup":
                return None
            room = cls(room_id, records[0].body, store, bus, now, **kw)
        for record in records:
            if until_ms is not None and record.at_ms > until_ms and record.kind != "setup":
                break
            room._replay(record)
        if owner:
            await room._skip_downtime()
            await store.leases.mark_alive([room_id], now())
            room._arm()
            await store.log.set_due(room_id, room._next_due(room.core))
        return room

    async def _skip_downtime(self) -> None:
        """Log a `downtime` record for each stretch since the last record when nobody served the room: the
        service's outages, and the time since its last owner's last mark if that owner died holding it."""
        up_at = self.now()
        spans = [(max(a, self.last_at), min(b, up_at)) for a, b in await self.store.leases.outages(self.last_at)]
        alive = await self.store.leases.last_alive(self.id)
        if alive is not None:
            spans.append((max(self.last_at, alive), up_at))
        merged: list[tuple[int, int]] = []
        for a, b in sorted(s for s in spans if s[1] > s[0]):
            if merged and a <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], b))
            else:
                merged.append((a, b))
        for a, b in merged:
            clocks = self.core.clocks
            if clocks is None or not clocks.running() or clocks.paused:
                return
            async with self.lock:
                await self._run("downtime", {"from": a, "to": b}, None)

    def _restore(self, snap: RoomSnapshot) -> None:
        data = snap.data
        state = self.engine.load(data["state"]) if self.engine is not None else None
        clocks = Clocks.load(data["clocks"]) if data.get("clocks") else None
        away = {p: Away(**a) for p, a in data.get("away", {}).items()}
        chat = {c: tuple(lines) for c, lines in data.get("chat", {}).items()}
        self.core = Core(state, clocks, away, chat)
        self.index, self.seq, self.last_at = snap.index, snap.seq, int(data.get("last_at", 0))
        self.spectator_delay_ms = int(data.get("spectator_delay_ms", 0))

    def _replay(self, record: Record) -> None:
        member = Member.load(record.actor) if record.actor else None
        try:
            core, _events = self._step(self.core, record.kind, record.body, member, record.at_ms)
        except _NoChange:
            core = self.core
        self.core = core
        self.index, self.last_at = record.index, record.at_ms
        for ev in record.events:
            self.history.append(ev)
            self.seq = ev.seq

    def advance(self, records: list[Record]) -> None:
        """A read-only copy follows the log: apply the records after its index (a follower node's mirror)."""
        for record in records:
            if record.index == self.index + 1:
                self._replay(record)

    def views(self, viewers: set[str]) -> dict[str, dict[str, Any]]:
        """The engine's projection of the state for each viewer class (no view without an engine)."""
        if self.engine is None:
            return {}
        return {v: self.engine.view(self.core.state, v) for v in sorted(viewers)}

    def clocks_view(self) -> dict[str, Any]:
        clocks = self.core.clocks
        return clocks.view(self.now()) if clocks is not None else {}

    async def save_snapshot(self) -> None:
        core = self.core
        data = {
            "setup": self.setup, "last_at": self.last_at,
            "state": self.engine.dump(core.state) if self.engine is not None else None,
            "clocks": core.clocks.dump() if core.clocks is not None else None,
            "away": {p: a.dump() for p, a in core.away.items()},
            "chat": {c: [dict(line) for line in lines] for c, lines in core.chat.items()},
            "spectator_delay_ms": self.spectator_delay_ms,
        }
        await self.store.log.save_snapshot(self.id, RoomSnapshot(self.index, self.seq, data))

    # --- commands --------------------------------------------------------------------------------------------------

    async def submit(self, kind: str, body: Mapping[str, Any], member: Member | None) -> int | None:
        """Run one command: typed refusal (nothing logged) or durable, applied and published. Returns the
        sequence number of its first event."""
        async with self.lock:
            if self.closed:
                raise RoomError("no_such_room", f"room {self.id} is closed on this node")
            try:
                seq = await self._run(kind, dict(body), member)
            except _NoChange:
                seq = None
            except IllegalOrder as exc:  # only the engine refuses an order as illegal (the room's checks do not)
                if kind == "order" and member is not None and member.team is not None:
                    await self._after_refusal(exc, member)
                raise
        self._arm()
        return seq

    async def _after_refusal(self, exc: IllegalOrder, member: Member) -> None:
        """D-C-6, C-9.3: an engine with `refused` may record a consequence of a refused order (a penalty); that is
        a command of its own, logged and published, while the refusal still goes to the player."""
        if not hasattr(self.engine, "refused"):
            return
        body = {"team": member.team, "error": type(exc).__name__, "message": exc.message, "rule": exc.rule}
        try:
            await self._run("refused", body, member)
        except _NoChange:
            pass
        except Exception:
            log.exception("room %s: recording a refused order failed", self.id)

    async def _run(self, kind: str, body: dict[str, Any], member: Member | None) -> int | None:
        at = max(self.now(), self.last_at)
        core, events = self._step(self.core, kind, body, member, at)
        first = self.seq + 1
        logged = tuple(LoggedEvent(first + i, at, e.kind, e.data, e.audience) for i, e in enumerate(events))
        record = Record(self.index + 1, at, kind, body, member.dump() if member else None, logged)
        try:
            await self.store.log.append(self.id, record, self._next_due(core))
        except Exception:
            self.closed = True
            raise
        self.core, self.index, self.last_at = core, record.index, at
        if logged:
            self.seq = logged[-1].seq
            self.history.extend([e.kept() for e in logged])
            for listener in self.listeners:  # first: views posted here wait for the events and go out with them
                listener(self, logged)
            try:
                await self.bus.publish(self.id, logged)
            except Exception:  # durable already: followers notice the gap and catch up from the log
                log.exception("room %s: publishing seq %d..%d failed", self.id, first, self.seq)
        if self.index % self.snapshot_every == 0:
            await self.save_snapshot()
        return first if logged else None

    def _step(self, core: Core, kind: str, body: Mapping[str, Any], member: Member | None,
              at: int) -> tuple[Core, list[Event]]:
        """The room's transition: pure in (core, record) so that replay rebuilds the room."""
        handler = _STEPS.get(kind)
        if handler is None:
            raise RoomError("bad_message", f"unknown room command {kind!r}")
        return handler(self, core, body, member, at)

    def _setup(self, core: Core, body: Mapping[str, Any], member: Member | None, at: int) -> tuple[Core, list[Event]]:
        events: list[Event] = [Event("room_opened", {"room": self.id, "kind": self.kind, "teams": self.teams})]
        state = None
        if self.engine is not None:
            state, opening = self.engine.setup(body.get("config") or {}, int(body.get("seed", 0)))
            events += opening
        clocks = Clocks.create(ClockSettings.load(body["clock"]), self.teams) if body.get("clock") else None
        core, events = self._turn_changes(Core(state, clocks), frozenset(), events, at)
        if core.clocks is not None and body.get("clocks_paused"):
            clocks, paused = core.clocks.pause(at)  # the moderator starts the game by resuming them
            core = replace(core, clocks=clocks)
            events += [*paused, self._turn_event(core, None, at)]
        return core, events

    def _turn_event(self, core: Core, ending: str | None, at: int) -> Event:
        return Event("turn", {"active": sorted(self._active(core.state)), "ended": ending,
                              "clocks": core.clocks.view(at) if core.clocks is not None else None})

    def _active(self, state: Any) -> frozenset[str]:
        return self.engine.active_teams(state) if self.engine is not None else frozenset()

    def _turn_changes(self, core: Core, before: frozenset[str], events: list[Event], at: int, *,
                      ending: str | None = None, lag_ms: int = 0) -> tuple[Core, list[Event]]:
        """Clocks follow the engine's active teams: the ending team's clock stops (lag credit), the clocks of
        newly active teams start; a `turn` event carries the active teams and every clock's remaining time."""
        after = self._active(core.state)
        clocks = core.clocks
        if clocks is not None:
            for team in sorted(before):
                if (team == ending or team not in after) and team in clocks.running():
                    clocks, evs = clocks.end_turn(team, at, lag_ms if team == ending else 0)
                    events += evs
            for team in self.teams:
                if team in after and team not in clocks.running():
                    clocks, evs = clocks.start_turn(team, at)
                    events += evs
        if clocks is not core.clocks:
            core = Core(core.state, clocks, core.away, core.chat)
        if ending is not None or after != before:
            events.append(self._turn_event(core, ending, at))
        return core, events

    def _player_checks(self, core: Core, member: Member | None, *, phase: bool = True) -> None:
        """Role, then the secret module, then phase (C-1.7/C-1.8: only the teams to act give orders)."""
        if member is None or member.role == "spectator":
            raise forbidden("spectators watch; they do not command")
        if self.engine is None:
            raise forbidden(f"the {self.kind} room takes no orders")
        if member.role == "moderator":
            return
        away = core.away.get(member.player)
        if away is not None:
            raise RoomError("locked_out", f"{member.player} is in the secret module until {away.until_ms}",
                            rule="D-N-14")
        if self.engine.is_over(core.state):
            raise game_over()
        if phase and member.team not in self._active(core.state):
            raise NotYourTurn(f"{member.team} is not to act now", rule="C-1.8")

    def _order(self, core: Core, body: Mapping[str, Any], member: Member | None, at: int) -> tuple[Core, list[Event]]:
        order = body.get("order")
        kind = order.get("type") if isinstance(order, Mapping) else None
        # an engine may name orders a team gives out of its turn (answers, offers); the engine checks who may
        self._player_checks(core, member, phase=kind not in getattr(self.engine, "any_time_orders", ()))
        assert self.engine is not None and member is not None and member.actor is not None
        before = self._active(core.state)
        state, events = self.engine.apply(core.state, member.actor, body["order"])
        return self._turn_changes(core.with_state(state), before, list(events), at)

    def _end_turn(self, core: Core, body: Mapping[str, Any], member: Member | None,
                  at: int) -> tuple[Core, list[Event]]:
        self._player_checks(core, member)
        assert self.engine is not None and member is not None
        if member.role == "moderator":
            raise forbidden("the moderator does not end a team's turn; its players or its clock do")
        team = str(member.team)
        before = self._active(core.state)
        state, events = self.engine.end_turn(core.state, team, flagged=False)
        return self._turn_changes(core.with_state(state), before, list(events), at, ending=team,
                                  lag_ms=int(body.get("lag_ms", 0)))

    def _flag(self, core: Core, body: Mapping[str, Any], member: Member | None, at: int) -> tuple[Core, list[Event]]:
        """The team's clock ran out: its turn ends with the orders it had given (issue 2 §7, C-1.9)."""
        team = str(body["team"])
        if core.clocks is None or self.engine is None:
            raise _NoChange
        clocks, events = core.clocks.flag_if_due(team, at)
        if not events:
            raise _NoChange
        before = self._active(core.state)
        try:
            state, more = self.engine.end_turn(core.state, team, flagged=True)
        except RuleError as exc:  # the engine has moved on; the clock stays flagged and is not re-armed
            return replace(core, clocks=clocks), [*events, Event("flag_not_applied", {
                "team": team, "code": exc.code, "message": exc.message, "rule": exc.rule})]
        events += more
        return self._turn_changes(Core(state, clocks, core.away, core.chat), before, events, at, ending=team)

    def _refused(self, core: Core, body: Mapping[str, Any], member: Member | None,
                 at: int) -> tuple[Core, list[Event]]:
        error_type = getattr(errors, str(body["error"]), None)
        if not (isinstance(error_type, type) and issubclass(error_type, IllegalOrder)):
            error_type = IllegalOrder
        error = error_type(str(body["message"]), rule=body.get("rule"))
        refused = getattr(self.engine, "refused", None)
        if refused is None:
            raise _NoChange
        before = self._active(core.state)
        state, events = refused(core.state, str(body["team"]), error)
        if not events:
            raise _NoChange
        return self._turn_changes(core.with_state(state), before, list(events), at)

    def _chat(self, core: Core, body: Mapping[str, Any], member: Member | None, at: int) -> tuple[Core, list[Event]]:
        if member is None:
            raise forbidden("no voice without a seat")
        if member.role == "player" and self.kind != "secret_module" and member.player in core.away:
            raise RoomError("locked_out", "in the secret module you speak only with the moderator", rule="D-N-14")
        channel = channels.resolve(member, str(body["channel"]), self.teams, secret_room=self.kind == "secret_module",
                                   players=list(self.players))
        line = {"channel": channel, "from": member.player, "role": member.role, "team": member.team,
                "name": body.get("name") or member.player, "text": str(body["text"]), "at_ms": at}
        chat = dict(core.chat)
        chat[channel] = (*chat.get(channel, ())[-(CHAT_HISTORY - 1):], line)
        return replace(core, chat=chat), [Event("chat", line, channels.audience(channel, self.teams))]

    def _moderator_only(self, member: Member | None, what: str) -> None:
        if member is None or member.role != "moderator":
            raise forbidden(f"only the moderator may {what}")

    def _clock(self, core: Core, body: Mapping[str, Any], member: Member | None, at: int) -> tuple[Core, list[Event]]:
        self._moderator_only(member, "change clocks")
        clocks = core.clocks
        if clocks is None:
            raise RoomError("bad_order", "this room plays without clocks", rule="C-1.9")
        action = body["action"]
        if action == "pause":
            clocks, events = clocks.pause(at)
        elif action == "resume":
            clocks, events = clocks.resume(at)
        else:
            team = body.get("team")
            if team not in self.teams:
                raise RoomError("bad_order", f"no team {team!r} in this room")
            clocks, events = clocks.adjust(str(team), int(body.get("delta_ms", 0)), at)
        core = replace(core, clocks=clocks)
        return core, [*events, self._turn_event(core, None, at)]

    def _ruling(self, core: Core, body: Mapping[str, Any], member: Member | None,
                at: int) -> tuple[Core, list[Event]]:
        self._moderator_only(member, "give rulings")
        if body["ruling"].get("type") == "spectator_delay":
            return self._spectator_delay(core, body["ruling"])
        if self.engine is None:
            raise forbidden(f"the {self.kind} room takes no rulings")
        before = self._active(core.state)
        state, events = self.engine.moderate(core.state, body["ruling"])
        return self._turn_changes(core.with_state(state), before, list(events), at)

    def _spectator_delay(self, core: Core, ruling: Mapping[str, Any]) -> tuple[Core, list[Event]]:
        """The moderator delays what spectators see of a live battle, so that they cannot leak it to players."""
        ms = ruling.get("ms")
        if isinstance(ms, bool) or not isinstance(ms, int) or not 0 <= ms <= MAX_SPECTATOR_DELAY_MS:
            raise RoomError("bad_order", f"a spectator delay is 0 to {MAX_SPECTATOR_DELAY_MS} ms")
        self.spectator_delay_ms = ms
        return core, [Event("spectator_delay", {"ms": ms})]

    def _lock(self, core: Core, body: Mapping[str, Any], member: Member | None, at: int) -> tuple[Core, list[Event]]:
        """N-VICTORY-3, D-N-14: the player goes to the secret module until `until_ms`."""
        self._moderator_only(member, "send a player to the secret module")
        player = str(body["player"])
        if player not in self.players:
            raise RoomError("no_such_player", f"no player {player!r} in this campaign")
        minutes = body.get("minutes")
        span = int(float(minutes) * 60_000) if minutes else int(self.setup.get("lockout_ms", LOCKOUT_MS))
        away = Away(player, self.players[player], at, at + span, str(body.get("reason", "")))
        return replace(core, away={**core.away, player: away}), [
            Event("secret_module", {"action": "sent", **away.dump()})]

    def _release(self, core: Core, body: Mapping[str, Any], member: Member | None,
                 at: int) -> tuple[Core, list[Event]]:
        """The player returns: at the end of the lockout (timer) or early by the moderator's word (D-N-14)."""
        player = str(body["player"])
        away = core.away.get(player)
        early = body.get("by") != "time"
        if early:
            self._moderator_only(member, "bring a player back early")
        if away is None:
            if not early:
                raise _NoChange
            raise RoomError("no_such_player", f"{player!r} is not in the secret module")
        if not early and at < away.until_ms:
            raise _NoChange
        rest = {p: a for p, a in core.away.items() if p != player}
        return replace(core, away=rest), [
            Event("secret_module", {"action": "returned", "player": player, "team": away.team,
                                    "early": early, "at_ms": at})]

    def _downtime(self, core: Core, body: Mapping[str, Any], member: Member | None,
                  at: int) -> tuple[Core, list[Event]]:
        """The server was down: its clocks are charged nothing for the outage (issue 2 §5)."""
        if core.clocks is None:
            raise _NoChange
        clocks, events = core.clocks.skip_downtime(int(body["from"]), int(body["to"]))
        core = replace(core, clocks=clocks)
        return core, [*events, self._turn_event(core, None, at)]

    # --- timers ----------------------------------------------------------------------------------------------------

    def _next_due(self, core: Core) -> int | None:
        due: list[int] = [a.until_ms for a in core.away.values()]
        if core.clocks is not None:
            due += [d for t in core.clocks.running() if (d := core.clocks.deadline_ms(t)) is not None]
        return min(due) if due else None

    def next_due(self) -> int | None:
        """When the room's next timer falls due (a clock deadline, the end of a lockout), if any."""
        return self._next_due(self.core)

    def busy(self) -> bool:
        """A command or a timer is being run."""
        return self.lock.locked() or bool(self._tasks)

    def _arm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        due = self._next_due(self.core)
        if due is None or self.closed:
            return
        delay = max(0.0, (due - self.now()) / 1000)
        self._timer = asyncio.get_running_loop().call_later(delay, self._spawn_fire)

    def _spawn_fire(self) -> None:
        task = asyncio.get_running_loop().create_task(self._fire())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _fire(self) -> None:
        """Flag the clocks that are due and bring back players whose time in the secret module is over."""
        async with self.lock:
            if self.closed:
                return
            now = self.now()
            core = self.core
            due: list[tuple[str, dict[str, Any]]] = [
                ("release", {"player": p, "by": "time"}) for p, a in sorted(core.away.items()) if a.until_ms <= now]
            if core.clocks is not None:
                due += [("flag", {"team": t}) for t in self.teams
                        if t in core.clocks.running() and (core.clocks.deadline_ms(t) or now + 1) <= now]
            for kind, body in due:
                try:
                    await self._run(kind, body, None)
                except _NoChange:
                    pass
                except Exception:
                    log.exception("room %s: timer %s failed", self.id, kind)
        self._arm()

    # --- what viewers get ------------------------------------------------------------------------------------------

    def viewer_of(self, member: Member) -> str:
        if self.kind == "secret_module":
            return MODERATOR if member.role == "moderator" else channels.secret_viewer(member.player)
        if member.role == "player" and member.player in self.core.away:
            return PUBLIC
        return member.viewer

    def snapshot_for(self, viewer: str) -> dict[str, Any]:
        core = self.core
        now = self.now()
        readable = set(core.chat) if viewer == MODERATOR else set(channels.readable(viewer, self.teams))
        chat = [dict(line) for c in sorted(readable) for line in core.chat.get(c, ())]
        chat.sort(key=lambda line: int(line["at_ms"]))
        return {
            "t": "snapshot", "room": self.id, "seq": self.seq, "kind": self.kind,
            "state": self.engine.view(core.state, viewer) if self.engine is not None else {},
            "clocks": core.clocks.view(now) if core.clocks is not None else {},
            "server_ms": now, "chat": chat, "away": [a.dump() for a in core.away.values()],
            "active": sorted(self._active(core.state)),
        }

    def catch_up(self, viewer: str, since: int | None) -> list[dict[str, Any]]:
        """What a viewer that saw everything up to `since` is missing: exactly the later events it may see, or a
        snapshot when the history no longer reaches back that far (or `since` is None or from the future)."""
        oldest = self.history[0].seq if self.history else self.seq + 1
        if since is None or since > self.seq or since < oldest - 1:
            return [self.snapshot_for(viewer)]
        return [event_message(self.id, e) for e in self.history if e.seq > since and visible(e.audience, viewer)]

    def lockout_of(self, player: str) -> Away | None:
        return self.core.away.get(player)

    async def close(self) -> None:
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
        for task in list(self._tasks):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


def event_message(room: str, e: LoggedEvent) -> dict[str, Any]:
    return {"t": "ev", "room": room, "seq": e.seq, "at_ms": e.at_ms, "kind": e.kind, "data": e.plain_data()}


_Step = Callable[[Room, Core, Mapping[str, Any], Member | None, int], tuple[Core, list[Event]]]
_STEPS: dict[str, _Step] = {
    "setup": Room._setup, "order": Room._order, "end_turn": Room._end_turn, "flag": Room._flag,
    "chat": Room._chat, "clock": Room._clock, "ruling": Room._ruling, "lock": Room._lock,
    "release": Room._release, "downtime": Room._downtime, "refused": Room._refused,
}
