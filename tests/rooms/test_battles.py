"""Battle rooms of a Napoleonic campaign on one node (embedded store and bus): spawned from `battle_started`,
fought by the two teams' players, the result applied to the campaign as one event (D-L-1), a killed general's
player locked out (D-N-14); the quick resolution ends the battle room (D-L-2)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from server.core.errors import NotYourTurn
from server.napoleonic.battle.ai import BattleAI
from server.rooms.errors import RoomError
from server.rooms.hub import Hub
from server.rooms.ids import RoomId
from server.rooms.lobby import LOBBY_COPY_MS
from server.rooms.members import Member
from server.rooms.room import Room
from tests.rooms.helpers import ManualClock, open_hub, spec

ARMIES = {
    "red": [{"id": "r1", "name": "Army of Silesia", "general": "Blücher", "seat": 2, "cell": [10, 17],
             "movement_points": 6, "base": "Paris",
             "units": [{"id": f"r1-{i}", "type": t} for i, t in enumerate(
                 ["infantry", "infantry", "infantry", "heavy_cavalry", "foot_artillery"])]}],
    "blue": [{"id": "b1", "name": "III Corps", "general": "Ney", "seat": 1, "cell": [12, 17],
              "movement_points": 6, "base": "Brussels",
              "units": [{"id": f"b1-{i}", "type": t} for i, t in enumerate(
                  ["infantry", "infantry", "light_cavalry", "foot_artillery"])]}],
}

TWO_BATTLES = {  # r1 meets b1 and r2 meets b2: one general's fate reaches the other battle
    "red": [{"id": "r1", "general": "Yorck", "cell": [10, 17], "movement_points": 6,
             "units": [{"id": f"r1-{i}", "type": "infantry"} for i in range(8)]},
            {"id": "r2", "general": "Kleist", "cell": [10, 13], "movement_points": 6,
             "units": [{"id": f"r2-{i}", "type": "infantry"} for i in range(3)]}],
    "blue": [{"id": "b1", "general": "Vandamme", "seat": 1, "cell": [12, 17], "movement_points": 0,
              "units": [{"id": "b1-0", "type": "infantry"}]},
             {"id": "b2", "general": "Marmont", "seat": 1, "cell": [12, 13], "movement_points": 0,
              "units": [{"id": f"b2-{i}", "type": "infantry"} for i in range(3)]}],
}


def napoleonic(**kw: Any) -> dict[str, Any]:
    return spec(scenario="napoleonic", config={"armies": ARMIES, **kw})


def players(campaign: str) -> dict[str, Member]:
    out = {f"{t}-{s}": Member(campaign, "player", f"{t}-{s}", t, s) for t in ("red", "blue") for s in (1, 2)}
    out["moderator"] = Member(campaign, "moderator", "moderator")
    out["spectator"] = Member(campaign, "spectator", "spectator")
    return out


async def until(pred: Any, rounds: int = 400) -> None:
    for _ in range(rounds):
        if pred():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("condition not reached")


async def meet(hub: Hub, made: dict[str, Any]) -> tuple[Room, Room, dict[str, Member]]:
    m = players(made["campaign"])
    room = made["room"]
    await hub.submit(room, "order", {"order": {"type": "move", "army": "r1", "path": [[11, 17], [12, 17]]}},
                     m["red-1"])
    await hub.submit(room, "order", {"order": {"type": "answer", "battle": "1", "choice": "accept"}}, m["blue-2"])
    battle_id = RoomId.child_room(made["campaign"], "1")
    await until(lambda: battle_id in hub.rooms)
    return hub.rooms[room], hub.rooms[battle_id], m


async def fight(battle: Room, m: dict[str, Member]) -> None:
    """Both teams' players give the battle AI's orders in turn (seat 1 and seat 2 alternately)."""
    ai = BattleAI()
    phase = 0
    while not battle.engine.is_over(battle.state.game):  # type: ignore[union-attr]
        side = battle.state.game.active_side
        _, _, orders = ai.play_phase(battle.state.game, side)
        player = m[f"{side}-{1 + phase % 2}"]
        for order in orders:
            await battle.submit("order", {"order": order}, player)
        if not battle.engine.is_over(battle.state.game):  # type: ignore[union-attr]
            await battle.submit("end_turn", {}, player)
        phase += 1


async def test_battle_room_spawns_is_fought_and_its_result_returns_D_L_1_D_N_14(tmp_path: Path) -> None:
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    made = await hub.create_campaign(napoleonic())
    campaign, battle, m = await meet(hub, made)
    assert battle.setup["teams"] == ["red", "blue"] and battle.setup["parent"] == made["room"]
    assert set(battle.setup["players"]) == {"red-1", "red-2", "blue-1", "blue-2"}
    assert battle.state.clocks is not None and battle.state.clocks.running() == {"red"}
    with pytest.raises(NotYourTurn):
        await battle.submit("order", {"order": {"type": "retreat"}}, m["blue-1"])
    with pytest.raises(RoomError):
        await battle.submit("order", {"order": {"type": "retreat"}}, m["spectator"])
    with pytest.raises(NotYourTurn):  # the campaign armies are frozen, the teams' campaign turn waits (D-L-1)
        await hub.submit(made["room"], "order", {"order": {"type": "move", "army": "r1", "path": [[11, 17]]}},
                         m["red-1"])
    assert campaign.state.clocks is not None and campaign.state.clocks.running() == set()  # D-NAP-5
    await fight(battle, m)
    await until(lambda: campaign.state.game.battles["1"].status == "over")
    ended = next(e for e in campaign.history if e.kind == "battle_ended")
    result = battle.state.game.result
    assert ended.data["winner"] == result["winner"] and ended.data["how"] == "battle"
    loser_army = "r1" if result["loser"] == "red" else "b1"
    assert campaign.state.game.armies[loser_army].cell != [12, 17] or \
        campaign.state.game.armies[loser_army].status != "ready"
    fate = ended.data["general"]
    if fate["fate"] != "survived":
        player = fate["secret_module"]["player"]
        await until(lambda: player in campaign.state.away)
        assert campaign.state.away[player].until_ms - campaign.state.away[player].since_ms == 20 * 60_000
    await hub.close()


async def test_quick_resolution_accepted_ends_the_battle_room_D_L_2(tmp_path: Path) -> None:
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    made = await hub.create_campaign(napoleonic())
    campaign, battle, m = await meet(hub, made)
    await hub.submit(made["room"], "order", {"order": {"type": "offer_quick", "battle": "1"}}, m["red-2"])
    await hub.submit(made["room"], "order", {"order": {"type": "answer_quick", "battle": "1", "accept": True}},
                     m["blue-1"])
    assert campaign.state.game.battles["1"].status == "over"
    await until(lambda: battle.engine.is_over(battle.state.game))  # type: ignore[union-attr]
    over = next(e for e in battle.history if e.kind == "battle_over")
    assert over.data["reason"] == "quick resolution (D-L-2)"
    await asyncio.sleep(0.05)
    assert [e.kind for e in campaign.history].count("battle_ended") == 1
    await hub.close()


async def test_a_node_reopening_the_campaign_spawns_missing_battle_rooms(tmp_path: Path) -> None:
    clock = ManualClock()
    hub = await open_hub(tmp_path / "a", clock)
    made = await hub.create_campaign(napoleonic())
    m = players(made["campaign"])
    hub.children.spawn = _never  # type: ignore[method-assign,assignment]
    await hub.submit(made["room"], "order", {"order": {"type": "move", "army": "r1", "path": [[11, 17], [12, 17]]}},
                     m["red-1"])
    await hub.submit(made["room"], "order", {"order": {"type": "answer", "battle": "1", "choice": "accept"}},
                     m["blue-2"])
    await asyncio.sleep(0.02)
    battle_id = RoomId.child_room(made["campaign"], "1")
    assert battle_id not in hub.rooms
    await hub.close()
    await hub.store.close()
    again = await open_hub(tmp_path / "a", clock)
    await again.owned(made["room"])
    await until(lambda: battle_id in again.rooms)
    await again.close()
    await again.store.close()


async def _never(*_: Any) -> None:
    return None


async def test_a_captured_generals_player_commands_nothing_in_the_other_battles_D_N_14(tmp_path: Path) -> None:
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    made = await hub.create_campaign(spec(scenario="napoleonic", config={"armies": TWO_BATTLES}))
    m = players(made["campaign"])
    room = made["room"]
    for army, path in (("r2", [[11, 13], [12, 13]]), ("r1", [[11, 17], [12, 17]])):
        await hub.submit(room, "order", {"order": {"type": "move", "army": army, "path": path}}, m["red-1"])
    for battle in ("1", "2"):
        await hub.submit(room, "order", {"order": {"type": "answer", "battle": battle, "choice": "accept"}},
                         m["blue-2"])
    first, second = (RoomId.child_room(made["campaign"], b) for b in ("1", "2"))
    await until(lambda: first in hub.rooms and second in hub.rooms)
    await hub.submit(room, "ruling", {"ruling": {"type": "impose_quick", "battle": "2"}}, m["moderator"])
    campaign = hub.rooms[room]
    ended = next(e for e in campaign.history if e.kind == "battle_ended")
    assert ended.data["how"] == "capitulation" and ended.data["general"]["player"] == "blue-1"
    await until(lambda: "blue-1" in hub.rooms[first].state.away and "blue-1" in campaign.state.away)
    with pytest.raises(RoomError) as err:
        await hub.rooms[first].submit("order", {"order": {"type": "retreat"}}, m["blue-1"])
    assert err.value.code == "locked_out"
    await hub.close()


async def test_spectator_delay_is_the_moderators_checked_and_survives_a_snapshot(tmp_path: Path) -> None:
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    made = await hub.create_campaign(napoleonic())
    _, battle, m = await meet(hub, made)
    for bad in (-1, "5", True, 10**9):
        with pytest.raises(RoomError):
            await battle.submit("ruling", {"ruling": {"type": "spectator_delay", "ms": bad}}, m["moderator"])
    with pytest.raises(RoomError):
        await battle.submit("ruling", {"ruling": {"type": "spectator_delay", "ms": 1000}}, m["red-1"])
    await battle.submit("ruling", {"ruling": {"type": "spectator_delay", "ms": 90_000}}, m["moderator"])
    assert battle.history[-1].kind == "spectator_delay" and battle.spectator_delay_ms == 90_000
    await battle.save_snapshot()
    copy = await Room.open(battle.id, hub.services, owner=False)
    assert copy is not None and copy.spectator_delay_ms == 90_000
    past = await Room.open(battle.id, hub.services, owner=False, until_ms=clock.ms - 1)
    assert past is not None and past.seq < battle.seq  # the room as a delayed spectator may see it
    await hub.close()


async def test_battle_room_engines_are_not_campaign_scenarios(tmp_path: Path) -> None:
    from server.engines import ENGINES

    assert "napoleonic" in ENGINES.names() and not {"battle", "siege"} & set(ENGINES.names())
    assert ENGINES.find("battle").kind == "battle" and ENGINES.find("siege").kind == "siege"
    hub = await open_hub(tmp_path, ManualClock())
    with pytest.raises(KeyError):
        await hub.create_campaign(spec(scenario="battle"))
    await hub.close()


async def test_campaign_clocks_of_teams_in_battle_stop_the_others_run_and_replay_exactly_D_L_1_D_NAP_5(
        tmp_path: Path) -> None:
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    armies = {**ARMIES, "green": [{"id": "g1", "general": "Wellington", "cell": [12, 10], "movement_points": 6,
                                   "units": [{"id": "g1-0", "type": "infantry"}]}]}
    made = await hub.create_campaign(spec(scenario="napoleonic", config={"armies": armies}, teams=[
        {"colour": c, "seats": 2} for c in ("red", "blue", "green")]))
    campaign, battle, m = await meet(hub, made)
    m["green-1"] = Member(made["campaign"], "player", "green-1", "green", 1)
    assert campaign.state.clocks is not None and campaign.state.clocks.running() == {"green"}
    assert battle.state.clocks is not None and battle.state.clocks.running() == {"red"}  # the battle's own clocks
    clock.advance(30_000)
    assert campaign.state.clocks.remaining_ms("red", clock.ms) == 60_000  # stopped, charged nothing
    assert campaign.state.clocks.remaining_ms("green", clock.ms) == 30_000
    await hub.submit(made["room"], "ruling", {"ruling": {"type": "impose_quick", "battle": "1"}}, m["moderator"])
    beaten = [a for a in campaign.state.game.armies.values() if a.status == "retreating"]
    # the battle is over; green's turn goes on — and the beaten side chooses its retreat under its clock (N-VICTORY-4)
    assert campaign.state.clocks.running() == {"green", *(a.team for a in beaten)}
    for a in beaten:
        assert a.retreat is not None
        await hub.submit(made["room"], "order", {"order": {"type": "retreat", "army": a.id,
                                                           "path": a.retreat.suggested}}, m[f"{a.team}-1"])
    assert campaign.state.clocks.running() == {"green"}
    await hub.submit(made["room"], "end_turn", {}, m["green-1"])
    assert campaign.state.clocks.running() == {"red"}
    copy = await Room.open(made["room"], hub.services, owner=False)
    assert copy is not None and copy.state.clocks == campaign.state.clocks  # replay rebuilds the clocks exactly
    await hub.close()


async def test_the_lobby_lists_live_battles_of_public_campaigns_with_counts(tmp_path: Path) -> None:
    """Issue 2 item 3, issue 7: live battles in the lobby; a private campaign's battles are not listed."""
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    made = await hub.create_campaign(napoleonic())
    hidden = await hub.create_campaign({**napoleonic(), "public": False})
    await meet(hub, made)
    await meet(hub, hidden)
    metas = [m for m in await hub.store.grants.list_campaigns() if m.get("public", True)]
    room = RoomId.child_room(made["campaign"], "1")
    counts = {room: {"player": 3, "spectator": 2}}
    listed = await hub.lobby.children(metas, lambda r: counts.get(r, {}), lambda m: "link")
    assert [b["room"] for b in listed] == [room]
    assert listed[0]["players_online"] == 3 and listed[0]["spectators_online"] == 2
    assert listed[0]["scenario"] == "battle" and listed[0]["teams"][0] == {"colour": "red", "side": "attacker"}
    await hub.submit(made["room"], "ruling", {"ruling": {"type": "impose_quick", "battle": "1"}},
                     players(made["campaign"])["moderator"])
    assert await hub.lobby.children(metas, lambda r: {}, lambda m: None) == []  # over: no longer live
    # issue 17: a finished battle is listed among the finished, with its winner, so its replay opens from the lobby
    done = await hub.lobby.children(metas, lambda r: {}, lambda m: None, finished=True)
    assert [b["room"] for b in done] == [room] and done[0]["winner"] in ("red", "blue")
    await hub.close()


