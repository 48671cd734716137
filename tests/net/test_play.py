"""Four players in two teams, a spectator and the moderator play through real websockets to a real server."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from server.rooms.ids import RoomId
from tests.conftest import ServerProcess
from tests.net.client import Client, signed_in


def campaign(server: ServerProcess, **kw: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"name": "test", "scenario": "drill", "level": 2,
                            "teams": [{"colour": "red", "seats": 2}, {"colour": "blue", "seats": 2}],
                            "clock": {"mode": "per_turn", "turn_ms": 60_000}}
    spec.update(kw)
    return server.http("POST", "/api/campaigns", spec)  # type: ignore[no-any-return]


@dataclass
class Table:
    made: dict[str, Any]
    red1: Client
    red2: Client
    blue1: Client
    blue2: Client
    spectator: Client
    moderator: Client
    spectator_token: str = ""

    @property
    def room(self) -> str:
        return str(self.made["room"])

    @property
    def all(self) -> list[Client]:
        return [self.red1, self.red2, self.blue1, self.blue2, self.spectator, self.moderator]


@contextlib.asynccontextmanager
async def table(server: ServerProcess, **kw: Any) -> AsyncIterator[Table]:
    made = campaign(server, **kw)
    token = {(s["team"], s["seat"]): s["token"] for s in made["seats"]}
    clients = [await signed_in(server.ws_url, token[k], made["room"])
               for k in (("red", 1), ("red", 2), ("blue", 1), ("blue", 2))]
    # a named spectator watches everything live (the spectators' link shows only what is public: issue 12)
    watcher = server.named_spectator(made)
    spectator = await signed_in(server.ws_url, watcher, made["room"])
    moderator = await signed_in(server.ws_url, made["moderator_token"], made["room"])
    t = Table(made, *clients, spectator, moderator, watcher)
    try:
        yield t
    finally:
        for c in t.all:
            await c.close()


async def battle_accepted(t: Table) -> str:
    """On the Napoleonic map, Bülow marches into contact and blue accepts battle (D-NAP-4): the battle room's id."""
    for c in t.all:
        await c.wait(lambda m: m["t"] == "snapshot")
    march = {"type": "move", "army": "bulow", "path": [[23, 19], [22, 18]]}
    assert (await t.red2.request({"t": "order", "room": t.room, "order": march}))["t"] == "ack"
    contact = await t.blue2.wait(lambda m: m["t"] == "view" and m["state"]["battles"])
    battle = contact["state"]["battles"][0]["id"]
    answer = {"type": "answer", "battle": battle, "choice": "accept"}
    assert (await t.blue2.request({"t": "order", "room": t.room, "order": answer}))["t"] == "ack"
    return str(RoomId.child_room(t.made["campaign"], str(battle)))


def move(room: str, counter: str, x: int, y: int) -> dict[str, Any]:
    return {"t": "order", "room": room, "order": {"type": "move", "counter": counter, "to": [x, y]}}


async def test_four_players_two_teams_and_a_spectator_play_turns_C_1_7_C_1_8(server: ServerProcess) -> None:
    async with table(server) as t:
        snap = await t.red1.wait(lambda m: m["t"] == "snapshot")
        assert snap["active"] == ["red"] and snap["clocks"]["teams"]["red"]["running"]
        assert {c["team"] for c in snap["state"]["counters"]} == {"red"}  # blue's counters hidden
        spec_snap = await t.spectator.wait(lambda m: m["t"] == "snapshot")
        assert {c["team"] for c in spec_snap["state"]["counters"]} == {"red", "blue"}

        # blue may not move in red's turn (C-1.8: red first)
        err = await t.blue1.request(move(t.room, "b1", 1, 6))
        assert err["t"] == "error" and err["code"] == "not_your_turn" and err["rule"] == "C-1.8"
        ack = await t.red1.request(move(t.room, "r1", 1, 1))
        assert ack["t"] == "ack" and ack["seq"] > snap["seq"]
        moved = await t.red2.event("counter_moved", id="r1")
        assert moved["data"]["y"] == 1
        await t.spectator.event("counter_moved", id="r1")
        ended = await t.red1.request({"t": "end_turn", "room": t.room})
        assert ended["t"] == "ack" and ended["seq"] > ack["seq"]
        turn = await t.blue2.event("turn", ended="red")
        assert turn["data"]["active"] == ["blue"]
        assert turn["data"]["clocks"]["teams"]["blue"]["running"] is True
        assert turn["data"]["clocks"]["teams"]["blue"]["remaining_ms"] <= 60_000
        ack = await t.blue2.request(move(t.room, "b2", 3, 6))
        assert ack["t"] == "ack"
        await t.blue1.request({"t": "end_turn", "room": t.room})
        await t.red1.event("turn", ended="blue")
        # red never saw blue's (hidden) move; blue's teammate did
        await t.blue1.event("counter_moved", id="b2")
        assert not [m for m in t.red1.events(t.room) if m["kind"] == "counter_moved" and m["data"]["team"] == "blue"]
        # every client saw strictly increasing sequence numbers
        for c in t.all:
            seqs = [m["seq"] for m in c.inbox if m["t"] == "ev"]
            assert seqs == sorted(set(seqs))


