"""Issue 12 §13 against a real server process: one shared spectators' link on many sockets, or one client address
on many sockets, is rate-limited over all of them (not only per connection); an address holds a bounded number of
sockets; the flood is bounded in count and in time, and the players' commands go on meanwhile."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import aiohttp
import pytest

from tests.net.client import Client, signed_in
from tests.net.test_play import campaign

SOCKETS = 40
LINES = 10
TOKEN_RATE, TOKEN_BURST = 10, 50
ADDRESS_RATE, ADDRESS_BURST, MAX_PER_ADDRESS = 10, 30, 5


async def _flood(clients: list[Client], room: str, lines: int) -> tuple[int, int, float]:
    """Every client sends `lines` chat lines at once; (acked, refused as rate_limited, seconds until all answered)."""
    started = time.monotonic()
    def channel(c: Client) -> str:
        return "spectators" if c.welcome.get("role") == "spectator" else "players"

    replies = await asyncio.gather(*(c.request({"t": "chat", "room": room, "channel": channel(c), "text": f"l{i}"},
                                               within=20)
                                     for c in clients for i in range(lines)))
    took = time.monotonic() - started
    acked = sum(1 for r in replies if r["t"] == "ack")
    refused = sum(1 for r in replies if r["t"] == "error" and r["code"] == "rate_limited")
    assert acked + refused == len(replies), {r.get("code") for r in replies}
    return acked, refused, took


async def test_one_shared_spectators_link_on_40_sockets_is_limited_as_one(server_factory: Any) -> None:
    server = server_factory("--rate", "1000", "--rate-burst", "1000", "--token-rate", str(TOKEN_RATE),
                            "--token-burst", str(TOKEN_BURST)).start()
    made = campaign(server)
    red = await signed_in(server.ws_url, made["seats"][0]["token"], made["room"])
    watchers = [await signed_in(server.ws_url, made["spectator_token"]) for _ in range(SOCKETS)]
    for w in watchers:  # the joins come out of the same bucket: one a while, as a crowd arriving would
        for _ in range(100):
            if (await w.join(made["room"]))["t"] == "joined":
                break
            await asyncio.sleep(1 / TOKEN_RATE)
    acked, refused, took = await _flood(watchers, made["room"], LINES)
    assert acked <= TOKEN_BURST + TOKEN_RATE * (took + 1)  # not 400: one token's bucket, whatever its sockets
    assert refused >= SOCKETS * LINES - TOKEN_BURST - TOKEN_RATE * (took + 1)
    assert took < 15
    reply = await red.request({"t": "chat", "room": made["room"], "channel": "players", "text": "still here"})
    assert reply["t"] == "ack", reply  # a player's own token is not the spectators'
    for c in [red, *watchers]:
        await c.close()


async def test_one_address_is_capped_in_sockets_and_limited_over_all_of_them(server_factory: Any) -> None:
    server = server_factory("--rate", "1000", "--rate-burst", "1000", "--trusted-proxies", "127.0.0.1/32",
                            "--address-rate", str(ADDRESS_RATE), "--address-burst", str(ADDRESS_BURST),
                            "--max-connections-per-address", str(MAX_PER_ADDRESS)).start()
    made = campaign(server)
    behind = {"X-Forwarded-For": "203.0.113.7"}  # the clients behind the operator's proxy
    tokens = [s["token"] for s in made["seats"]] + [made["spectator_token"]]
    clients = [await signed_in(server.ws_url, tokens[i % len(tokens)], made["room"], headers=behind)
               for i in range(MAX_PER_ADDRESS)]
    refused = Client(server.ws_url, headers=behind)
    with pytest.raises(aiohttp.WSServerHandshakeError) as err:
        await refused.connect()
    assert err.value.status == 429
    assert refused.http is not None
    await refused.http.close()
    other = await signed_in(server.ws_url, made["moderator_token"], made["room"],
                            headers={"X-Forwarded-For": "203.0.113.8"})  # another address is not held up
    spectators = [c for c in clients if c.welcome.get("role") == "spectator"]
    acked, refused, took = await _flood(clients, made["room"], LINES)
    assert acked <= ADDRESS_BURST + ADDRESS_RATE * (took + 1) and refused > 0
    assert took < 15 and spectators
    reply = await other.request({"t": "chat", "room": made["room"], "channel": "players", "text": "still here"})
    assert reply["t"] == "ack", reply
    await clients.pop().close()
    await asyncio.sleep(0.2)  # the server counts the socket out
    again = await Client(server.ws_url, headers=behind).connect()  # one closed: one may open
    for c in [*clients, other, again]:
        await c.close()
