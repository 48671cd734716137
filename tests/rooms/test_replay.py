"""Replays of finished rooms rebuilt from their logs: one view per completed turn and the final one, for any
viewer class once the game is over."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.rooms.errors import RoomError
from tests.rooms.helpers import ManualClock, open_hub
from tests.rooms.test_battles import fight, meet, napoleonic


async def test_a_finished_battle_replays_turn_by_turn_for_each_viewer_N_VICTORY_1(tmp_path: Path) -> None:
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    made = await hub.create_campaign(napoleonic())
    _, battle, m = await meet(hub, made)
    with pytest.raises(RoomError) as running:
        await hub.replays.replay(battle.id, "full", battle)
    assert running.value.code == "not_over"
    await fight(battle, m)
    engine = battle.engine
    assert engine is not None and engine.is_over(battle.state.game)

    full = await hub.replays.replay(battle.id, "full", battle)
    final_turn = battle.state.game.turn
    assert final_turn > 2  # a battle of several turns
    assert [t["turn"] for t in full["turns"]] == list(range(1, final_turn))
    assert full["final"]["state"] == engine.view(battle.state.game, "moderator")
    assert full["final"]["seq"] == battle.seq
    assert all(t["state"]["turn"] == t["turn"] + 1 for t in full["turns"])  # the view once the turn resolved
    seqs = [t["seq"] for t in full["turns"]]
    assert seqs == sorted(seqs) and seqs[-1] <= battle.seq

    red = await hub.replays.replay(battle.id, "team:red", None)  # from the store, as another node would
    assert red["viewer"] == "team:red" and len(red["turns"]) == len(full["turns"])
    assert red["final"]["state"] == engine.view(battle.state.game, "team:red")
    with pytest.raises(RoomError) as bad:
        await hub.replays.replay(battle.id, "team:green", None)
    assert bad.value.code == "bad_message"
    with pytest.raises(RoomError) as missing:
        await hub.replays.replay("b-nothing-1", "full", None)
    assert missing.value.code == "no_such_room"
    await hub.close()
