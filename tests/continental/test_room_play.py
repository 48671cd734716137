"""A campaign at each level played through the room over real websockets by two teams, to a victory or a peace,
with the final score checked (issue 5: "a scripted campaign at each level played through the room")."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from tests.conftest import ServerProcess
from tests.net.client import Client, signed_in


@contextlib.asynccontextmanager
async def campaign(server: ServerProcess, level: int) -> AsyncIterator[tuple[str, Client, Client, Client]]:
    made = server.http("POST", "/api/campaigns", {
        "name": f"continental-{level}", "scenario": "continental", "level": level,
        "teams": [{"colour": "red", "seats": 1}, {"colour": "blue", "seats": 1}],
        "clock": {"mode": "per_turn", "turn_ms": 600_000},
    })
    token = {s["team"]: s["token"] for s in made["seats"]}
    room = made["room"]
    red = await signed_in(server.ws_url, token["red"], room)
    blue = await signed_in(server.ws_url, token["blue"], room)
    spectator = await signed_in(server.ws_url, server.named_spectator(made), room)  # everything, live (issue 12)
    try:
        yield room, red, blue, spectator
    finally:
        for c in (red, blue, spectator):
            await c.close()


async def order(client: Client, room: str, **o: Any) -> dict[str, Any]:
    reply = await client.request({"t": "order", "room": room, "order": o})
    assert reply["t"] == "ack", reply
    return reply


async def end_turn(client: Client, room: str) -> None:
    reply = await client.request({"t": "end_turn", "room": room})
    assert reply["t"] == "ack", reply


async def view(client: Client, room: str) -> dict[str, Any]:
    client.inbox.clear()
    await client.join(room)
    snap = await client.wait(lambda m: m["t"] == "snapshot")
    return dict(snap["state"])


def divisions(v: dict[str, Any], team: str) -> int:
    return len([u for u in v["units"] if u["team"] == team and u["arm"] not in ("FORT", "AHQ", "CHQ")
                and u["status"] not in ("destroyed", "captured")])


def penalties(v: dict[str, Any], team: str) -> int:
    return sum(p["points"] for p in v["penalties"] if p["team"] == team)


async def test_level_1_campaign_over_websockets_to_victory_C_10_1(server: ServerProcess) -> None:
    async with campaign(server, 1) as (room, red, blue, spectator):
        start = await view(red, room)
        assert start["phase"] == "planning" and start["level"] == 1
        assert all(u["team"] == "red" for u in start["units"])
        await end_turn(red, room)
        await end_turn(blue, room)
        # red's 3 RD (43-20, facing east) strikes Blue's covering division in 44-21 (C-9.8)
        await order(red, room, type="attack", target=[44, 21], echelons=[["r3RD"]])
        battle = await blue.event("battle")
        assert battle["data"]["rounds"][0]["attackers"] == ["r3RD"]
        await spectator.event("battle")
        war = await blue.event("war_begun")
        assert war["data"]["by"] == "red"
        await end_turn(red, room)
        await order(blue, room, type="capitulate")
        over = await red.event("campaign_over")
        result = over["data"]
        assert result["winner"] == "red" and result["end"] == "capitulation"
        final = await view(spectator, room)
        assert final["phase"] == "over" and final["result"] == {k: result[k] for k in final["result"]}
        prisoners = final["prisoners"].get("red", 0)
        assert result["scores"]["red"] == 100 + 5 * divisions(final, "red") + 10 * prisoners - penalties(final, "red")
        captive = len([u for u in final["units"] if u["team"] == "blue" and u["status"] == "captured"])
        assert result["scores"]["blue"] == 4 * (divisions(final, "blue") + captive) - penalties(final, "blue")


async def test_level_2_campaign_over_websockets_to_peace_in_the_current_position_C_10_2(
        server: ServerProcess) -> None:
    async with campaign(server, 2) as (room, red, blue, spectator):
        await order(red, room, type="mobilization_points", cities=["Nordstadt"])
        await end_turn(red, room)
        await end_turn(blue, room)
        await order(red, room, type="move", unit="r1RD", path=[[44, 26]])  # across the border: war (C-9.1)
        await blue.event("war_begun")
        await order(red, room, type="question", kind="count", cell=[50, 21])
        answer = await red.event("answer")
        assert answer["data"]["cost"] == 1
        assert not [m for m in blue.events(room) if m["kind"] == "answer"]
        await order(red, room, type="propose_peace", to="blue", kind="current")
        await end_turn(red, room)
        await order(blue, room, type="answer_peace", proposal=1, accept=True)
        over = await spectator.event("campaign_over")
        assert over["data"]["end"] == "peace"
        final = await view(spectator, room)
        assert final["control"]["44-26"] == "red"
        for team in ("red", "blue"):
            # no city changed hands: 2 points a surviving division, less the penalties
            assert over["data"]["scores"][team] == 2 * divisions(final, team) - penalties(final, team)


async def test_level_3_campaign_over_websockets_simultaneous_orders_to_a_compromise_C_1_7_C_10_3(
        server: ServerProcess) -> None:
    async with campaign(server, 3) as (room, red, blue, spectator):
        await end_turn(red, room)
        await end_turn(blue, room)
        # both teams give orders in the same turn; nothing happens until both have finished (C-1.7 [L3])
        await order(red, room, type="move", unit="r5RD", path=[[41, 22], [42, 22], [43, 22], [44, 22]])  # 40 km
        await order(blue, room, type="move", unit="b5RD", path=[[46, 23]])
        recorded = await red.event("order_recorded")
        assert recorded["data"]["number"] == 1
        await end_turn(blue, room)
        await end_turn(red, room)
        await red.event("moved", unit="r5RD", path=[[43, 22]])  # as far as possible, silently (C-9.3, D-C-6)
        assert not [m for m in red.events(room) if m["kind"] == "order_adjusted"]
        assert not [m for m in spectator.events(room) if m["kind"] == "order_adjusted"]
        await order(blue, room, type="move", unit="b1RD", path=[[43, 27]])  # blue starts the war
        await end_turn(red, room)
        await end_turn(blue, room)
        await blue.event("war_begun")
        border = [[[44, y], "red"] for y in range(16, 20)]
        await order(red, room, type="propose_peace", to="blue", kind="compromise", border=border)
        await order(blue, room, type="answer_peace", proposal=1, accept=True)
        over = await spectator.event("campaign_over")
        final = await view(spectator, room)
        assert final["control"]["44-16"] == "red"
        for team in ("red", "blue"):
            cities = sum(1 for p in final["map"]["places"] if p["kind"] in ("city", "capital")
                         and p["state"] != team and final["control"].get(f"{p['cell'][0]}-{p['cell'][1]}") == team)
            assert over["data"]["scores"][team] == 5 * cities + 2 * divisions(final, team) - penalties(final, team)
