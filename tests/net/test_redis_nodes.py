"""Redis as the distributed engine: events published on `<prefix>:room:<id>:events` (visible to `redis-cli
SUBSCRIBE`), and two server processes sharing one Redis — a spectator on the second sees the first's game live."""

from __future__ import annotations

import asyncio
import shutil
from typing import Any

import msgpack
import pytest
import redis

from server.store import keys as names
from tests.net.client import signed_in
from tests.net.test_play import campaign, move

pytestmark = pytest.mark.redis


@pytest.fixture
def prefix(redis_prefix: str) -> str:
    return redis_prefix


def two_nodes(server_factory: Any, redis_url: str, prefix: str) -> tuple[Any, Any]:
    """Two server processes sharing one Redis (one key prefix)."""
    args = ("--redis-url", redis_url, "--redis-prefix", prefix)
    return server_factory(*args).start(), server_factory(*args).start()


async def test_two_nodes_share_redis_and_a_spectator_on_the_second_sees_live_events(
        prefix: str, server_factory: Any, redis_url: str) -> None:
    first, second = two_nodes(server_factory, redis_url, prefix)
    made = campaign(first)
    room = made["room"]
    red = await signed_in(first.ws_url, made["seats"][0]["token"], room)
    spectator = await signed_in(second.ws_url, first.named_spectator(made), room)  # everything, live (issue 12)
    snap = await spectator.wait(lambda m: m["t"] == "snapshot")
    assert snap["active"] == ["red"]

    listener = redis.Redis.from_url(redis_url).pubsub()
    listener.subscribe(names.room_events(prefix, room))
    assert (await red.request(move(room, "r1", 1, 1)))["t"] == "ack"
    moved = await spectator.event("counter_moved", id="r1")
    assert moved["seq"] == snap["seq"] + 1
    # the second node mirrors the room from the log and sends its spectators their fresh view
    view = await spectator.wait(lambda m: m["t"] == "view")
    assert view["seq"] >= moved["seq"]
    assert next((c["x"], c["y"]) for c in view["state"]["counters"] if c["id"] == "r1") == (1, 1)
    await red.request({"t": "end_turn", "room": room})
    turn = await spectator.event("turn", ended="red")
    assert turn["data"]["active"] == ["blue"]

    published: list[dict[str, Any]] = []
    for _ in range(50):
        message = listener.get_message(ignore_subscribe_messages=True, timeout=0.1)
        if message:
            published.append(msgpack.unpackb(message["data"], raw=False))
        if len(published) >= 2:
            break
    listener.close()
    kinds = [e[2] for batch in published for e in batch["events"]]
    assert "counter_moved" in kinds and "turn" in kinds
    assert all(batch["room"] == room for batch in published)

    # presence is shared: the lobby on the first node counts the spectator on the second
    counts = (0, 0)
    for _ in range(50):  # nodes report their presence every 2 s
        entry = next(c for c in first.http("GET", "/api/lobby")["campaigns"] if c["room"] == room)
        counts = (entry["players_online"], entry["spectators_online"])
        if counts == (1, 1):
            break
        await asyncio.sleep(0.1)
    assert counts == (1, 1)
    # the second node counts its own spectator live and the first node's player from its report: exact at once
    entry = next(c for c in second.http("GET", "/api/lobby")["campaigns"] if c["room"] == room)
    assert (entry["players_online"], entry["spectators_online"]) == (1, 1)
    another = await signed_in(second.ws_url, made["spectator_token"], room)
    entry = next(c for c in second.http("GET", "/api/lobby")["campaigns"] if c["room"] == room)
    assert (entry["players_online"], entry["spectators_online"]) == (1, 2)
    await another.close()
    await red.close()
    await spectator.close()


async def test_commands_on_a_second_node_are_forwarded_and_it_takes_over_when_the_owner_dies(
        prefix: str, server_factory: Any, redis_url: str) -> None:
    args = ("--redis-url", redis_url, "--redis-prefix", prefix, "--lease-ms", "1500")
    first = server_factory(*args).start()
    second = server_factory(*args).start()
    made = campaign(first)
    room = made["room"]
    red = await signed_in(first.ws_url, made["seats"][0]["token"], room)
    blue = await signed_in(second.ws_url, made["seats"][2]["token"], room)
    assert (await red.request({"t": "end_turn", "room": room}))["t"] == "ack"
    await blue.event("turn", ended="red")
    err = await blue.request(move(room, "b1", 5, 5))
    assert err["t"] == "error" and err["code"] == "illegal_order"  # the owner's typed error, relayed
    ack = await blue.request(move(room, "b1", 1, 6))
    assert ack["t"] == "ack"
    moved = await blue.event("counter_moved", id="b1")
    assert moved["seq"] == ack["seq"]
    await red.close()

    first.kill()  # the owner dies; its lease runs out and the second node adopts the room
    for _ in range(60):
        reply = await blue.request({"t": "chat", "room": room, "channel": "team", "text": "anyone?"})
        if reply["t"] == "ack":
            break
        await asyncio.sleep(0.1)
    assert reply["t"] == "ack", reply
    skipped = await blue.event("clock_downtime_skipped", within=5)
    assert skipped["data"]["teams"] == ["blue"]
    assert (await blue.request({"t": "end_turn", "room": room}))["t"] == "ack"
    await blue.close()


@pytest.mark.skipif(shutil.which("redis-cli") is None, reason="needs redis-cli")
async def test_redis_cli_subscribe_shows_the_turn_events(prefix: str, server_factory: Any, redis_url: str) -> None:
    node = server_factory("--redis-url", redis_url, "--redis-prefix", prefix).start()
    made = campaign(node)
    room = made["room"]
    cli = await asyncio.create_subprocess_exec("redis-cli", "-u", redis_url, "SUBSCRIBE",
                                               names.room_events(prefix, room), stdout=asyncio.subprocess.PIPE,
                                               stderr=asyncio.subprocess.STDOUT)
    try:
        await asyncio.sleep(0.3)
        red = await signed_in(node.ws_url, made["seats"][0]["token"], room)
        await red.request(move(room, "r1", 1, 1))
        await red.request({"t": "end_turn", "room": room})
        await red.event("turn", ended="red")
        await red.close()
        await asyncio.sleep(0.3)
    finally:
        cli.terminate()
        out, _ = await asyncio.wait_for(cli.communicate(), 5)
    assert b"counter_moved" in out and b"turn_ended" in out and b"clock_started" in out


async def test_a_seat_signed_in_on_another_node_closes_the_older_connection(
        prefix: str, server_factory: Any, redis_url: str) -> None:
    """One seat, one connection, across nodes too: the newer sign-in wins and the older socket is closed with
    4009 by its own node (told through Redis); the newer one plays on; the other seats are untouched."""
    first, second = two_nodes(server_factory, redis_url, prefix)
    made = campaign(first)
    room = made["room"]
    older = await signed_in(first.ws_url, made["seats"][0]["token"], room)
    teammate = await signed_in(first.ws_url, made["seats"][1]["token"], room)
    newer = await signed_in(second.ws_url, made["seats"][0]["token"], room)
    assert await older.wait_closed() == 4009
    assert (await newer.request(move(room, "r1", 1, 1)))["t"] == "ack"
    await teammate.event("counter_moved", id="r1")
    assert teammate.closed_code is None
    again = await signed_in(first.ws_url, made["seats"][0]["token"], room)  # and back to the first node
    assert await newer.wait_closed() == 4009
    assert (await again.request({"t": "end_turn", "room": room}))["t"] == "ack"
    for client in (older, newer, teammate, again):
        await client.close()