async def test_a_spawned_battle_rooms_followers_get_views_after_each_command(tmp_path: Path) -> None:
    """The node that spawns a battle room posts views after its commands, as for any room it owns."""
    import msgpack

    from tests.rooms.test_feed import Outlet

    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    made = await hub.create_campaign(napoleonic())
    _, battle, m = await meet(hub, made)
    follower = Outlet("red-2")
    await hub.join(follower, m["red-2"], battle.id, None, lambda _: None)
    side = battle.state.game.active_side
    _, _, orders = BattleAI().play_phase(battle.state.game, side)
    await battle.submit("order", {"order": orders[0]}, m[f"{side}-1"])
    kinds = [msgpack.unpackb(frame[1:])["t"] for frame in follower.frames]  # the test outlet's frame is b"F" + payload
    assert "ev" in kinds and "view" in kinds
    await hub.close()


async def two_campaigns_owned_elsewhere(tmp_path: Path) -> tuple[Hub, ManualClock, dict[str, Any], dict[str, Any]]:
    """Two Napoleonic campaigns at war, written by a node now gone, and a new node that owns neither: the lobby
    reads copies of their rooms from the log."""
    clock = ManualClock()
    first = await open_hub(tmp_path, clock)
    made = await first.create_campaign(napoleonic())
    other = await first.create_campaign(napoleonic())
    await meet(first, made)
    await meet(first, other)
    await first.close()
    await first.store.close()
    return await open_hub(tmp_path, clock), clock, made, other


