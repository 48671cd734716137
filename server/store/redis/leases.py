"""Ownership and liveness on Redis: a lease per room (`<node> <epoch>` with a time-to-live, renewed by its holder,
released compare-and-delete; each new holder gets the next epoch of the room's counter, which the log's append
checks: issue 12 §10), a sorted set of the owned rooms' last marks of life (a released room leaves it, so a
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
local cur = redis.call('GET', KEYS[1])
if not cur then
  local epoch = redis.call('INCR', KEYS[2])
  redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. epoch, 'PX', ARGV[2])
  return epoch
end
local sp = string.find(cur, ' ', 1, true)
if (sp and string.sub(cur, 1, sp - 1) or cur) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return sp and tonumber(string.sub(cur, sp + 1)) or 0
end
return -1
"""

_RENEW = """
local out = {}
for i, key in ipairs(KEYS) do
  local cur = redis.call('GET', key)
  local sp = cur and string.find(cur, ' ', 1, true)
  if sp and string.sub(cur, 1, sp - 1) == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
    out[i] = tonumber(string.sub(cur, sp + 1))
  else
    out[i] = -1
  end
end
return out
"""

_RELEASE = """
local cur = redis.call('GET', KEYS[1])
if cur and string.match(cur, '^[^ ]*') == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
"""Compare-and-delete of a key holding exactly ARGV[1] (a seat's session: presence.py)."""


class RedisLeases:
    expires = True

    def __init__(self, client: Any, prefix: str):
        self.r = client
        self.prefix = prefix
        self._acquire = client.register_script(_ACQUIRE)
        self._renew = client.register_script(_RENEW)
        self._release = client.register_script(_RELEASE)
        self._outage = client.register_script(_OUTAGE)
        self._down = 0  # the service's outages so far, ms

    async def acquire(self, room: str, node: str, ttl_ms: int) -> int | None:
        epoch = int(await self._acquire(keys=[keys.room_lease(self.prefix, room), keys.room_epoch(self.prefix, room)],
                                        args=[node, ttl_ms]))
        return epoch if epoch >= 0 else None

    async def renew(self, rooms: Sequence[str], node: str, ttl_ms: int) -> dict[str, int | None]:
        if not rooms:
            return {}
        got = await self._renew(keys=[keys.room_lease(self.prefix, room) for room in rooms], args=[node, ttl_ms])
        return {room: (int(e) if int(e) >= 0 else None) for room, e in zip(rooms, got, strict=True)}

    async def release(self, room: str, node: str) -> None:
        if await self._release(keys=[keys.room_lease(self.prefix, room)], args=[node]):
            await self.r.zrem(keys.alive(self.prefix), room)

    async def holder(self, room: str) -> str | None:
        raw = await self.r.get(keys.room_lease(self.prefix, room))
        return raw.decode().split(" ", 1)[0] if raw else None

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
