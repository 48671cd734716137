"""The Redis bus coalesces a tick's publishes into one message per room, in order, and relays commands."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Sequence
from typing import Any

import pytest

from server.store.records import LoggedEvent

pytestmark = pytest.mark.redis


async def test_a_ticks_publishes_become_one_message_per_room_in_order(redis_url: str) -> None:
    from server.backends import open_redis

    prefix = f"kstest{secrets.token_hex(4)}"
    store_a, bus_a = await open_redis(redis_url, prefix)
    store_b, bus_b = await open_redis(redis_url, prefix)
    got: list[tuple[str, list[int]]] = []

    def handler(room: str, events: Sequence[LoggedEvent]) -> None:
        got.append((room, [e.seq for e in events]))

    await bus_b.subscribe("c-a", handler)
    await bus_b.subscribe("c-b", handler)
    await asyncio.sleep(0.1)
    for seq in (1, 2, 3):
        await bus_a.publish("c-a", [LoggedEvent(seq, 0, "x", {"n": seq})])
    await bus_a.publish("c-b", [LoggedEvent(1, 0, "x", {})])
    await bus_a.flush()
    for _ in range(100):
        if len(got) >= 2:
            break
        await asyncio.sleep(0.01)
    assert sorted(got) == [("c-a", [1, 2, 3]), ("c-b", [1])]
    assert bus_a.published == 2
    for closer in (bus_a.close, bus_b.close, store_a.close, store_b.close):
        await closer()


async def test_commands_are_relayed_to_the_node_that_serves_them(redis_url: str) -> None:
    from server.backends import open_redis

    prefix = f"kstest{secrets.token_hex(4)}"
    store_a, bus_a = await open_redis(redis_url, prefix)
    store_b, bus_b = await open_redis(redis_url, prefix)

    async def answer(request: Any) -> dict[str, Any]:
        return {"ok": True, "seq": request["body"]["n"] * 2}

    await bus_a.serve("node-a", answer)
    await bus_b.serve("node-b", answer)
    await asyncio.sleep(0.1)
    reply = await bus_b.forward("node-a", {"room": "c-x", "body": {"n": 21}})
    assert reply["ok"] and reply["seq"] == 42
    with pytest.raises(LookupError):
        await bus_b.forward("node-nobody", {"room": "c-x", "body": {"n": 1}})
    for closer in (bus_a.close, bus_b.close, store_a.close, store_b.close):
        await closer()


async def test_a_publish_that_meets_a_redis_outage_is_a_warning_and_the_bus_goes_on(
        redis_url: str, caplog: pytest.LogCaptureFixture) -> None:
    """Redis going away under a publish is an outage the node rides out (the events are in the log, followers catch
    up from it): one warning line, no traceback in the operator's log (tests/net/test_redis_outage.py asks the same
    of a whole node), and the next publish after Redis is back goes out."""
    from server.backends import open_redis
    from tests.net.redis_proxy import RedisProxy

    proxy = await RedisProxy(redis_url).start()
    prefix = f"kstest{secrets.token_hex(4)}"
    store, bus = await open_redis(proxy.url, prefix)
    try:
        await bus.publish("c-a", [LoggedEvent(1, 0, "x", {})])
        await bus.flush()
        proxy.down()
        caplog.set_level("WARNING", logger="server.bus.redis")
        await bus.publish("c-a", [LoggedEvent(2, 0, "x", {})])
        await bus.flush()
        failed = [r for r in caplog.records if "publishing" in r.getMessage()]
        assert len(failed) == 1 and failed[0].levelname == "WARNING" and failed[0].exc_info is None
        assert "ConnectionError" in failed[0].getMessage()
        proxy.up()
        published = bus.published
        for _ in range(50):
            await bus.publish("c-a", [LoggedEvent(3, 0, "x", {})])
            await bus.flush()
            if bus.published > published:
                break
            await asyncio.sleep(0.1)
        assert bus.published > published
    finally:
        for closer in (bus.close, store.close, proxy.close):
            await closer()
