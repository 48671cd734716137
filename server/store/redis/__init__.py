"""The store on Redis (REDIS_URL): one client for its four parts; key names are server/store/keys.py's."""

from __future__ import annotations

from typing import Any

from server.store import Store
from server.store.redis.grants import RedisGrants
from server.store.redis.leases import RedisLeases
from server.store.redis.log import RedisLog
from server.store.redis.presence import RedisPresence


def redis_store(client: Any, prefix: str, *, group_commit: bool = True) -> Store:
    """The store on `client` under `prefix`; closing it closes the client. `group_commit`: appends of many rooms
    in the same moment share one pipelined round trip (log.py)."""
    leases = RedisLeases(client, prefix)

    async def close() -> None:
        await client.aclose()

    log = RedisLog(client, prefix, down_ms=leases.down_ms, group_commit=group_commit)
    return Store(log, leases, RedisGrants(client, prefix), RedisPresence(client, prefix), close, client.ping)


__all__ = ["RedisGrants", "RedisLeases", "RedisLog", "RedisPresence", "redis_store"]
