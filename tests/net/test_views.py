"""Fresh views over real websockets: after a command each viewer class that follows the room gets one `view`
(after the command's events), the same bytes to every socket of the class; an unchanged view is not sent."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.conftest import ServerProcess
from tests.net.client import Client
from tests.net.test_play import move, table


def views(c: Client) -> list[dict[str, Any]]:
    return [m for m in c.inbox if m["t"] == "view"]


async def test_a_move_sends_each_class_its_fresh_view_after_the_events_C_1_8(server: ServerProcess) -> None:
    async with table(server) as t:
        for c in t.all:
            await c.wait(lambda m: m["t"] == "snapshot")
        ack = await t.red1.request(move(t.room, "r1", 1, 1))
        assert ack["t"] == "ack"
        seen = await t.red2.wait(lambda m: m["t"] == "view")
        moved = next(m for m in t.red2.inbox if m["t"] == "ev" and m["kind"] == "counter_moved")
        assert t.red2.inbox.index(moved) >= 0 and seen["seq"] >= moved["seq"]  # the event came first
        r1 = next(c for c in seen["state"]["counters"] if c["id"] == "r1")
        assert (r1["x"], r1["y"]) == (1, 1)
        assert {c["team"] for c in seen["state"]["counters"]} == {"red"}  # hidden information stays hidden
        spectator = await t.spectator.wait(lambda m: m["t"] == "view")
        assert {c["team"] for c in spectator["state"]["counters"]} == {"red", "blue"}
        moderator = await t.moderator.wait(lambda m: m["t"] == "view")
        assert moderator["state"] == spectator["state"]
        red1 = await t.red1.wait(lambda m: m["t"] == "view")
        assert red1 == seen  # one view per class: red's two players got the same message
        await asyncio.sleep(0.3)
        assert views(t.blue1) == [] and views(t.blue2) == []  # blue cannot see r1: its view did not change

        said = await t.red1.request({"t": "chat", "room": t.room, "channel": "players", "text": "hello"})
        assert said["t"] == "ack"
        await t.blue1.event("chat", text="hello")
        await asyncio.sleep(0.3)
        assert all(views(c) == [] for c in t.all)  # chat changes nobody's view

        await t.red1.request({"t": "end_turn", "room": t.room})
        turn = await t.blue1.wait(lambda m: m["t"] == "view")
        assert turn["state"]["active"] == ["blue"] and turn["clocks"]["teams"]["blue"]["running"] is True


async def test_a_player_in_the_secret_module_gets_the_public_view_D_N_14(server: ServerProcess) -> None:
    async with table(server) as t:
        for c in t.all:
            await c.wait(lambda m: m["t"] == "snapshot")
        sent = await t.moderator.request({"t": "mod_secret_module", "player": t.red1.welcome["player"],
                                          "minutes": 5})
        assert sent["t"] == "ack"
        # the room is resent as the public sees it
        await t.red1.wait(lambda m: m["t"] == "snapshot" and m["state"]["counters"] == [])
        locked_at = sent["seq"]
        await t.red2.request(move(t.room, "r2", 2, 1))
        await t.red2.request({"t": "end_turn", "room": t.room})
        mate = await t.red2.wait(lambda m: m["t"] == "view" and m["state"]["active"] == ["blue"])
        assert mate["state"]["counters"]
        await t.red1.wait(lambda m: m["t"] == "view" and m["state"]["active"] == ["blue"])
        assert all(v["state"]["counters"] == [] for v in views(t.red1) if v["seq"] >= locked_at)


async def test_a_view_carries_the_rooms_active_teams_not_the_engines_turn_order_D_L_1_D_NAP_5(
        server: ServerProcess) -> None:
    """The campaign waits while its battle is fought (D-L-1, D-NAP-5): the view after the defender accepts says
    nobody is to act, although the engine's own turn order (`state.active`) still names red."""
    async with table(server, scenario="napoleonic") as t:
        for c in t.all:
            await c.wait(lambda m: m["t"] == "snapshot")
        march = {"type": "move", "army": "bulow", "path": [[23, 19], [22, 18]]}
        assert (await t.red2.request({"t": "order", "room": t.room, "order": march}))["t"] == "ack"
        contact = await t.blue2.wait(lambda m: m["t"] == "view" and m["state"]["battles"])
        assert contact["active"] == ["blue", "red"]  # blue decides under its clock while red's turn goes on
        answer = {"type": "answer", "battle": contact["state"]["battles"][0]["id"], "choice": "accept"}
        assert (await t.blue2.request({"t": "order", "room": t.room, "order": answer}))["t"] == "ack"
        for c in (t.red1, t.blue1, t.spectator):
            fought = await c.wait(lambda m: m["t"] == "view" and m["state"]["battles"][0]["status"] == "running")
            assert fought["state"]["active"] == ["red"] and fought["active"] == []
