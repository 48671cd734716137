"""Issue 6 end to end, over websockets against real server processes sharing a real Redis (REDIS_URL): two teams
of two play the Napoleonic campaign until armies meet, the battle room spawns, the four players fight it to a
result while a spectator watches from a second server node, and the campaign shows the result — losses, retreat,
prisoners, the general's fate and the secret-module lockout (N-START-1, D-L-1, N-MORALE-7, N-VICTORY-3/4,
D-N-14). Then the same with the quick resolution (D-L-2) and with a siege (N-SIEGE-2, N-SIEGE-5, N-SIEGE-8).
A subscriber-only process (redis-py, as redis-cli would) follows it all on the documented channels
(`<prefix>:room:<room>:events`, server/store/keys.py)."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import msgpack
import pytest
import redis.asyncio as aioredis

from server.backends import open_redis
from server.napoleonic.battle.ai import BattleAI
from server.napoleonic.battle.engine import BattleEngine
from server.rooms.ids import RoomId
from server.store import keys as names
from tests.net.client import Client, join_when_spawned, signed_in

pytestmark = pytest.mark.redis
DELAY_MS = 1500


@dataclass
class Follower:
    """A process that only subscribes: every batch published on any room channel of the deployment."""

    batches: list[dict[str, Any]] = field(default_factory=list)

    def kinds(self, room: str) -> list[str]:
        return [e[2] for b in self.batches if b["room"] == room for e in b["events"]]

    def rooms(self) -> set[str]:
        return {b["room"] for b in self.batches}


@contextlib.asynccontextmanager
async def following(redis_url: str, prefix: str) -> AsyncIterator[Follower]:
    follower = Follower()
    client = aioredis.Redis.from_url(redis_url)
    pubsub = client.pubsub()
    await pubsub.psubscribe(names.room_events(prefix, "*"))

    async def read() -> None:
        async for message in pubsub.listen():
            if message["type"] == "pmessage":
                follower.batches.append(msgpack.unpackb(message["data"], raw=False))

    task = asyncio.create_task(read())
    try:
        yield follower
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await pubsub.aclose()
        await client.aclose()


@dataclass
class Table:
    made: dict[str, Any]
    players: dict[str, Client]
    moderator: Client
    spectator: Client  # on the second node

    @property
    def room(self) -> str:
        return str(self.made["room"])

    async def order(self, player: str, order: dict[str, Any], room: str | None = None) -> dict[str, Any]:
        reply = await self.players[player].request({"t": "order", "room": room or self.room, "order": order})
        assert reply["t"] == "ack", reply
        return reply

    async def end_turn(self, player: str, room: str | None = None) -> None:
        reply = await self.players[player].request({"t": "end_turn", "room": room or self.room})
        assert reply["t"] == "ack", reply

    async def close(self) -> None:
        for c in [*self.players.values(), self.moderator, self.spectator]:
            await c.close()


@contextlib.asynccontextmanager
async def table(server_factory: Any, redis_url: str, prefix: str) -> AsyncIterator[tuple[Table, Any, Any]]:
    args = ("--redis-url", redis_url, "--redis-prefix", prefix, "--rate", "1000")
    first = server_factory(*args).start()
    second = server_factory(*args).start()
    made = first.http("POST", "/api/campaigns", {
        "name": "1813", "scenario": "napoleonic", "level": 2,
        "teams": [{"colour": "red", "seats": 2}, {"colour": "blue", "seats": 2}],
        "clock": {"mode": "per_turn", "turn_ms": 600_000}})
    room = made["room"]
    players = {s["player"]: await signed_in(first.ws_url, s["token"], room) for s in made["seats"]}
    moderator = await signed_in(first.ws_url, made["moderator_token"], room)
    spectator = await signed_in(second.ws_url, first.named_spectator(made), room)  # everything, live (issue 12)
    t = Table(made, players, moderator, spectator)
    try:
        yield t, first, second
    finally:
        await t.close()


async def lobby_battle(node: Any, room: str, *, players: int, spectators: int) -> dict[str, Any]:
    """The battle's lobby entry once the nodes' presence reports (every two seconds) show the expected counts."""
    entry: dict[str, Any] = {}
    for _ in range(60):
        entry = next((b for b in node.http("GET", "/api/lobby")["battles"] if b["room"] == room), {})
        if entry.get("players_online") == players and entry.get("spectators_online") == spectators:
            return entry
        await asyncio.sleep(0.25)
    raise AssertionError(f"lobby shows {entry}")


async def meet(t: Table) -> dict[str, Any]:
    """Red's Bülow marches from Berlin on Leipzig, where Ney stands; Ney accepts battle."""
    snap = await t.players["red-1"].wait(lambda m: m["t"] == "snapshot")
    assert snap["active"] == ["red"] and snap["state"]["scenario"] == "napoleonic"
    assert {a["team"] for a in snap["state"]["armies"]} == {"red", "blue"}  # Ney is within sight of Bülow
    await t.order("red-1", {"type": "move", "army": "bulow", "path": [[23, 19], [22, 18]]})
    contact = await t.players["blue-2"].event("contact")
    assert contact["data"]["attacker"] == "red" and contact["data"]["defender"] == "blue"
    await t.order("blue-2", {"type": "answer", "battle": contact["data"]["battle"], "choice": "accept"})
    started = await t.spectator.event("battle_started", within=10)
    return dict(started["data"])


