"""A room owned under a lease that runs out (issue 12 §10): once its tenure lapsed it renews the lease on the spot
if it is still this node's (a stalled loop goes on), and else (the process stopped past its lease, another node took
the room) applies nothing and answers `unavailable`; the renewal that finds the lease taken drops it."""

from __future__ import annotations

import pytest

from server.rooms.errors import Retryable
from server.rooms.members import Member
from tests.rooms.conftest import HubMaker
from tests.rooms.helpers import ManualClock, spec


@pytest.mark.redis
async def test_a_lapsed_tenure_goes_on_if_the_lease_is_still_ours_and_applies_nothing_if_not(
        redis_hubs: HubMaker) -> None:
    hub = await redis_hubs(ManualClock(), lease_ms=60_000)
    made = await hub.create_campaign(spec())
    room = hub.rooms[made["room"]]
    red = Member(made["campaign"], "player", "red-1", "red", 1)
    assert room.tenure is not None
    epoch = room.tenure.epoch
    room.tenure._until = 0.0  # the loop stalled past the tenure, but not past the lease: renewed on the spot
    assert await room.submit("chat", {"channel": "team", "text": "after a stall"}, red) is not None
    assert room.tenure.holds() and room.tenure.epoch == epoch
    # stopped past the lease, and another node took the room meanwhile: nothing is applied, the room is let go
    room.tenure._until = 0.0
    await hub.store.leases.release(made["room"], hub.node)
    other = await hub.store.leases.acquire(made["room"], "node-b", 60_000)
    assert other is not None and other > epoch
    index = room.index
    with pytest.raises(Retryable) as refused:
        await room.submit("chat", {"channel": "team", "text": "stale"}, red)
    assert refused.value.code == "unavailable" and room.index == index and room.closed
    assert await hub.store.leases.holder(made["room"]) == "node-b"


@pytest.mark.redis
async def test_the_renewal_that_finds_the_lease_taken_drops_the_room(redis_hubs: HubMaker) -> None:
    hub = await redis_hubs(ManualClock(), lease_ms=60_000)
    made = await hub.create_campaign(spec())
    room = hub.rooms[made["room"]]
    await hub.store.leases.release(made["room"], hub.node)
    assert await hub.store.leases.acquire(made["room"], "node-b", 60_000) is not None
    await hub.ownership.renew()
    assert made["room"] not in hub.rooms and room.closed
