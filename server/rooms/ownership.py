"""The rooms this node owns: each held by a lease in the store, kept alive, opened when needed and unloaded when
idle. Nothing here assumes a single process: another node may own any room, and a room whose node died is adopted.

A room opens lazily — on its first join or command (`owned`), or when a timer of its falls due or its owner died
(`open_due`); a keep-alive tick every half second renews the leases, marks the rooms alive (downtime starts at the
last mark), reports the node's presence, unloads idle rooms and opens the due ones.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

from server.rooms.opening import Held, OpeningLock
from server.rooms.reach import Reach
from server.rooms.room import Room, RoomServices
from server.rooms.scheduler import Timer
from server.rooms.tenure import Tenure
from server.store import unreachable

log = logging.getLogger(__name__)

TICK_MS = 500
DUE_AHEAD_MS = 2_000
ORPHAN_AFTER_MS = 1_000  # rooms are marked alive every 0.5 s; a mark this old means its owner may be gone
ORPHAN_EVERY_MS = 200
"""Under Redis, how often a node looks for orphans (rooms of a node that died holding them) and tries to take them
over: each is taken as soon as its lease has run out (issue 19 §4: served again within 3 s)."""
OUTAGE_GAP_MS = 2_000  # under Redis: a node starting after this long without any node alive records an outage
IDLE_EVERY = 20  # ticks between the looks for idle feeds and rooms
UNLOAD_DUE_MS = 60_000  # a room with a timer due sooner stays open (its timer is armed already)


class Ownership:
    def __init__(self, services: RoomServices, node: str, *, lease_ms: int, room_idle_ms: int,
                 adopt: Callable[[Room], None], in_use: Callable[[str], bool]):
        self.services = services
        self.store = services.store
        self.node = node
        self.lease_ms = lease_ms
        self.room_idle_ms = room_idle_ms
        """An owned room nobody follows here, commands or has a timer due in is unloaded after this long (0: never)."""
        self.adopt = adopt
        self.in_use = in_use
        """Whether something on this node still needs a room (followers, child-room work): it is not unloaded."""
        self.rooms: dict[str, Room] = {}
        self.unloaded = 0
        self.on_tick: list[Callable[[int], Any]] = []
        """Called with the tick number after each keep-alive tick's own work (feeds, presence)."""
        self._used: dict[str, int] = {}  # owned room -> its last join or command here
        self._opening: dict[str, Held] = {}
        self._unloading: asyncio.Task[list[str]] | None = None
        self._timer: Timer | None = None
        self._orphan_timer: Timer | None = None
        self._ticks = 0
        self._closing = False
        self.monotonic: Callable[[], float] = time.monotonic
        """The clock of the rooms' tenures (server/rooms/tenure.py)."""
        self.reach = Reach()
        """Whether the store answers (reach.py): the keep-alive tick keeps it."""

    def now(self) -> int:
        return self.services.now()

    # --- life --------------------------------------------------------------------------------------------------

    async def start(self) -> None:
        """Record an outage if the service was down, then open only the rooms with a timer due (or orphaned by a
        node that died): every other room is opened on its first join or command."""
        await self.store.leases.record_outage(self.now(), OUTAGE_GAP_MS)
        await self.open_due()
        self._arm()
        if self.store.leases.expires:
            self._arm_orphans()

    def _arm_orphans(self) -> None:
        if not self._closing:
            self._orphan_timer = self.services.scheduler.at(self.now() + ORPHAN_EVERY_MS, self._look_for_orphans)

    async def _look_for_orphans(self) -> None:
        """Take over the rooms of a node that died as soon as their leases run out (between keep-alive ticks)."""
        if not self.reach.ok:
            self._arm_orphans()
            return
        try:
            orphans = await self.store.leases.orphans(self.now() - ORPHAN_AFTER_MS)
            for room_id in orphans:
                if room_id not in self.rooms:
                    try:
                        await self.owned(room_id)
                    except Exception:
                        log.exception("could not take over room %s", room_id)
        except Exception as exc:
            log.debug("looking for orphans failed: %r", exc)
        finally:
            self._arm_orphans()

    def _arm(self) -> None:
        if not self._closing:
            self._timer = self.services.scheduler.at(self.now() + TICK_MS, self._tick)

    async def _tick(self) -> None:
        """Renew leases, mark rooms alive, report presence, unload idle rooms, open due and orphaned rooms."""
        try:
            await self._keep_alive()
        finally:
            self._arm()

    async def _keep_alive(self) -> None:
        self._ticks += 1
        tick, now = self._ticks, self.now()
        reach = self.reach
        if not reach.due():
            return  # the store is out of reach: asked again after the back-off (reach.py)
        if not reach.ok:
            try:
                if self.store.ping is not None:
                    await self.store.ping()
            except Exception as exc:
                reach.failed(exc)
                return
            reach.succeeded()
        if tick % max(1, self.lease_ms // 1500) == 0 and self.rooms:
            await self.renew()
        try:
            await self.store.leases.mark_alive(list(self.rooms), now)
            await self.store.log.sync()
        except Exception as exc:
            if unreachable(exc):
                reach.failed(exc)
                return
            log.exception("marking rooms alive failed")
        for listener in self.on_tick:
            with contextlib.suppress(Exception):
                await listener(tick)
        if tick % IDLE_EVERY == 0 and self.room_idle_ms > 0:  # shielded: a shutdown lets an unload finish
            self._unloading = asyncio.get_running_loop().create_task(self.unload_idle())
            try:
                await asyncio.shield(self._unloading)
            except Exception:
                log.exception("unloading idle rooms failed")
        try:
            await self.open_due()
        except Exception:
            log.exception("opening due rooms failed")

    async def renew(self) -> None:
        """Renew the leases of the rooms owned here, in one request: a room whose lease was lost (taken by another
        node, or run out while this process was stopped) is dropped — its copy here may be stale; a command or a
        timer opens it again from the log if the lease is free."""
        asked = self.monotonic()
        try:
            epochs = await self.store.leases.renew(list(self.rooms), self.node, self.lease_ms)
        except Exception as exc:  # the store is out of reach: the tenures lapse on their own
            if unreachable(exc):
                self.reach.failed(exc)
            else:
                log.exception("renewing %d leases failed", len(self.rooms))
            return
        for room_id, epoch in epochs.items():
            room = self.rooms.get(room_id)
            if room is None:
                continue
            if epoch is None or (room.tenure is not None and epoch != room.tenure.epoch):
                log.warning("lost the lease of %s", room_id)
                await self.drop(room_id)
            else:
                room.renewed(asked)

    async def _reclaim(self, room: Room) -> bool:
        """A room's tenure lapsed (the loop stalled, the process was stopped): renew its lease now if it is still
        ours in the same epoch; else (taken, or run out and so possibly taken and written meanwhile) it is lost."""
        asked = self.monotonic()
        try:
            epoch = await self.store.leases.acquire(room.id, self.node, self.lease_ms)
        except Exception:
            return False
        if room.tenure is None or epoch != room.tenure.epoch:
            if epoch is not None:  # run out and taken again here: let it go, the room reopens from the log
                await self.store.leases.release(room.id, self.node)
            log.warning("lost the lease of %s", room.id)
            return False
        room.renewed(asked)
        return True

    def _tenure(self, epoch: int, asked: float) -> Tenure | None:
        """The tenure of a lease just taken (None when the store's leases never run out: the embedded LOCK)."""
        if not self.store.leases.expires:
            return None
        tenure = Tenure(self.lease_ms, epoch, self.monotonic)
        tenure.renewed(asked)
        return tenure

    async def open_due(self) -> None:
        """Open the rooms whose clocks flag or lockouts end within `DUE_AHEAD_MS` (their own timers take it from
        there) and those whose owner died without releasing them; another node may have been quicker."""
        now = self.now()
        due = await self.store.log.due_rooms(now + DUE_AHEAD_MS)
        orphans = await self.store.leases.orphans(now - ORPHAN_AFTER_MS)
        for room_id in sorted({*due, *orphans}):
            if room_id in self.rooms:
                continue
            try:
                await self.owned(room_id)
            except Exception:
                log.exception("could not open room %s", room_id)

    async def close(self) -> None:
        self._closing = True
        if self._timer is not None:
            await self._timer.stop()
        if self._orphan_timer is not None:
            await self._orphan_timer.stop()
        if self._unloading is not None:
            with contextlib.suppress(Exception):
                await self._unloading
        for room_id in list(self.rooms):
            room = self.rooms.pop(room_id)
            await room.close()
            with contextlib.suppress(Exception):
                await room.save_snapshot()
                await self.release(room_id)

    # --- rooms -------------------------------------------------------------------------------------------------

    def opening(self, room_id: str) -> OpeningLock:
        """Held while a room is being opened or created on this node, so that no second copy of it is opened
        meanwhile (a join racing a child room's creation would otherwise open its half-written log)."""
        return OpeningLock(self._opening, room_id)

    async def owned(self, room_id: str) -> Room | None:
        """The room if this node owns it (opening it and taking its lease when nobody holds it)."""
        room = self.rooms.get(room_id)
        if room is not None and not room.closed:
            self._used[room_id] = self.now()
            return room
        async with self.opening(room_id):
            room = self.rooms.get(room_id)
            if room is not None and not room.closed:
                self._used[room_id] = self.now()
                return room
            if room is not None:  # a failed write closed it: its log is the truth, rebuild from there
                del self.rooms[room_id]
                await room.close()
            asked = self.monotonic()
            epoch = await self.store.leases.acquire(room_id, self.node, self.lease_ms)
            if epoch is None:
                return None
            room = await Room.open(room_id, self.services, tenure=self._tenure(epoch, asked))
            if room is None:
                await self.release(room_id)
                return None
            self._add(room)
            return room

    async def create(self, room_id: str, setup: Mapping[str, Any], *, lease_tries: int = 1) -> Room | None:
        """Open a new room owned by this node: its first record is `setup` (engine name, config, seed, teams,
        players, clock settings). None when its lease stays another node's."""
        async with self.opening(room_id):
            for attempt in range(lease_tries):
                asked = self.monotonic()
                epoch = await self.store.leases.acquire(room_id, self.node, self.lease_ms)
                if epoch is not None:
                    break
                if attempt + 1 < lease_tries:
                    await asyncio.sleep(0.05)
            else:
                log.warning("room %s: could not take its lease", room_id)
                return None
            room = await Room.create(room_id, setup, self.services, self._tenure(epoch, asked))
            self._add(room)
        return room

    def _add(self, room: Room) -> None:
        if room.tenure is not None:
            room.reclaim = lambda: self._reclaim(room)
        self.rooms[room.id] = room
        self._used[room.id] = self.now()
        self.adopt(room)

    async def drop(self, room_id: str) -> None:
        """Close this node's copy of a room it no longer owns (its lease lost)."""
        room = self.rooms.pop(room_id, None)
        self._used.pop(room_id, None)
        if room is not None:
            await room.close()

    async def release(self, room_id: str) -> None:
        """Give up the room's lease and what the store holds open for it."""
        await self.store.leases.release(room_id, self.node)
        await self.store.log.forget(room_id)

    # --- unloading idle rooms ----------------------------------------------------------------------------------

    def idle(self, room: Room) -> bool:
        """Nothing on this node needs the room, no join or command (nor timer) for `room_idle_ms`, no timer due
        within `UNLOAD_DUE_MS`, and nothing is being run in it."""
        now = self.now()
        due = room.next_due()
        return (self.room_idle_ms > 0 and not room.closed and not room.busy() and not self.in_use(room.id)
                and max(self._used.get(room.id, 0), room.last_at) <= now - self.room_idle_ms
                and (due is None or due > now + UNLOAD_DUE_MS))

    async def unload_idle(self) -> list[str]:
        """Unload the idle rooms: their snapshot saved, closed, their lease released. Nothing is lost: the log has
        every record, a join or command reopens the room (`owned`), a timer due later reopens it (`open_due`)."""
        unloaded = []
        for room_id, room in list(self.rooms.items()):
            if not self.idle(room):
                continue
            try:
                if await self._unload(room_id):
                    unloaded.append(room_id)
            except Exception:
                log.exception("unloading room %s failed", room_id)
        return unloaded

    async def _unload(self, room_id: str) -> bool:
        async with self.opening(room_id):  # no join or command opens it again until its lease is released
            room = self.rooms.get(room_id)
            if room is None:
                return False
            async with room.lock:
                await room.save_snapshot()
            if not self.idle(room):  # joined or commanded meanwhile
                return False
            await self.drop(room_id)
            await self.release(room_id)
            self.unloaded += 1
            log.info("room %s unloaded (idle)", room_id)
            return True

