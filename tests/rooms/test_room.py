"""The room authority on the embedded store: durable log, sequence numbers, snapshots, replay, clocks, lockouts."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from server.bus.local import LocalBus
from server.core.errors import NotYourTurn, NotYourUnit
from server.rooms.errors import RoomError
from server.rooms.members import Member
from server.rooms.room import Room
from server.store.embedded import open_embedded
from server.store.records import PackedData, RoomSnapshot
from tests.rooms.helpers import ManualClock, open_hub, services, spec


def _members(campaign: str) -> dict[str, Member]:
    return {
        "red": Member(campaign, "player", "red-1", "red", 1),
        "blue": Member(campaign, "player", "blue-1", "blue", 1),
        "mod": Member(campaign, "moderator", "moderator"),
        "spec": Member(campaign, "spectator", "spectator"),
    }


async def test_commands_are_logged_with_contiguous_seq_and_replay_rebuilds_the_room(tmp_path: Path) -> None:
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock, snapshot_every=3)
    made = await hub.create_campaign(spec())
    room = hub.rooms[made["room"]]
    m = _members(made["campaign"])
    seq = await room.submit("order", {"order": {"type": "move", "counter": "r1", "to": [1, 1]}}, m["red"])
    assert seq is not None and seq > 1
    clock.advance(5_000)
    await room.submit("end_turn", {}, m["red"])
    await room.submit("chat", {"channel": "team", "text": "hold the bridge"}, m["blue"])
    seqs = [e.seq for e in room.history]
    assert seqs == list(range(1, room.seq + 1))
    assert all(isinstance(e.data, PackedData) for e in room.history)  # kept as bytes, not as Python objects
    state_before = room.engine.dump(room.state.game)  # type: ignore[union-attr]
    clocks_before = room.state.clocks.dump()  # type: ignore[union-attr]
    await hub.close()
    await hub.store.close()

    reopened = await Room.open(made["room"], services(open_embedded(tmp_path, fsync=False), LocalBus(), clock),
                               owner=False)
    assert reopened is not None
    assert reopened.seq == room.seq and reopened.index == room.index
    assert list(reopened.history) == list(room.history)
    assert reopened.engine.dump(reopened.state.game) == state_before  # type: ignore[union-attr]
    assert reopened.state.clocks.dump() == clocks_before  # type: ignore[union-attr]
    await reopened.store.close()


async def test_refusals_change_nothing_and_log_nothing_C_1_8(tmp_path: Path) -> None:
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    made = await hub.create_campaign(spec())
    room = hub.rooms[made["room"]]
    m = _members(made["campaign"])
    index, seq = room.index, room.seq
    with pytest.raises(NotYourTurn):
        await room.submit("order", {"order": {"type": "move", "counter": "b1", "to": [1, 6]}}, m["blue"])
    with pytest.raises(NotYourUnit):
        await room.submit("order", {"order": {"type": "move", "counter": "b1", "to": [1, 6]}}, m["red"])
    with pytest.raises(RoomError) as err:
        await room.submit("order", {"order": {"type": "move", "counter": "r1", "to": [1, 1]}}, m["spec"])
    assert err.value.code == "forbidden"
    with pytest.raises(RoomError) as err:
        await room.submit("clock", {"action": "pause"}, m["red"])
    assert err.value.code == "forbidden"
    with pytest.raises(RoomError) as err:
        await room.submit("chat", {"channel": "team:blue", "text": "psst"}, m["red"])
    assert err.value.code == "not_your_team"
    assert (room.index, room.seq) == (index, seq)
    await hub.close()


async def test_resume_since_gives_exactly_the_missing_visible_events(tmp_path: Path) -> None:
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    made = await hub.create_campaign(spec())
    room = hub.rooms[made["room"]]
    m = _members(made["campaign"])
    since = room.seq
    await room.submit("chat", {"channel": "team", "text": "red secret"}, m["red"])
    await room.submit("chat", {"channel": "team", "text": "blue secret"}, m["blue"])
    await room.submit("chat", {"channel": "players", "text": "truce?"}, m["red"])
    got: list[dict[str, Any]] = room.catch_up("team:blue", since)
    assert [g["data"]["text"] for g in got] == ["blue secret", "truce?"]
    assert [g["kind"] for g in room.catch_up("spectator", since)] == []
    assert room.catch_up("team:blue", room.seq) == []
    assert room.catch_up("team:blue", None)[0]["t"] == "snapshot"
    assert room.catch_up("team:blue", room.seq + 5)[0]["t"] == "snapshot"
    await hub.close()


async def test_flag_ends_the_turn_with_orders_given_C_1_9(tmp_path: Path) -> None:
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    made = await hub.create_campaign(spec())
    room = hub.rooms[made["room"]]
    m = _members(made["campaign"])
    await room.submit("order", {"order": {"type": "move", "counter": "r1", "to": [1, 1]}}, m["red"])
    await hub.scheduler.advance(60_000)  # red's clock runs out: its timer flags it
    kinds = [e.kind for e in room.history]
    assert "clock_flagged" in kinds
    ended = [e for e in room.history if e.kind == "turn_ended"][-1]
    assert ended.data["flagged"] is True and ended.data["team"] == "red"
    assert room.engine.active_teams(room.state.game) == {"blue"}  # type: ignore[union-attr]
    assert room.engine.dump(room.state.game)["counters"][0]["y"] == 1  # type: ignore[union-attr]
    await hub.close()


async def test_secret_module_lockout_and_automatic_return_D_N_14(tmp_path: Path) -> None:
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    made = await hub.create_campaign(spec(lockout_minutes=1))
    room = hub.rooms[made["room"]]
    m = _members(made["campaign"])
    await room.submit("lock", {"player": "red-1", "reason": "general killed"}, m["mod"])
    assert room.viewer_of(m["red"]) == "public"
    with pytest.raises(RoomError) as err:
        await room.submit("order", {"order": {"type": "move", "counter": "r1", "to": [1, 1]}}, m["red"])
    assert err.value.code == "locked_out" and err.value.rule == "D-N-14"
    await hub.scheduler.advance(60_000)  # the lockout's timer brings the player back
    assert room.viewer_of(m["red"]) == "team:red"
    returned = [e for e in room.history if e.kind == "secret_module"][-1]
    assert returned.data["action"] == "returned" and returned.data["early"] is False
    await hub.close()


async def test_level_3_all_teams_order_and_the_turn_resolves_when_all_finished_or_flagged_C_1_7(
        tmp_path: Path) -> None:
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    made = await hub.create_campaign(spec(level=3, clock={"mode": "per_turn", "turn_ms": 60_000, "lag_cap_ms": 0}))
    room = hub.rooms[made["room"]]
    m = _members(made["campaign"])
    assert room.state.clocks.running() == {"red", "blue"}  # type: ignore[union-attr]
    await room.submit("order", {"order": {"type": "move", "counter": "b1", "to": [1, 6]}}, m["blue"])
    clock.advance(10_000)
    await room.submit("end_turn", {}, m["red"])
    assert room.state.clocks.running() == {"blue"}  # type: ignore[union-attr]
    await hub.scheduler.advance(50_000)  # blue flags: every team is done, the turn resolves and the next begins
    assert room.state.clocks.running() == {"red", "blue"}  # type: ignore[union-attr]
    turn = [e for e in room.history if e.kind == "turn"][-1]
    assert turn.data["ended"] == "blue" and turn.data["active"] == ["blue", "red"]
    assert turn.data["clocks"]["teams"]["blue"]["remaining_ms"] == 60_000
    await hub.close()


async def test_downtime_record_charges_nobody_on_reopen(tmp_path: Path) -> None:
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    made = await hub.create_campaign(spec())
    room = hub.rooms[made["room"]]
    clock.advance(20_000)
    await hub.store.leases.mark_alive([made["room"]], clock())
    await hub.store.close()  # the process dies here: no shutdown snapshot
    clock.advance(3_600_000)  # an hour down
    again = await open_hub(tmp_path, clock)
    await again.start()  # records the outage: red's deadline moves an hour on, so the room is not due yet
    assert made["room"] not in again.rooms
    back = await again.owned(made["room"])  # a join opens it
    assert back is not None
    assert back.state.clocks.remaining_ms("red", clock()) == 40_000  # type: ignore[union-attr]
    assert back.history[-2].kind == "clock_downtime_skipped"
    assert room.seq < back.seq
    await again.close()


async def test_clocks_can_start_paused_until_the_moderator_resumes_them_C_1_9(tmp_path: Path) -> None:
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    made = await hub.create_campaign(spec(clocks_paused=True))
    room = hub.rooms[made["room"]]
    m = _members(made["campaign"])
    await hub.scheduler.advance(120_000)  # no clock runs: nothing is due
    assert room.state.clocks.remaining_ms("red", clock()) == 60_000  # type: ignore[union-attr]
    await room.submit("clock", {"action": "resume"}, m["mod"])
    clock.advance(1_000)
    assert room.state.clocks.remaining_ms("red", clock()) == 59_000  # type: ignore[union-attr]
    await hub.close()


async def test_after_a_restart_resumes_reach_back_before_the_snapshot(tmp_path: Path) -> None:
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock, snapshot_every=4)
    made = await hub.create_campaign(spec())
    room = hub.rooms[made["room"]]
    m = _members(made["campaign"])
    for i in range(6):
        await room.submit("chat", {"channel": "players", "text": f"line {i}"}, m["red"])
    since = room.seq - 5
    expected = room.catch_up("team:blue", since)
    await hub.close()  # saves a snapshot at the end
    await hub.store.close()
    store = open_embedded(tmp_path, fsync=False)
    back = await Room.open(made["room"], services(store, LocalBus(), clock), owner=False)
    assert back is not None
    assert back.catch_up("team:blue", since) == expected
    assert [e["t"] for e in expected] == ["ev"] * 5
    await store.close()


async def test_the_room_runs_the_campaign_engine_through_the_same_interface_C_1_5_C_1_8(tmp_path: Path) -> None:
    """Planning (every team at once, C-1.5/C-6), then operations with red first (C-1.8): clocks follow."""
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    made = await hub.create_campaign(spec(scenario="continental", level=1))
    room = hub.rooms[made["room"]]
    m = _members(made["campaign"])
    assert room.state.clocks.running() == {"red", "blue"}  # type: ignore[union-attr]
    await room.submit("end_turn", {}, m["red"])
    assert room.state.clocks.running() == {"blue"}  # type: ignore[union-attr]
    await room.submit("end_turn", {}, m["blue"])
    assert room.engine.active_teams(room.state.game) == {"red"}  # type: ignore[union-attr]
    assert room.state.clocks.running() == {"red"}  # type: ignore[union-attr]
    with pytest.raises(NotYourTurn):
        await room.submit("end_turn", {}, m["blue"])
    view = room.snapshot_for("team:blue")
    assert view["active"] == ["red"] and view["state"]["scenario"] == "continental"
    await hub.close()


async def test_a_command_is_answered_before_its_snapshot_is_written_and_snapshots_stay_in_order(
        tmp_path: Path) -> None:
    """Issue 20 §2: the ack waits for the record, not for the snapshot every `snapshot_every` records; a room's
    snapshots are written in order, and the hub's stop waits for the one still being written."""
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock, snapshot_every=2)
    made = await hub.create_campaign(spec())
    room = hub.rooms[made["room"]]
    m = _members(made["campaign"])
    log = hub.store.log
    gate = asyncio.Event()
    written: list[int] = []
    save = log.save_snapshot

    async def held(room_id: str, snapshot: RoomSnapshot) -> None:
        await gate.wait()
        await save(room_id, snapshot)
        if room_id == room.id:
            written.append(snapshot.index)

    log.save_snapshot = held  # type: ignore[method-assign,assignment]
    for i in range(4):  # records 2 to 5: two snapshot indices passed, each answered while its snapshot waits
        await asyncio.wait_for(room.submit("chat", {"channel": "players", "text": f"line {i}"}, m["red"]), 5)
    assert written == [] and room.index == 5
    gate.set()
    await hub.close()  # saves a last snapshot after the pending ones
    assert written == [2, 4, 5]
    await hub.store.close()
    loaded = await open_embedded(tmp_path, fsync=False).log.load_snapshot(made["room"])
    assert loaded is not None and loaded.index == room.index
