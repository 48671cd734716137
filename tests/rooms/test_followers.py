"""A node that does not own a room keeps one follower copy of it, brought up to date from the log after the last
record it has: joins and sign-ins read it instead of rebuilding the room from the store each time."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from server.rooms.followers import FOLLOWER_IDLE_MS
from server.rooms.hub import Hub
from server.rooms.members import Member
from tests.rooms.conftest import HubMaker
from tests.rooms.helpers import ManualClock, spec

pytestmark = pytest.mark.redis


class Outlet:
    json = True
    player: str | None = None

    def __init__(self) -> None:
        self.frames: list[bytes] = []

    def frame(self, payload: bytes | str) -> bytes:
        return payload.encode() if isinstance(payload, str) else payload

    def write(self, wire: bytes) -> None:
        self.frames.append(wire)

    def lockout_changed(self, room: str, away: bool) -> None:
        pass

    def resync(self, room: str, since: int) -> None:
        pass


@pytest.fixture
async def nodes(redis_hubs: HubMaker) -> tuple[Hub, Hub, ManualClock]:
    clock = ManualClock()
    return await redis_hubs(clock, node="node-a"), await redis_hubs(clock, node="node-b"), clock


async def test_joins_on_a_follower_node_reuse_one_copy_updated_from_the_log(
        nodes: tuple[Hub, Hub, ManualClock]) -> None:
    owner, follower, clock = nodes
    made = await owner.create_campaign(spec())
    room = made["room"]
    campaign = made["campaign"]
    red = Member(campaign, "player", "red-1", "red", 1)
    moderator = Member(campaign, "moderator", "moderator")  # sees every event
    assert await follower.lockout_of(red) is None  # a sign-in reads the follower copy
    copy = follower.mirrors[room]
    assert room not in follower.rooms

    got: list[dict[str, Any]] = []
    _, seq, _ = await follower.join(Outlet(), moderator, room, None, got.append)
    assert follower.mirrors[room] is copy and got[0]["t"] == "snapshot" and seq == copy.seq

    await owner.submit(room, "chat", {"channel": "players", "text": "gentlemen"}, red)
    await owner.submit(room, "order", {"order": {"type": "move", "counter": "r1", "to": [1, 1]}}, red)
    later: list[dict[str, Any]] = []
    _, now_seq, _ = await follower.join(Outlet(), moderator, room, seq, later.append)
    assert follower.mirrors[room] is copy  # advanced, not rebuilt
    assert copy.seq == owner.rooms[room].seq == now_seq
    assert [m["seq"] for m in later] == list(range(seq + 1, now_seq + 1))  # exactly the missing events
    assert "gentlemen" in [m["data"].get("text") for m in later]

    await asyncio.sleep(0.2)  # the feed's live subscription
    for outlet in list(follower.feeds[room].subs):
        await follower.leave(outlet, room)
    clock.advance(FOLLOWER_IDLE_MS + 1)
    await follower.drop_idle_feeds()
    assert room not in follower.mirrors  # dropped when idle
