"""An owned room idle for `room_idle_ms` (nobody follows it here, no join or command, no timer due within a minute)
is unloaded: snapshot saved, closed, lease released. Nothing is lost: a join or command reopens it as it was, and a
timer falling due later (a clock running out, C-1.9; the end of a lockout, D-N-14) still fires."""

from __future__ import annotations

from typing import Any

import pytest

from server.rooms import ownership
from server.rooms.hub import Hub
from server.rooms.ids import RoomId
from server.rooms.members import Member
from server.store.embedded import FileLog
from tests.rooms.conftest import HubMaker
from tests.rooms.helpers import ManualClock, spec
from tests.rooms.test_battles import fight, meet, napoleonic, until

IDLE_MS = 600_000
LONG_CLOCK = {"mode": "per_turn", "turn_ms": 20 * 60_000, "lag_cap_ms": 0}  # flags at its deadline (CLK-5)


class Outlet:
    json = True
    player: str | None = None

    def frame(self, payload: bytes | str) -> bytes:
        return payload.encode() if isinstance(payload, str) else payload

    def write(self, wire: bytes) -> None:
        pass

    def lockout_changed(self, room: str, away: bool) -> None:
        pass

    def resync(self, room: str, since: int) -> None:
        pass


def _moderator(made: dict[str, Any]) -> Member:
    return Member(made["campaign"], "moderator", "moderator")


async def _unload(hub: Hub) -> list[str]:
    """`unload_idle` once the battle rooms' work (a campaign room is reconciled when opened) is done."""
    await hub.children.settled()
    return await hub.unload_idle()


async def test_an_idle_room_is_unloaded_and_its_lease_released(make_hub: HubMaker) -> None:
    clock = ManualClock()
    hub = await make_hub(clock)
    made = await hub.create_campaign(spec(clocks_paused=True))
    secret = f"s-{made['campaign']}"
    assert await hub.store.leases.holder(made["room"]) in (hub.node, None)  # embedded: no leases to hold
    clock.advance(IDLE_MS - 1)
    assert await _unload(hub) == []
    clock.advance(1)
    assert sorted(await _unload(hub)) == sorted([made["room"], secret])
    assert hub.rooms == {} and hub.unloaded == 2
    assert await hub.store.leases.holder(made["room"]) is None
    assert await hub.store.leases.orphans(clock() + 10_000) == []  # released cleanly: no downtime is charged later
    if isinstance(hub.store.log, FileLog):
        assert hub.store.log.held() == []  # nor does the embedded store keep its journal open


async def test_the_keep_alive_loop_unloads_idle_rooms(make_hub: HubMaker, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ownership, "IDLE_EVERY", 1)
    clock = ManualClock()
    hub = await make_hub(clock)
    await hub.start()
    await hub.create_campaign(spec(clocks_paused=True))
    clock.advance(IDLE_MS)
    for _ in range(40):  # one pass unloads the campaign room, then its secret-module room
        if hub.unloaded == 2:
            break
        await hub.scheduler.advance(500)  # a keep-alive tick
    assert hub.rooms == {} and hub.unloaded == 2


async def test_a_followed_or_commanded_room_stays_open(make_hub: HubMaker) -> None:
    clock = ManualClock()
    hub = await make_hub(clock)
    watched = await hub.create_campaign(spec(clocks_paused=True))
    busy = await hub.create_campaign(spec(clocks_paused=True))
    outlet = Outlet()
    await hub.join(outlet, _moderator(watched), watched["room"], None, lambda message: None)
    clock.advance(IDLE_MS - 1_000)
    await hub.submit(busy["room"], "chat", {"channel": "announce", "text": "still here"}, _moderator(busy))
    clock.advance(IDLE_MS - 1_000)
    unloaded = await _unload(hub)
    assert watched["room"] not in unloaded and busy["room"] not in unloaded
    await hub.leave(outlet, watched["room"])  # the last follower leaves
    clock.advance(1_000)
    assert set(await _unload(hub)) == {watched["room"], busy["room"]}


async def test_a_join_or_command_reopens_an_unloaded_room_as_it_was(make_hub: HubMaker) -> None:
    clock = ManualClock()
    hub = await make_hub(clock)
    made = await hub.create_campaign(spec(clocks_paused=True))
    mod = _moderator(made)
    await hub.submit(made["room"], "chat", {"channel": "announce", "text": "before"}, mod)
    room = hub.rooms[made["room"]]
    seq, state = room.seq, room.engine.dump(room.state.game)  # type: ignore[union-attr]
    clock.advance(IDLE_MS)
    assert made["room"] in await _unload(hub)

    outlet = Outlet()
    _, joined_seq, _ = await hub.join(outlet, mod, made["room"], None, lambda message: None)
    again = hub.rooms[made["room"]]
    assert again is not room and room.closed
    assert joined_seq == again.seq == seq
    assert again.engine.dump(again.state.game) == state  # type: ignore[union-attr]

    await hub.leave(outlet, made["room"])
    await hub.drop_idle_feeds()
    clock.advance(IDLE_MS)
    assert made["room"] in await _unload(hub)
    assert await hub.submit(made["room"], "chat", {"channel": "announce", "text": "after"}, mod) == seq + 1
    assert hub.rooms[made["room"]].seq == seq + 1


