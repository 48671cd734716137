"""Campaigns (a hash id → msgpack record) and token grants (a hash sha256(token) → msgpack grant) on Redis."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgpack

from server.store import keys


def _pack(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)  # type: ignore[no-any-return]


def _unpack(raw: bytes) -> Any:
    return msgpack.unpackb(raw, raw=False, strict_map_key=False)


class RedisGrants:
    def __init__(self, client: Any, prefix: str):
        self.r = client
        self.prefix = prefix

    async def put_campaign(self, campaign: Mapping[str, Any], grants: Mapping[str, Mapping[str, Any]]) -> None:
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.hset(keys.campaigns(self.prefix), str(campaign["id"]), _pack(dict(campaign)))
            for digest, grant in grants.items():
                pipe.hset(keys.tokens(self.prefix), digest, _pack(dict(grant)))
            await pipe.execute()

    async def get_campaign(self, campaign_id: str) -> dict[str, Any] | None:
        raw = await self.r.hget(keys.campaigns(self.prefix), campaign_id)
        return dict(_unpack(raw)) if raw else None

    async def list_campaigns(self) -> list[dict[str, Any]]:
        raw = await self.r.hgetall(keys.campaigns(self.prefix))
        return [dict(_unpack(v)) for v in raw.values()]

    async def find(self, token_hash: str) -> dict[str, Any] | None:
        raw = await self.r.hget(keys.tokens(self.prefix), token_hash)
        return dict(_unpack(raw)) if raw else None

    async def replace(self, campaign_id: str, player: str, token_hash: str, grant: Mapping[str, Any]) -> None:
        key = keys.tokens(self.prefix)
        stale = [d for d, g in (await self._grants_of(campaign_id)).items() if g.get("player") == player]
        async with self.r.pipeline(transaction=True) as pipe:
            if stale:
                pipe.hdel(key, *stale)
            pipe.hset(key, token_hash, _pack(dict(grant)))
            await pipe.execute()

    async def _grants_of(self, campaign_id: str) -> dict[bytes, dict[str, Any]]:
        """The campaign's grants by the hash's field name (a scan of every token: an operator's or moderator's
        rare request)."""
        found = {}
        async for digest, raw in self.r.hscan_iter(keys.tokens(self.prefix), count=500):
            grant = _unpack(raw)
            if grant.get("campaign") == campaign_id:
                found[digest] = dict(grant)
        return found

    async def grants_of(self, campaign_id: str) -> dict[str, dict[str, Any]]:
        return {d.decode(): g for d, g in (await self._grants_of(campaign_id)).items()}

    async def revoke(self, campaign_id: str, player: str) -> int:
        stale = [d for d, g in (await self._grants_of(campaign_id)).items() if g.get("player") == player]
        if stale:
            await self.r.hdel(keys.tokens(self.prefix), *stale)
        return len(stale)

    async def delete_campaign(self, campaign_id: str) -> None:
        stale = list(await self._grants_of(campaign_id))
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.hdel(keys.campaigns(self.prefix), campaign_id)
            if stale:
                pipe.hdel(keys.tokens(self.prefix), *stale)
            await pipe.execute()
