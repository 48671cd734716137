"""Campaigns and their token grants in the embedded store: `campaigns/<id>.msgpack` holds a campaign with its
grants (token hashes only); all of them are read once, at start."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgpack

from server.store.embedded.journal import write_atomic


class FileGrants:
    def __init__(self, root: Path, *, fsync: bool, read_only: bool = False):
        self.dir = root / "campaigns"
        self.fsync = fsync
        if not read_only:
            self.dir.mkdir(parents=True, exist_ok=True)
        self._campaigns: dict[str, dict[str, Any]] = {}
        self._grants: dict[str, dict[str, Any]] = {}
        if self.dir.is_dir():  # read once, at start: 10,000 campaigns in a fraction of a second (issue 20 item 3)
            with os.scandir(self.dir) as entries:
                names = sorted(e.name for e in entries if e.name.endswith(".msgpack") and e.is_file())
            for name in names:
                with open(os.path.join(self.dir, name), "rb") as f:
                    record = msgpack.unpackb(f.read(), raw=False, strict_map_key=False)
                self._index(record["campaign"], record["grants"], copy=False)

    def _index(self, campaign: Mapping[str, Any], grants: Mapping[str, Mapping[str, Any]], copy: bool = True) -> None:
        """Index a campaign and its grants (copied, unless they were just read from its file and are nobody's)."""
        self._campaigns[str(campaign["id"])] = dict(campaign) if copy else campaign  # type: ignore[assignment]
        for digest, grant in grants.items():
            self._grants[digest] = dict(grant) if copy else grant  # type: ignore[assignment]

    async def _write(self, campaign: Mapping[str, Any], grants: Mapping[str, Mapping[str, Any]]) -> None:
        payload = msgpack.packb({"campaign": dict(campaign), "grants": {k: dict(v) for k, v in grants.items()}},
                                use_bin_type=True)
        await asyncio.to_thread(write_atomic, self.dir / f"{campaign['id']}.msgpack", payload, self.fsync)

    async def put_campaign(self, campaign: Mapping[str, Any], grants: Mapping[str, Mapping[str, Any]]) -> None:
        await self._write(campaign, grants)
        self._index(campaign, grants)

    async def get_campaign(self, campaign_id: str) -> dict[str, Any] | None:
        found = self._campaigns.get(campaign_id)
        return dict(found) if found else None

    async def list_campaigns(self) -> list[dict[str, Any]]:
        return [dict(c) for c in self._campaigns.values()]

    async def find(self, token_hash: str) -> dict[str, Any] | None:
        found = self._grants.get(token_hash)
        return dict(found) if found else None

    async def replace(self, campaign_id: str, player: str, token_hash: str, grant: Mapping[str, Any]) -> None:
        grants = {d: g for d, g in self._grants.items() if g.get("campaign") == campaign_id
                  and g.get("player") != player}
        grants[token_hash] = dict(grant)
        await self._rewrite(campaign_id, grants)

    async def _rewrite(self, campaign_id: str, grants: dict[str, dict[str, Any]]) -> None:
        """The campaign's file and index with exactly these grants."""
        await self._write(self._campaigns[campaign_id], grants)
        for digest in [d for d, g in self._grants.items() if g.get("campaign") == campaign_id]:
            del self._grants[digest]
        self._grants.update(grants)

    async def grants_of(self, campaign_id: str) -> dict[str, dict[str, Any]]:
        return {d: dict(g) for d, g in self._grants.items() if g.get("campaign") == campaign_id}

    async def revoke(self, campaign_id: str, player: str) -> int:
        grants = await self.grants_of(campaign_id)
        kept = {d: g for d, g in grants.items() if g.get("player") != player}
        if len(kept) != len(grants):
            await self._rewrite(campaign_id, kept)
        return len(grants) - len(kept)

    async def delete_campaign(self, campaign_id: str) -> None:
        path = self.dir / f"{campaign_id}.msgpack"
        await asyncio.to_thread(path.unlink, missing_ok=True)
        self._campaigns.pop(campaign_id, None)
        for digest in [d for d, g in self._grants.items() if g.get("campaign") == campaign_id]:
            del self._grants[digest]
