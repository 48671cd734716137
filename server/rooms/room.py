"""The room: the one authority over a campaign (or battle, or the secret module) on the node that owns it — the
async shell around its pure rules (server/rooms/rules.py).

A command is stepped through the rules (which ask the engine); when they accept it, the room appends the command
and its events to the durable log *before* it acknowledges, then adopts the new state, tells its listeners and
publishes the events with the room's sequence numbers, and arms its timer (the clocks' deadlines, the returns from
the secret module) on the injected scheduler. Replaying the log through the same rules rebuilds the room exactly
(clock times come from the records); snapshots bound the replay.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from server.bus import EventBus
from server.core.engine import Engine
from server.core.errors import RuleError
from server.core.registry import Registry
from server.rooms import catch_up, rules, secret_module
from server.rooms.errors import outcome_unknown, unavailable
from server.rooms.members import Member
from server.rooms.requests import Answers, Request, answer_of
from server.rooms.scheduler import Scheduler, Timer
from server.rooms.state import Away, RoomSpec, RoomState
from server.rooms.tenure import Tenure
from server.store import Store
from server.store.records import Fenced, LoggedEvent, Record, RoomSnapshot

log = logging.getLogger(__name__)

_WRITING: set[asyncio.Task[None]] = set()
"""Snapshots being written after their commands: held here so that none is collected before it is done."""

HISTORY_RECORDS = 200  # records before a snapshot whose events are kept for resumes after a restart
OPTIONS_KEPT = 256  # options answers kept for the current state (per viewer class and unit)

Listener = Callable[["Room", tuple[LoggedEvent, ...]], None]


@dataclass(frozen=True, slots=True)
class RoomServices:
    """What a room runs on: the store, the bus, the engines by name, the scheduler (its clock and timers)."""

    store: Store
    bus: EventBus
    engines: Registry
    scheduler: Scheduler
    snapshot_every: int = 200

    def now(self) -> int:
        return self.scheduler.now()


class Room:
    def __init__(self, spec: RoomSpec, services: RoomServices, *, history: int = 5000):
        self.spec = spec
        self.id = spec.id
        self.services = services
        self.state = RoomState(game=None, clocks=None)
        self.seq = 0
        self._options: dict[tuple[str, str | None], dict[str, Any] | None] = {}
        self._options_of: Any = None
        self.index = 0
        self.last_at = 0
        self.history: deque[LoggedEvent] = deque(maxlen=history)
        self.lock = asyncio.Lock()
        self.closed = False
        self._timer: Timer | None = None
        self._armed_for: int | None = None  # the due time `_timer` waits for
        self._firing = False
        self.listeners: list[Listener] = []
        """Called after each durable command with its events, before they are published (views, child rooms)."""
        self.tenure: Tenure | None = None
        """The lease this node owns the room by (None: a read-only copy, or a store whose lease never runs out):
        nothing is applied once it lapses, and every append carries its epoch (fencing, issue 12 §10)."""
        self.reclaim: Callable[[], Awaitable[bool]] | None = None
        """Renew a lapsed tenure now (the owner's lease, asked of the store): True when it is still this node's in
        the same epoch — a loop that stalled past the tenure but not past the lease goes on."""
        self.answers = Answers()
        """The answers of each seat's recent requests: a retry with the same cid gets its answer (requests.py)."""
        self._snapshotting: asyncio.Task[None] | None = None
        """The snapshot being written after a command (`_run`): the next one, and `save_snapshot`, wait for it."""

    @property
    def kind(self) -> str:
        return self.spec.kind

    @property
    def setup(self) -> Mapping[str, Any]:
        return self.spec.setup

    @property
    def engine(self) -> Engine[Any] | None:
        return self.spec.engine

    @property
    def teams(self) -> list[str]:
        return list(self.spec.teams)

    @property
    def players(self) -> Mapping[str, str]:
        return self.spec.players

    @property
    def store(self) -> Store:
        return self.services.store

    @property
    def spectator_delay_ms(self) -> int:
        return self.state.spectator_delay_ms

    def now(self) -> int:
        return self.services.now()

    # --- creation and recovery -----------------------------------------------------------------------------------

    @classmethod
    async def create(cls, room_id: str, setup: Mapping[str, Any], services: RoomServices,
                     tenure: Tenure | None = None) -> Room:
        room = cls(RoomSpec.of(room_id, setup, services.engines), services)
        room.tenure = tenure
        async with room.lock:
            await room._run("setup", dict(setup), None)
        await services.store.leases.mark_alive([room_id], room.now())  # owned now: if its node dies, an orphan
        room._arm()
        return room

    @classmethod
    async def open(cls, room_id: str, services: RoomServices, *, owner: bool = True, until_ms: int | None = None,
                   history: int = 5000, tenure: Tenure | None = None) -> Room | None:
        """Rebuild a room from its snapshot and log. As owner, the downtime since the last sign of life is
        charged to nobody (a logged `downtime` record) and timers are armed; otherwise it is a read-only copy —
        with `until_ms`, the room as it was at that time (from the whole log: a delayed spectator's view)."""
        store = services.store
        snap = await store.log.load_snapshot(room_id) if until_ms is None else None
        if snap is not None:
            room = cls(RoomSpec.of(room_id, snap.data["setup"], services.engines), services, history=history)
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
            room = cls(RoomSpec.of(room_id, records[0].body, services.engines), services, history=history)
        for record in records:
            if until_ms is not None and record.at_ms > until_ms and record.kind != "setup":
                break
            room._replay(record)
        if owner:
            room.tenure = tenure
            await room.skip_downtime()
            await store.leases.mark_alive([room_id], room.now())
            room._arm()
            await store.log.set_due(room_id, room.next_due())
        return room

    async def skip_downtime(self, spans: Sequence[tuple[int, int]] | None = None) -> None:
        """Log a `downtime` record for each stretch since the last record when nobody served the room: the
        service's outages, and the time since its last owner's last mark if that owner died holding it — or the
        `spans` given (an imported room: the stretches its old store did not serve it, and since the export)."""
        if spans is None:
            leases = self.store.leases
            outages, alive = await leases.outages(self.last_at), await leases.last_alive(self.id)
            spans = rules.downtime(self.last_at, outages, alive, self.now())
        for a, b in spans:
            clocks = self.state.clocks
            if clocks is None or not clocks.running() or clocks.paused:
                return
            async with self.lock:
                await self._run("downtime", {"from": a, "to": b}, None)

    def _restore(self, snap: RoomSnapshot) -> None:
        data = snap.data
        self.state = RoomState.load(self.spec, data)
        self.index, self.seq, self.last_at = snap.index, snap.seq, int(data.get("last_at", 0))
        self.answers.load(data.get("requests") or [])  # snapshots before issue 12 have none

    def _replay(self, record: Record) -> None:
        member = Member.load(record.actor) if record.actor else None
        outcome = rules.step(self.spec, self.state, record.kind, record.body, member, record.at_ms)
        if outcome is not None:
            self.state = outcome[0]
        self.index, self.last_at = record.index, record.at_ms
        for ev in record.events:
            self.history.append(ev)
            self.seq = ev.seq
        if record.request is not None:
            first = record.events[0].seq if record.events else None
            self.answers.keep(record.actor, record.request, answer_of(record.kind, record.body, first))

    def advance(self, records: list[Record]) -> None:
        """A read-only copy follows the log: apply the records after its index (a follower node's mirror)."""
        for record in records:
            if record.index == self.index + 1:
                self._replay(record)

    def _snapshot(self) -> RoomSnapshot:
        data = {"setup": self.spec.setup, "last_at": self.last_at, **self.state.dump(self.spec),
                "requests": self.answers.dump()}
        return RoomSnapshot(self.index, self.seq, data)

    async def save_snapshot(self) -> None:
        """The room as it is now, written after the snapshot a command left being written (in order)."""
        await self._write_snapshot(self._snapshot(), self._snapshotting)

    def _snapshot_after_command(self) -> None:
        """Every `snapshot_every` records: the room taken now and written while the command is answered — its
        record is durable already, and the snapshot only bounds the replay. The command's ack waited for the write
        and its fsyncs (10–40 ms on the embedded store; issue 20 §2: a hundred rooms reach their 200th record
        together, and every one of their commands waited behind them)."""
        snapshot = self._snapshot()
        task = asyncio.create_task(self._write_snapshot(snapshot, self._snapshotting))
        self._snapshotting = task
        _WRITING.add(task)
        task.add_done_callback(_WRITING.discard)
        task.add_done_callback(lambda t: self._snapshot_written(t, snapshot.index))

    def _snapshot_written(self, task: asyncio.Task[None], index: int) -> None:
        exc = None if task.cancelled() else task.exception()
        if exc is not None:  # the log holds every record: the next snapshot, or a replay from the last, makes up
            log.error("room %s: snapshot at record %d not saved", self.id, index, exc_info=exc)

    async def _write_snapshot(self, snapshot: RoomSnapshot, before: asyncio.Task[None] | None) -> None:
        """`snapshot` written once `before` (the snapshot ahead of it, failed or not) is done."""
        if before is not None:
            await asyncio.wait([before])
        await self.store.log.save_snapshot(self.id, snapshot)

    # --- commands ------------------------------------------------------------------------------------------------

    async def submit(self, kind: str, body: Mapping[str, Any], member: Member | None,
                     request: Request | None = None) -> int | None:
        """Run one command: a typed refusal (nothing logged) or durable, applied and published. Returns the
        sequence number of its first event (None: it had none). A `request` answered already (the same cid and
        message from the same seat) gets its first answer and is not run again (requests.py)."""
        lock = self.lock
        await lock.acquire()  # not `async with`: its __aenter__ and __aexit__ are two more coroutines per command
        try:
            if self.closed:  # a failed write or a lost lease closed it: the hub opens it again from the log
                raise unavailable(f"room {self.id} is being reopened; try again", 200)
            actor = member.dump() if member else None
            answered = self.answers.find(actor, request)
            if answered is not None:
                return answered.give()
            try:
                seq = await self._run(kind, dict(body), member, request, actor)
            except RuleError as exc:
                refused = rules.after_refusal(kind, member, exc)
                if refused is not None:
                    await self._after_refusal(refused, member, request)
                raise
        finally:
            lock.release()
        self._arm()
        return seq

    async def _after_refusal(self, body: dict[str, Any], member: Member | None, request: Request | None) -> None:
        """D-C-6, C-9.3: the consequence of a refused order is a command of its own, logged and published, while
        the refusal still goes to the player (and to its retries: the record keeps the request)."""
        try:
            await self._run("refused", body, member, request)
        except Exception:
            log.exception("room %s: recording a refused order failed", self.id)

    async def _run(self, kind: str, body: dict[str, Any], member: Member | None,
                   request: Request | None = None, actor: dict[str, Any] | None = None) -> int | None:
        """`actor`: `member.dump()` when the caller has it already (a command's: it looked up its answer)."""
        tenure = self.tenure
        if tenure is not None and not await self._holds(tenure):  # stopped past its lease: another node owns it
            raise unavailable(f"this node's lease of room {self.id} lapsed; try again", 300)
        at = max(self.now(), self.last_at)
        outcome = rules.step(self.spec, self.state, kind, body, member, at)
        if outcome is None:
            return None
        state, events = outcome
        first = self.seq + 1
        logged = tuple(LoggedEvent(first + i, at, e.kind, e.data, e.audience) for i, e in enumerate(events))
        if actor is None and member is not None:
            actor = member.dump()
        record = Record(self.index + 1, at, kind, body, actor, logged,
                        request.pair() if request is not None else None)
        try:
            await self.store.log.append(self.id, record, rules.next_due(state),
                                        epoch=tenure.epoch if tenure is not None else None)
        except Fenced as exc:  # another node holds the room now: nothing was written
            self.closed = True
            raise unavailable(f"room {self.id} is owned by another node now ({exc}); try again", 200) from None
        except Exception as exc:
            # The log is the truth: the hub rebuilds the room from it. The record may be durable: the store's answer
            # was lost, or the client library sent it again after a lost reply and the second write found it there
            # (LogConflict, also what another node's write looks like): a retry with the same cid finds its answer.
            self.closed = True
            log.warning("room %s: append of record %d failed: %r", self.id, record.index, exc)
            raise outcome_unknown(f"the store did not confirm the command ({type(exc).__name__}); retry with "
                                  "the same cid", 300) from None
        self.state, self.index, self.last_at = state, record.index, at
        if record.request is not None:
            self.answers.keep(record.actor, record.request, answer_of(kind, body, first if logged else None))
        if logged:
            self.seq = logged[-1].seq
            self.history.extend([e.kept() for e in logged])
            for listener in self.listeners:  # first: views posted here wait for the events and go out with them
                listener(self, logged)
            try:
                await self.services.bus.publish(self.id, logged)
            except Exception:  # durable already: followers notice the gap and catch up from the log
                log.exception("room %s: publishing seq %d..%d failed", self.id, first, self.seq)
        if self.index % self.services.snapshot_every == 0:
            self._snapshot_after_command()
        return first if logged else None

    async def _holds(self, tenure: Tenure) -> bool:
        """Whether this node still holds the room: its tenure, or else a renewal asked now in the same epoch."""
        if tenure.holds():
            return True
        if self.reclaim is None or not await self.reclaim():
            self.closed = True  # another node may have written: the hub rebuilds the room from the log
            return False
        return True

    # --- timers --------------------------------------------------------------------------------------------------

    def next_due(self) -> int | None:
        """When the room's next timer falls due (a clock deadline, the end of a lockout), if any."""
        return rules.next_due(self.state)

    def busy(self) -> bool:
        """A command or a timer is being run."""
        return self.lock.locked() or self._firing

    def _arm(self) -> None:
        """The timer at the room's next due time: left as it is when that did not change (most commands), not
        cancelled and made again after each one."""
        due = self.next_due()
        if self._timer is not None:
            if due == self._armed_for and due is not None and not self.closed:
                return
            self._timer.cancel()
            self._timer = None
        if due is not None and not self.closed:
            self._timer = self.services.scheduler.at(due, self._fire)
            self._armed_for = due

    async def _fire(self) -> None:
        """Flag the clocks that are due and bring back players whose time in the secret module is over."""
        self._armed_for = None  # its timer is spent: the `_arm` after this makes the next (close() still stops it)
        self._firing = True
        try:
            async with self.lock:
                if self.closed:
                    return
                if self.tenure is not None and not await self._holds(self.tenure):
                    self._timer = None  # another node has the room: the hub rebuilds it from the log if asked
                    return
                for kind, body in rules.timers_due(self.spec, self.state, self.now()):
                    try:
                        await self._run(kind, body, None)
                    except Exception:
                        log.exception("room %s: timer %s failed", self.id, kind)
        finally:
            self._firing = False
        self._arm()

    def renewed(self, asked_at: float) -> None:
        """The lease was renewed (asked at `asked_at` on the tenure's clock): a timer left unarmed while the tenure
        had lapsed is armed again."""
        if self.tenure is None:
            return
        lapsed = not self.tenure.holds()
        self.tenure.renewed(asked_at)
        if lapsed and self._timer is None and not self.closed:
            self._arm()

    async def close(self) -> None:
        self.closed = True
        if self._timer is not None:
            await self._timer.stop()

    # --- what viewers get ----------------------------------------------------------------------------------------

    def options(self, member: Member, unit: str | None) -> dict[str, Any] | None:
        """The legal options the member's team has now (rules.options): read-only, from the state as it is. The
        engine's answers are kept per (viewer class, unit) until the game's state changes, so asking again —
        every player of a team, or a client flooding the request — costs a lookup, not a search."""
        viewer = rules.options_viewer(self.spec, self.state, member)
        game = self.state.game
        if self._options_of is not game:
            self._options.clear()
            self._options_of = game
        key = (viewer, unit)
        if key not in self._options:
            if len(self._options) >= OPTIONS_KEPT:
                self._options.clear()
            assert self.spec.engine is not None
            self._options[key] = self.spec.engine.options(game, viewer, unit)
        return self._options[key]

    def viewer_of(self, member: Member) -> str:
        return secret_module.viewer_of(self.spec, self.state, member)

    def views(self, viewers: set[str]) -> dict[str, dict[str, Any]]:
        """The engine's projection of the state for each viewer class (no view without an engine)."""
        engine = self.spec.engine
        if engine is None:
            return {}
        return {v: engine.view(self.state.game, v) for v in sorted(viewers)}

    def active(self) -> list[str]:
        """The teams to act now (the room's turn: a campaign waiting for its battles has none)."""
        return sorted(self.spec.active(self.state.game))

    def clocks_view(self) -> dict[str, Any]:
        clocks = self.state.clocks
        return clocks.view(self.now()) if clocks is not None else {}

    def snapshot_for(self, viewer: str, spectator: bool = False) -> dict[str, Any]:
        return catch_up.snapshot(self.spec, self.state, self.seq, viewer, self.now(), spectator)

    def catch_up(self, viewer: str, since: int | None, spectator: bool = False) -> list[dict[str, Any]]:
        """What a viewer that saw everything up to `since` is missing: exactly the later events it may see, or a
        snapshot when the history no longer reaches back that far."""
        missed = catch_up.missed(self.spec, self.history, self.seq, viewer, since, spectator)
        if missed is None:  # with the recent events it may see: the turn log of a page reloaded mid-game
            return [catch_up.snapshot(self.spec, self.state, self.seq, viewer, self.now(), spectator, self.history)]
        return [catch_up.ev(self.id, e) for e in missed]

    def lockout_of(self, player: str) -> Away | None:
        return self.state.away.get(player)
