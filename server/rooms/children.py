"""Child rooms: the rooms a game runs beside itself (a campaign's battles and storms, N-START-1), whatever the game
— everything it knows of one comes from the engine interface's hooks (server/core/engine.py).

A child room is `b-<campaign>-<key>` (server/rooms/ids.py). It is created when an event of the parent opens it
(`child_opened`), set up as the parent's engine says (`child_setup`: its engine, config, teams; its seed an HMAC
of its id keyed with the parent's seed, D-GEN-4), with the parent's players of those teams, a chess clock per side
(the campaign's `battle_clock` setting, else its clock settings) and, D-N-14, the parent's players in the secret
module locked out there too. When the child's game is over its result (`result`) goes back to the parent as one
`child_over` command (D-L-1). The commands the parent's events call for (`follow_ups`: a fallen general's lockout,
a battle settled on the map ended in its room) are run here, and a player sent to the secret module (or brought
back early) is so in every running child room too.

Everything runs on the node that owns the parent (or the child): the rooms tell this module after each durable,
published command; the work is queued and done in order by one task, never inside a room's lock. When a parent is
(re)opened, `reconcile` makes sure every running child has its room and that a child already over has its result
applied — so a node that dies between the two steps loses nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

from server.core import seeds
from server.core.engine import ChildRoom, FollowUp
from server.core.errors import RuleError
from server.rooms.ids import RoomId
from server.rooms.members import Member
from server.rooms.room import Room
from server.store.records import LoggedEvent

log = logging.getLogger(__name__)

LEASE_TRIES = 40
Job = Callable[..., Awaitable[Any]]
DEFAULT_CHILD_CLOCK = {"mode": "per_turn", "turn_ms": 5 * 60_000}


class Rooms(Protocol):
    """What child rooms need of the node's rooms (the hub)."""

    rooms: dict[str, Room]

    def now(self) -> int: ...

    async def owned(self, room_id: str) -> Room | None: ...

    async def create_room(self, room_id: str, setup: Mapping[str, Any], *, lease_tries: int = 1) -> Room | None: ...

    async def exists(self, room_id: str) -> bool: ...

    async def submit(self, room_id: str, kind: str, body: Mapping[str, Any], member: Member) -> int | None: ...


def running(parent: Room) -> list[ChildRoom]:
    """The children the parent's game runs now."""
    return list(parent.engine.child_rooms(parent.state.game)) if parent.engine is not None else []


def finished(parent: Room) -> list[ChildRoom]:
    """The children of the parent's game fought to their end."""
    return list(parent.engine.finished_child_rooms(parent.state.game)) if parent.engine is not None else []