async def test_the_lobbys_copies_of_campaigns_owned_elsewhere_are_not_kept_for_good(tmp_path: Path) -> None:
    node, clock, made, other = await two_campaigns_owned_elsewhere(tmp_path)
    metas = {m["id"]: m for m in await node.store.grants.list_campaigns()}
    assert len(await node.lobby.children([metas[made["campaign"]]], lambda r: {}, lambda m: None)) == 1
    assert node.lobby.cached() == {made["room"]}
    clock.advance(60_000)
    assert len(await node.lobby.children([metas[other["campaign"]]], lambda r: {}, lambda m: None)) == 1
    assert node.lobby.cached() == {other["room"]}
    await node.close()


async def test_the_lobbys_copies_go_when_stale_with_no_later_look_and_when_the_room_is_owned_here(
        tmp_path: Path) -> None:
    node, clock, made, other = await two_campaigns_owned_elsewhere(tmp_path)
    assert await node.lobby.running(made["campaign"]) and await node.lobby.running(other["campaign"])
    assert node.lobby.cached() == {made["room"], other["room"]}
    room = await node.owned(made["room"])  # a join opens it here: its copy is garbage
    assert room is not None and node.lobby.cached() == {other["room"]}
    assert await node.lobby.running(made["campaign"]) and node.lobby.cached() == {other["room"]}
    node.lobby.drop_stale()
    assert node.lobby.cached() == {other["room"]}  # still fresh
    clock.advance(LOBBY_COPY_MS)
    await node._tick(1)  # the hub's keep-alive tick, with no lobby look since
    assert node.lobby.cached() == set()
    await node.close()
