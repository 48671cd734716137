"""examples/bot.py plays a campaign seat through the public protocol alone (issue 14 §4, docs/bots.md): a
Continental War campaign is created over HTTP, one bot process per team plays three of its turns from the
`options` answers, the server accepts the orders they give, and the room's log shows the turns it went through."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from pathlib import Path

from tests.browser.scripted import room_log
from tests.conftest import ServerProcess

BOT = Path(__file__).resolve().parents[2] / "examples" / "bot.py"
TURNS = 3


async def test_the_example_bot_plays_both_seats_of_a_campaign_issue_14(server: ServerProcess) -> None:
    made = server.http("POST", "/api/campaigns", {
        "name": "bots", "scenario": "continental", "level": 2,
        "teams": [{"colour": "red", "seats": 1}, {"colour": "blue", "seats": 1}]})
    bots = [await asyncio.create_subprocess_exec(
        sys.executable, str(BOT), "--url", server.ws_url, "--token", seat["token"], "--turns", str(TURNS),
        "--seed", str(n), stdout=subprocess.PIPE, stderr=subprocess.STDOUT) for n, seat in enumerate(made["seats"])]
    outs = [(await asyncio.wait_for(bot.communicate(), 240))[0].decode() for bot in bots]
    accepted = 0
    for bot, out in zip(bots, outs, strict=True):
        assert bot.returncode == 0, out[-3000:]
        done = re.search(r"done: (\d+) turns played, (\d+) orders accepted", out)
        assert done and int(done[1]) == TURNS, out[-2000:]
        accepted += int(done[2])
    assert accepted > 0, outs
    records = room_log(server.data_dir, made["room"])
    orders = [r for r in records if r.kind == "order"]
    ends = [r for r in records if r.kind == "end_turn"]
    assert len(orders) == accepted  # every order acked is in the log, once
    assert len(ends) == 2 * TURNS  # both seats' turns ended, and the room went on to the next
    assert all(any(e.kind == "turn" for e in r.events) for r in ends)  # each passed the turn on
