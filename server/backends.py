"""The store and bus a deployment runs on: the embedded default (files under the data directory, events in-process)
or Redis when `settings.redis_url` is set (REDIS_URL), both from one client."""

from __future__ import annotations

import redis.asyncio as aioredis

from server.bus import EventBus
from server.bus.local import LocalBus
from server.bus.redis import RedisBus
from server.settings import Settings
from server.store import Store
from server.store.embedded import open_embedded
from server.store.redis import redis_store


async def open_redis(url: str, prefix: str) -> tuple[Store, RedisBus]:
    client = aioredis.Redis.from_url(url)
    await client.ping()
    return redis_store(client, prefix), RedisBus(client, prefix)


async def open_backend(settings: Settings) -> tuple[Store, EventBus]:
    if settings.redis_url:
        return await open_redis(settings.redis_url, settings.redis_prefix)
    return open_embedded(settings.data_dir, fsync=settings.fsync), LocalBus()
