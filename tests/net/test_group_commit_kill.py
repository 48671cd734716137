"""kill -9 under group commit (issue 20 §2): many rooms' players send chat lines as fast as they are acked, so that
the appends of many rooms share each fsync (embedded) or pipeline (Redis); the server is killed mid-load and
restarted, and every acknowledged line is in its room's log exactly once (nor is any line there twice)."""

from __future__ import annotations

import asyncio
import contextlib
import re
import urllib.request
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from server.backends import open_redis
from server.store import Store
from server.store.embedded import open_embedded
from tests.conftest import ServerProcess
from tests.net.client import Client, signed_in
from tests.net.test_play import campaign

ROOMS = 40
FAST = ("--rate", "100000", "--rate-burst", "100000")  # no per-connection rate limit in the way of the load


async def _chatter(client: Client, room: str, acked: list[str], on_ack: Callable[[], None]) -> None:
    """Chat lines one after the other, each sent when the last was acked, until the server is gone."""
    n = 0
    with contextlib.suppress(ConnectionError, RuntimeError, TimeoutError):
        while True:
            n += 1
            text = f"{room} line {n}"
            answer = await client.request({"t": "chat", "room": room, "channel": "team", "text": text}, within=10)
            assert answer["t"] == "ack", answer
            acked.append(text)
            on_ack()


def _counters(node: ServerProcess) -> dict[str, float]:
    with urllib.request.urlopen(node.url + "/metrics", timeout=5) as r:
        text = r.read().decode()
    return {name: float(m.group(1)) if (m := re.search(rf"^ks_store_{name}_total (\S+)$", text, re.M)) else 0.0
            for name in ("appends", "flushes")}


async def _kill_under_load_and_restart(node: ServerProcess) -> tuple[dict[str, list[str]], list[Client]]:
    node.start()
    made = [await asyncio.to_thread(campaign, node) for _ in range(ROOMS)]
    clients = [await signed_in(node.ws_url, m["seats"][0]["token"], m["room"]) for m in made]
    acked: dict[str, list[str]] = {m["room"]: [] for m in made}
    enough = asyncio.Event()

    def on_ack() -> None:
        if sum(map(len, acked.values())) >= 30 * ROOMS:
            enough.set()

    load = asyncio.gather(*(_chatter(c, m["room"], acked[m["room"]], on_ack) for c, m in zip(clients, made,
                                                                                              strict=True)))
    await asyncio.wait_for(enough.wait(), 60)
    counters = await asyncio.to_thread(_counters, node)
    node.kill()  # mid-load: every room has a command in flight
    await asyncio.wait_for(load, 15)
    assert counters["appends"] > 2 * counters["flushes"] > 0, counters  # the rooms' appends did share flushes
    node.start()
    after = await signed_in(node.ws_url, made[0]["seats"][0]["token"], made[0]["room"])
    line = {"t": "chat", "room": made[0]["room"], "channel": "team", "text": "after"}
    answer = await after.request(line)
    for _ in range(50):  # Redis: the killed node's lease of the room runs out first (retryable answers meanwhile)
        if answer["t"] == "ack" or answer.get("code") != "unavailable":
            break
        await asyncio.sleep(answer["retry_after_ms"] / 1000)
        answer = await after.request(line)
    assert answer["t"] == "ack", answer
    acked[made[0]["room"]].append("after")
    return acked, [*clients, after]


async def _check(store: Store, acked: dict[str, list[str]]) -> None:
    for room, lines in acked.items():
        logged = Counter(str(r.body.get("text")) for r in await store.log.read(room, 0) if r.kind == "chat")
        assert all(n == 1 for n in logged.values()), f"{room}: a line logged twice"
        missing = [line for line in lines if logged[line] != 1]
        assert not missing, f"{room}: acknowledged and lost: {missing[:5]}"


async def _close(clients: list[Client]) -> None:
    for c in clients:
        await c.close()


async def test_kill_9_under_group_commit_loses_no_acked_command_embedded(server_factory: Any) -> None:
    node = server_factory(*FAST)
    acked, clients = await _kill_under_load_and_restart(node)
    await _close(clients)
    store = open_embedded(node.data_dir, read_only=True)  # beside the running server, as an operator's export
    try:
        await _check(store, acked)
    finally:
        await store.close()


@pytest.mark.redis
async def test_kill_9_under_group_commit_loses_no_acked_command_redis(server_factory: Any, redis_url: str,
                                                                       redis_prefix: str) -> None:
    node = server_factory(*FAST, "--redis-url", redis_url, "--redis-prefix", redis_prefix)
    acked, clients = await _kill_under_load_and_restart(node)
    await _close(clients)
    store, bus = await open_redis(redis_url, redis_prefix)
    try:
        await _check(store, acked)
    finally:
        await bus.close()
        await store.close()