async def test_chat_reaches_only_its_channel(server: ServerProcess) -> None:
    async with table(server) as t:
        said = await t.red1.request({"t": "chat", "room": t.room, "channel": "team", "text": "flank left"})
        assert said["t"] == "ack"
        await t.blue1.request({"t": "chat", "room": t.room, "channel": "team", "text": "blue plan"})
        await t.spectator.request({"t": "chat", "room": t.room, "channel": "spectators", "text": "go blue"})
        await t.red2.request({"t": "chat", "room": t.room, "channel": "players", "text": "peace?"})
        await t.blue2.request({"t": "chat", "room": t.room, "channel": "moderator", "text": "ruling please"})
        await t.moderator.request({"t": "chat", "room": t.room, "channel": "announce", "text": "turn 1 begins"})
        await t.moderator.event("chat", text="turn 1 begins")

        def texts(c: Client) -> set[str]:
            return {m["data"]["text"] for m in c.events(t.room) if m["kind"] == "chat"}

        await asyncio.sleep(0.2)
        assert texts(t.red2) == {"flank left", "peace?", "turn 1 begins"}
        assert texts(t.blue1) == {"blue plan", "peace?", "ruling please", "turn 1 begins"}
        assert texts(t.spectator) == {"go blue", "turn 1 begins"}
        assert texts(t.moderator) >= {"flank left", "blue plan", "go blue", "peace?", "ruling please"}
        # history on join: a late red player gets red's channels only
        late = await signed_in(t.red1.ws_url, t.made["seats"][1]["token"], t.room)
        snap = await late.wait(lambda m: m["t"] == "snapshot")
        assert {line["text"] for line in snap["chat"]} == {"flank left", "peace?", "turn 1 begins"}
        await late.close()


async def test_the_spectators_link_hears_its_own_chat_but_never_the_full_views(server: ServerProcess) -> None:
    """Issue 12 item 1: a spectator on the link (the public class) hears its own lines on the spectators' channel,
    and so do the full-view spectators; a named spectator's line (it sees hidden armies) never reaches the link,
    which a player may hold; players never read the channel; the history on join follows the same rule."""
    async with table(server) as t:
        link = await signed_in(t.red1.ws_url, t.made["spectator_token"])
        joined = await link.join(t.room)
        assert joined["t"] == "joined" and "spectators" in joined["channels"], joined
        said = await link.request({"t": "chat", "room": t.room, "channel": "spectators", "text": "from the link"})
        assert said["t"] == "ack", said
        await link.event("chat", text="from the link")
        await t.spectator.event("chat", text="from the link")
        await t.spectator.request({"t": "chat", "room": t.room, "channel": "spectators", "text": "blue hides"})
        await t.moderator.event("chat", text="blue hides")
        await t.moderator.request({"t": "chat", "room": t.room, "channel": "announce", "text": "after"})
        await link.event("chat", text="after")  # (event() takes the line it waited for out of the inbox)
        assert not [m for m in link.events(t.room) if m["kind"] == "chat"]  # not the named spectator's
        for player in (t.red1, t.blue2):
            await player.event("chat", text="after")
            assert not [m for m in player.events(t.room) if m["kind"] == "chat"]  # no spectators' line
        again = await signed_in(t.red1.ws_url, t.made["spectator_token"], t.room)
        snap = await again.wait(lambda m: m["t"] == "snapshot")
        assert [line["text"] for line in snap["chat"]] == ["from the link", "after"]
        for c in (link, again):
            await c.close()


