"""The `options` request over real websockets (issue 14): a player asks what a unit of its team may do in a battle
room and gets the engine's answer in the protocol's shape; every move it offers is accepted when ordered; the other
team's units, spectators, rooms not joined and players in the secret module are refused; a game without options
answers null; nothing is logged."""

from __future__ import annotations

from typing import Any

from shared.protocol.options import BattleOptions, SkirmishOptions
from shared.protocol.server import Options
from tests.conftest import ServerProcess
from tests.net.client import Client, join_when_spawned
from tests.net.test_play import battle_accepted, table


async def ask(c: Client, room: str, unit: str | None = None) -> dict[str, Any]:
    return await c.request({"t": "options", "room": room, **({"unit": unit} if unit else {})})


async def test_a_battle_unit_s_options_over_the_wire_are_the_engine_s_and_accepted_issue_14(
        server: ServerProcess) -> None:
    async with table(server, scenario="napoleonic") as t:
        room = await battle_accepted(t)
        not_joined = await ask(t.red2, room)
        assert not_joined["t"] == "error" and not_joined["code"] == "not_joined"
        for c in (t.red2, t.blue2, t.spectator):
            await join_when_spawned(c, room)
        snap = await t.red2.wait(lambda m: m["t"] == "snapshot" and m["room"] == room)
        state = snap["state"]
        mover = state["active"]
        player = t.red2 if mover == "red" else t.blue2
        other = t.blue2 if player is t.red2 else t.red2
        mine = [u for u in state["units"] if u["side"] == mover and u["status"] == "field"]
        theirs = [u for u in state["units"] if u["side"] != mover and u["status"] == "field"]
        seq = (await player.request({"t": "join", "room": room}))["seq"]
        await ask(player, room, mine[0]["id"])
        assert (await player.request({"t": "join", "room": room}))["seq"] == seq, "asking logs nothing"
        offered = 0
        for u in mine[:4]:
            reply = await ask(player, room, u["id"])
            assert reply["t"] == "options" and reply["room"] == room and reply["unit"] == u["id"], reply
            Options.model_validate(reply)
            opts = BattleOptions.model_validate(reply["options"])
            assert opts.active and opts.side == mover
            if opts.moves:
                far = max(opts.moves, key=lambda r: len(r.path))
                order = {"type": "move", "unit": u["id"], "path": far.path}
                ack = await player.request({"t": "order", "room": room, "order": order})
                assert ack["t"] == "ack", (order, ack)
                offered += 1
        assert offered, "some unit could move"
        army = await ask(player, room)
        assert army["t"] == "options" and army["options"]["retreat"] is True and army["options"]["unit"] is None
        foreign = await ask(player, room, theirs[0]["id"])
        assert foreign["options"]["active"] is False and foreign["options"]["refused"][0]["code"] == "not_your_unit"
        waiting = await ask(other, room, next(u["id"] for u in state["units"] if u["side"] != mover))
        assert waiting["options"]["active"] is False and waiting["options"]["refused"][0]["code"] == "not_your_turn"
        watcher = await ask(t.spectator, room, mine[0]["id"])
        assert watcher["t"] == "error" and watcher["code"] == "forbidden"


async def test_options_in_the_skirmish_and_null_where_a_game_has_none_issue_14(server: ServerProcess) -> None:
    async with table(server) as t:  # the drill answers no options
        for c in t.all:
            await c.wait(lambda m: m["t"] == "snapshot")
        reply = await ask(t.red1, t.room, "r1")
        assert reply["t"] == "options" and reply["options"] is None
        bad = await t.red1.request({"t": "options", "room": t.room, "unit": ""})
        assert bad["t"] == "error" and bad["code"] == "bad_message"
    async with table(server, scenario="skirmish") as t:
        snaps = {c: await c.wait(lambda m: m["t"] == "snapshot") for c in (t.red1, t.blue1)}
        for c in (t.red1, t.blue1):
            reply = await ask(c, t.room)
            assert reply["t"] == "options", reply
            opts = SkirmishOptions.model_validate(reply["options"])
            assert opts.side == c.welcome["team"]
            assert opts.active == (c.welcome["team"] in snaps[c]["active"])
