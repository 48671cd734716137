"""Who is connected, on Redis: each node's counts under a key that expires when the node stops reporting, and a
key per seat naming the session that plays it."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

import msgpack

from server.store import keys
from server.store.redis.leases import RELEASE


class RedisPresence:
    def __init__(self, client: Any, prefix: str):
        self.r = client
        self.prefix = prefix
        self._release = client.register_script(RELEASE)

    async def report(self, node: str, counts: Mapping[str, Mapping[str, int]], ttl_ms: int) -> None:
        await self.r.set(keys.presence(self.prefix, node),
                         msgpack.packb({k: dict(v) for k, v in counts.items()}, use_bin_type=True), px=ttl_ms)

    async def counts(self, exclude: str | None = None) -> dict[str, dict[str, int]]:
        total: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        skip = keys.presence(self.prefix, exclude).encode() if exclude is not None else None
        async for key in self.r.scan_iter(match=keys.presence_pattern(self.prefix), count=100):
            if key == skip:
                continue
            raw = await self.r.get(key)
            if not raw:
                continue
            for room, by_role in msgpack.unpackb(raw, raw=False, strict_map_key=False).items():
                for role, n in by_role.items():
                    total[room][role] += int(n)
        return {room: dict(c) for room, c in total.items()}

    async def nodes(self) -> list[str]:
        head = keys.presence(self.prefix, "")
        return sorted([key.decode()[len(head):]
                       async for key in self.r.scan_iter(match=keys.presence_pattern(self.prefix), count=100)])

    async def claim_seat(self, campaign: str, player: str, session: str) -> str | None:
        previous = await self.r.set(keys.seat(self.prefix, campaign, player), session, get=True)
        return previous.decode() if previous else None

    async def release_seat(self, campaign: str, player: str, session: str) -> None:
        await self._release(keys=[keys.seat(self.prefix, campaign, player)], args=[session])
