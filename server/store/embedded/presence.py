"""Who is connected, for the one process of an embedded server: kept in memory (a restart forgets it, as it
forgets the sessions)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping


class MemoryPresence:
    def __init__(self) -> None:
        self._reports: dict[str, dict[str, dict[str, int]]] = {}
        self._seats: dict[tuple[str, str], str] = {}

    async def report(self, node: str, counts: Mapping[str, Mapping[str, int]], ttl_ms: int) -> None:
        self._reports[node] = {room: dict(c) for room, c in counts.items()}

    async def counts(self, exclude: str | None = None) -> dict[str, dict[str, int]]:
        total: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for node, counts in self._reports.items():
            if node == exclude:
                continue
            for room, by_role in counts.items():
                for role, n in by_role.items():
                    total[room][role] += n
        return {room: dict(c) for room, c in total.items()}

    async def claim_seat(self, campaign: str, player: str, session: str) -> str | None:
        previous = self._seats.get((campaign, player))
        self._seats[(campaign, player)] = session
        return previous

    async def nodes(self) -> list[str]:
        return sorted(self._reports)

    async def release_seat(self, campaign: str, player: str, session: str) -> None:
        if self._seats.get((campaign, player)) == session:
            del self._seats[(campaign, player)]