async def test_resume_after_a_dropped_connection_has_no_gap_and_no_duplicate(server: ServerProcess) -> None:
    async with table(server) as t:
        await t.red1.wait(lambda m: m["t"] == "snapshot")
        await t.spectator.request({"t": "chat", "room": t.room, "channel": "spectators", "text": "one"})
        await t.spectator.event("chat", text="one")
        last = t.spectator.last_seq[t.room]
        await t.spectator.close()
        await t.red1.request(move(t.room, "r1", 1, 1))
        await t.red1.request({"t": "chat", "room": t.room, "channel": "players", "text": "hidden from spectators"})
        await t.moderator.request({"t": "chat", "room": t.room, "channel": "spectators", "text": "two"})
        await t.moderator.event("chat", text="two")
        back = await Client(t.spectator.ws_url).connect()
        await back.hello(t.spectator_token)
        joined = await back.join(t.room, since=last)
        assert joined["t"] == "joined"
        got = [m for m in back.inbox if m["t"] in ("ev", "snapshot")]
        assert [m["t"] for m in got] == ["ev", "ev"]
        assert [m["kind"] for m in got] == ["counter_moved", "chat"]
        assert got[0]["seq"] > last and got[1]["data"]["text"] == "two"
        await back.request({"t": "chat", "room": t.room, "channel": "spectators", "text": "three"})
        three = await back.event("chat", text="three")
        assert three["seq"] == joined["seq"] + 1
        await back.close()


async def test_clock_flag_ends_the_turn_and_everyone_sees_why_C_1_9(server: ServerProcess) -> None:
    async with table(server, clock={"mode": "per_turn", "turn_ms": 1_000}) as t:
        await t.red1.request(move(t.room, "r1", 1, 1))
        flagged = await t.spectator.event("clock_flagged", within=5, team="red")
        ended = await t.blue1.event("turn_ended", team="red")
        assert ended["data"]["flagged"] is True
        turn = await t.red2.event("turn", ended="red")
        assert turn["data"]["active"] == ["blue"] and turn["seq"] > flagged["seq"]
        err = await t.red1.request(move(t.room, "r2", 3, 1))
        assert err["code"] == "not_your_turn"


async def test_moderator_pauses_and_adjusts_clocks(server: ServerProcess) -> None:
    async with table(server) as t:
        assert (await t.moderator.request({"t": "mod_clock", "room": t.room, "action": "pause"}))["t"] == "ack"
        paused = await t.red1.event("clock_paused")
        assert paused["data"]["remaining_ms"]["red"] <= 60_000
        await t.moderator.request({"t": "mod_clock", "room": t.room, "action": "resume"})
        await t.moderator.request({"t": "mod_clock", "room": t.room, "action": "adjust", "team": "red",
                                   "delta_ms": 30_000})
        adjusted = await t.spectator.event("clock_adjusted")
        assert adjusted["data"]["delta_ms"] == 30_000
        err = await t.red1.request({"t": "mod_clock", "room": t.room, "action": "pause"})
        assert err["code"] == "forbidden"
        ruled = await t.moderator.request({"t": "mod_ruling", "room": t.room,
                                           "ruling": {"type": "note", "text": "the bridge is out"}})
        assert ruled["t"] == "ack"
        await t.blue2.event("ruling", text="the bridge is out")


