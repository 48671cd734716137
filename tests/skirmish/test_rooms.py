"""Skirmish rooms through real server processes and websockets (issue 21 item 3): two teams of three seats sharing
a side's orders, spectators and the moderator, the clock restarted for every order (D-S-4) even when the dice give
the same side the next one, fog (the ambush held back is seen by its side and the spectators, never by the
attacker, D-S-13, D-S-7), resume after a disconnect and after a restart of the server, and the replay of the
finished game per viewer class."""

from __future__ import annotations

from typing import Any

from tests.conftest import ServerProcess
from tests.net.client import Client, signed_in


def _create(server: ServerProcess, seats: int = 3) -> dict[str, Any]:
    made: dict[str, Any] = server.http("POST", "/api/campaigns", {
        "name": "the house at the crossroads", "scenario": "skirmish-platoon",
        "teams": [{"colour": "red", "seats": seats}, {"colour": "blue", "seats": seats}],
        "clock": {"mode": "per_turn", "turn_ms": 120_000}})
    return made


async def _view(client: Client, after: int = 0) -> dict[str, Any]:
    """The newest view (or snapshot) of the room this client has after seq `after`."""
    msg = await client.wait(lambda m: m["t"] in ("view", "snapshot") and m["seq"] >= after, 20)
    newer = [m for m in client.inbox if m["t"] in ("view", "snapshot") and m["seq"] >= msg["seq"]]
    client.inbox[:] = [m for m in client.inbox if m["t"] not in ("view", "snapshot")]
    state: dict[str, Any] = [msg, *newer][-1]["state"]
    return state


def _enemy_ids(state: dict[str, Any], team: str) -> set[str]:
    return {f["id"] for f in state["figures"] if f["side"] != team}


async def test_teams_of_three_share_orders_the_clock_restarts_per_order_and_the_ambush_stays_hidden_D_S_4_D_S_13(
        server: ServerProcess) -> None:
    made = _create(server)
    room = made["room"]
    tokens = {(s["team"], s["seat"]): s["token"] for s in made["seats"]}
    assert len(tokens) == 6
    players = {key: await signed_in(server.ws_url, tok, room) for key, tok in tokens.items()}
    spectator = await signed_in(server.ws_url, server.named_spectator(made), room)  # everything, live (issue 12)
    moderator = await signed_in(server.ws_url, made["moderator_token"], room)
    try:
        # S-3.2: the defender (blue) deploys first — from its second seat; the attacker from its third
        ack = await players[("blue", 2)].request({"t": "order", "room": room, "order": {"type": "deploy"}})
        assert ack["t"] == "ack", ack
        early = await players[("red", 1)].request({"t": "order", "room": room, "order": {"type": "pass"}})
        assert early["t"] == "error" and early["code"] == "illegal_order"  # not the orders phase yet
        ack = await players[("red", 3)].request({"t": "order", "room": room, "order": {"type": "deploy"}})
        assert ack["t"] == "ack", ack
        seq = ack["seq"]
        red_view = await _view(players[("red", 1)], seq)
        blue_view = await _view(players[("blue", 3)], seq)
        seen_by_all = await _view(spectator, seq)
        assert red_view["stage"] == blue_view["stage"] == "orders"
        # D-S-13: the Soviet 3rd squad waits in ambush: its side and the spectators see it, the attacker does not
        ambush = {f["id"] for f in seen_by_all["figures"] if f["status"] == "ambush"}
        assert ambush and ambush <= {f["id"] for f in blue_view["figures"]}
        assert not ambush & _enemy_ids(red_view, "red")
        assert not any(i in str(e["data"]) for e in players[("red", 2)].events(room) for i in ambush)
        assert red_view["last_seen"].keys().isdisjoint(ambush)
        # orders one at a time, by any seat of the side to act; every seat of both sides sees the counts change
        restarted = False
        state = seen_by_all
        for n in range(24):
            if state["result"] is not None:
                break
            (team,) = state["active"]
            seat = players[(team, 1 + n % 3)]
            order: dict[str, Any] = {"type": "pass"}
            if state["decision"]:
                d = state["decision"]
                order = {"type": "hits", "figures": d["candidates"][:d["count"]]}
            elif state["stage"] != "orders":
                reply = await seat.request({"t": "end_turn", "room": room})
                assert reply["t"] == "ack", reply
                seq = reply["seq"]
                state = await _view(spectator, seq)
                continue
            prev = max(m["seq"] for m in spectator.events(room))
            reply = await seat.request({"t": "order", "room": room, "order": order})
            assert reply["t"] == "ack", (order, reply)
            seq = reply["seq"]
            # every order carried out changes who acts or the decision due: a `turn` event with the clocks
            turn = await spectator.wait(lambda m, s=seq: m["t"] == "ev" and m["kind"] == "turn" and m["seq"] >= s, 20)
            events = [m for m in spectator.events(room) if prev < m["seq"] < turn["seq"]] + [turn]
            after = await _view(spectator, turn["seq"])
            if after["active"] == [team] and after["stage"] == "orders" and not after["decision"]:
                # the dice gave the same side the next order: its clock stopped and started afresh (D-S-4)
                kinds = [(e["kind"], e["data"].get("team")) for e in events]
                assert ("clock_stopped", team) in kinds and ("clock_started", team) in kinds, kinds
                assert turn["data"]["active"] == [team]
                assert turn["data"]["clocks"]["teams"][team]["remaining_ms"] >= 119_000
                restarted = True
            for key in (("red", 2), ("blue", 1)):
                seen = await _view(players[key], seq)
                assert [s["orders_left"] for s in seen["sides"]] == [s["orders_left"] for s in after["sides"]]
            state = after
        assert restarted, "no side was given two orders running in 24 orders"
        # the moderator's desk: a ruling on the orders left (S-5.2) is seen by everyone
        ruled = await moderator.request({"t": "mod_ruling", "room": room,
                                         "ruling": {"type": "note", "text": "fair play"}})
        assert ruled["t"] == "ack"
        await spectator.event("ruling", 10, text="fair play")
    finally:
        for c in (*players.values(), spectator, moderator):
            await c.close()


