"""Hostile input: each gets a typed error while the connection and the room carry on (issue 2, "How it is shown")."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import msgpack

from tests.conftest import ServerProcess
from tests.net.client import Client, signed_in
from tests.net.test_play import campaign, move, table


async def _still_works(client: Client, room: str) -> None:
    reply = await client.request({"t": "chat", "room": room, "channel": "players", "text": "still here"})
    assert reply["t"] == "ack", reply


async def test_malformed_frames_get_typed_errors_and_the_socket_carries_on(server: ServerProcess) -> None:
    made = campaign(server)
    red = await signed_in(server.ws_url, made["seats"][0]["token"], made["room"])
    assert red.ws is not None
    await red.ws.send_bytes(b"\xc1\xc1\xc1")
    assert (await red.wait(lambda m: m["t"] == "error"))["code"] == "bad_frame"
    await red.ws.send_str("{not json")
    assert (await red.wait(lambda m: m["t"] == "error"))["code"] == "bad_frame"
    await red.ws.send_bytes(msgpack.packb({"t": "launch_missiles", "cid": 77}))
    err = await red.wait(lambda m: m["t"] == "error")
    assert err["code"] == "unknown_type" and err["cid"] == 77
    await red.ws.send_str(json.dumps({"t": "order", "cid": 78, "room": made["room"]}))
    err = await red.wait(lambda m: m["t"] == "error")
    assert err["code"] == "bad_message" and err["cid"] == 78
    await _still_works(red, made["room"])
    await red.close()


async def test_oversized_frame_closes_with_1009_and_the_room_carries_on(server: ServerProcess) -> None:
    made = campaign(server)
    red = await signed_in(server.ws_url, made["seats"][0]["token"], made["room"])
    blue = await signed_in(server.ws_url, made["seats"][2]["token"], made["room"])
    assert red.ws is not None
    await red.ws.send_bytes(b"\x00" * (65 * 1024))
    assert await red.wait_closed() == 1009
    await red.close()
    await _still_works(blue, made["room"])
    again = await signed_in(server.ws_url, made["seats"][0]["token"], made["room"])
    assert (await again.request(move(made["room"], "r1", 1, 1)))["t"] == "ack"
    await blue.close()
    await again.close()


async def test_roles_only_do_what_they_are_for(server: ServerProcess) -> None:
    async with table(server) as t:
        err = await t.spectator.request(move(t.room, "r1", 1, 1))
        assert err["code"] == "forbidden"
        err = await t.spectator.request({"t": "end_turn", "room": t.room})
        assert err["code"] == "forbidden"
        err = await t.spectator.request({"t": "chat", "room": t.room, "channel": "players", "text": "red goes left"})
        assert err["code"] == "forbidden"
        err = await t.red1.request(move(t.room, "b1", 1, 6))
        assert err["code"] == "not_your_unit"
        err = await t.red1.request({"t": "chat", "room": t.room, "channel": "team:blue", "text": "hi"})
        assert err["code"] == "not_your_team"
        for mod_msg in ({"t": "mod_clock", "room": t.room, "action": "pause"},
                        {"t": "mod_ruling", "room": t.room, "ruling": {"type": "note", "text": "red wins"}},
                        {"t": "mod_secret_module", "player": "blue-1"},
                        {"t": "mod_release", "player": "blue-1"}):
            err = await t.red1.request(mod_msg)
            assert err["code"] == "forbidden", mod_msg
        err = await t.red1.request({"t": "chat", "room": t.room, "channel": "announce", "text": "I am the umpire"})
        assert err["code"] == "forbidden"
        await _still_works(t.red1, t.room)


async def test_forged_and_reused_tokens_are_refused(server: ServerProcess) -> None:
    made = campaign(server)
    c = await Client(server.ws_url).connect()
    err = await c.request({"t": "join", "room": made["room"]})
    assert err["code"] == "not_authenticated"
    err = await c.hello("forged-token-0123456789")
    assert err["code"] == "bad_token"
    assert (await c.hello(made["seats"][0]["token"]))["t"] == "welcome"
    err = await c.hello(made["seats"][0]["token"])
    assert err["code"] == "bad_token"
    err = await c.hello(made["moderator_token"])
    assert err["code"] == "bad_token" and c.welcome["role"] == "player"
    # a second connection with the same seat token replaces the first (4009)
    twin = await signed_in(server.ws_url, made["seats"][0]["token"])
    assert await c.wait_closed() == 4009
    await c.close()
    await twin.close()


async def test_commands_into_rooms_not_joined_or_not_ours(server: ServerProcess) -> None:
    made = campaign(server)
    other = campaign(server)
    red = await signed_in(server.ws_url, made["seats"][0]["token"])
    err = await red.request(move(made["room"], "r1", 1, 1))
    assert err["code"] == "not_joined"
    err = await red.join(other["room"])
    assert err["code"] == "no_such_room"
    err = await red.request(move(other["room"], "r1", 1, 1))
    assert err["code"] == "not_joined"
    await red.join(made["room"])
    assert (await red.request(move(made["room"], "r1", 1, 1)))["t"] == "ack"
    await red.close()


async def test_flooding_past_the_rate_limit_gets_rate_limited_then_recovers(server: ServerProcess) -> None:
    made = campaign(server)
    red = await signed_in(server.ws_url, made["seats"][0]["token"], made["room"])
    for i in range(100):
        await red.send_raw({"t": "chat", "cid": 1000 + i, "room": made["room"], "channel": "team", "text": "spam"})
    limited = await red.wait(lambda m: m["t"] == "error" and m["code"] == "rate_limited")
    assert 1000 <= limited["cid"] < 1100, limited  # which message was refused, so a client is never left waiting
    assert 0 < limited["retry_after_ms"] <= 1000, limited  # and when to send it again (20 a second: 50 ms each)
    answered = {limited["cid"]}
    for cid in range(1000, 1100):  # every message is answered, accepted or refused: none left hanging
        if cid not in answered:
            answer = await red.wait(lambda m, cid=cid: m.get("cid") == cid and m["t"] in ("ack", "error"))
            assert answer["t"] == "ack" or answer["code"] == "rate_limited", answer
    await asyncio.sleep(1.0)
    await _still_works(red, made["room"])
    await red.close()


async def test_answering_the_servers_pings_costs_nothing_of_the_rate(server_factory: Any) -> None:
    """A client that only answers pings (5 a second here) for longer than its whole budget lasts is never refused:
    the pongs the server asked for are not counted; a made-up pong is (CI flakes: a bot pacing its orders at 16 a
    second plus its pongs ran dry and waited for an answer that never named its cid)."""
    server = server_factory("--rate", "1", "--rate-burst", "3").start()
    made = campaign(server)
    red = await signed_in(server.ws_url, made["seats"][0]["token"])
    await asyncio.sleep(2.0)  # ~10 pings answered, at 1 message a second with a burst of 3
    assert red.frames["binary"] >= 5
    assert (await red.join(made["room"]))["t"] == "joined"  # the whole burst is there: three messages at once
    for line in ("one", "two"):
        reply = await red.request({"t": "chat", "room": made["room"], "channel": "team", "text": line})
        assert reply["t"] == "ack", reply
    for nonce in range(10**6, 10**6 + 5):  # pongs to pings never sent: counted like any message
        await red.send_raw({"t": "pong", "cid": 0, "nonce": nonce})
    limited = await red.wait(lambda m: m["t"] == "error" and m["code"] == "rate_limited")
    assert limited["retry_after_ms"] > 0
    await red.close()


async def test_flooding_on_and_on_is_cut_off_with_1008(server: ServerProcess) -> None:
    made = campaign(server)
    red = await signed_in(server.ws_url, made["seats"][0]["token"], made["room"])
    blue = await signed_in(server.ws_url, made["seats"][2]["token"], made["room"])
    assert red.ws is not None
    frame = msgpack.packb({"t": "pong", "cid": 1, "nonce": 0})
    for _ in range(400):
        if red.ws.closed:
            break
        await red.ws.send_bytes(frame)
    assert await red.wait_closed() == 1008
    await red.close()
    await _still_works(blue, made["room"])
    await blue.close()


async def test_guessing_tokens_closes_the_connection(server: ServerProcess) -> None:
    c = await Client(server.ws_url).connect()
    for i in range(4):
        assert (await c.hello(f"guess-{i:08d}"))["code"] == "bad_token"
    await c.send_raw({"t": "hello", "cid": 99, "token": "guess-00000005"})
    assert await c.wait_closed() == 1008
    await c.close()


async def test_json_text_frames_are_answered_in_json(server: ServerProcess) -> None:
    made = campaign(server)
    red = await signed_in(server.ws_url, made["seats"][0]["token"], made["room"], use_json=True)
    snap = await red.wait(lambda m: m["t"] == "snapshot")
    assert snap["active"] == ["red"]
    assert (await red.request(move(made["room"], "r1", 1, 1)))["t"] == "ack"
    await red.event("counter_moved", id="r1")
    assert red.frames["binary"] == 0 and red.frames["text"] >= 4
    await red.close()
