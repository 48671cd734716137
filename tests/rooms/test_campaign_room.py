"""The campaign engine behind a room: orders given out of turn (C-10.2, C-8.3) and the penalty for an order the
rules refuse (C-9.3, D-C-6), each logged and replayed like any command."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from server.bus.local import LocalBus
from server.core.errors import BadOrder, IllegalOrder, NotYourTurn
from server.rooms.members import Member
from server.rooms.room import Room
from server.store.embedded import open_embedded
from tests.continental.helpers import RED, order, place, start
from tests.rooms.helpers import ManualClock, open_hub, services, spec


def _spec(**kw: Any) -> dict[str, Any]:
    return spec(scenario="continental", level=1, clock=None,
                teams=[{"colour": "red", "seats": 1}, {"colour": "blue", "seats": 1}], **kw)


def _members(campaign: str) -> tuple[Member, Member]:
    return Member(campaign, "player", "red-1", "red", 1), Member(campaign, "player", "blue-1", "blue", 1)


async def _operations(room: Room, red: Member, blue: Member) -> None:
    """Planning (C-1.5) ends when both teams have finished it: red is then to act (C-1.8)."""
    await room.submit("end_turn", {}, red)
    await room.submit("end_turn", {}, blue)
    assert room.engine is not None and room.engine.active_teams(room.state.game) == frozenset({"red"})


async def test_an_order_the_rules_refuse_costs_50_points_and_is_logged_C_9_3_D_C_6(tmp_path: Path) -> None:
    """With the fine switched on as a house rule (D-C-6: off by default)."""
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    made = await hub.create_campaign(_spec(config={"penalise_refused_orders": True}))
    room = hub.rooms[made["room"]]
    red, blue = _members(made["campaign"])
    await _operations(room, red, blue)
    unit = next(u for u in room.state.game.units.values() if u.team == "red")
    index = room.index
    with pytest.raises(IllegalOrder) as refused:  # the player still gets the refusal
        await room.submit("order", {"order": {"type": "move", "unit": unit.id,
                                              "path": [[unit.cell[0] + 5, unit.cell[1]]]}}, red)
    assert refused.value.rule == "C-4.3"
    assert room.index == index + 1  # the refusal's consequence is a command of its own
    penalty = room.history[-1]
    assert penalty.kind == "penalty" and penalty.data["team"] == "red" and penalty.data["points"] == 50
    assert penalty.data["rule"] == "C-9.3" and penalty.audience is None
    assert room.state.game.penalties[-1]["points"] == 50
    # a malformed order is not an incorrect order in the rules' sense: nothing is logged
    with pytest.raises(BadOrder):
        await room.submit("order", {"order": {"type": "move", "unit": unit.id}}, red)
    assert room.index == index + 1
    dumped = room.engine.dump(room.state.game)  # type: ignore[union-attr]
    await hub.close()
    await hub.store.close()

    reopened = await Room.open(made["room"], services(open_embedded(tmp_path, fsync=False), LocalBus(), clock),
                               owner=False)
    assert reopened is not None and reopened.engine is not None
    assert reopened.engine.dump(reopened.state.game) == dumped  # replay applies the penalty again
    await reopened.store.close()


async def test_no_penalty_unless_the_campaign_turns_it_on_D_C_6(tmp_path: Path) -> None:
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    made = await hub.create_campaign(_spec())
    room = hub.rooms[made["room"]]
    red, blue = _members(made["campaign"])
    await _operations(room, red, blue)
    unit = next(u for u in room.state.game.units.values() if u.team == "red")
    index = room.index
    with pytest.raises(IllegalOrder):
        await room.submit("order", {"order": {"type": "move", "unit": unit.id,
                                              "path": [[unit.cell[0] + 5, unit.cell[1]]]}}, red)
    assert room.index == index
    await hub.close()


async def test_blue_answers_a_peace_offer_during_reds_turn_C_10_2(tmp_path: Path) -> None:
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    made = await hub.create_campaign(_spec())
    room = hub.rooms[made["room"]]
    red, blue = _members(made["campaign"])
    # a war already under way (C-9.1): red's division crossed into blue's territory
    war = start(1)
    a = place(war, "red", "RD", (43, 18), facing="E", uid="rA")
    place(war, "blue", "RD", (56, 20), uid="bA")
    war, _ = order(war, RED, type="move", unit=a, path=[[44, 18]])
    assert war.war
    room.state = replace(room.state, game=war)

    offered = await room.submit("order", {"order": {"type": "propose_peace", "to": "blue"}}, red)
    assert offered is not None
    number = next(e for e in room.history if e.kind == "peace_proposed").data["number"]
    assert room.engine is not None and room.engine.active_teams(room.state.game) == frozenset({"red"})
    with pytest.raises(NotYourTurn):  # an ordinary order is still red's turn only (C-1.8)
        await room.submit("order", {"order": {"type": "move", "unit": "bA", "path": [[55, 20]]}}, blue)
    await room.submit("order", {"order": {"type": "answer_peace", "proposal": number, "accept": True}}, blue)
    assert any(e.kind == "peace_concluded" for e in room.history)
    assert ["blue", "red"] in room.state.game.peace_pairs
    await hub.close()
