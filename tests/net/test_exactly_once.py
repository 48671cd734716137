"""Exactly once over the wire (issue 12 §9), with real server processes: the same cid sent twice — on one socket,
after a reconnect, after a restart — is applied once and answered alike; and a Redis reply lost on the way (a proxy
drops it after Redis carried the append out) is answered `outcome_unknown`, and its retry with the same cid gets the
first answer: the command is in the log once."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
import redis

from server.store import keys as names
from server.store.records import Record
from tests.conftest import ServerProcess
from tests.net.client import Client, signed_in
from tests.net.redis_proxy import ProxyThread
from tests.net.test_play import campaign, move


async def send_as(client: Client, cid: int, message: dict[str, Any], within: float = 10) -> dict[str, Any]:
    """Send `message` with the given cid; the ack or error that echoes it."""
    await client.send_raw({**message, "cid": cid})
    return await client.wait(lambda m: m.get("cid") == cid and m["t"] in ("ack", "error"), within)


async def chat_lines(server: ServerProcess, token: str, room: str) -> list[str]:
    """The team chat as a newly joined player of that team sees it."""
    client = await Client(server.ws_url).connect()
    await client.hello(token)
    await client.join(room)
    snap = await client.wait(lambda m: m["t"] == "snapshot")
    await client.close()
    return [line["text"] for line in snap["chat"]]


async def test_the_same_cid_twice_is_applied_once_on_a_socket_after_a_reconnect_and_a_restart(
        server_factory: Any) -> None:
    node = server_factory().start()
    made = campaign(node)
    room, token = made["room"], made["seats"][0]["token"]
    red = await signed_in(node.ws_url, token, room)
    cid = random.randrange(1, 2**40)
    chat = {"t": "chat", "room": room, "channel": "team", "text": "hold the bridge"}
    first = await send_as(red, cid, chat)
    assert first["t"] == "ack" and first["seq"] is not None
    assert await send_as(red, cid, chat) == first
    # the same cid with another message is not the same command
    reused = await send_as(red, cid, {**chat, "text": "retreat"})
    assert reused["t"] == "error" and reused["code"] == "cid_reused"
    # a move retried after a reconnect is not refused as a second move (nor penalised): its first answer comes back
    order = move(room, "r1", 1, 1)
    moved = await send_as(red, cid + 1, order)
    assert moved["t"] == "ack"
    await red.close()
    red = await signed_in(node.ws_url, token, room)
    assert await send_as(red, cid + 1, order) == moved
    assert await send_as(red, cid, chat) == first
    await red.close()
    node.kill()
    node.start()
    red = await signed_in(node.ws_url, token, room)
    assert await send_as(red, cid, chat) == first
    assert await send_as(red, cid + 1, order) == moved
    await red.close()
    assert (await chat_lines(node, token, room)).count("hold the bridge") == 1


@pytest.mark.redis
async def test_a_lost_redis_reply_is_outcome_unknown_and_the_retry_is_applied_once(
        server_factory: Any, redis_url: str, redis_prefix: str) -> None:
    with ProxyThread(redis_url) as proxy:
        node = server_factory("--redis-url", proxy.url, "--redis-prefix", redis_prefix).start()
        made = campaign(node)
        room, token = made["room"], made["seats"][0]["token"]
        red = await signed_in(node.ws_url, token, room)
        cid = random.randrange(1, 2**40)
        chat = {"t": "chat", "room": room, "channel": "team", "text": "MARKER-lost-reply"}
        proxy.cut_after(b"MARKER-lost-reply", blackout_s=1.0)
        answer = await send_as(red, cid, chat)
        assert proxy.cuts == 1
        assert answer["t"] == "error" and answer["code"] == "outcome_unknown", answer
        assert answer["retry_after_ms"] > 0
        attempts = 1
        while answer["t"] == "error":  # what the web client does on its own: the same cid, after the hint
            assert answer["code"] in ("outcome_unknown", "unavailable"), answer
            await asyncio.sleep(answer["retry_after_ms"] / 1000)
            answer = await send_as(red, cid, chat)
            attempts += 1
            assert attempts < 40
        assert answer["t"] == "ack"
        direct = redis.Redis.from_url(redis_url)
        raw = direct.xrange(names.room_log(redis_prefix, room))
        direct.close()
        texts = [Record.unpack(fields[b"r"]).body.get("text") for _, fields in raw]
        assert texts.count("MARKER-lost-reply") == 1  # Redis carried the first out; the retry was not applied again
        print(f"lost reply: answered after {attempts} attempts")
        await red.close()
