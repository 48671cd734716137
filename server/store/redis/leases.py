"""Ownership and liveness on Redis: a lease per room (`SET <lease> <node> NX PX <ttl>`, renewed by its holder,
released compare-and-delete), a sorted set of the owned rooms' last marks of life (a released room leaves it, so a
stale member is an orphan), the service's last sign of life and its list of outages."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgpack

from server.store import keys

_OUTAGE = """
local last = tonumber(redis.call('GET', KEYS[1]))
if last and tonumber(ARGV[1]) - last > tonumber(ARGV[2]) then
  redis.call('RPUSH', KEYS[2], ARGV[3])
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', last)
end
redis.call('SET', KEYS[1], ARGV[1])
return 0
"""

_ACQUIRE = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
return 0
"""

RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class RedisLeases:
    def __init__(self, client: Any, prefix: str):
        self.r = client
        self.prefix = prefix
        self._acquire = client.register_script(_ACQUIRE)
        self._release = client.register_script(RELEASE)
        self._outage = client.register_script(_OUTAGE)
        self._down = 0  # the service's outages so far, ms

    async def acquire(self, room: str, node: str, ttl_ms: int) -> bool:
        return bool(await self._acquire(keys=[keys.room_lease(self.prefix, room)], args=[node, ttl_ms]))

    async def release(self, room: str, node: str) -> None:
        if await self._release(keys=[keys.room_lease(self.prefix, room)], args=[node]):
            await self.r.zrem(keys.alive(self.prefix), room)

    async def holder(self, room: str) -> str | None:
        raw = await self.r.get(keys.room_lease(self.prefix, room))
        return raw.decode() if raw else None

    async def mark_alive(self, rooms: Sequence[str], now_ms: int) -> None:
        async with self.r.pipeline(transaction=False) as pipe:
            pipe.set(keys.service_alive(self.prefix), now_ms)
            if rooms:
                pipe.zadd(keys.alive(self.prefix), {room: now_ms for room in rooms})
            await pipe.execute()

    async def last_alive(self, room: str) -> int | None:
        raw = await self.r.zscore(keys.alive(self.prefix), room)
        return int(raw) if raw is not None else None

    async def orphans(self, before_ms: int) -> list[str]:
        raw = await self.r.zrangebyscore(keys.alive(self.prefix), "-inf", before_ms)
        return [r.decode() for r in raw]

    async def record_outage(self, now_ms: int, gap_ms: int) -> None:
        """Atomic, so that nodes starting together record one outage; the marks of the rooms owned when the
        service stopped are dropped (the outage covers them)."""
        last = await self.r.get(keys.service_alive(self.prefix))
        await self._outage(keys=[keys.service_alive(self.prefix), keys.outages(self.prefix), keys.alive(self.prefix)],
                           args=[now_ms, gap_ms, msgpack.packb([int(last or 0), now_ms], use_bin_type=True)])
        self._down = sum(b - a for a, b in await self.outages(0))

    async def last_seen(self) -> int | None:
        raw = await self.r.get(keys.service_alive(self.prefix))
        return int(raw) if raw else None

    async def outages(self, after_ms: int) -> list[tuple[int, int]]:
        raw = await self.r.lrange(keys.outages(self.prefix), 0, -1)
        pairs = (msgpack.unpackb(r, raw=False) for r in raw)
        return [(int(a), int(b)) for a, b in pairs if int(b) > after_ms]

    def down_ms(self) -> int:
        return self._down
