"""A whole skirmish played through the protocol: `POST /api/campaigns` with the skirmish scenario, two players
over real websockets to a real server process, each a scripted client that decides from the views it is sent;
a spectator watches and the moderator gives a ruling. The game is played to its end (D-S-15), the clock running
for the side to give the next order (D-S-4)."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.conftest import ServerProcess
from tests.net.client import Client, signed_in


def _decide(state: dict[str, Any], team: str) -> dict[str, Any]:
    """An order from what this side sees: the attacker closes in and fires within 10 cells, the defender fires
    at what comes within 15; hits go to the first candidates; demoralised units fall back."""
    if state["stage"] == "terrain":
        return {"type": "auto_terrain"}
    if state["stage"] == "deploy":
        return {"type": "deploy"}
    decision = state.get("decision")
    if decision and decision["owner"] == team:
        return {"type": "hits", "figures": decision["candidates"][:decision["count"]]}
    figures = {f["id"]: f for f in state["figures"]}
    side = next(s for s in state["sides"] if s["team"] == team)
    enemies = [f for f in state["figures"] if f["side"] != team and f["status"] in ("in_action", "down")]
    for unit in state["units"]:
        cmd = figures.get(unit["commander"] or "")
        if cmd is None or cmd["status"] != "in_action" or cmd["ordered"] or unit["ordered"]:
            continue
        if unit["demoralised"]:
            return {"type": "fall_back", "body": unit["id"]}
        reach = 10 if side["role"] == "attacker" else 15
        near = sorted(enemies, key=lambda e: (e["x"] - cmd["x"]) ** 2 + (e["y"] - cmd["y"]) ** 2)
        if near and (near[0]["x"] - cmd["x"]) ** 2 + (near[0]["y"] - cmd["y"]) ** 2 <= reach ** 2:
            return {"type": "fire", "body": unit["id"], "target": near[0]["id"], "group": True}
        if side["role"] == "attacker":
            step = -3 if side["edge"] == "south" else 3
            moves = [{"figure": i, "to": [figures[i]["x"], figures[i]["y"] + step]} for i in unit["in_cohesion"]
                     if figures[i]["status"] == "in_action"]
            return {"type": "move", "body": unit["id"], "moves": moves}
    return {"type": "pass"}


async def _play(client: Client, room: str, team: str, log: list[str]) -> dict[str, Any]:
    state = (await client.wait(lambda m: m["t"] == "snapshot", 10))["state"]
    while state["result"] is None:
        if team in state["active"]:
            order = _decide(state, team)
            reply = await client.request({"t": "order", "room": room, "order": order}, 10)
            if reply["t"] == "error":
                assert reply["code"] in ("illegal_order", "bad_order"), reply
                log.append(f"{team}: {order['type']} refused ({reply['rule']})")
                reply = await client.request({"t": "end_turn", "room": room}, 10)
            assert reply["t"] == "ack", reply
            after = reply["seq"]
            view = await client.wait(lambda m, after=after: m["t"] == "view" and m["seq"] >= after, 20)
        else:
            view = await client.wait(lambda m: m["t"] == "view", 20)
        state = view["state"]
        client.inbox[:] = [m for m in client.inbox if m["t"] != "view" or m["seq"] > view["seq"]]
    return state


async def test_a_whole_skirmish_is_played_through_the_protocol_to_its_end_D_S_15_D_S_4(
        server: ServerProcess) -> None:
    made = server.http("POST", "/api/campaigns", {
        "name": "squad against squad", "scenario": "skirmish", "level": 1,
        "teams": [{"colour": "red", "seats": 1}, {"colour": "blue", "seats": 1}],
        "clock": {"mode": "per_turn", "turn_ms": 60_000}})
    room = made["room"]
    token = {s["team"]: s["token"] for s in made["seats"]}
    red = await signed_in(server.ws_url, token["red"], room)
    blue = await signed_in(server.ws_url, token["blue"], room)
    watcher = server.named_spectator(made)  # everything, live (issue 12)
    spectator = await signed_in(server.ws_url, watcher, room)
    moderator = await signed_in(server.ws_url, made["moderator_token"], room)
    try:
        snap = await spectator.wait(lambda m: m["t"] == "snapshot")
        assert snap["state"]["kind"] == "skirmish" and snap["state"]["scenario"] == "squad"
        ruled = await moderator.request({"t": "mod_ruling", "room": room,
                                         "ruling": {"type": "note", "text": "play fair"}})
        assert ruled["t"] == "ack"
        refusals: list[str] = []
        red_end, blue_end = await asyncio.wait_for(asyncio.gather(
            _play(red, room, "red", refusals), _play(blue, room, "blue", refusals)), 240)
        assert red_end["result"] == blue_end["result"] and red_end["result"]["turn"] <= 8
        assert red_end["result"]["winner"] in ("red", "blue")
        over = await spectator.event("game_over", 10)
        assert over["data"]["winner"] == red_end["result"]["winner"]
        events = spectator.events(room)
        assert sum(e["kind"] == "turn_started" for e in events) == red_end["result"]["turn"]
        assert {"deployment_revealed", "random_fire", "survival_test"} <= {e["kind"] for e in events} | {
            e["kind"] for e in red.events(room)}
        assert any(e["kind"] == "ruling" and e["data"]["text"] == "play fair" for e in events)
        rolls = [e for e in events if e["kind"] == "roll"]
        assert {"initiative", "orders", "next_order"} <= {r["data"]["purpose"] for r in rolls}
        turns = [e["data"]["active"] for e in events if e["kind"] == "turn"]
        assert ["red"] in turns and ["blue"] in turns  # the clock went from side to side, order by order
        assert not [r for r in refusals if "bad_order" in r]
        late = await signed_in(server.ws_url, watcher, room)  # a late spectator: the end
        again = await late.wait(lambda m: m["t"] == "snapshot")
        assert again["state"]["result"] == red_end["result"] and again["active"] == []
        await late.close()
    finally:
        for c in (red, blue, spectator, moderator):
            await c.close()