async def test_a_clock_that_runs_out_after_its_room_was_unloaded_still_flags_C_1_9(make_hub: HubMaker) -> None:
    clock = ManualClock()
    hub = await make_hub(clock)
    await hub.start()
    made = await hub.create_campaign(spec(clock=LONG_CLOCK))  # red's 20 minutes are running
    clock.advance(IDLE_MS)
    assert made["room"] in await _unload(hub)
    await hub.scheduler.advance(20 * 60_000 - IDLE_MS - 1_000)  # the keep-alive: red's deadline is within its look
    room = hub.rooms[made["room"]]
    await hub.scheduler.advance(1_000)  # its own timer flags red
    assert [e for e in room.history if e.kind == "clock_flagged"]
    ended = [e for e in room.history if e.kind == "turn_ended"][-1]
    assert ended.data["flagged"] is True and ended.data["team"] == "red"


async def test_a_lockout_ends_in_a_room_unloaded_meanwhile_D_N_14(make_hub: HubMaker) -> None:
    clock = ManualClock()
    hub = await make_hub(clock)
    await hub.start()
    made = await hub.create_campaign(spec(clocks_paused=True))
    await hub.submit(made["room"], "lock", {"player": "red-1", "minutes": 20}, _moderator(made))
    clock.advance(IDLE_MS)
    assert made["room"] in await _unload(hub)
    await hub.scheduler.advance(20 * 60_000 - IDLE_MS)  # the keep-alive opens it, its timer brings red-1 back
    room = hub.rooms[made["room"]]
    back = [e for e in room.history if e.kind == "secret_module"][-1]
    assert back.data["action"] == "returned" and back.data["player"] == "red-1"


async def test_a_room_with_a_timer_due_within_a_minute_stays_open(make_hub: HubMaker) -> None:
    clock = ManualClock()
    hub = await make_hub(clock, room_idle_ms=60_000)
    made = await hub.create_campaign(spec(clock={"mode": "per_turn", "turn_ms": 100_000}))
    clock.advance(60_000)
    assert made["room"] not in await _unload(hub)  # red flags in 40 s: its timer is armed here


async def test_a_battle_fought_after_both_rooms_were_unloaded_returns_its_result_D_L_1(make_hub: HubMaker) -> None:
    clock = ManualClock()
    hub = await make_hub(clock)
    made = await hub.create_campaign(napoleonic())
    _, battle, m = await meet(hub, made)
    await battle.submit("clock", {"action": "pause"}, m["moderator"])
    clock.advance(IDLE_MS)
    unloaded = await _unload(hub)
    assert {made["room"], battle.id} <= set(unloaded)  # the campaign's clocks wait for the battle (D-NAP-5)

    await hub.submit(battle.id, "clock", {"action": "resume"}, m["moderator"])
    again = hub.rooms[RoomId.child_room(made["campaign"], "1")]
    assert made["room"] not in hub.rooms
    await fight(again, m)
    await until(lambda: made["room"] in hub.rooms)  # the result reopens the campaign room
    campaign = hub.rooms[made["room"]]
    await until(lambda: campaign.state.game.battles["1"].status == "over")
    assert [e.kind for e in campaign.history].count("battle_ended") == 1


async def test_a_room_with_battle_work_queued_stays_open(make_hub: HubMaker) -> None:
    clock = ManualClock()
    hub = await make_hub(clock)
    made = await hub.create_campaign(spec(clocks_paused=True))
    clock.advance(IDLE_MS)
    hub.children.pending[made["room"]] += 1  # e.g. a battle's result to be applied to the campaign room
    assert made["room"] not in await _unload(hub)


async def test_with_the_setting_0_nothing_is_unloaded(make_hub: HubMaker) -> None:
    clock = ManualClock()
    hub = await make_hub(clock, room_idle_ms=0)
    made = await hub.create_campaign(spec(clocks_paused=True))
    clock.advance(30 * 24 * 3_600_000)
    assert await _unload(hub) == []
    assert made["room"] in hub.rooms and hub.unloaded == 0


def test_the_idle_time_is_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    from server.settings import parse

    monkeypatch.delenv("KS_ROOM_IDLE_S", raising=False)
    assert parse([]).room_idle_s == 600.0
    assert parse(["--room-idle-s", "0"]).room_idle_s == 0.0
    monkeypatch.setenv("KS_ROOM_IDLE_S", "120")
    assert parse([]).room_idle_s == 120.0
