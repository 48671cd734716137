"""examples/bot.py plays a campaign seat through the public protocol alone (issue 14 §4, docs/bots.md): a
Continental War campaign is created over HTTP, one bot process per team plays three of its turns from the
`options` answers, the server accepts the orders they give, and the room's log shows the turns it went through.
With Redis cut off in the middle, the bots retry with the same cid and every order they saw acked is logged once."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import redis

from server.store import keys as names
from server.store.records import Record
from tests.browser.scripted import room_log
from tests.conftest import ServerProcess
from tests.net.redis_proxy import ProxyThread

BOT = Path(__file__).resolve().parents[2] / "examples" / "bot.py"
TURNS = 3


async def _outputs(bots: list[asyncio.subprocess.Process], within_s: float = 240) -> list[str]:
    """Each bot's output once all have exited; as soon as one fails, the others are stopped (each waits for the
    other team's turns, which a failed bot never plays) and the failure is reported with its output."""
    tasks = [asyncio.ensure_future(bot.communicate()) for bot in bots]
    for done in asyncio.as_completed(tasks, timeout=within_s):
        await done
        failed = [(bot, task) for bot, task in zip(bots, tasks, strict=True) if task.done() and bot.returncode]
        if failed:
            for bot in bots:
                if bot.returncode is None:
                    bot.kill()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise AssertionError(f"a bot exited with {failed[0][0].returncode}: "
                                 f"{failed[0][1].result()[0].decode()[-3000:]}")
    return [task.result()[0].decode() for task in tasks]


async def play_both_seats(server: ServerProcess) -> tuple[dict[str, Any], int, list[str]]:
    """Create a Continental War campaign over HTTP and run one bot per seat: (the campaign, orders acked, outputs)."""
    made = server.http("POST", "/api/campaigns", {
        "name": "bots", "scenario": "continental", "level": 2,
        "teams": [{"colour": "red", "seats": 1}, {"colour": "blue", "seats": 1}]})
    bots = [await asyncio.create_subprocess_exec(
        sys.executable, str(BOT), "--url", server.ws_url, f"--token={seat['token']}", "--turns", str(TURNS),
        "--seed", str(n), stdout=subprocess.PIPE, stderr=subprocess.STDOUT) for n, seat in enumerate(made["seats"])]
    outs = await _outputs(bots)
    accepted = 0
    for bot, out in zip(bots, outs, strict=True):
        assert bot.returncode == 0, out[-3000:]
        done = re.search(r"done: (\d+) turns played, (\d+) orders accepted", out)
        assert done and int(done[1]) == TURNS, out[-2000:]
        accepted += int(done[2])
    assert accepted > 0, outs
    return made, accepted, outs


async def test_the_example_bot_plays_both_seats_of_a_campaign_issue_14(server: ServerProcess) -> None:
    made, accepted, _ = await play_both_seats(server)
    records = room_log(server.data_dir, made["room"])
    orders = [r for r in records if r.kind == "order"]
    ends = [r for r in records if r.kind == "end_turn"]
    assert len(orders) == accepted  # every order acked is in the log, once
    assert len(ends) == 2 * TURNS  # both seats' turns ended, and the room went on to the next
    assert all(any(e.kind == "turn" for e in r.events) for r in ends)  # each passed the turn on


@pytest.mark.redis
async def test_the_example_bot_retries_through_a_redis_cut_and_each_order_is_logged_once(
        server_factory: Any, redis_url: str, redis_prefix: str) -> None:
    with ProxyThread(redis_url) as proxy:
        node = server_factory("--redis-url", proxy.url, "--redis-prefix", redis_prefix).start()
        proxy.cut_after(b"move", blackout_s=1.5)  # the first order reaches Redis, its reply is lost
        made, accepted, outs = await play_both_seats(node)
    assert proxy.cuts >= 1
    assert any("retrying with the same cid" in out for out in outs), outs
    direct = redis.Redis.from_url(redis_url)
    raw: Any = direct.xrange(names.room_log(redis_prefix, made["room"]))
    records = [Record.unpack(fields[b"r"]) for _, fields in raw]
    direct.close()
    assert sum(1 for r in records if r.kind == "order") == accepted  # retried, applied once
    assert sum(1 for r in records if r.kind == "end_turn") == 2 * TURNS
