"""Views are built only for the viewer classes following a room on the node, once per class and command."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import msgpack

from server.rooms.members import Member
from tests.rooms.helpers import ManualClock, open_hub, spec
from tests.rooms.test_feed import Outlet


async def test_views_are_built_once_per_following_class_and_not_at_all_without_followers(tmp_path: Path) -> None:
    hub = await open_hub(tmp_path, ManualClock())
    made = await hub.create_campaign(spec())
    room = hub.rooms[made["room"]]
    assert room.engine is not None
    calls: Counter[str] = Counter()
    view = room.engine.view

    def counting(state: Any, viewer: str) -> dict[str, Any]:
        calls[viewer] += 1
        return view(state, viewer)

    room.engine.view = counting  # type: ignore[method-assign]
    red = Member(made["campaign"], "player", "red-1", "red", 1)
    await room.submit("order", {"order": {"type": "move", "counter": "r1", "to": [1, 1]}}, red)
    assert calls == Counter()  # nobody follows the room here: no view work

    # named spectators (the spectators' link shows the public class: issue 12 item 1)
    await room.submit("ruling", {"ruling": {"type": "spectating", "name": "spectator:Anna"}},
                      Member(made["campaign"], "moderator", "moderator"))
    spectators = [Outlet(), Outlet()]
    for outlet in spectators:
        await hub.join(outlet, Member(made["campaign"], "spectator", "spectator:Anna"), room.id, None,
                       lambda m: None)
    calls.clear()
    await room.submit("order", {"order": {"type": "move", "counter": "r2", "to": [2, 1]}}, red)
    assert calls == Counter({"spectator": 1})
    assert spectators[0].frames[-1] is spectators[1].frames[-1]  # the same view bytes to both sockets
    assert msgpack.unpackb(spectators[0].frames[-1][1:])["t"] == "view"
    await hub.close()