async def setup_record(redis_url: str, prefix: str, room: str) -> dict[str, Any]:
    """A room's setup record as the operator's store keeps it: the battle's seed is nowhere else before the battle
    is over (D-GEN-4)."""
    store, bus = await open_redis(redis_url, prefix)
    try:
        return dict((await store.log.read(room, 0))[0].body)
    finally:
        await bus.close()
        await store.close()


async def fight(t: Table, setup: dict[str, Any], battle_room: str) -> dict[str, Any]:
    """The four players fight it: each phase the battle AI plans the side's orders on a replica of the room's state
    (the engines are deterministic: same setup, seed and orders give the same battle — the test reads the seed
    from the store, as no player can), and the side's players — seat 1 and seat 2 in turn — send them over their
    websockets."""
    state, _ = BattleEngine().setup(setup["config"], int(setup["seed"]))
    ai = BattleAI()
    phase = 0
    while state.active_side is not None:
        side = state.active_side
        state, _, orders = ai.play_phase(state, side)
        player = f"{side}-{1 + phase % 2}"
        for o in orders:
            await t.order(player, o, battle_room)
        await t.end_turn(player, battle_room)
        phase += 1
    assert state.result is not None
    return state.result


async def test_armies_meet_battle_room_is_fought_and_the_campaign_shows_the_result(
        server_factory: Any, redis_url: str, redis_prefix: str) -> None:
    async with following(redis_url, redis_prefix) as follower, \
            table(server_factory, redis_url, redis_prefix) as (t, _, second):
        campaign = t.room
        started = await meet(t)
        battle_room = RoomId.child_room(t.made['campaign'], str(started['battle']))
        for client in [*t.players.values(), t.moderator]:
            await join_when_spawned(client, battle_room)
        # the moderator delays what spectators see of the battle (so they cannot leak it to the players)
        ruling = await t.moderator.request({"t": "mod_ruling", "room": battle_room,
                                            "ruling": {"type": "spectator_delay", "ms": DELAY_MS}})
        assert ruling["t"] == "ack", ruling
        await join_when_spawned(t.spectator, battle_room)
        snap = await t.spectator.wait(lambda m: m["t"] == "snapshot" and m["room"] == battle_room)
        assert snap["active"] == ["red"] and set(snap["clocks"]["teams"]) == {"red", "blue"}
        # the lobby of the second node lists the live battle with the players and spectators of both nodes
        listed = await lobby_battle(second, battle_room, players=4, spectators=1)
        assert listed["scenario"] == "battle" and [tm["colour"] for tm in listed["teams"]] == ["red", "blue"]
        # only the commanding team's players give orders to their units; spectators none
        err = await t.players["blue-1"].request({"t": "order", "room": battle_room, "order": {"type": "retreat"}})
        assert err["t"] == "error" and err["code"] == "not_your_turn"
        err = await t.spectator.request({"t": "order", "room": battle_room, "order": {"type": "retreat"}})
        assert err["t"] == "error"
        # the armies are frozen on the campaign map while they fight, and the campaign clocks of the two teams in
        # battle are stopped: with both powers fighting, the campaign turn waits (D-L-1, D-NAP-5)
        err = await t.players["red-1"].request({"t": "order", "room": campaign, "order": {
            "type": "move", "army": "bulow", "path": [[23, 19]]}})
        assert err["t"] == "error" and err["code"] == "not_your_turn"
        turn = next(m for m in reversed(t.spectator.events(campaign)) if m["kind"] == "turn")
        assert turn["data"]["active"] == [] and not any(c["running"] for c in turn["data"]["clocks"]["teams"].values())

        assert not {"seed", "map_seed", "config"} & set(started)  # D-GEN-4; the forces are each side's own
        setup = await setup_record(redis_url, redis_prefix, battle_room)
        result = await fight(t, setup, battle_room)
        assert not any(m["kind"] == "battle_over" for m in t.spectator.events(battle_room))  # not yet: delayed
        over = await t.spectator.event("battle_over", within=10)  # watched live from the second node
        assert time.time() * 1000 >= over["at_ms"] + DELAY_MS - 50
        assert over["room"] == battle_room and over["data"]["winner"] == result["winner"]

        # D-GEN-4: the battle over, its seed is revealed; an operator's `admin verify` replays its log from it
        revealed = await t.players["blue-1"].event("seed_revealed", within=10, room=battle_room)
        assert revealed["data"]["seed"] == setup["seed"]
        command = [sys.executable, "-m", "server", "admin", "verify", battle_room, "--redis-url", redis_url,
                   "--redis-prefix", redis_prefix]
        verified = await asyncio.to_thread(subprocess.run, command, capture_output=True, text=True, timeout=60,
                                           check=False)
        assert verified.returncode == 0 and verified.stdout.startswith(f"OK: room {battle_room}"), verified

        ended = (await t.players["red-1"].event("battle_ended", within=10))["data"]
        assert ended["winner"] == result["winner"] and ended["how"] == "battle"
        loser, winner = result["loser"], result["winner"]
        lost_ids = {u["id"] for u in result["units"] if u["side"] == loser and u["status"] == "destroyed"}
        assert set(ended["destroyed"][loser]) == lost_ids
        assert set(ended["prisoners"][winner]) == set(result["prisoners"][winner])
        loser_army = next(a for a in ended["armies"] if a["team"] == loser)
        assert loser_army["status"] != "ready" or loser_army["cell"] != started["cell"]  # retreat (N-VICTORY-4)

        t.spectator.inbox = [m for m in t.spectator.inbox if m["t"] != "snapshot"]
        snap_msg = await t.spectator.request({"t": "join", "room": campaign})
        assert snap_msg["t"] == "joined"
        view = (await t.spectator.wait(lambda m: m["t"] == "snapshot" and m["room"] == campaign))["state"]
        battle = next(b for b in view["battles"] if b["id"] == started["battle"])
        assert battle["status"] == "over" and battle["result"]["winner"] == winner
        army_ids = {"red": "bulow", "blue": "ney"}
        shown = {a["id"]: a for a in view["armies"]}
        assert shown[army_ids[loser]]["cell"] == loser_army["cell"]

        fate = ended["general"]
        if fate["fate"] != "survived":  # N-VICTORY-3 / D-N-14: the player goes to the secret module
            sent = await t.moderator.event("secret_module", within=10, action="sent", player=fate["player"])
            assert sent["data"]["until_ms"] - sent["data"]["since_ms"] == 20 * 60_000
            err = await t.players[fate["player"]].request({"t": "order", "room": campaign, "order": {
                "type": "appoint", "army": army_ids[loser], "general": "Someone"}})
            assert err["t"] == "error" and err["code"] == "locked_out"

        # the campaign turn goes on
        await t.end_turn("red-1")
        assert (await t.spectator.event("turn", ended="red"))["data"]["active"] == ["blue"]
        await t.spectator.wait(lambda m: m["t"] == "ev" and m["room"] == campaign and m["kind"] == "turn_ended"
                               and m["data"]["team"] == "red", 10)

    expected = {"battle_started", "battle_ended", "turn", "turn_ended"}
    for _ in range(200):  # pub/sub reaches the follower a little after the players' sockets
        if {campaign, battle_room} <= follower.rooms() and expected <= set(follower.kinds(campaign)):
            break
        await asyncio.sleep(0.05)
    assert {campaign, battle_room} <= follower.rooms()
    assert expected <= set(follower.kinds(campaign))
    frames = follower.kinds(battle_room)
    assert "battle_over" in frames and "phase_over" in frames and len(frames) > 20


