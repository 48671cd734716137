"""The AI commanders (issue 18): a team whose seats the AI plays (ai_seats.py) gives its orders through the room
authority like a person's, decided from the view that team receives — never the state.

After every durable command of a room owned here (and when the node adopts it), the teams to act whose seats are
all the AI's get a turn played, off the room's hot path: a task takes the team's view (the engine's projection for
`team:<colour>`, fog included), asks the engine's `commander(view, team, seed)` in a worker thread, bounded in time
(`THINK_MS`, and never past the side's clock: its remaining time less a margin), then submits each order as an
`order` command of the team's first AI seat (`"ai": true` and a `cid` in the body: the log says the AI gave it for
that seat) and ends the turn. A refused order is dropped (the room answered it as it would a person). The seed comes
from the room's own generator — its setup seed, the record index and the team — so the decision is a function of
the log; the orders themselves are logged, and a replay reproduces them without asking the AI again.

It also runs the campaign's stand-in (setting `ai_stand_in_ms`): when a team's turn begins and, that long after,
none of its seats has a session signed in, the server hands its seats to the AI (`mod_ai` with `stand_in`); a
player of the team signing in takes them back. A campaign's AI seats reach its running battles (their setup
records, and each later `mod_ai` is forwarded to them).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol

from server.core.errors import RuleError
from server.rooms import ai_seats
from server.rooms.ai_view import decide
from server.rooms.ids import RoomId
from server.rooms.members import Member
from server.rooms.requests import Request
from server.rooms.room import Room
from server.rooms.scheduler import Scheduler, Timer
from server.store.records import LoggedEvent

log = logging.getLogger(__name__)

THINK_MS = 10_000
"""The longest the AI thinks about one team's orders (the worker thread's result is not awaited longer)."""
CLOCK_MARGIN_MS = 2_000
AI_CIDS = 2**52
"""The AI's orders carry cids from here up (a client numbers its own from 1): each a request kept like a
client's (server/rooms/requests.py)."""
"""The AI's orders are all in this long before its side's clock would flag."""
TURN_EVENTS = frozenset({"turn", "clock_started", "clock_resumed", "room_opened"})


class Rooms(Protocol):
    """What the commanders need of the node's rooms (the hub)."""

    rooms: dict[str, Room]
    scheduler: Scheduler

    def now(self) -> int: ...

    async def signed_in(self, campaign: str, player: str) -> bool: ...

    async def submit(self, room_id: str, kind: str, body: Mapping[str, Any], member: Member,
                     request: Request | None = None) -> int | None: ...


def decision_seed(room: Room, team: str) -> int:
    """The AI's randomness for `team`'s decision now: from the room's setup seed and its log's length."""
    raw = f"{room.setup.get('seed', 0)}:{room.index}:{team}".encode()
    return int.from_bytes(hashlib.sha256(raw).digest()[:8], "big") >> 2


def think_budget_ms(room: Room, team: str) -> int:
    """How long the AI may think: `THINK_MS`, and never past its side's clock (C-1.9)."""
    clocks = room.state.clocks
    if clocks is None or team not in clocks.teams:
        return THINK_MS
    return max(0, min(THINK_MS, clocks.remaining_ms(team, room.now()) - CLOCK_MARGIN_MS))


