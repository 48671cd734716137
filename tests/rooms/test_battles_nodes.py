"""Battle rooms of one campaign owned by two nodes sharing Redis: the secret-module lockout of a fallen general
and the moderator's early release reach every room of the campaign wherever it is owned (D-N-14), and so does the
end of a battle settled by quick resolution (D-L-2)."""

from __future__ import annotations

from typing import Any

import pytest

from server.rooms.hub import Hub
from server.rooms.ids import RoomId
from tests.rooms.conftest import HubMaker
from tests.rooms.helpers import spec
from tests.rooms.test_battles import TWO_BATTLES, players, until

pytestmark = pytest.mark.redis


@pytest.fixture
async def nodes(redis_hubs: HubMaker) -> tuple[Hub, Hub]:
    hubs = [await redis_hubs(node=name, lease_ms=3_000) for name in ("node-a", "node-b")]
    for hub in hubs:
        await hub.start()
    return hubs[0], hubs[1]


async def test_lockout_and_early_release_reach_battle_rooms_on_another_node_D_N_14(nodes: tuple[Hub, Hub]) -> None:
    a, b = nodes
    made = await a.create_campaign(spec(scenario="napoleonic", config={"armies": TWO_BATTLES}))
    m = players(made["campaign"])
    room = made["room"]
    for army, path in (("r2", [[11, 13], [12, 13]]), ("r1", [[11, 17], [12, 17]])):
        await a.submit(room, "order", {"order": {"type": "move", "army": army, "path": path}}, m["red-1"])
    for battle in ("1", "2"):
        await a.submit(room, "order", {"order": {"type": "answer", "battle": battle, "choice": "accept"}},
                       m["blue-2"])
    first = RoomId.child_room(made["campaign"], "1")
    await until(lambda: first in a.rooms and RoomId.child_room(made["campaign"], "2") in a.rooms)
    # the first battle's room moves to node b (as after a lease lost and taken over)
    await a.ownership.drop(first)
    await a.store.leases.release(first, a.node)
    elsewhere = await b.owned(first)
    assert elsewhere is not None and await a.store.leases.holder(first) == "node-b"

    # battle 2 settled by the moderator's quick resolution: Vandamme (blue-1) is captured (D-N-14)
    await b.submit(room, "ruling", {"ruling": {"type": "impose_quick", "battle": "2"}}, m["moderator"])
    campaign = a.rooms[room]
    await until(lambda: "blue-1" in campaign.state.away and "blue-1" in elsewhere.state.away, rounds=1000)
    lock: Any = elsewhere.state.away["blue-1"]
    assert 19 * 60_000 < lock.until_ms - lock.since_ms <= 20 * 60_000

    # the moderator brings the player back early, from node b: every room of the campaign lets him play again
    await b.submit(room, "release", {"player": "blue-1", "by": "moderator"}, m["moderator"])
    await until(lambda: "blue-1" not in campaign.state.away and "blue-1" not in elsewhere.state.away, rounds=1000)

    # a lockout the moderator orders by hand reaches the far room as well
    await b.submit(room, "lock", {"player": "red-2", "minutes": 5, "reason": "umpire"}, m["moderator"])
    await until(lambda: "red-2" in elsewhere.state.away, rounds=1000)

    # the quick resolution of the first battle, settled in the campaign on node a, ends its room on node b (D-L-2)
    await a.submit(room, "ruling", {"ruling": {"type": "impose_quick", "battle": "1"}}, m["moderator"])
    await until(lambda: elsewhere.engine.is_over(elsewhere.state.game), rounds=1000)  # type: ignore[union-attr]
    over = next(e for e in elsewhere.history if e.kind == "battle_over")
    assert over.data["reason"] == "quick resolution (D-L-2)"
    assert [e.kind for e in campaign.history].count("battle_ended") == 2  # each battle's result applied once