class Children:
    def __init__(self, rooms: Rooms) -> None:
        self.rooms = rooms
        self._queue: asyncio.Queue[tuple[Job, tuple[Any, ...]]] = asyncio.Queue()
        self._worker: asyncio.Task[None] | None = None
        self._reported: set[str] = set()
        self.pending: Counter[str] = Counter()
        """Room → its queued or running work (the hub does not unload it meanwhile)."""

    # --- hooks --------------------------------------------------------------------------------------------------

    def attach(self, room: Room) -> None:
        """A room this node now owns: follow what it commits; a parent is reconciled with its children, a child
        looked at in case it is over."""
        if room.engine is None or self._observe in room.listeners:
            return
        room.listeners.append(self._observe)
        if room.engine.has_child_rooms:
            self._put(self.reconcile, room.id)
        if room.id.kind == "battle":
            self._put(self.report, room.id)

    def _observe(self, room: Room, events: tuple[LoggedEvent, ...]) -> None:
        engine = room.engine
        assert engine is not None
        for e in events:
            key = engine.child_opened(e.kind, e.data) if engine.has_child_rooms else None
            if key is not None:
                self._put(self.spawn, room.id, key)
            follow = engine.follow_ups(e.kind, e.data)
            if follow:
                self._put(self.follow_up, room.id, tuple(follow))
            if e.kind == "secret_module" and engine.has_child_rooms and (
                    e.data.get("action") == "sent" or e.data.get("early")):
                self._put(self.secret_module, room.id, dict(e.data))
        if room.id.kind == "battle" and engine.is_over(room.state.game):
            self._put(self.report, room.id)

    def busy(self, room_id: str) -> bool:
        return self.pending[room_id] > 0

    def _put(self, job: Job, room_id: str, *args: Any) -> None:
        self.pending[room_id] += 1
        self._queue.put_nowait((job, (room_id, *args)))
        if self._worker is None or self._worker.done():
            self._worker = asyncio.get_running_loop().create_task(self._work())

    async def _work(self) -> None:
        while not self._queue.empty():
            job, args = self._queue.get_nowait()
            try:
                await job(*args)
            except Exception:
                log.exception("child rooms: %s %r failed", job.__name__, args)
            finally:
                self.pending[args[0]] -= 1
                if self.pending[args[0]] <= 0:
                    del self.pending[args[0]]

    async def settled(self) -> None:
        """Wait until the work queued so far is done."""
        while self._worker is not None and not self._worker.done():
            await asyncio.shield(self._worker)

    async def close(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker

    # --- the work -----------------------------------------------------------------------------------------------

    async def spawn(self, parent_id: RoomId, key: str) -> Room | None:
        """The child room, created once (one that already exists in the store is only adopted)."""
        parent = self.rooms.rooms.get(parent_id)
        if parent is None or parent.engine is None:
            return None
        room_id = RoomId.child_room(parent_id.campaign, key)
        existing = await self.rooms.owned(room_id)
        if existing is not None:
            return existing
        if await self.rooms.exists(room_id):
            return None  # created already, owned by another node
        setup = parent.setup
        seed = seeds.child_seed(int(setup.get("seed", 0)), str(room_id))  # D-GEN-4: one reveals no other
        child = parent.engine.child_setup(parent.state.game, key, seed)
        clock = dict(setup.get("config") or {}).get("battle_clock") or setup.get("clock") or DEFAULT_CHILD_CLOCK
        room = await self.rooms.create_room(room_id, {
            "engine": child.engine, "campaign": parent_id.campaign, "teams": list(child.teams), "clock": clock,
            "players": {p: t for p, t in dict(setup.get("players") or {}).items() if t in child.teams},
            "seed": child.seed, "config": dict(child.config), "parent": str(parent_id), **child.extra,
            "ai": sorted(p for p in parent.state.ai if parent.players.get(p) in child.teams),  # issue 18
        }, lease_tries=LEASE_TRIES)  # another node may hold the lease a moment while it finds no room there
        if room is None:
            return None
        now = self.rooms.now()
        for away in list(parent.state.away.values()):  # D-N-14: who is in the secret module commands nothing here
            if away.player in room.players and away.until_ms > now:
                await room.submit("lock", {"player": away.player, "reason": away.reason,
                                           "minutes": (away.until_ms - now) / 60_000}, Member.server(room_id.campaign))
        return room

    async def report(self, room_id: RoomId) -> None:
        """D-L-1: the child's game is over — its result goes to the parent as one command (applied once)."""
        room = self.rooms.rooms.get(room_id)
        if room is None or room.engine is None or room_id in self._reported or room_id.parent is None:
            return
        if not room.engine.is_over(room.state.game):
            return
        result = room.engine.result(room.state.game)
        if result is None:
            return
        try:
            await self.rooms.submit(room_id.parent, "child_over", {"child": room_id.child, "result": dict(result)},
                                    Member.server(room_id.campaign))
        except RuleError as exc:
            if exc.rule != "D-L-1":
                raise
            log.info("child room %s: result already applied (%s)", room_id, exc.message)
        self._reported.add(room_id)

    async def follow_up(self, parent_id: RoomId, follows: tuple[FollowUp, ...]) -> None:
        """The commands an event of the parent calls for, in order: on the parent, or on a child wherever it is
        owned (a child it settled is ended there unless its game is over already, and its result not sent back)."""
        if parent_id not in self.rooms.rooms:
            return
        server = Member.server(parent_id.campaign)
        for follow in follows:
            if follow.child is None:
                await self.rooms.submit(parent_id, follow.command, follow.body, server)
                continue
            room_id = RoomId.child_room(parent_id.campaign, follow.child)
            if follow.settles_child:
                room = self.rooms.rooms.get(room_id)
                if room is not None and (room.engine is None or room.engine.is_over(room.state.game)):
                    continue
                self._reported.add(room_id)
            try:
                await self.rooms.submit(room_id, follow.command, follow.body, server)
            except RuleError as exc:  # over already
                log.info("child room %s: %s not applied (%s)", room_id, follow.command, exc.message)

    async def secret_module(self, parent_id: RoomId, data: Mapping[str, Any]) -> None:
        """D-N-14: a player in the secret module commands nothing — in every running child room of the parent
        too, wherever it is owned; the moderator's early release brings the player back there as well. A return at
        the end of the time needs nothing: each room's own timer brings the player back."""
        parent = self.rooms.rooms.get(parent_id)
        if parent is None:
            return
        player = str(data["player"])
        team = parent.players.get(player)
        if data.get("action") == "sent":
            left_ms = int(data["until_ms"]) - self.rooms.now()
            if left_ms <= 0:
                return
            kind, body = "lock", {"player": player, "reason": data.get("reason", ""), "minutes": left_ms / 60_000}
        else:
            kind, body = "release", {"player": player, "by": "moderator"}
        for child in running(parent):
            if team not in child.teams:
                continue
            room_id = RoomId.child_room(parent_id.campaign, child.key)
            try:
                await self.rooms.submit(room_id, kind, body, Member.server(parent_id.campaign))
            except RuleError as exc:  # not away there (released already, or the room is over and gone)
                log.info("child room %s: %s %s not applied (%s)", room_id, kind, player, exc.message)

    async def reconcile(self, parent_id: RoomId) -> None:
        parent = self.rooms.rooms.get(parent_id)
        if parent is None:
            return
        for child in running(parent):
            if await self.spawn(parent_id, child.key) is not None:
                await self.report(RoomId.child_room(parent_id.campaign, child.key))
