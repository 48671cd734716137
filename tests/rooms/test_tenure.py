"""A room owned under a lease that runs out (issue 12 §10): once its tenure lapsed (the process stopped past its
lease) it applies nothing and answers `unavailable`; the renewal that finds the lease taken drops it."""

from __future__ import annotations

import pytest

from server.rooms.errors import Retryable
from server.rooms.members import Member
from tests.rooms.conftest import HubMaker
from tests.rooms.helpers import ManualClock, spec


@pytest.mark.redis
async def test_a_room_whose_tenure_lapsed_applies_nothing_and_a_lost_lease_drops_it(redis_hubs: HubMaker) -> None:
    hub = await redis_hubs(ManualClock(), lease_ms=60_000)
    made = await hub.create_campaign(spec())
    room = hub.rooms[made["room"]]
    red = Member(made["campaign"], "player", "red-1", "red", 1)
    assert room.tenure is not None
    now = [0.0]
    room.tenure._clock = lambda: now[0]  # this node's clock: stopped past its lease
    room.tenure._until = 1.0
    now[0] = 5.0
    index = room.index
    with pytest.raises(Retryable) as refused:
        await room.submit("chat", {"channel": "team", "text": "stale"}, red)
    assert refused.value.code == "unavailable" and room.index == index
    # another node took the lease meanwhile: the renewal finds it gone and drops the room
    await hub.store.leases.release(made["room"], hub.node)
    other = await hub.store.leases.acquire(made["room"], "node-b", 60_000)
    assert other is not None and other > room.tenure.epoch
    await hub.ownership.renew()
    assert made["room"] not in hub.rooms and room.closed
