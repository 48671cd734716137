"""Issue 12 §7 (D-N-14): the campaign's one `lockout_minutes` setting is honoured when a general falls (the engine's
follow-up) and when the moderator sends a player to the secret module without naming a time."""

from __future__ import annotations

from pathlib import Path

from server.rooms.members import Member
from tests.napoleonic.campaign.test_engine import result_of, setup_of
from tests.rooms.helpers import ManualClock, open_hub
from tests.rooms.test_battles import meet, napoleonic, until


async def test_a_fallen_generals_lockout_is_the_campaigns_setting_D_N_14(tmp_path: Path) -> None:
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    made = await hub.create_campaign({**napoleonic(), "lockout_minutes": 7})
    campaign, _, m = await meet(hub, made)
    started = setup_of(campaign.state.game, "1")  # the battle's setup: the public event names no forces
    result = {"winner": "blue", "loser": "red", "reason": "retreat", "retreats": "red", "general_killed": True,
              "units": result_of(started)}
    await hub.submit(made["room"], "ruling", {"ruling": {"type": "battle_result", "battle": "1", "result": result}},
                     m["moderator"])
    ended = next(e for e in campaign.history if e.kind == "battle_ended").data
    assert ended["general"]["fate"] == "killed" and ended["general"]["secret_module"]["minutes"] == 7
    await until(lambda: "red-2" in campaign.state.away)
    away = campaign.state.away["red-2"]
    assert away.until_ms - away.since_ms == 7 * 60_000
    await hub.close()


async def test_the_moderators_lockout_without_a_time_is_the_campaigns_setting_D_N_14(tmp_path: Path) -> None:
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    made = await hub.create_campaign({**napoleonic(), "lockout_minutes": 3})
    moderator = Member(made["campaign"], "moderator", "moderator")
    await hub.command(moderator, None, "lock", {"player": "blue-1", "reason": "a ruling"})
    room = hub.rooms[made["room"]]
    away = room.state.away["blue-1"]
    assert away.until_ms - away.since_ms == 3 * 60_000
    await hub.scheduler.advance(3 * 60_000)
    assert "blue-1" not in room.state.away
    await hub.close()
