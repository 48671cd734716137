"""Issue 12 §5 (CLK-6): while the clocks are paused, or before the moderator starts the game, players' orders and
`end_turn` get a typed `paused` refusal and nothing is logged; chat goes on; the moderator's commands work."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.rooms.errors import RoomError
from server.rooms.members import Member
from tests.rooms.helpers import ManualClock, open_hub, spec


def _members(campaign: str) -> dict[str, Member]:
    return {
        "red": Member(campaign, "player", "red-1", "red", 1),
        "mod": Member(campaign, "moderator", "moderator"),
    }


async def test_orders_and_end_turn_before_the_moderator_starts_are_refused_as_paused_CLK_6(tmp_path: Path) -> None:
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    made = await hub.create_campaign(spec(clocks_paused=True))
    room = hub.rooms[made["room"]]
    m = _members(made["campaign"])
    index, seq = room.index, room.seq
    with pytest.raises(RoomError) as err:
        await room.submit("order", {"order": {"type": "move", "counter": "r1", "to": [1, 1]}}, m["red"])
    assert (err.value.code, err.value.rule) == ("paused", "CLK-6")
    with pytest.raises(RoomError) as err:
        await room.submit("end_turn", {}, m["red"])
    assert err.value.code == "paused"
    assert (room.index, room.seq) == (index, seq)  # nothing logged
    await room.submit("chat", {"channel": "team", "text": "we wait for the umpire"}, m["red"])  # chat goes on
    assert room.seq == seq + 1
    await room.submit("clock", {"action": "resume"}, m["mod"])  # the moderator starts the game
    await room.submit("order", {"order": {"type": "move", "counter": "r1", "to": [1, 1]}}, m["red"])
    await hub.close()


async def test_a_paused_room_refuses_players_but_not_the_moderator_CLK_6(tmp_path: Path) -> None:
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    made = await hub.create_campaign(spec())
    room = hub.rooms[made["room"]]
    m = _members(made["campaign"])
    await room.submit("clock", {"action": "pause"}, m["mod"])
    with pytest.raises(RoomError) as err:
        await room.submit("end_turn", {}, m["red"])
    assert err.value.code == "paused"
    await room.submit("clock", {"action": "adjust", "team": "red", "delta_ms": 5_000}, m["mod"])
    await room.submit("lock", {"player": "red-1", "minutes": 1, "reason": "a ruling"}, m["mod"])
    await room.submit("clock", {"action": "resume"}, m["mod"])
    await hub.close()
