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


async def test_a_campaigns_ai_team_fights_its_battles_in_their_rooms(tmp_path: Path) -> None:
    """The seats the AI plays in the campaign are the AI's in its battle rooms too (their setup records), and a seat
    handed back in the campaign is handed back in its running battle."""
    from tests.rooms.test_battles import ARMIES, players

    hub = await open_hub(tmp_path, ManualClock())
    try:
        teams = [{"colour": "red", "seats": 2}, {"colour": "blue", "seats": 2, "ai": True}]
        made = await hub.create_campaign({"scenario": "napoleonic", "level": 2, "config": {"armies": ARMIES},
                                          "clock": {"mode": "per_turn", "turn_ms": 600_000}, "teams": teams})
        m = players(made["campaign"])
        await hub.submit(made["room"], "order", {"order": {"type": "move", "army": "r1", "path": [[11, 17], [12, 17]]}},
                         m["red-1"])
        battle_id = f"b-{made['campaign']}-1"
        for _ in range(1000):  # the AI answers the contact for blue (fight or withdraw), the battle room opens
            if battle_id in hub.rooms:
                break
            await asyncio.sleep(0.01)
        battle = hub.rooms[battle_id]
        assert dict(battle.state.ai) == {"blue-1": "setup", "blue-2": "setup"}
        assert battle.engine is not None
        for _ in range(3):  # red ends its phases; the AI plays blue's
            for _ in range(1000):
                if battle.active() == ["red"]:
                    break
                await asyncio.sleep(0.01)
            await hub.submit(battle_id, "end_turn", {}, m["red-1"])
        await hub.commanders.settled()
        assert battle.state.game.turn >= 2
        records = await hub.store.log.read(battle_id, 0)
        assert any(r.kind == "end_turn" and r.body.get("ai") and r.actor["team"] == "blue" for r in records)

        await hub.submit(made["room"], "mod_ai", {"player": "blue", "on": False}, m["moderator"])
        for _ in range(1000):
            if not battle.state.ai:
                break
            await asyncio.sleep(0.01)
        assert dict(battle.state.ai) == {}
    finally:
        await hub.close()
