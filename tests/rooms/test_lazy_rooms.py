"""Start-up reads no room it does not need: rooms open on their first join or command, or when a timer of theirs
is due (a clock deadline, the end of a secret-module lockout: N-VICTORY-3, D-N-14) — kept in the store's schedule,
so a timer still fires in a room nobody has joined since a restart; a room whose node died is adopted."""

from __future__ import annotations

import asyncio
import secrets

import pytest

from server.engines import ENGINES
from server.rooms.hub import Hub
from server.rooms.members import Member
from server.store.embedded import FileLog
from tests.rooms.conftest import HubMaker
from tests.rooms.helpers import ManualClock, ManualScheduler, spec


async def test_a_lockout_ends_in_a_room_nobody_joined_after_a_restart_D_N_14(make_hub: HubMaker) -> None:
    clock = ManualClock()
    hub = await make_hub(clock)
    quiet = await hub.create_campaign(spec(clocks_paused=True))
    locked = await hub.create_campaign(spec(clocks_paused=True))
    mod = Member(locked["campaign"], "moderator", "moderator")
    await hub.submit(locked["room"], "lock", {"player": "red-1", "minutes": 1}, mod)
    await hub.close()
    await hub.store.close()

    again = await make_hub(clock)
    await again.start()
    try:
        assert again.rooms == {}  # nothing is due: no room is opened, no journal read
        if isinstance(again.store.log, FileLog):
            assert again.store.log.held() == []
        await again.scheduler.advance(59_000)  # the keep-alive's look for due rooms
        assert set(again.rooms) == {locked["room"]}  # its lockout ends within the look-ahead
        room = again.rooms[locked["room"]]
        await again.scheduler.advance(1_000)  # its own timer brings the player back
        back = [e for e in room.history if e.kind == "secret_module"][-1]
        assert back.data["action"] == "returned" and back.data["player"] == "red-1"
        assert await again.owned(quiet["room"]) is not None  # a join opens the other
    finally:
        await again.close()


async def test_a_clock_deadline_does_not_move_in_the_schedule_across_an_outage(make_hub: HubMaker) -> None:
    """C-1.9, issue 2 §5: an hour down costs nobody time, so the room is not due an hour early."""
    clock = ManualClock()
    hub = await make_hub(clock)
    await hub.start()
    made = await hub.create_campaign(spec())  # red's 60 s are running
    clock.advance(20_000)
    await hub.store.leases.mark_alive([], clock())
    # the process dies: no shutdown (its timers never run again)
    if hasattr(hub.store.log, "r"):
        await hub.store.leases.release(made["room"], hub.node)  # as if its lease ran out
        await hub.store.leases.release(f"s-{made['campaign']}", hub.node)
    else:
        await hub.store.close()
    clock.advance(3_600_000)
    again = await make_hub(clock)
    await again.start()
    try:
        assert made["room"] not in again.rooms
        await again.scheduler.advance(39_000)  # the keep-alive's look for due rooms
        room = again.rooms[made["room"]]  # 40 s of red's time were left: due now, not an hour ago
        assert room.state.clocks is not None and room.state.clocks.remaining_ms("red", clock()) == 1_000
    finally:
        await again.close()


@pytest.mark.redis
async def test_a_node_adopts_the_rooms_of_a_node_that_died(redis_url: str) -> None:
    from server.backends import open_redis

    prefix = f"kstest{secrets.token_hex(4)}"
    clock = ManualClock()
    hubs = []
    for node in ("a", "b"):
        store, bus = await open_redis(redis_url, prefix)
        hubs.append(Hub(store, bus, ENGINES, node=node, lease_ms=300, scheduler=ManualScheduler(clock)))
    first, second = hubs
    try:
        made = await first.create_campaign(spec())
        await second.start()
        await asyncio.sleep(0.4)  # a's lease runs out: it died without releasing the room
        await second.scheduler.advance(5_000)  # b's keep-alive finds the orphan
        room = second.rooms[made["room"]]
        skipped = [e for e in room.history if e.kind == "clock_downtime_skipped"]
        assert skipped and skipped[-1].data["skipped_ms"] == 5_000
    finally:
        async for key in second.store.log.r.scan_iter(match=f"{prefix}:*"):  # type: ignore[attr-defined]
            await second.store.log.r.delete(key)  # type: ignore[attr-defined]
        for hub in hubs:
            await hub.close()
            await hub.bus.close()
            await hub.store.close()
