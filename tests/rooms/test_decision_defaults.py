"""Issue 12 §6: a pending decision never stalls the campaign. In a real room on a manual clock, the team a decision
waits for flags and the decision's documented default holds: a defender who flags in its own turn accepts battle
(D-NAP-4, N-START-3), and the battle room opens; a beaten army whose team flags retreats by the engine's choice
(D-NAP-3, N-VICTORY-4)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from server.rooms.hub import Hub
from server.rooms.ids import RoomId
from server.rooms.members import Member
from server.rooms.room import Room
from tests.napoleonic.campaign.test_engine import result_of, setup_of
from tests.rooms.helpers import ManualClock, open_hub
from tests.rooms.test_battles import napoleonic, players, until

TURN_MS = 60_000  # the clock of tests.rooms.helpers.spec


async def _red_marches_into_blue(tmp_path: Path) -> tuple[Hub, dict[str, Any], dict[str, Member], Room]:
    """A Napoleonic campaign on a manual clock where red's r1 has just marched into contact with blue."""
    hub = await open_hub(tmp_path, ManualClock())
    made = await hub.create_campaign(napoleonic())
    m = players(made["campaign"])
    await hub.submit(made["room"], "order", {"order": {"type": "move", "army": "r1", "path": [[11, 17], [12, 17]]}},
                     m["red-1"])
    return hub, made, m, hub.rooms[made["room"]]


async def test_a_defender_who_flags_in_its_own_turn_accepts_battle_D_NAP_4(tmp_path: Path) -> None:
    hub, made, m, room = await _red_marches_into_blue(tmp_path)
    assert room.state.game.battles["1"].status == "contact"
    await hub.submit(made["room"], "end_turn", {}, m["red-1"])
    assert room.state.clocks is not None and "blue" in room.state.clocks.running()  # blue's own turn, undecided
    await hub.scheduler.advance(TURN_MS)  # blue's clock flags
    kinds = [e.kind for e in room.history]
    assert "clock_flagged" in kinds and "battle_accepted" in kinds
    accepted = next(e for e in room.history if e.kind == "battle_accepted").data
    assert accepted["by"] == "blue" and accepted["flagged"] is True
    assert room.state.game.battles["1"].status == "running"
    await until(lambda: RoomId.child_room(made["campaign"], "1") in hub.rooms)  # the battle is fought
    await hub.close()


async def test_a_beaten_army_whose_team_flags_retreats_by_the_engines_choice_D_NAP_3(tmp_path: Path) -> None:
    hub, made, m, room = await _red_marches_into_blue(tmp_path)
    await hub.submit(made["room"], "order", {"order": {"type": "answer", "battle": "1", "choice": "accept"}},
                     m["blue-2"])
    started = setup_of(room.state.game, "1")  # the battle's setup: the public event names no forces
    result = {"winner": "blue", "loser": "red", "reason": "retreat", "retreats": "red", "general_killed": False,
              "units": result_of(started)}
    await hub.submit(made["room"], "ruling", {"ruling": {"type": "battle_result", "battle": "1", "result": result}},
                     Member(made["campaign"], "moderator", "moderator"))
    assert room.state.game.armies["r1"].status == "retreating"  # red is to choose where (N-VICTORY-4)
    assert room.state.clocks is not None and "red" in room.state.clocks.running()
    await hub.scheduler.advance(TURN_MS)
    assert room.state.game.armies["r1"].status != "retreating"  # the default held: nothing waits for red
    assert any(e.kind == "clock_flagged" for e in room.history)
    await hub.close()
