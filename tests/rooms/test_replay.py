"""Replays of finished rooms rebuilt from their logs: one view per completed turn and the final one, for any
viewer class once the game is over."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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


def patched(view: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """The client's `applyPatch` (client_web/src/net/replay.ts), written again here to check the server's patches."""
    out = {k: v for k, v in view.items() if k not in patch.get("$drop", [])}
    for key, value in patch.items():
        if key == "$drop":
            continue
        if isinstance(value, dict) and "$ids" in value and isinstance(out.get(key), list):
            by_id = {x["id"]: x for x in out[key]} | {x["id"]: x for x in value["$set"]}
            out[key] = [by_id[i] for i in value["$ids"]]
        else:
            out[key] = value
    return out


async def test_a_finished_battle_replays_event_by_event_each_side_seeing_only_its_own(tmp_path: Path) -> None:
    """Issue 17 item 4: every command as one step — the events the viewer class received and its view after, as a
    patch of the view before. A side's replay has its own team channel and never the other side's; applying the
    patches in turn ends on the final view; every event the class may see is there once, in order."""
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    made = await hub.create_campaign(napoleonic())
    _, battle, m = await meet(hub, made)
    await battle.submit("chat", {"channel": "team", "text": "red: hold the bridge"}, m["red-1"])
    await battle.submit("chat", {"channel": "team", "text": "blue: turn their flank"}, m["blue-1"])
    await battle.submit("chat", {"channel": "spectators", "text": "what a fight"}, m["spectator"])
    await fight(battle, m)
    engine = battle.engine
    assert engine is not None
    with pytest.raises(RoomError) as bad:
        await hub.replays.replay(battle.id, "full", battle, by="frame")
    assert bad.value.code == "bad_message"

    log = await hub.store.log.read(battle.id, 0)
    texts: dict[str, list[str]] = {}
    for wanted, viewer in (("full", "moderator"), ("team:red", "team:red"), ("team:blue", "team:blue"),
                           ("spectator", "spectator")):
        replay = await hub.replays.replay(battle.id, wanted, None, by="event")
        steps = replay["steps"]
        view = steps[0]["state"]
        for step in steps[1:]:
            view = patched(view, step["patch"])
        assert view == engine.view(battle.state.game, viewer)
        seen = [e["seq"] for step in steps for e in step["events"]]
        expected = [e.seq for r in log for e in r.events if e.audience is None or viewer == "moderator"
                    or viewer in e.audience]
        assert seen == expected
        assert [s["seq"] for s in steps] == sorted(s["seq"] for s in steps)
        texts[wanted] = [e["data"]["text"] for step in steps for e in step["events"] if e["kind"] == "chat"]
        assert any(e["kind"] == "fire" or e["kind"] == "melee" for step in steps for e in step["events"])
    assert texts["full"] == ["red: hold the bridge", "blue: turn their flank", "what a fight"]
    assert texts["team:red"] == ["red: hold the bridge"]
    assert texts["team:blue"] == ["blue: turn their flank"]
    assert texts["spectator"] == ["what a fight"]
    await hub.close()