class Commanders:
    def __init__(self, rooms: Rooms) -> None:
        self.rooms = rooms
        self._playing: dict[tuple[str, str], asyncio.Task[None]] = {}
        self._stand_in: dict[tuple[str, str], Timer] = {}
        self.decisions_ms: list[float] = []
        """How long each decision took (the bench reads it)."""

    # --- hooks ------------------------------------------------------------------------------------------------
    def attach(self, room: Room) -> None:
        """A room this node now owns: its AI teams play when they are to act."""
        if room.engine is None or self._observe in room.listeners:
            return
        room.listeners.append(self._observe)
        self._look(room)
        self._arm_stand_in(room)

    def _observe(self, room: Room, events: tuple[LoggedEvent, ...]) -> None:
        changed = [dict(e.data) for e in events if e.kind == "ai_seat"]
        if changed and room.engine is not None and room.engine.has_child_rooms:
            self._spawn(self._forward(room.id, changed))
        self._look(room)
        if any(e.kind in TURN_EVENTS for e in events):
            self._arm_stand_in(room)

    async def close(self) -> None:
        for timer in self._stand_in.values():
            timer.cancel()
        for task in list(self._playing.values()):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def settled(self) -> None:
        """Wait until the AI turns started so far are played (tests)."""
        while self._playing:
            await asyncio.gather(*self._playing.values(), return_exceptions=True)

    def busy(self, room_id: str) -> bool:
        """An AI turn is being played in the room (the hub does not unload it meanwhile)."""
        return any(key[0] == room_id for key in self._playing)

    def _spawn(self, work: Any) -> asyncio.Task[None]:
        return asyncio.get_running_loop().create_task(work)

    # --- who plays ----------------------------------------------------------------------------------------------
    def ai_of(self, room: Room) -> Mapping[str, str]:
        return room.state.ai

    def _look(self, room: Room) -> None:
        """Start a turn for each team to act that the AI plays (one at a time per team)."""
        ai = self.ai_of(room)
        if not ai or room.closed or room.engine is None or room.engine.is_over(room.state.game):
            return  # no seat the AI plays (most rooms, after every command): nothing to look at
        clocks = room.state.clocks
        if clocks is not None and clocks.paused:
            return
        for team in sorted(set(room.active()) & ai_seats.played_by_ai(room.spec, ai)):
            key = (room.id, team)
            if key not in self._playing:
                task = self._spawn(self._play(room.id, team))
                self._playing[key] = task
                task.add_done_callback(self._done(key))

    def _done(self, key: tuple[str, str]) -> Callable[[asyncio.Task[None]], None]:
        def done(task: asyncio.Task[None]) -> None:
            if self._playing.get(key) is task:
                del self._playing[key]
        return done

    # --- a turn -------------------------------------------------------------------------------------------------
    async def _play(self, room_id: str, team: str) -> None:
        await asyncio.sleep(0)  # the command that started it finishes first (its listeners run under the lock)
        room = self.rooms.rooms.get(room_id)
        if room is None or room.engine is None or team not in room.active():
            return
        seat = ai_seats.seat_for(room.spec, self.ai_of(room), team)
        if seat is None:
            return
        member = Member(RoomId(room_id).campaign, "player", seat, team, int(seat.rpartition("-")[2] or 0) or None)
        engine, game = room.engine, room.state.game  # states are never changed in place: safe in a thread
        seed, budget, index = decision_seed(room, team), think_budget_ms(room, team), room.index
        started = time.perf_counter()
        try:
            orders: Sequence[Mapping[str, Any]] | None = await asyncio.wait_for(
                asyncio.get_running_loop().run_in_executor(None, decide, engine, game, team, seed), budget / 1000)
        except TimeoutError:
            log.warning("room %s: the AI for %s found no orders within %d ms", room_id, team, budget)
            orders = ()
        except Exception:
            log.exception("room %s: the AI for %s failed", room_id, team)
            orders = ()
        self.decisions_ms.append((time.perf_counter() - started) * 1000)
        ended = False
        try:
            ended = await self._give(room_id, team, member, orders or (), index)
        finally:
            self._playing.pop((room_id, team), None)  # before the look below: the team may play on
        room = self.rooms.rooms.get(room_id)
        if ended and room is not None:
            self._look(room)  # its next turn may follow at once (a battle's next phase, a decision)

    async def _give(self, room_id: str, team: str, member: Member, orders: Sequence[Mapping[str, Any]],
                    index: int) -> bool:
        """The orders through the room, then the end of the turn. Returns whether the turn ended (or, for an
        engine whose commander offers alternatives, one order was given: the AI is asked again for the next)."""
        room = self.rooms.rooms.get(room_id)
        alternatives = bool(getattr(room.engine if room is not None else None, "commander_alternatives", False))
        for n, order in enumerate(orders):
            if not self._still_to_play(room_id, team):
                return False
            cid = AI_CIDS + (index * 1000 + n) % AI_CIDS  # a request like a client's, in cids no client reaches
            body = {"order": dict(order), "ai": True, "cid": cid}
            try:
                await self.rooms.submit(room_id, "order", body, member,
                                        Request.of({"t": "order", "room": room_id, **body}))
            except RuleError as exc:
                log.info("room %s: the AI's order for %s refused (%s)", room_id, team, exc.message)
                continue
            if alternatives:
                return True
        if not self._still_to_play(room_id, team):
            return True
        try:
            await self.rooms.submit(room_id, "end_turn", {"ai": True}, member)
        except RuleError as exc:
            log.info("room %s: the AI could not end %s's turn (%s)", room_id, team, exc.message)
            return False
        return True

    def _still_to_play(self, room_id: str, team: str) -> bool:
        room = self.rooms.rooms.get(room_id)
        return (room is not None and not room.closed and room.engine is not None and team in room.active()
                and team in ai_seats.played_by_ai(room.spec, self.ai_of(room)))

    # --- a campaign's battles -----------------------------------------------------------------------------------
    async def _forward(self, parent_id: RoomId, changes: list[dict[str, Any]]) -> None:
        """A seat handed over in the campaign is so in its running battles too."""
        parent = self.rooms.rooms.get(parent_id)
        if parent is None or parent.engine is None:
            return
        server = Member.server(parent_id.campaign)
        for child in parent.engine.child_rooms(parent.state.game):
            room_id = RoomId.child_room(parent_id.campaign, child.key)
            for change in changes:
                if change["team"] not in child.teams:
                    continue
                body = {"player": change["player"], "on": change["on"],
                        "stand_in": change.get("why") == ai_seats.STAND_IN}
                try:
                    await self.rooms.submit(room_id, "mod_ai", body, server)
                except (RuleError, LookupError) as exc:
                    log.info("battle %s: mod_ai not applied (%s)", room_id, exc)

    # --- the stand-in -------------------------------------------------------------------------------------------
    def _stand_in_ms(self, room: Room) -> int | None:
        value = room.setup.get("ai_stand_in_ms")
        return int(value) if value is not None and room.id.kind == "campaign" else None

    def _arm_stand_in(self, room: Room) -> None:
        """When a team's turn begins: a look, after the campaign's delay, at whether anyone plays its seats."""
        after = self._stand_in_ms(room)
        if after is None:
            return
        for team in room.active():
            key = (room.id, team)
            if key in self._stand_in or team in ai_seats.played_by_ai(room.spec, self.ai_of(room)):
                continue
            self._stand_in[key] = self.rooms.scheduler.at(self.rooms.now() + after, self._stand_in_job(key))

    def _stand_in_job(self, key: tuple[str, str]) -> Callable[[], Awaitable[None]]:
        return lambda: self._stand_in_due(key)

    async def _stand_in_due(self, key: tuple[str, str]) -> None:
        self._stand_in.pop(key, None)
        room_id, team = key
        room = self.rooms.rooms.get(room_id)
        if room is None or room.closed or team not in room.active():
            return
        seats = [p for p, t in room.players.items() if t == team]
        if not seats:
            return
        for player in seats:
            if await self.rooms.signed_in(room.id.campaign, player):
                return
        await self.rooms.submit(room_id, "mod_ai", {"player": team, "on": True, "stand_in": True},
                                Member.server(room.id.campaign))

    async def returned(self, member: Member) -> None:
        """A player signed in: the seats the AI stood in for on that team are theirs again."""
        if member.role != "player" or member.team is None:
            return
        room_id = RoomId.campaign_room(member.campaign)
        room = self.rooms.rooms.get(room_id)
        if room is None:
            return
        for player, why in sorted(room.state.ai.items()):
            if why == ai_seats.STAND_IN and room.players.get(player) == member.team:
                await self.rooms.submit(room_id, "mod_ai", {"player": player, "on": False, "stand_in": True},
                                        Member.server(member.campaign))
