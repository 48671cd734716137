"""Issue 18: seats handed to the AI commander and back; the AI's orders go through the room like a person's, logged
as given by the AI for its seat; a team created as the AI's plays from the start; the AI stands in for an absent
team and the returning player takes the seat back; the AI decides from its view alone."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from server.core.engine import team_viewer
from server.core.errors import NotYourTurn
from server.engines import ENGINES
from server.napoleonic.battle.commander import CommandedBattleEngine
from server.rooms.errors import RoomError
from server.rooms.hub import Hub
from server.rooms.ids import RoomId
from server.rooms.members import Member
from server.rooms.room import Room
from tests.napoleonic.battle.helpers import config, unit
from tests.rooms.helpers import ManualClock, open_hub

ARMY = ["infantry", "infantry", "infantry", "light_cavalry", "foot_artillery"]
PLAYERS = {"red-1": "red", "blue-1": "blue"}


def battle_setup(**extra: Any) -> dict[str, Any]:
    cfg = config([unit(f"r{i}", k) for i, k in enumerate(ARMY)], [unit(f"b{i}", k) for i, k in enumerate(ARMY)],
                 turn_limit=12)
    return {"engine": "battle", "campaign": "aitest", "teams": ["red", "blue"], "players": dict(PLAYERS),
            "clock": {"mode": "per_turn", "turn_ms": 600_000}, "seed": 7, "config": cfg, **extra}


def member(player: str) -> Member:
    if player == "moderator":
        return Member("aitest", "moderator", "moderator")
    return Member("aitest", "player", player, PLAYERS[player], 1)


async def until(pred: Any, rounds: int = 2000) -> None:
    for _ in range(rounds):
        if pred():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("condition not reached")


async def records(hub: Hub, room_id: str) -> list[Any]:
    return list(await hub.store.log.read(room_id, 0))


async def new_room(tmp_path: Path, **extra: Any) -> tuple[Hub, Room]:
    hub = await open_hub(tmp_path, ManualClock())
    room = await hub.create_room(RoomId.campaign_room("aitest"), battle_setup(**extra))
    assert room is not None
    return hub, room


async def test_a_seat_handed_to_the_ai_plays_its_phases_and_is_taken_back(tmp_path: Path) -> None:
    hub, room = await new_room(tmp_path)
    try:
        game = lambda: room.state.game  # noqa: E731
        assert game().active_side == "red"
        with pytest.raises(RoomError):  # only the moderator hands seats over
            await hub.submit(room.id, "mod_ai", {"player": "red-1", "on": True}, member("red-1"))
        await hub.submit(room.id, "mod_ai", {"player": "red", "on": True}, member("moderator"))
        assert dict(room.state.ai) == {"red-1": "moderator"}
        for turn in (1, 2, 3):
            await until(lambda turn=turn: game().turn == turn and room.active() == ["blue"])
            await hub.submit(room.id, "end_turn", {}, member("blue-1"))
        await until(lambda: game().turn == 4 and room.active() == ["blue"])
        await hub.commanders.settled()
        log = await records(hub, room.id)
        given = [r for r in log if r.body.get("ai")]
        assert given and all(r.actor["player"] == "red-1" for r in given)
        assert any(r.kind == "order" for r in given) and sum(r.kind == "end_turn" for r in given) >= 3
        seats = [e for r in log for e in r.events if e.kind == "ai_seat"]
        assert seats[0].data == {"player": "red-1", "team": "red", "on": True, "why": "moderator"}
        assert seats[0].audience == frozenset({"moderator", "team:red"})  # the enemy is not told
        assert room.snapshot_for("team:red")["ai"] == ["red-1"] and "ai" not in room.snapshot_for("team:blue")
        assert room.snapshot_for("moderator")["ai"] == ["red-1"]

        await hub.submit(room.id, "mod_ai", {"player": "red-1", "on": False}, member("moderator"))
        assert dict(room.state.ai) == {}
        await hub.submit(room.id, "end_turn", {}, member("blue-1"))
        await asyncio.sleep(0.05)
        await hub.commanders.settled()
        assert room.active() == ["red"]  # nobody plays red now: its player must
        await hub.submit(room.id, "end_turn", {}, member("red-1"))
        with pytest.raises(NotYourTurn):
            await hub.submit(room.id, "end_turn", {}, member("red-1"))
    finally:
        await hub.close()


async def test_an_ai_order_decided_before_the_seat_was_taken_back_is_refused(tmp_path: Path) -> None:
    """The AI decides off the room's lock; if the moderator takes the seat back meanwhile, its order and its end of
    the turn arrive for a seat a person now holds: the room refuses them (a CI run saw the AI end red's turn after
    the hand-back was acked)."""
    hub, room = await new_room(tmp_path)
    try:
        await hub.submit(room.id, "mod_ai", {"player": "red-1", "on": True}, member("moderator"))
        await hub.commanders.close()  # no AI plays here: the test gives the AI's late commands itself
        await hub.submit(room.id, "mod_ai", {"player": "red-1", "on": False}, member("moderator"))
        before = room.index
        late = (("order", {"order": {"type": "hold", "unit": "r0"}, "ai": True}), ("end_turn", {"ai": True}))
        for kind, body in late:
            with pytest.raises(RoomError) as refused:
                await hub.submit(room.id, kind, body, member("red-1"))
            assert refused.value.code == "forbidden" and "no longer" in refused.value.message
        assert room.index == before and room.active() == ["red"]
        await hub.submit(room.id, "end_turn", {}, member("red-1"))  # the player's own end of turn is taken
        assert room.active() == ["blue"]
    finally:
        await hub.close()


async def test_ai_seats_are_restored_from_the_log(tmp_path: Path) -> None:
    hub, room = await new_room(tmp_path, ai=["blue-1"])
    try:
        assert dict(room.state.ai) == {"blue-1": "setup"}
        await hub.submit(room.id, "end_turn", {}, member("red-1"))
        await until(lambda: room.state.game.turn == 2)
        await hub.commanders.settled()
        index = room.index
    finally:
        await hub.close()
        await hub.store.close()
    hub = await open_hub(tmp_path, ManualClock())
    try:
        again = await hub.owned(room.id)
        assert again is not None and again.index == index and dict(again.state.ai) == {"blue-1": "setup"}
    finally:
        await hub.close()


async def test_the_ai_stands_in_for_an_absent_team_and_the_player_takes_over_on_return(tmp_path: Path) -> None:
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    room = await hub.create_room(RoomId.campaign_room("aitest"), battle_setup(ai_stand_in_ms=60_000))
    assert room is not None
    try:
        hub.seats.sign_in(member("red-1"), "n/1")  # red is here; blue is not
        await hub.scheduler.advance(61_000)  # type: ignore[attr-defined]
        assert dict(room.state.ai) == {}  # red's turn: red is connected
        await hub.submit(room.id, "end_turn", {}, member("red-1"))
        assert room.active() == ["blue"]
        await hub.scheduler.advance(61_000)  # type: ignore[attr-defined]
        assert dict(room.state.ai) == {"blue-1": "stand_in"}
        await until(lambda: room.active() == ["red"])  # the AI played blue's phase
        await hub.commanders.settled()
        await hub.commanders.returned(member("blue-1"))
        assert dict(room.state.ai) == {}
        log = await records(hub, room.id)
        assert [e.data["why"] for r in log for e in r.events if e.kind == "ai_seat"] == ["stand_in", "stand_in"]
    finally:
        await hub.close()


def test_the_ai_decides_from_its_view_alone() -> None:
    """Fair by construction (issue 18 §3): two battles that differ only in what blue cannot see — a red squadron
    behind a forest, the morale and losses of red's units (D-N-7: a side sees enemy positions, not their values)
    — give blue the same view, and so the same orders."""
    engine = CommandedBattleEngine()
    rows = ["." * 70] * 70
    rows = [("F" * 70 if 28 <= y <= 31 else row) for y, row in enumerate(rows)]

    def state(hidden_squadron: bool, morale: int) -> Any:
        blue = [unit("b0", "infantry", 30, 40, morale=morale), unit("b1", "light_cavalry", 44, 20)]
        if hidden_squadron:
            blue.append(unit("b2", "heavy_cavalry", 34, 22))
        cfg = config([unit("r0", "infantry", 30, 60), unit("r1", "foot_artillery", 40, 60),
                      unit("r2", "light_cavalry", 50, 62)], blue,
                     deployment_zones=False, hidden=True, map={"width": 70, "height": 70, "rows": rows})
        s, _ = engine.setup(cfg, 3)
        return s

    a, b = state(False, 9), state(True, 5)
    va, vb = engine.view(a, team_viewer("red")), engine.view(b, team_viewer("red"))
    assert engine.dump(a) != engine.dump(b) and va == vb
    orders = engine.commander(va, "red", 11)
    assert orders and orders == engine.commander(vb, "red", 11)
    assert engine.view(b, "moderator") != engine.view(a, "moderator")  # the squadron is there


def test_engines_without_an_ai_only_end_the_turn() -> None:
    assert ENGINES.find("drill").commander({}, "red", 1) is None
