"""Replays of finished rooms: the room rebuilt from its log, with the view a viewer class had after each completed
turn and at the end — or, event by event (`by="event"`), every logged command the viewer saw something of: its
events as that class received them (a side never gets the other side's hidden events or channels) and what its
view became, as a patch of the view before.

A turn is complete when the turn number of the room's state (the engine view's `turn`) grows; the view taken then
shows the turn's outcome. Engines without a turn number get a view after every change of who is to act. Once a
game is over nothing in it is secret any more, so anyone may ask for any viewer class, the moderator's included.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from server.core.engine import MODERATOR, SPECTATOR
from server.rooms.catch_up import visible
from server.rooms.errors import RoomError
from server.rooms.room import Room, RoomServices
from server.rooms.state import RoomSpec

CACHED = 32  # finished rooms never change: their replays are kept (per room and viewer class)


def viewer_class(wanted: str, teams: list[str]) -> str:
    """`full` (the moderator's view), `spectator` or `team:<colour>` of one of the room's teams."""
    if wanted == "full":
        return MODERATOR
    if wanted == SPECTATOR or (wanted.startswith("team:") and wanted[5:] in teams):
        return wanted
    raise RoomError("bad_message", f"'as' is full, spectator or team:<colour> of {', '.join(teams)}")


class Replays:
    def __init__(self, services: RoomServices):
        self.services = services
        self._cache: OrderedDict[tuple[str, str, str], dict[str, Any]] = OrderedDict()

    async def replay(self, room_id: str, wanted: str, current: Room | None = None, by: str = "turn") -> dict[str, Any]:
        """The per-turn (or, `by="event"`, per-command) views of a finished room for `wanted`. `current` is the live
        room when this node owns it (to refuse a running game without reading its whole log)."""
        if by not in ("turn", "event"):
            raise RoomError("bad_message", "'by' is turn or event")
        head = current or await Room.open(room_id, self.services, owner=False, history=1)
        if head is None or head.engine is None:
            raise RoomError("no_such_room", f"no room {room_id} with a game")
        viewer = viewer_class(wanted, head.teams)
        key = (room_id, viewer, by)
        cached = self._cache.get(key)
        if cached is not None:
            self._cache.move_to_end(key)
            return cached
        if not head.engine.is_over(head.state.game):
            raise RoomError("not_over", f"room {room_id} is still being played: its replay comes when it is over")
        build = self._build if by == "turn" else self._build_steps
        answer = await build(room_id, viewer, wanted)
        self._cache[key] = answer
        while len(self._cache) > CACHED:
            self._cache.popitem(last=False)
        return answer

    async def _build(self, room_id: str, viewer: str, wanted: str) -> dict[str, Any]:
        records = await self.services.store.log.read(room_id, 0)
        room = Room(RoomSpec.of(room_id, records[0].body, self.services.engines), self.services, history=1)
        engine = room.engine
        assert engine is not None
        turns: list[dict[str, Any]] = []
        last_turn: Any = None
        for record in records:
            room.advance([record])
            if not any(e.kind == "turn" for e in record.events):
                continue  # who is to act did not change: no turn can have ended
            state = engine.view(room.state.game, viewer)
            turn = state.get("turn")
            if record.index == 1:
                last_turn = turn
            elif turn is None or turn != last_turn:
                turns.append({"turn": last_turn, "seq": room.seq, "at_ms": record.at_ms, "state": state})
                last_turn = turn
        final = {"turn": last_turn, "seq": room.seq, "at_ms": room.last_at,
                 "state": engine.view(room.state.game, viewer)}
        return {"room": room_id, "as": wanted, "viewer": viewer, "kind": room.kind, "teams": room.teams,
                "turns": turns, "final": final}

    async def _build_steps(self, room_id: str, viewer: str, wanted: str) -> dict[str, Any]:
        """Every command whose events `viewer` saw, or that changed its view: `{seq, at_ms, turn, events, patch}`,
        the first with the whole view in `state`; `patch` (`view_patch`) turns the view before into the one after."""
        records = await self.services.store.log.read(room_id, 0)
        room = Room(RoomSpec.of(room_id, records[0].body, self.services.engines), self.services, history=1)
        engine = room.engine
        assert engine is not None
        steps: list[dict[str, Any]] = []
        before: dict[str, Any] | None = None
        for record in records:
            room.advance([record])
            seen = [{"seq": e.seq, "at_ms": e.at_ms, "kind": e.kind, "data": e.plain_data()}
                    for e in record.events if visible(e.audience, viewer)]
            after = engine.view(room.state.game, viewer)
            patch = view_patch(before, after) if before is not None else None
            if before is not None and not seen and not patch:
                continue
            step: dict[str, Any] = {"seq": room.seq, "at_ms": record.at_ms, "turn": after.get("turn"), "events": seen}
            if before is None:
                step["state"] = after
            else:
                step["patch"] = patch
            steps.append(step)
            before = after
        return {"room": room_id, "as": wanted, "viewer": viewer, "kind": room.kind, "teams": room.teams, "steps": steps}


def _by_id(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(x, dict) and isinstance(x.get("id"), str) for x in value)


def view_patch(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What changed from one view to the next: top-level keys with their new value; a list of things with ids
    (units, armies) as `{"$ids": [ids in order], "$set": [the changed or new ones]}`; keys gone in `$drop`. The
    client applies it (client_web/src/net/replay.ts `applyPatch`); a view of 50 units costs what changed in it."""
    out: dict[str, Any] = {}
    for key, value in after.items():
        old = before.get(key)
        if key in before and old == value:
            continue
        if isinstance(old, list) and _by_id(value) and _by_id(old):
            was = {x["id"]: x for x in old}
            out[key] = {"$ids": [x["id"] for x in value], "$set": [x for x in value if was.get(x["id"]) != x]}
        else:
            out[key] = value
    dropped = [key for key in before if key not in after]
    if dropped:
        out["$drop"] = dropped
    return out
