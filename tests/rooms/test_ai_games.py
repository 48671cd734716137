"""Issue 18 and issue 21 item 5: games created with AI teams (the HTTP API's `"ai": true`) are played through the
rooms to their end — the skirmish with the AI on a side, AI against AI."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from server.rooms.hub import Hub
from tests.rooms.helpers import ManualClock, open_hub


async def until_over(hub: Hub, room_id: str, seconds: float = 120.0) -> None:
    room = hub.rooms[room_id]
    assert room.engine is not None
    for _ in range(int(seconds / 0.02)):
        if room.engine.is_over(room.state.game):
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"{room_id} is not over: {room.engine.view(room.state.game, 'moderator').get('stage')}")


async def create(hub: Hub, scenario: str, ai: tuple[bool, bool], **kw: Any) -> dict[str, Any]:
    return await hub.create_campaign({"scenario": scenario, "clock": None, **kw, "teams": [
        {"colour": "red", "seats": 1, "ai": ai[0]}, {"colour": "blue", "seats": 1, "ai": ai[1]}]})


async def test_the_ai_plays_both_sides_of_a_skirmish_to_its_end(tmp_path: Path) -> None:
    hub = await open_hub(tmp_path, ManualClock())
    try:
        made = await create(hub, "skirmish", (True, True))
        assert made["meta"]["ai"] == ["red-1", "blue-1"]
        await until_over(hub, made["room"])
        await hub.commanders.settled()
        records = await hub.store.log.read(made["room"], 0)
        by_ai = [r for r in records if r.kind == "order"]
        assert by_ai and all(r.body.get("ai") and r.actor["player"] in ("red-1", "blue-1") for r in by_ai)
        assert any(r.body["order"]["type"] in ("fire", "move") for r in by_ai)
        view = hub.rooms[made["room"]].engine.view(hub.rooms[made["room"]].state.game, "moderator")  # type: ignore[union-attr]
        assert view["result"] is not None
    finally:
        await hub.close()
