"""examples/battle_bot.py plays a whole battle through the public protocol (issue 14 §4, docs/bots.md): two bot
processes, one a side, command the battle of a Napoleonic campaign room on a real server — every order they give
is one the server's options offered, and the server accepts it — until the red army's retreat ends it."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

from tests.conftest import ServerProcess
from tests.net.client import join_when_spawned
from tests.net.test_play import battle_accepted, table

BOT = Path(__file__).resolve().parents[2] / "examples" / "battle_bot.py"


async def test_the_example_bot_plays_a_battle_to_its_end_issue_14(server: ServerProcess) -> None:
    async with table(server, scenario="napoleonic") as t:
        room = await battle_accepted(t)
        await join_when_spawned(t.spectator, room)
        tokens = {(s["team"], s["seat"]): s["token"] for s in t.made["seats"]}
        bots = [await asyncio.create_subprocess_exec(
            sys.executable, str(BOT), "--url", server.ws_url, f"--token={tokens[(team, 2)]}", "--room", room,
            *(["--retreat-after", "3"] if team == "red" else []),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT) for team in ("red", "blue")]
        outs = [await asyncio.wait_for(bot.communicate(), 240) for bot in bots]
        for bot, (out, _) in zip(bots, outs, strict=True):
            assert bot.returncode == 0, out.decode()[-3000:]
            assert "battle over: blue won" in out.decode(), out.decode()[-2000:]
        over = await t.spectator.wait(lambda m: m["t"] == "ev" and m["room"] == room and m["kind"] == "battle_over",
                                      within=10)
        assert over["data"]["winner"] == "blue"
