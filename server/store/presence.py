"""Who is connected: each node's live sessions per room and role (the lobby's counts), and the session playing
each seat (a sign-in elsewhere closes the older one)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol


class Presence(Protocol):
    async def report(self, node: str, counts: Mapping[str, Mapping[str, int]], ttl_ms: int) -> None:
        """This node's live sessions per room and role, kept for `ttl_ms`."""
        ...

    async def counts(self, exclude: str | None = None) -> dict[str, dict[str, int]]:
        """Sessions per room and role summed over the nodes' reports (but node `exclude`'s: it counts its own)."""
        ...

    async def claim_seat(self, campaign: str, player: str, session: str) -> str | None:
        """`session` (`<node>/<id>`) plays the seat now; returns the session that played it before, if any."""
        ...

    async def release_seat(self, campaign: str, player: str, session: str) -> None:
        """The session ended: the seat is free (unless a newer session has claimed it)."""
        ...

    async def nodes(self) -> list[str]:
        """The nodes whose reports are current (a revoked token's sessions are closed on each of them)."""
        ...