async def test_a_skirmish_resumes_after_a_disconnect_and_a_restart_and_is_replayed_when_over(
        server_factory: Any) -> None:
    node: ServerProcess = server_factory().start()
    made = _create(node, seats=1)
    room = made["room"]
    tokens = {s["team"]: s["token"] for s in made["seats"]}
    red = await signed_in(node.ws_url, tokens["red"], room)
    blue = await signed_in(node.ws_url, tokens["blue"], room)
    assert (await blue.request({"t": "order", "room": room, "order": {"type": "deploy"}}))["t"] == "ack"
    # red drops out; blue's next order goes on without him; red comes back from where he was
    deployed = await red.event("side_deployed", 10, side="blue")
    last = deployed["seq"]
    await red.close()
    red_token = tokens["red"]
    back = await signed_in(node.ws_url, red_token)
    joined = await back.join(room, since=last)
    assert joined["t"] == "joined", joined
    assert (await back.request({"t": "order", "room": room, "order": {"type": "deploy"}}))["t"] == "ack"
    state = await _view(back)
    assert state["stage"] == "orders" and state["turn"] == 1
    before = (state["turn"], [s["orders_left"] for s in state["sides"]], state["active"])
    await back.close()
    await blue.close()
    # the server restarts on the same data: the game, its dice and its clocks are where they were
    node.stop()
    node.start()
    red = await signed_in(node.ws_url, red_token, room)
    blue = await signed_in(node.ws_url, tokens["blue"], room)
    try:
        snap = await red.wait(lambda m: m["t"] == "snapshot", 10)
        now = snap["state"]
        assert (now["turn"], [s["orders_left"] for s in now["sides"]], now["active"]) == before
        assert snap["active"] == before[2]
        # play on with passes to the end (D-S-15: eight turns, or a side out of the game)
        state = now
        for _ in range(400):
            if state["result"] is not None:
                break
            (team,) = state["active"]
            client = red if team == "red" else blue
            reply = await client.request({"t": "end_turn", "room": room}, 10)
            assert reply["t"] == "ack", reply
            turn = await red.wait(lambda m, s=reply["seq"]: m["t"] == "ev" and m["kind"] == "turn" and m["seq"] >= s,
                                  20)
            state = await _view(red, turn["seq"])
        assert state["result"] is not None and state["result"]["turn"] <= 8
        # the replay: per turn for each viewer class; the attacker's never shows the ambush before it is sprung
        full = node.http("GET", f"/api/rooms/{room}/replay?as=full")
        turns = [t["turn"] for t in full["turns"]]
        assert turns == sorted(set(turns)) and len(turns) >= state["result"]["turn"]
        assert full["final"]["state"]["result"] == state["result"]
        ambush = {f["id"] for t in full["turns"] for f in t["state"]["figures"] if f["status"] == "ambush"}
        red_replay = node.http("GET", f"/api/rooms/{room}/replay?as=team:red")
        assert ambush and all(not ambush & {f["id"] for f in t["state"]["figures"]} for t in red_replay["turns"])
    finally:
        await red.close()
        await blue.close()


