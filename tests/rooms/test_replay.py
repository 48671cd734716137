"""Replays of finished rooms rebuilt from their logs: one view per completed turn and the final one, for any
viewer class once the game is over."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from server.rooms.errors import RoomError
from server.rooms.members import Member
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


async def test_a_finished_battle_replays_only_as_each_viewer_may_see_it_while_the_campaign_runs(
        tmp_path: Path) -> None:
    """Issue 12 item 2: while the campaign is played, a battle's replay is for whoever asks, by its token — the
    moderator any class; a player its own side's or the public's (never the other side's, the spectators' or the
    full one); the spectators' link what the spectating policy shows it (the public class by default); no token,
    nothing; a token of another campaign, nothing. Once the whole campaign is over every class is everyone's,
    unless the campaign keeps its replays private."""
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    made = await hub.create_campaign(napoleonic())
    campaign, battle, m = await meet(hub, made)
    await fight(battle, m)
    red, spectator, moderator = m["red-1"], m["spectator"], m["moderator"]

    async def as_(member: Member | None, wanted: str | None) -> dict[str, Any]:
        return await hub.replays.for_member(battle.id, member, wanted, current=battle, campaign=campaign)

    async def refused(member: Member | None, wanted: str | None) -> str:
        with pytest.raises(RoomError) as err:
            await as_(member, wanted)
        return err.value.code

    assert (await as_(red, None))["viewer"] == "team:red"  # its own side's by default
    assert (await as_(red, "public"))["viewer"] == "public"
    for wanted in ("full", "team:blue", "spectator"):
        assert await refused(red, wanted) == "forbidden", wanted
    assert (await as_(spectator, None))["viewer"] == "public"  # the default policy: public only
    for wanted in ("full", "spectator", "team:red"):
        assert await refused(spectator, wanted) == "forbidden", wanted
    assert await refused(None, None) == "unauthorized"
    assert await refused(None, "full") == "unauthorized"
    assert await refused(Member("another", "moderator", "moderator"), "full") == "forbidden"
    assert await refused(red, "team:green") == "bad_message"
    assert (await as_(m["blue-1"], None))["viewer"] == "team:blue"
    assert (await as_(moderator, "team:blue"))["viewer"] == "team:blue"
    full = await as_(moderator, None)
    assert full["viewer"] == "moderator"
    assert full["final"]["state"]["units"] == battle.engine.view(battle.state.game, "moderator")["units"]  # type: ignore[union-attr]
    # a player in the secret module sees the public's only (D-N-14)
    away = await hub.replays.for_member(battle.id, red, None, current=battle, campaign=campaign, away=True)
    assert away["viewer"] == "public"
    # the moderator names a spectator: it sees everything live, and so its replay is the spectators' (full) class
    named = Member(made["campaign"], "spectator", "spectator:Anna")
    assert (await as_(named, None))["viewer"] == "public"
    await hub.submit(campaign.id, "ruling", {"ruling": {"type": "spectating", "name": "spectator:Anna"}}, moderator)
    assert (await as_(named, None))["viewer"] == "spectator" and await refused(spectator, "spectator") == "forbidden"
    await hub.close()
