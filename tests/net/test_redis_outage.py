"""Redis down while a node runs (issue 19 §3), with a real server process behind a TCP proxy that cuts Redis off:
the node does not exit, keeps serving what it holds (a join to its room gets the snapshot and the chat history from
memory), refuses commands with the retryable `unavailable` (never `internal`, nothing queued: after Redis is back
the refused command is not in the log), says so in /healthz (alive, not ready), /readyz (503) and /metrics
(`ks_store_up 0`), logs the loss once, and when Redis is back serves commands again by itself."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from tests.conftest import HttpStatus
from tests.net.client import Client, signed_in
from tests.net.redis_proxy import ProxyThread
from tests.net.test_failover import RETRYABLE, _log_texts, until_acked
from tests.net.test_play import campaign

pytestmark = pytest.mark.redis


def _metric(node: Any, name: str) -> float:
    for line in str(node.http("GET", "/metrics")).splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"no {name} in /metrics")


async def test_redis_down_later_the_node_serves_what_it_holds_refuses_commands_and_comes_back(
        server_factory: Any, redis_url: str, redis_prefix: str) -> None:
    with ProxyThread(redis_url) as proxy:
        node = server_factory("--redis-url", proxy.url, "--redis-prefix", redis_prefix).start()
        made = campaign(node)
        room, token = made["room"], made["seats"][0]["token"]
        red = await signed_in(node.ws_url, token, room)
        assert (await red.request({"t": "chat", "room": room, "channel": "team", "text": "before"}))["t"] == "ack"
        assert node.http("GET", "/readyz")["ready"] is True and _metric(node, "ks_store_up") == 1

        proxy.down()
        refused: list[dict[str, Any]] = []
        for _ in range(30):  # the first may still be in flight when Redis goes: answered as unknown, not internal
            answer = await red.request({"t": "chat", "room": room, "channel": "team", "text": "during"}, within=15)
            assert answer["t"] == "error" and answer["code"] in RETRYABLE, answer
            assert answer["retry_after_ms"] > 0
            refused.append(answer)
            if answer["code"] == "unavailable" and node.http("GET", "/healthz")["ready"] is False:
                break
            await asyncio.sleep(0.2)
        health = node.http("GET", "/healthz")  # alive: a probe must not restart it
        assert health["alive"] is True and health["ready"] is False and health["store"] == "unreachable"
        with pytest.raises(HttpStatus) as not_ready:
            node.http("GET", "/readyz")
        assert not_ready.value.code == 503
        assert _metric(node, "ks_store_up") == 0
        # reads go on from memory: a player joining the node's room sees it and its chat
        again = await Client(node.ws_url).connect()
        hello = await again.hello(token)
        if hello["t"] == "welcome":  # signing in reads the token's grant from Redis: it may be refused meanwhile
            joined = await again.join(room)
            assert joined["t"] == "joined", joined
            snap = await again.wait(lambda m: m["t"] == "snapshot")
            assert "before" in [line["text"] for line in snap["chat"]]
        else:
            assert hello["code"] == "unavailable", hello
        await again.close()
        await asyncio.sleep(3)  # an outage of a few seconds: the node neither exits nor queues
        assert node.proc is not None and node.proc.poll() is None

        proxy.up()
        started = time.monotonic()
        after = await until_acked(red, red._next(), {"t": "chat", "room": room, "channel": "team", "text": "after"})
        print(f"Redis back: commands served again after {time.monotonic() - started:.2f} s")
        assert after["t"] == "ack"
        for _ in range(100):  # the keep-alive asks Redis again after its back-off (at most 5 s)
            if node.http("GET", "/healthz")["ready"]:
                break
            await asyncio.sleep(0.1)
        assert node.http("GET", "/readyz")["ready"] is True
        assert _metric(node, "ks_store_up") == 1 and _metric(node, "ks_store_outages_total") >= 1
        texts = _log_texts(redis_url, redis_prefix, room)
        assert texts.count("before") == 1 and texts.count("after") == 1
        assert texts.count("during") <= 1  # never queued: at most the one in flight when Redis went (unknown)
        log = node.log.read_text()
        assert log.count("the store cannot be reached") == 1 and "the store answers again" in log
        assert "Traceback" not in log
        await red.close()


async def test_with_redis_wait_a_node_started_before_its_redis_waits_for_it(
        server_factory: Any, redis_url: str, redis_prefix: str) -> None:
    """At start, --redis-wait: Redis unreachable for a while, the node waits (one line) and then serves."""
    with ProxyThread(redis_url) as proxy:
        proxy.down()
        node = server_factory("--redis-url", proxy.url, "--redis-prefix", redis_prefix, "--redis-wait", "30")
        starting = asyncio.create_task(asyncio.to_thread(node.start))  # healthy once Redis answers
        for _ in range(600):  # until the node has tried Redis and been refused
            if proxy.refused:
                break
            await asyncio.sleep(0.05)
        assert proxy.refused and not starting.done()
        await asyncio.sleep(1.0)
        assert not starting.done()  # still waiting, not exited
        proxy.up()
        await starting
        made = campaign(node)
        red = await signed_in(node.ws_url, made["seats"][0]["token"], made["room"])
        assert (await red.request({"t": "chat", "room": made["room"], "channel": "team", "text": "hi"}))["t"] == "ack"
        await red.close()
        assert node.log.read_text().count("cannot be reached yet") == 1
