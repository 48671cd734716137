"""Hostile orders over real websockets against real server processes (embedded; or two nodes on Redis): in a Napoleonic
campaign and in the battle room spawned when its armies meet, every refusal is a typed error naming its rule where
a rule says no — the other power's army or unit (not_your_unit), values out of range, orders out of turn or phase,
a spectator's order, a player's ruling, orders into a finished battle, a locked-out player's order, junk rulings and
numbers no log can hold — and after each the same connection still gives a legal order that is acked, and the
room's log shows every accepted command once and nothing else (sequence numbers contiguous; a late joiner replays
exactly what the watchers saw live)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from server.rooms.ids import RoomId
from tests.net.client import Client, join_when_spawned, signed_in

BULOW, NEY = "bulow", "ney"


@dataclass
class Game:
    made: dict[str, Any]
    ws_url: str
    c: dict[str, Client]
    acked: dict[str, list[int]] = field(default_factory=dict)

    @property
    def room(self) -> str:
        return str(self.made["room"])

    async def ack(self, who: str, order: dict[str, Any], room: str | None = None) -> int | None:
        room = room or self.room
        reply = await self.c[who].request({"t": "order", "room": room, "order": order})
        assert reply["t"] == "ack", (who, order, reply)
        if reply["seq"] is not None:
            self.acked.setdefault(room, []).append(reply["seq"])
        return reply["seq"]  # type: ignore[no-any-return]

    async def refused(self, who: str, msg: dict[str, Any], code: str | tuple[str, ...], rule: str | None = None,
                      room: str | None = None) -> dict[str, Any]:
        """`msg` (an order dict, or a whole message) is refused with `code` (and `rule`), and nothing reaches the
        room's log: the room's sequence number (as the room itself tells a joining auditor) does not move."""
        room = room or self.room
        if "t" not in msg:
            msg = {"t": "order", "room": room, "order": msg}
        seen = await self.seq(room)
        if code == "bad_frame":  # the frame is not read at all: its cid is unknown and the error carries none
            await self.c[who].send_raw({**msg, "cid": 99})
            reply = await self.c[who].wait(lambda m: m["t"] == "error" and m["cid"] is None)
        else:
            reply = await self.c[who].request(msg)
        assert reply["t"] == "error" and reply["code"] in ((code,) if isinstance(code, str) else code), (who, msg,
                                                                                                    reply)
        if rule is not None:
            assert reply["rule"] == rule, (who, msg, reply)
        assert await self.seq(room) == seen, f"{msg} left something in the log"
        return reply

    async def seq(self, room: str) -> int:
        auditor = self.c["auditor"]
        joined = await auditor.join(room)
        assert joined["t"] == "joined", joined
        assert (await auditor.request({"t": "leave", "room": room}))["t"] == "ack"
        auditor.inbox.clear()
        return int(joined["seq"])


FAST = ("--rate", "100000", "--rate-burst", "10000")
"""The auditor makes two round trips per refusal, faster than any player (loopback): no rate limit in its way."""
BACKENDS = [pytest.param("embedded"), pytest.param("redis", marks=pytest.mark.redis)]


@pytest.fixture(params=BACKENDS)
def nodes(request: pytest.FixtureRequest, server_factory: Any) -> tuple[Any, Any]:
    """One embedded server (the auditor on it too); or two nodes sharing a real Redis (REDIS_URL), the auditor and
    the late joiner on the second, reading the room from the shared log."""
    if request.param == "embedded":
        server = server_factory(*FAST).start()
        return server, server
    url, prefix = request.getfixturevalue("redis_url"), request.getfixturevalue("redis_prefix")
    args = (*FAST, "--redis-url", url, "--redis-prefix", prefix)
    return server_factory(*args).start(), server_factory(*args).start()


@contextlib.asynccontextmanager
async def napoleonic(nodes: tuple[Any, Any]) -> AsyncIterator[Game]:
    server, second = nodes
    made = server.http("POST", "/api/campaigns", {
        "name": "hostile", "scenario": "napoleonic", "level": 2,
        "teams": [{"colour": "red", "seats": 2}, {"colour": "blue", "seats": 2}],
        "clock": {"mode": "per_turn", "turn_ms": 600_000}})
    room = made["room"]
    clients = {s["player"]: await signed_in(server.ws_url, s["token"], room, use_json=s["player"] == "red-2")
               for s in made["seats"]}  # red-2 speaks JSON (the debugging frames)
    clients["moderator"] = await signed_in(server.ws_url, made["moderator_token"], room)
    clients["spectator"] = await signed_in(server.ws_url, made["spectator_token"], room)
    clients["auditor"] = await signed_in(second.ws_url, made["moderator_token"])
    game = Game(made, second.ws_url, clients)
    try:
        yield game
    finally:
        for c in clients.values():
            await c.close()


async def check_log(g: Game, room: str, ws_url: str | None = None) -> None:
    """Nothing lost or duplicated: the moderator's live feed numbers events 1, 2, 3 … without a gap or repeat, every
    acked command's first event is among them, and a moderator joining now (on `ws_url`) from where that feed began
    gets the same events, data and all."""
    live = [(m["seq"], m["kind"], m["data"]) for m in g.c["moderator"].events(room)]
    first = g.c["moderator"].last_seq.get(room, 0) - len(live)
    assert [s for s, _, _ in live] == list(range(first + 1, first + 1 + len(live))), live
    assert set(g.acked.get(room, [])) <= {s for s, _, _ in live}
    late = await signed_in(ws_url or g.ws_url, g.made["moderator_token"])
    try:
        assert (await late.join(room, since=first))["t"] == "joined"
        last = live[-1][0]
        got = await late.wait(lambda m: m["t"] == "ev" and m["room"] == room and m["seq"] == last, 10)
        before = [m for m in late.events(room) if m["seq"] < last]  # after a restart: downtime events follow
        assert [(m["seq"], m["kind"], m["data"]) for m in [*before, got]] == live
    finally:
        await late.close()


async def seen_by(client: Client, pred: Any) -> None:
    """Wait until `client` has an event matching `pred`, leaving it in the inbox (check_log reads them all)."""
    for _ in range(400):
        if any(pred(m) for m in client.events()):
            return
        await asyncio.sleep(0.025)
    raise AssertionError("event never came")


async def units_in(client: Client, room: str) -> dict[str, list[dict[str, Any]]]:
    """The units of each side in `client`'s snapshot of battle room `room` (the public `battle_started` names no
    forces: D-GEN-4, issue 12)."""
    snap = await client.wait(lambda m: m["t"] == "snapshot" and m["room"] == room)
    sides: dict[str, list[dict[str, Any]]] = {}
    for u in snap["state"]["units"]:
        sides.setdefault(u["side"], []).append(u)
    return sides


async def test_hostile_campaign_orders_are_refused_and_the_game_carries_on_C_1_7_N_START_3_D_L_1(
        nodes: tuple[Any, Any]) -> None:
    async with napoleonic(nodes) as g:
        posture = {"type": "posture", "army": BULOW, "intercept": False}
        await g.ack("red-1", posture)
        # the other power's army, and its answers (C-1.3 owner checks; N-START-3)
        await g.refused("red-1", {"type": "move", "army": NEY, "path": [[22, 17]]}, "not_your_unit")
        await g.refused("red-1", {"type": "appoint", "army": NEY, "general": "Murat"}, "not_your_unit")
        await g.ack("red-1", posture)
        # out-of-range and malformed values (D-GEN-2 neighbours on the grid, D-NAP-1 points, D-N-14 names)
        for path in ([[10**9, 3]], [[-1, -1]], [[2**63, 2**63]], [[23, 19], [99, 99]]):
            await g.refused("red-1", {"type": "move", "army": BULOW, "path": path}, "illegal_order", "D-GEN-2")
        await g.refused("red-1", {"type": "move", "army": BULOW, "path": [[23, 19]] * 70}, "illegal_order")
        junk: list[Any] = [[], "north", [[1.5]], [[None, None]], {"x": 1}, [["a", "b"]]]
        for bad in junk:
            await g.refused("red-1", {"type": "move", "army": BULOW, "path": bad}, "bad_order")
        await g.refused("red-1", {"type": "move", "army": BULOW, "path": [[float("inf"), 0]]}, "bad_order")
        await g.refused("red-1", {"type": "posture", "army": BULOW, "intercept": "yes"}, "bad_order", "N-START-2")
        await g.refused("red-1", {"type": "appoint", "army": BULOW, "general": "x" * 61}, "bad_order", "D-N-14")
        await g.refused("red-1", {"type": "launch", "army": BULOW}, "unknown_order")
        await g.refused("red-1", {"army": BULOW}, "unknown_order")
        await g.refused("red-1", {"type": "answer", "battle": "99", "choice": "accept"}, "bad_order", "N-START-1")
        await g.refused("red-1", {"type": "siege", "fortress": "Nowhere", "action": "storm"}, "bad_order",
                        "N-SIEGE-2")
        await g.ack("red-1", posture)
        # numbers no msgpack log could hold, sent as JSON: refused at the edge, the room keeps working
        await g.refused("red-2", {"type": "posture", "army": BULOW, "intercept": False, "x": 10**30},
                        "bad_frame")
        await g.ack("red-2", posture)
        # out of turn (C-1.8 at the room, C-1.7 in the engine), the spectator, a player's ruling
        await g.refused("blue-1", {"type": "move", "army": NEY, "path": [[22, 17]]}, "not_your_turn", "C-1.8")
        await g.refused("blue-1", {"type": "posture", "army": NEY, "intercept": True}, "not_your_turn")
        await g.refused("spectator", {"type": "posture", "army": BULOW, "intercept": True}, "forbidden")
        await g.refused("red-1", {"t": "mod_ruling", "room": g.room, "ruling": {"type": "impose_quick",
                                                                                 "battle": "1"}}, "forbidden")
        await g.refused("red-2", {"t": "end_turn", "room": "b-nope"}, "not_joined")
        await g.ack("red-2", posture)
        # a player in the secret module (D-N-14) gives no orders until he is back
        assert (await g.c["moderator"].request({"t": "mod_secret_module", "player": "red-2"}))["t"] == "ack"
        await seen_by(g.c["red-2"], lambda m: m["kind"] == "secret_module" and m["data"]["action"] == "sent")
        await g.refused("red-2", posture, "locked_out", "D-N-14")
        assert (await g.c["moderator"].request({"t": "mod_release", "player": "red-2"}))["t"] == "ack"
        await seen_by(g.c["red-2"], lambda m: m["kind"] == "secret_module" and m["data"]["action"] == "returned")
        await g.ack("red-2", posture)
        # a junk ruling of the moderator's: typed errors
        await g.refused("moderator", {"t": "mod_ruling", "room": g.room, "ruling": {"type": "battle_result",
                                      "battle": "1", "result": {"siege": True}}}, "bad_order")
        await g.refused("moderator", {"t": "mod_ruling", "room": g.room, "ruling": {"type": "coup"}},
                        "unknown_order")
        # armies meet (N-START-1): only the defender answers (N-START-3)
        await g.ack("red-1", {"type": "move", "army": BULOW, "path": [[23, 19], [22, 18]]})
        contact = await g.c["blue-1"].event("contact")
        battle = contact["data"]["battle"]
        await g.refused("red-1", {"type": "answer", "battle": battle, "choice": "accept"}, "not_your_unit",
                        "N-START-3")
        await g.refused("blue-1", {"type": "answer", "battle": battle, "choice": "surrender"}, "bad_order",
                        "N-START-3")
        await g.refused("blue-1", {"type": "answer", "battle": battle, "choice": "withdraw",
                                   "paths": {NEY: [[40, 40]]}}, "illegal_order")
        await g.refused("blue-2", {"type": "answer", "battle": battle, "choice": "withdraw", "paths": [1, 2]},
                        "bad_order", "N-START-3")
        await g.ack("blue-2", {"type": "answer", "battle": battle, "choice": "accept"})
        await g.c["spectator"].event("battle_started", within=10)
        # frozen while they fight (D-L-1): the armies do not move, the campaign turn waits
        await g.refused("red-1", {"type": "move", "army": BULOW, "path": [[23, 19]]}, "not_your_turn")
        await g.refused("red-1", {"type": "answer_quick", "battle": battle, "accept": True}, "illegal_order",
                        "D-L-2")
        await g.ack("red-1", {"type": "offer_quick", "battle": battle})
        await g.refused("red-2", {"type": "answer_quick", "battle": battle, "accept": True}, "not_your_unit",
                        "D-L-2")
        await check_log(g, g.room)


async def test_hostile_battle_orders_are_refused_and_the_battle_carries_on_D_N_1_N_INF_10_D_N_14(
        nodes: tuple[Any, Any]) -> None:
    async with napoleonic(nodes) as g:
        await g.ack("red-1", {"type": "move", "army": BULOW, "path": [[23, 19], [22, 18]]})
        battle = (await g.c["blue-1"].event("contact"))["data"]["battle"]
        await g.ack("blue-2", {"type": "answer", "battle": battle, "choice": "accept"})
        started = (await g.c["spectator"].event("battle_started", within=10))["data"]
        room = RoomId.child_room(g.made['campaign'], str(started['battle']))
        for who in ("moderator", "red-1", "red-2", "blue-1", "blue-2", "spectator"):
            await join_when_spawned(g.c[who], room)
        snap = await g.c["red-1"].wait(lambda m: m["t"] == "snapshot" and m["room"] == room)
        mine = [u for u in snap["state"]["units"] if u["side"] == "red"]
        theirs = [u["id"] for u in (await units_in(g.c["moderator"], room))["blue"]]
        me = next(u for u in mine if u["type"] == "infantry")
        other = next(u for u in mine if u["id"] != me["id"])
        about = {"type": "about_face", "unit": me["id"]}
        await g.ack("red-1", about, room)
        # the other side's units (D-N-1), out-of-range values, unknown orders
        for uid in theirs[:2]:
            await g.refused("red-1", {"type": "about_face", "unit": uid}, "not_your_unit", "D-N-1", room)
        await g.refused("red-2", {"type": "targets", "unit": other["id"], "targets": [{"unit": theirs[0],
                                  "guns": 2}] * 3}, "bad_order", "N-ART-7", room)
        for deg in (30, 360, -(2**63), 2**64 - 1, 45.0, "90"):
            await g.refused("red-1", {"type": "wheel", "unit": me["id"], "degrees": deg}, "bad_order", None, room)
        for path in ([[-1, 0]], [[70, 70]], [[me["x"], me["y"] + 30]], [[2**63, 0]]):  # not a neighbour (D-GEN-2)
            await g.refused("red-1", {"type": "move", "unit": me["id"], "path": path}, "bad_order", None, room)
        for dy in (1, -1):  # 40 steps: beyond any unit's movement points, or off the map
            path = [[other["x"], other["y"] + dy * i] for i in range(1, 41)]
            await g.refused("red-1", {"type": "move", "unit": other["id"], "path": path}, "illegal_order", None,
                            room)
        await g.refused("red-1", {"type": "move", "unit": me["id"], "path": [[1, 1]] * 65}, "bad_order", "D-GEN-2",
                        room)
        await g.refused("red-1", {"type": "move", "unit": me["id"], "path": "up"}, "bad_order", "D-GEN-2", room)
        await g.refused("red-1", {"type": "formation", "unit": me["id"], "formation": {"a": [1]}}, "bad_order",
                        "N-INF-6", room)
        await g.refused("red-1", {"type": "formation", "unit": me["id"], "formation": "phalanx"},
                        "illegal_order", None, room)
        await g.refused("red-1", {"type": "fly", "unit": me["id"]}, "unknown_order", "D-N-1", room)
        await g.refused("red-1", {"type": "about_face", "unit": ["r", 1]}, "bad_order", "D-N-1", room)
        await g.refused("red-2", {"type": "about_face", "unit": me["id"], "n": -(10**40)}, "bad_frame",
                        None, room)
        await g.ack("red-2", about, room)
        # out of phase (C-1.8, D-N-1), a spectator's order, a player's ruling
        await g.refused("blue-1", {"type": "retreat"}, "not_your_turn", "C-1.8", room)
        await g.refused("spectator", {"type": "retreat"}, "forbidden", None, room)
        await g.refused("red-1", {"t": "mod_ruling", "room": room, "ruling": {"type": "end_battle",
                                                                              "winner": "red"}}, "forbidden")
        # the moderator's junk rulings: typed refusals (N-VICTORY-1, N-FIRE-4)
        for ruling, rule in (({"type": "end_battle", "winner": ["red"]}, "N-VICTORY-1"),
                             ({"type": "end_battle", "winner": "green"}, "N-VICTORY-1"),
                             ({"type": "adjust", "unit": me["id"], "morale": 2**64 - 1}, "N-FIRE-4"),
                             ({"type": "adjust", "unit": me["id"], "loss_tolerance": 99}, "N-FIRE-4"),
                             ({"type": "assign_fire", "shooter": me["id"], "targets": {theirs[0]: 10**6}},
                              "N-FIRE-4"),
                             ({"type": "smite"}, "N-FIRE-4")):
            await g.refused("moderator", {"t": "mod_ruling", "room": room, "ruling": ruling}, "bad_order", rule)
        await g.ack("red-1", about, room)
        # a player in the secret module (D-N-14) commands nothing until he is back
        sent = await g.c["moderator"].request({"t": "mod_secret_module", "player": "red-2", "minutes": 5})
        assert sent["t"] == "ack", sent
        await g.c["red-2"].wait(lambda m: m["t"] == "ev" and m["room"] == room and m["kind"] == "secret_module")
        await g.refused("red-2", about, "locked_out", "D-N-14", room)
        back = await g.c["moderator"].request({"t": "mod_release", "player": "red-2"})
        assert back["t"] == "ack", back
        await g.c["red-2"].wait(lambda m: m["t"] == "ev" and m["room"] == room and m["kind"] == "secret_module"
                                and m["data"]["action"] == "returned")
        await g.ack("red-2", about, room)
        # blue's phase: now red is out of phase
        reply = await g.c["red-1"].request({"t": "end_turn", "room": room})
        assert reply["t"] == "ack", reply
        g.acked[room].append(reply["seq"])
        await g.refused("red-1", about, "not_your_turn", "C-1.8", room)
        await g.ack("blue-1", {"type": "about_face", "unit": theirs[0]}, room)
        # the battle ends; orders into it are refused (D-N-2), the campaign has the result once (D-L-1)
        ended = await g.c["moderator"].request({"t": "mod_ruling", "room": room, "ruling": {
            "type": "end_battle", "winner": "blue", "reason": "test"}})
        assert ended["t"] == "ack", ended
        g.acked[room].append(ended["seq"])
        result = (await g.c["spectator"].event("battle_ended", within=10))["data"]
        if result["general"] and result["general"]["fate"] != "survived":  # its player is locked out here too
            player = result["general"]["player"]
            await seen_by(g.c["moderator"], lambda m: m["room"] == room and m["kind"] == "secret_module"
                          and m["data"]["player"] == player)
        await g.refused("blue-1", {"type": "about_face", "unit": theirs[0]}, "game_over", None, room)
        await g.refused("red-1", {"type": "retreat"}, "game_over", None, room)
        await g.refused("moderator", {"t": "mod_ruling", "room": room, "ruling": {
            "type": "end_battle", "winner": "red"}}, "bad_order", "N-VICTORY-1")
        await check_log(g, room)
        await check_log(g, g.room)
        assert [m["kind"] for m in g.c["moderator"].events(g.room)].count("battle_ended") == 1


@pytest.mark.parametrize("frame", ["[" * 60_000, json.dumps({"t": "order", "cid": 5, "room": "x", "order": {}})
                                   .replace("{}", "{\"a\":" + "[" * 20_000 + "]" * 20_000 + "}")])
async def test_deeply_nested_json_is_a_bad_frame_and_the_socket_carries_on(server_factory: Any, frame: str) -> None:
    """Once a RecursionError out of the decoder that ended the connection."""
    server = server_factory(*FAST).start()
    async with napoleonic((server, server)) as g:
        client = g.c["red-2"]
        assert client.ws is not None
        await client.ws.send_str(frame)
        err = await client.wait(lambda m: m["t"] == "error")
        assert err["code"] == "bad_frame"
        await g.ack("red-2", {"type": "posture", "army": BULOW, "intercept": False})


async def test_hostile_storm_orders_in_a_spawned_siege_room_N_SIEGE_8_N_SIEGE_10_D_N_1(nodes: tuple[Any, Any]) -> None:
    """Blücher (red) besieges Dresden (blue) and storms it (N-SIEGE-2, N-SIEGE-5): in the storm room the garrison
    cannot retreat and only it capitulates (N-SIEGE-8), nobody climbs with the other side's units or cavalry
    (N-SIEGE-10, D-N-1)."""
    async with napoleonic(nodes) as g:
        await g.ack("red-1", {"type": "move", "army": "blucher", "path": [[26, 18], [25, 18], [24, 18]]})
        await g.refused("red-2", {"type": "siege", "fortress": "Dresden", "action": "storm"}, "illegal_order",
                        "N-SIEGE-2")  # a siege lasts a campaign turn first
        await g.refused("red-2", {"type": "siege", "fortress": "Dresden", "action": "sortie"}, "not_your_unit",
                        "N-SIEGE-2")  # the garrison's choice
        await g.refused("blue-1", {"type": "siege", "fortress": "Dresden", "action": "lift"}, "not_your_unit",
                        "N-SIEGE-2")  # the besieger's
        await g.refused("blue-1", {"type": "siege", "fortress": "Dresden", "action": "dig"}, "unknown_order",
                        "N-SIEGE-2")
        await g.refused("blue-1", {"type": "terms", "fortress": "Dresden", "terms": {"garrison": "prisoners",
                                   "general": "captured"}}, "illegal_order", "N-SIEGE-8")  # before the fall
        reply = await g.c["red-1"].request({"t": "end_turn", "room": g.room})
        assert reply["t"] == "ack", reply
        await g.ack("blue-1", {"type": "siege", "fortress": "Dresden", "action": "hold"})
        reply = await g.c["blue-2"].request({"t": "end_turn", "room": g.room})
        assert reply["t"] == "ack", reply
        await g.ack("red-2", {"type": "siege", "fortress": "Dresden", "action": "storm"})
        started = (await g.c["spectator"].event("battle_started", within=10))["data"]
        room = RoomId.child_room(g.made['campaign'], str(started['battle']))
        for who in ("moderator", "red-1", "blue-1", "spectator"):
            await join_when_spawned(g.c[who], room)
        sides = await units_in(g.c["moderator"], room)
        garrison, besiegers = [u["id"] for u in sides["blue"]], sides["red"]
        infantry = next(u["id"] for u in besiegers if u["type"] == "infantry")
        horse = next((u["id"] for u in besiegers if u["type"].endswith("cavalry")), None)
        await g.refused("red-1", {"type": "capitulate"}, "illegal_order", "N-SIEGE-8", room)
        await g.refused("red-1", {"type": "climb", "unit": garrison[0]}, "not_your_unit", "D-N-1", room)
        await g.refused("red-1", {"type": "climb", "unit": {"id": infantry}}, "bad_order", "D-N-1", room)
        await g.refused("red-1", {"type": "climb", "unit": infantry}, "illegal_order", None, room)  # not at the wall
        if horse is not None:
            await g.refused("red-1", {"type": "climb", "unit": horse}, "illegal_order", "N-SIEGE-10", room)
        await g.refused("blue-1", {"type": "capitulate"}, "not_your_turn", "C-1.8", room)
        await g.ack("red-1", {"type": "about_face", "unit": infantry}, room)
        reply = await g.c["red-1"].request({"t": "end_turn", "room": room})
        assert reply["t"] == "ack", reply
        g.acked[room].append(reply["seq"])
        await g.refused("blue-1", {"type": "retreat"}, "illegal_order", "N-SIEGE-8", room)
        await g.refused("blue-1", {"type": "climb", "unit": infantry}, "not_your_unit", "D-N-1", room)
        await g.ack("blue-1", {"type": "capitulate"}, room)
        await g.refused("blue-1", {"type": "capitulate"}, "game_over", None, room)
        await g.c["spectator"].event("fortress_captured", within=10)
        # the capitulation takes Napoleon (D-N-14): his player, blue-1, is in the secret module at once
        await seen_by(g.c["moderator"], lambda m: m["room"] == g.room and m["kind"] == "secret_module"
                      and m["data"]["player"] == "blue-1")
        await g.refused("blue-1", {"type": "accept_terms", "fortress": "Dresden"}, "locked_out", "D-N-14")
        await g.refused("blue-2", {"type": "terms", "fortress": "Dresden", "terms": {"garrison": "free",
                                   "general": "captured"}}, "bad_order", "N-SIEGE-8")
        await g.refused("red-1", {"type": "accept_terms", "fortress": "Dresden"}, "illegal_order", "N-SIEGE-8")
        await check_log(g, room)
        await check_log(g, g.room)


async def test_after_hostile_orders_a_killed_server_loses_nothing_accepted(server_factory: Any) -> None:
    """Hostile orders between accepted ones, in the campaign and its battle room; then the server is killed (SIGKILL)
    and started again on its data: both rooms replay to exactly the events the players saw live."""
    server = server_factory(*FAST).start()
    async with napoleonic((server, server)) as g:
        posture = {"type": "posture", "army": BULOW, "intercept": False}
        bad_orders: list[dict[str, Any]] = [{"type": "move", "army": NEY, "path": [[22, 17]]},
                                            {"type": "move", "army": BULOW, "path": 7},
                                            {"type": "appoint", "army": BULOW, "general": ""}]
        for bad in bad_orders:
            await g.refused("red-1", bad, ("not_your_unit", "bad_order"))
            await g.ack("red-1", posture)
        await g.ack("red-1", {"type": "move", "army": BULOW, "path": [[23, 19], [22, 18]]})
        battle = (await g.c["blue-1"].event("contact"))["data"]["battle"]
        await g.refused("blue-1", {"type": "answer", "battle": battle, "choice": None}, "bad_order", "N-START-3")
        await g.ack("blue-2", {"type": "answer", "battle": battle, "choice": "accept"})
        started = (await g.c["spectator"].event("battle_started", within=10))["data"]
        room = RoomId.child_room(g.made['campaign'], str(started['battle']))
        for who in ("moderator", "red-1", "blue-1"):
            await join_when_spawned(g.c[who], room)
        mine = next(u["id"] for u in (await units_in(g.c["red-1"], room))["red"] if u["type"] == "infantry")
        for bad in ({"type": "wheel", "unit": mine, "degrees": 1}, {"type": "about_face", "unit": None}):
            await g.refused("red-1", dict(bad), "bad_order", None, room)
            await g.ack("red-1", {"type": "about_face", "unit": mine}, room)
        await g.refused("blue-1", {"type": "retreat"}, "not_your_turn", "C-1.8", room)
        server.kill()
        server.start()
        await check_log(g, g.room)
        await check_log(g, room)