async def test_quick_resolution_offered_and_accepted_ends_the_battle_D_L_2(
        server_factory: Any, redis_url: str, redis_prefix: str) -> None:
    async with table(server_factory, redis_url, redis_prefix) as (t, _, _):
        started = await meet(t)
        battle_room = RoomId.child_room(t.made['campaign'], str(started['battle']))
        await join_when_spawned(t.spectator, battle_room)
        await t.order("blue-1", {"type": "offer_quick", "battle": started["battle"]})
        offer = await t.players["red-2"].event("quick_offered")
        assert offer["data"]["by"] == "blue"
        await t.order("red-2", {"type": "answer_quick", "battle": started["battle"], "accept": True})
        ended = (await t.spectator.event("battle_ended", within=10))["data"]
        assert ended["how"] in ("quick", "capitulation")
        rounds = [m for m in t.spectator.events(t.room) if m["kind"] == "quick_round"]
        assert rounds and rounds[0]["data"]["ratio"] > 0
        over = await t.spectator.event("battle_over", within=10)
        assert over["room"] == battle_room and over["data"]["reason"] == "quick resolution (D-L-2)"


async def test_siege_storm_and_terms_capture_the_general_N_SIEGE_2_N_SIEGE_5_N_SIEGE_8(
        server_factory: Any, redis_url: str, redis_prefix: str) -> None:
    async with table(server_factory, redis_url, redis_prefix) as (t, _, _):
        # Blücher (red, with artillery) marches from Breslau on Dresden, held by Napoleon: a siege, not a battle
        await t.order("red-1", {"type": "move", "army": "blucher", "path": [[26, 18], [25, 18], [24, 18]]})
        laid = await t.spectator.event("siege_laid")
        assert laid["data"]["fortress"] == "Dresden"
        err = await t.players["red-2"].request({"t": "order", "room": t.room, "order": {
            "type": "siege", "fortress": "Dresden", "action": "storm"}})
        assert err["t"] == "error" and err["rule"] == "N-SIEGE-2"  # the siege lasts a turn first
        await t.end_turn("red-1")
        await t.order("blue-1", {"type": "siege", "fortress": "Dresden", "action": "hold"})
        await t.end_turn("blue-2")
        await t.order("red-2", {"type": "siege", "fortress": "Dresden", "action": "storm"})
        started = (await t.spectator.event("battle_started", within=10))["data"]
        assert started["engine"] == "siege" and started["kind"] == "storm"
        storm_room = RoomId.child_room(t.made['campaign'], str(started['battle']))
        for client in [*t.players.values(), t.moderator, t.spectator]:
            await join_when_spawned(client, storm_room)
        snap = await t.spectator.wait(lambda m: m["t"] == "snapshot" and m["room"] == storm_room)
        assert snap["kind"] == "battle" and snap["active"] == ["red"]  # the besieger attacks
        # a phase of the storm, then the moderator ends it (N-SIEGE-7 winner: the besieger)
        await t.end_turn("red-1", storm_room)
        ruling = await t.moderator.request({"t": "mod_ruling", "room": storm_room, "ruling": {
            "type": "end_battle", "winner": "red", "reason": "the walls are carried"}})
        assert ruling["t"] == "ack", ruling
        captured = await t.spectator.event("fortress_captured", within=10)
        assert captured["room"] == t.room
        await t.order("red-1", {"type": "terms", "fortress": "Dresden",
                                "terms": {"garrison": "prisoners", "general": "captured"}})
        await t.order("blue-2", {"type": "accept_terms", "fortress": "Dresden"})
        ended = (await t.spectator.event("siege_ended", within=10))["data"]
        assert ended["holder"] == "red" and ended["garrison"] == "prisoners"
        storm = (await t.spectator.event("battle_ended", within=10))["data"]
        # the loser's general rolls after the storm (N-VICTORY-3); if he lives, the terms take him (N-SIEGE-8)
        if storm["general"]["fate"] == "killed":
            assert ended["generals"] == []
        else:
            assert ended["generals"][0]["general"] == "Napoleon" and ended["generals"][0]["fate"] == "captured"
        sent = await t.moderator.event("secret_module", within=10, action="sent", player="blue-1")
        assert "Napoleon" in sent["data"]["reason"]
