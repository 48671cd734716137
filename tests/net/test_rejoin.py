"""A page reloaded mid-game gets its turn log back: a fresh `join` (no `since`) answers with a snapshot whose `log`
is the room's recent game events this viewer may see and whose `chat` is the lines it may read — together what a
socket of its own that stayed got live, no line in both, and nothing of another team's — and no `ev` already in
it follows. Real websockets to a real server."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.conftest import ServerProcess
from tests.net.client import Client, signed_in
from tests.net.test_play import move, table


def _seat(made: dict[str, Any], team: str, seat: int) -> str:
    return str(next(s["token"] for s in made["seats"] if s["team"] == team and s["seat"] == seat))


def _by_time(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Chat lines in the order of their times: a snapshot's lines said in the same millisecond are in their
    channels' order, not the room's."""
    return sorted(lines, key=lambda line: (line["at_ms"], line["channel"], line["text"]))


async def _reloaded(t: Any, token: str) -> tuple[Client, dict[str, Any]]:
    page = await signed_in(t.red1.ws_url, token, t.room)
    return page, await page.wait(lambda m: m["t"] == "snapshot" and m["room"] == t.room)


async def test_a_reloaded_page_gets_the_turn_log_its_viewer_may_see_C_1_8(server: ServerProcess) -> None:
    async with table(server) as t:
        for c in t.all:
            await c.wait(lambda m: m["t"] == "snapshot")
        assert (await t.red1.request(move(t.room, "r1", 1, 1)))["t"] == "ack"
        await t.red1.request({"t": "chat", "room": t.room, "channel": "team", "text": "red plan"})
        await t.red1.request({"t": "end_turn", "room": t.room})
        await t.blue2.event("turn", ended="red")
        assert (await t.blue2.request(move(t.room, "b2", 3, 6)))["t"] == "ack"
        await t.blue1.request({"t": "chat", "room": t.room, "channel": "team", "text": "blue plan"})
        await t.blue1.request({"t": "chat", "room": t.room, "channel": "players", "text": "peace?"})
        await t.moderator.request({"t": "chat", "room": t.room, "channel": "announce", "text": "go on"})
        for c in t.all:  # the last event: put back, as what each got live is compared below
            c.inbox.append(await c.wait(lambda m: m["t"] == "ev" and m["data"].get("text") == "go on"))

        for stayed, token in ((t.red2, _seat(t.made, "red", 2)), (t.blue1, _seat(t.made, "blue", 1)),
                              (t.spectator, t.spectator_token), (t.moderator, t.made["moderator_token"])):
            page, snap = await _reloaded(t, token)
            live = [m for m in stayed.inbox if m["t"] == "ev" and m["room"] == t.room]
            events = [m for m in live if m["kind"] != "chat"]
            lines = [m["data"] for m in live if m["kind"] == "chat"]
            log = snap["log"]
            assert not [e for e in log if e["kind"] == "chat"]  # the lines come once, in `chat`
            assert events and [e for e in log if e["seq"] >= events[0]["seq"]] == events
            assert lines and _by_time(snap["chat"]) == _by_time(lines)  # the room had no line before the table
            await asyncio.sleep(0.1)
            assert not [m for m in page.inbox if m["t"] == "ev" and m["seq"] <= snap["seq"]]  # not sent twice
            await page.close()

        page, snap = await _reloaded(t, _seat(t.made, "red", 1))
        assert sorted(line["text"] for line in snap["chat"]) == ["go on", "peace?", "red plan"]  # not blue's team
        assert {e["data"]["team"] for e in snap["log"] if e["kind"] == "counter_moved"} == {"red"}  # C-1.8 hidden
        await page.close()
        link, snap = await _reloaded(t, t.made["spectator_token"])  # the spectators' link: the public class
        assert [line["text"] for line in snap["chat"]] == ["go on"]  # the announcement only
        assert not [e for e in snap.get("log", []) if e["kind"] == "counter_moved"]
        await link.close()
