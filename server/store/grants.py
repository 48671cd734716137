"""Campaigns and the grants of their tokens, keyed by the token's sha256 hex (never the token itself)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol


class Grants(Protocol):
    async def put_campaign(self, campaign: Mapping[str, Any], grants: Mapping[str, Mapping[str, Any]]) -> None:
        """Store a campaign and its token grants (sha256 hex → grant)."""
        ...

    async def get_campaign(self, campaign_id: str) -> dict[str, Any] | None: ...

    async def list_campaigns(self) -> list[dict[str, Any]]: ...

    async def find(self, token_hash: str) -> dict[str, Any] | None:
        """The grant of a token's hash, if any."""
        ...

    async def replace(self, campaign_id: str, player: str, token_hash: str, grant: Mapping[str, Any]) -> None:
        """Revoke every token of `player` in the campaign and grant the new one (a re-issued invite)."""
        ...

    async def grants_of(self, campaign_id: str) -> dict[str, dict[str, Any]]:
        """The grants of the campaign's tokens (sha256 hex → grant): what an export carries."""
        ...

    async def revoke(self, campaign_id: str, player: str) -> int:
        """Revoke every token of `player` in the campaign (a seat's player, "moderator", "spectator"); returns how
        many there were."""
        ...

    async def delete_campaign(self, campaign_id: str) -> None:
        """Forget the campaign and every grant of its tokens."""
        ...