async def test_secret_module_lockout_return_and_reconnect_D_N_14_N_VICTORY_3(server: ServerProcess) -> None:
    async with table(server, lockout_minutes=0.02) as t:  # 1.2 s
        secret = "s-" + t.made["campaign"]
        ack = await t.moderator.request({"t": "mod_secret_module", "player": "red-1", "reason": "general killed"})
        assert ack["t"] == "ack"
        sent = await t.red2.event("secret_module", action="sent", player="red-1")
        assert sent["data"]["until_ms"] > sent["at_ms"]
        # the locked player is refused, sees only public things, and may enter the secret module
        err = await t.red1.request(move(t.room, "r1", 1, 1))
        assert err["code"] == "locked_out" and err["rule"] == "D-N-14"
        public = await t.red1.wait(lambda m: m["t"] == "snapshot" and m["state"]["counters"] == [])
        assert public["away"][0]["player"] == "red-1"
        await t.red2.request({"t": "chat", "room": t.room, "channel": "team", "text": "without you"})
        await t.red2.event("chat", text="without you")
        assert (await t.red1.join(secret))["t"] == "joined"
        await t.moderator.join(secret)
        said = await t.red1.request({"t": "chat", "room": secret, "channel": "secret", "text": "I demand a recount"})
        assert said["t"] == "ack"
        heard = await t.moderator.event("chat", text="I demand a recount")
        assert heard["data"]["channel"] == "secret:red-1"
        await t.moderator.request({"t": "chat", "room": secret, "channel": "secret:red-1", "text": "Denied."})
        await t.red1.event("chat", text="Denied.")
        err = await t.moderator.request({"t": "chat", "room": secret, "channel": "secret", "text": "to whom?"})
        assert err["code"] == "no_such_channel"
        assert (await t.red2.join(secret))["code"] == "forbidden"
        assert (await t.spectator.join(secret))["code"] == "forbidden"
        # reconnecting does not escape the lockout
        again = await Client(t.red1.ws_url).connect()
        welcome = await again.hello(t.made["seats"][0]["token"])
        assert welcome["locked_until_ms"] == sent["data"]["until_ms"] and secret in welcome["rooms"]
        await again.join(t.room)
        assert (await again.join(secret))["t"] == "joined"
        assert (await again.request(move(t.room, "r1", 1, 1)))["code"] == "locked_out"
        # automatic return; the team view comes back
        back = await again.event("secret_module", action="returned", player="red-1", within=5)
        assert back["data"]["early"] is False
        snap = await again.wait(lambda m: m["t"] == "snapshot" and m["room"] == t.room and m["state"]["counters"] != [])
        assert snap["away"] == []
        assert not [m for m in again.events(t.room) if m["kind"] == "chat" and m["data"]["text"] == "without you"]
        assert (await again.request(move(t.room, "r1", 1, 1)))["t"] == "ack"
        back_in = await again.request({"t": "chat", "room": secret, "channel": "secret", "text": "one more thing"})
        assert back_in["code"] == "forbidden"
        await again.close()


async def test_moderator_brings_a_player_back_early_D_N_14(server: ServerProcess) -> None:
    async with table(server) as t:
        await t.moderator.request({"t": "mod_secret_module", "player": "blue-2", "minutes": 20})
        await t.blue1.event("secret_module", action="sent", player="blue-2")
        assert (await t.moderator.request({"t": "mod_release", "player": "blue-2"}))["t"] == "ack"
        back = await t.blue1.event("secret_module", action="returned", player="blue-2")
        assert back["data"]["early"] is True
        err = await t.red1.request({"t": "mod_release", "player": "blue-2"})
        assert err["code"] == "forbidden"
        err = await t.moderator.request({"t": "mod_secret_module", "player": "green-9"})
        assert err["code"] == "no_such_player"


async def test_the_moderator_sees_the_room_as_a_team_sees_it(server: ServerProcess) -> None:
    async with table(server) as t:
        watcher = await signed_in(t.red1.ws_url, t.made["moderator_token"])
        assert (await watcher.request({"t": "join", "room": t.room, "view_as": "team:blue"}))["t"] == "joined"
        snap = await watcher.wait(lambda m: m["t"] == "snapshot")
        assert {c["team"] for c in snap["state"]["counters"]} == {"blue"}
        await t.red1.request(move(t.room, "r1", 1, 1))
        await t.red1.request({"t": "chat", "room": t.room, "channel": "team", "text": "red only"})
        await t.red1.request({"t": "chat", "room": t.room, "channel": "players", "text": "all players"})
        await watcher.event("chat", text="all players")
        assert not [m for m in watcher.events(t.room) if m["kind"] in ("counter_moved",)
                    or m["data"].get("text") == "red only"]
        err = await t.red1.request({"t": "join", "room": t.room, "view_as": "team:blue"})
        assert err["code"] == "forbidden"
        await watcher.close()
