"""Issue 18 over the wire: a campaign against the computer created over HTTP (`"ai": true` on a team) is played
by the AI for that team, turn after turn; the moderator hands a seat to the AI and takes it back (`mod_ai`); the
moderator and the AI team's own players are told who is played by the AI, the enemy is not."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import HttpStatus, ServerProcess
from tests.net.client import Client, signed_in
from tests.net.test_play import campaign


def solo(server: ServerProcess, **kw: Any) -> dict[str, Any]:
    return campaign(server, scenario="campaign", level=1, teams=[
        {"colour": "red", "seats": 1}, {"colour": "blue", "seats": 2, "ai": True}],
        clock={"mode": "per_turn", "turn_ms": 300_000}, **kw)


async def turn_event(client: Client, room: str, **match: Any) -> dict[str, Any]:
    return await client.wait(lambda m: m["t"] == "ev" and m["room"] == room and m["kind"] == "turn"
                             and all(m["data"].get(k) == v for k, v in match.items()), 20)


async def test_a_campaign_against_the_computer_created_over_http_is_played_by_the_ai(server: ServerProcess) -> None:
    made = solo(server)
    room = made["room"]
    red = await signed_in(server.ws_url, made["seats"][0]["token"], room)
    mod = await signed_in(server.ws_url, made["moderator_token"], room)
    blue = await signed_in(server.ws_url, made["seats"][1]["token"], room)
    try:
        snapshots = [await c.wait(lambda m: m["t"] == "snapshot") for c in (red, mod, blue)]
        assert "ai" not in snapshots[0]  # the enemy is not told
        assert snapshots[1]["ai"] == ["blue-1", "blue-2"] and snapshots[2]["ai"] == ["blue-1", "blue-2"]
        played = 0
        for _ in range(3):  # planning (both at once: the AI has ended blue's), then red and blue in turn (C-1.7)
            assert (await red.request({"t": "end_turn", "room": room}))["t"] == "ack"
            ended = await turn_event(mod, room, ended="red")
            if "red" not in ended["data"]["active"]:
                await turn_event(mod, room, ended="blue", active=["red"])  # the AI played blue's turn
                played += 1
        assert played == 2
        refused = await blue.request({"t": "mod_ai", "player": "red-1", "on": True})
        assert refused["t"] == "error" and refused["code"] == "forbidden"

        assert (await mod.request({"t": "mod_ai", "player": "red", "on": True}))["t"] == "ack"
        handed = await red.event("ai_seat", player="red-1")
        assert handed["data"]["on"] is True
        await turn_event(mod, room, ended="red")  # the AI ends red's turn now
        back = await mod.request({"t": "mod_ai", "player": "red-1", "on": False})
        assert back["t"] == "ack"  # the AI may have played blue's and red's next turns before: they are logged before
        with pytest.raises(TimeoutError):  # red is the player's again: nobody ends its turn after the hand-back
            await mod.wait(lambda m: m["t"] == "ev" and m["kind"] == "turn" and m["seq"] > back["seq"]
                           and m["data"].get("ended") == "red", 3)
        assert (await red.request({"t": "end_turn", "room": room}))["t"] == "ack"  # it was red's, and red's player's
    finally:
        for c in (red, mod, blue):
            await c.close()


def test_the_lobby_says_which_seats_the_computer_plays(server: ServerProcess) -> None:
    made = solo(server)
    entry = next(c for c in server.http("GET", "/api/lobby")["campaigns"] if c["room"] == made["room"])
    assert [(t["colour"], t.get("ai")) for t in entry["teams"]] == [("red", 0), ("blue", 2)]
    with pytest.raises(HttpStatus) as info:
        campaign(server, teams=[{"colour": "red", "ai": "maybe"}, {"colour": "blue"}])
    assert info.value.code == 400
