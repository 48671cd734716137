"""The store and bus a deployment runs on: the embedded default (files under the data directory, events in-process)
or Redis when `settings.redis_url` is set (REDIS_URL): the store's client (with timeouts) and the bus's."""

from __future__ import annotations

import asyncio
import logging
import time

import redis.asyncio as aioredis

from server.bus import EventBus
from server.bus.local import LocalBus
from server.bus.redis import RedisBus
from server.settings import Settings, redacted
from server.store import Store, unreachable
from server.store.embedded import open_embedded
from server.store.redis import redis_store

log = logging.getLogger(__name__)

STORE_TIMEOUT_S = 5.0
"""A store command waiting longer than this for Redis fails (`unavailable` to the client), so that a Redis that
stopped answering does not hold commands, leases and timers for ever. The bus's own client has no such timeout: its
subscriber connection waits for messages as long as it takes."""
CONNECT_TIMEOUT_S = 2.0
STORE_CONNECTIONS = 100
"""The store client's connections: a command finding all of them busy waits for one (up to STORE_TIMEOUT_S)
rather than failing at once (MaxConnectionsError, which a hundred rooms' commands in flight at the same moment
met with one round trip each)."""


async def open_redis(url: str, prefix: str, *, group_commit: bool = True) -> tuple[Store, RedisBus]:
    pool = aioredis.BlockingConnectionPool.from_url(url, max_connections=STORE_CONNECTIONS, timeout=STORE_TIMEOUT_S,
                                                    socket_timeout=STORE_TIMEOUT_S,
                                                    socket_connect_timeout=CONNECT_TIMEOUT_S)
    client = aioredis.Redis.from_pool(pool)
    try:
        await client.ping()
    except BaseException:
        await client.aclose()
        raise
    bus_client = aioredis.Redis.from_url(url, socket_connect_timeout=CONNECT_TIMEOUT_S)
    return redis_store(client, prefix, group_commit=group_commit), RedisBus(bus_client, prefix, owns_client=True)


async def open_backend(settings: Settings) -> tuple[Store, EventBus]:
    if settings.redis_url:
        return await _wait_for_redis(settings.redis_url, settings.redis_prefix, settings.redis_wait_s,
                                     settings.group_commit)
    return open_embedded(settings.data_dir, fsync=settings.fsync, group_commit=settings.group_commit,
                         open_journals=settings.open_journals), LocalBus()


async def _wait_for_redis(url: str, prefix: str, wait_s: float, group_commit: bool = True) -> tuple[Store, RedisBus]:
    """Open Redis, asking again with back-off (0.5 s doubling to 5 s) for up to `wait_s` while it cannot be reached
    (issue 19 §3: a node started before its Redis waits for it instead of failing, with --redis-wait)."""
    deadline = time.monotonic() + wait_s
    delay = 0.5
    while True:
        try:
            return await open_redis(url, prefix, group_commit=group_commit)
        except Exception as exc:
            if not unreachable(exc) or time.monotonic() + delay > deadline:
                raise
            if delay == 0.5:
                log.warning("Redis at %s cannot be reached yet (%s): waiting up to %g s for it (--redis-wait)",
                            redacted(url), exc, wait_s)
            await asyncio.sleep(delay)
            delay = min(5.0, delay * 2)