async def test_hostile_orders_are_refused_with_typed_errors_and_change_nothing_S_5_D_S_9_D_S_13(
        server: ServerProcess) -> None:
    made = _create(server, seats=1)
    room = made["room"]
    tokens = {s["team"]: s["token"] for s in made["seats"]}
    red = await signed_in(server.ws_url, tokens["red"], room)
    blue = await signed_in(server.ws_url, tokens["blue"], room)
    spectator = await signed_in(server.ws_url, server.named_spectator(made), room)  # everything, live (issue 12)
    try:
        async def refused(client: Client, order: Any) -> dict[str, Any]:
            reply = await client.request({"t": "order", "room": room, "order": order})
            assert reply["t"] == "error", (order, reply)
            return reply

        # a spectator commands nothing; the attacker may not deploy before the defender (S-3.2)
        assert (await refused(spectator, {"type": "deploy"}))["code"] == "forbidden"
        assert (await refused(red, {"type": "deploy"}))["code"] == "not_your_turn"
        for junk in ({"type": "deploy", "units": "everywhere"}, {"type": "teleport"}, "deploy", {"type": None}):
            code = (await refused(blue, junk))["code"]
            assert code in ("bad_order", "bad_message", "illegal_order", "unknown_order"), (junk, code)
        assert (await blue.request({"t": "order", "room": room, "order": {"type": "deploy"}}))["t"] == "ack"
        assert (await red.request({"t": "order", "room": room, "order": {"type": "deploy"}}))["t"] == "ack"
        state = await _view(spectator)
        while state["stage"] != "orders":
            state = await _view(spectator)
        (team,) = state["active"]
        (other,) = {"red", "blue"} - {team}
        me, them = (red, blue) if team == "red" else (blue, red)
        mine = next(f["id"] for f in state["figures"] if f["side"] == team and f["status"] == "in_action")
        theirs = next(f["id"] for f in state["figures"] if f["side"] == other and f["status"] == "in_action")
        # out of turn; an enemy figure ordered; an ambush by the wrong side or of a unit not held back; hits
        # chosen with nothing to choose; a figure sent off the table
        assert (await refused(them, {"type": "pass"}))["code"] == "not_your_turn"
        assert (await refused(me, {"type": "move", "body": theirs, "moves": [{"figure": theirs, "to": [0, 0]}]}
                              ))["code"] in ("not_your_unit", "illegal_order")
        assert (await refused(me, {"type": "ambush", "unit": "g1", "figures": {}}))["code"] in (
            "illegal_order", "not_your_unit", "bad_order")
        assert (await refused(me, {"type": "hits", "figures": [mine]}))["code"] in ("illegal_order", "bad_order")
        assert (await refused(me, {"type": "move", "body": mine, "moves": [{"figure": mine, "to": [99, -3]}]}
                              ))["code"] in ("illegal_order", "bad_order")
        assert not [m for m in spectator.inbox if m["t"] == "view"]  # nothing changed: no new view
        again = state
        assert [s["orders_left"] for s in again["sides"]] == [s["orders_left"] for s in state["sides"]]
        assert again["active"] == [team]
        # D-S-13: naming a held-back figure tells the attacker no more than naming one that does not exist
        while again["active"] != ["red"]:
            assert again["stage"] == "orders", again["stage"]
            reply = await blue.request({"t": "order", "room": room, "order": {"type": "pass"}})
            assert reply["t"] == "ack", reply
            again = await _view(spectator, reply["seq"])
        shooter = next(f["id"] for f in again["figures"] if f["side"] == "red" and f["status"] == "in_action")
        hidden = await refused(red, {"type": "fire", "body": shooter, "target": "s3.1"})
        nobody = await refused(red, {"type": "fire", "body": shooter, "target": "s9.9"})
        assert hidden["code"] == nobody["code"], (hidden, nobody)
        assert hidden["message"].replace("s3.1", "X") == nobody["message"].replace("s9.9", "X"), (hidden, nobody)
    finally:
        for c in (red, blue, spectator):
            await c.close()
