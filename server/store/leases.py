"""Ownership and liveness: the lease naming the one node that owns a room, the owners' marks of life (a room whose
marks stop without a release is an orphan of a dead node), and the service's outages (clocks skip them)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class Leases(Protocol):
    expires: bool
    """Whether a lease runs out unless renewed (Redis): its holder then stops acting for the room in time
    (server/rooms/tenure.py). The embedded store's LOCK file does not."""

    async def acquire(self, room: str, node: str, ttl_ms: int) -> int | None:
        """Become the room's owner if nobody is (or we already are; renews our own lease): the lease's epoch — a
        number that grows with each new holder, which the log's append checks (fencing) — or None when another
        node holds it."""
        ...

    async def renew(self, rooms: Sequence[str], node: str, ttl_ms: int) -> dict[str, int | None]:
        """Renew our leases of `rooms` in one go: each room's epoch, or None when it is no longer ours (taken by
        another node, or run out: then it is not taken again here — the room is reopened from its log)."""
        ...

    async def release(self, room: str, node: str) -> None:
        """Give the room up cleanly: no longer owned, not an orphan (its clocks run on while the service is up)."""
        ...

    async def holder(self, room: str) -> str | None:
        """The node that owns the room now, if any."""
        ...

    async def mark_alive(self, rooms: Sequence[str], now_ms: int) -> None:
        """The owner of `rooms` is alive at `now_ms` (every half second; downtime starts at the last mark)."""
        ...

    async def last_alive(self, room: str) -> int | None:
        """The last mark of the node that owned the room and stopped without releasing it (None: released)."""
        ...

    async def orphans(self, before_ms: int) -> list[str]:
        """Rooms whose owner stopped marking them alive before `before_ms` without releasing them (it died)."""
        ...

    async def record_outage(self, now_ms: int, gap_ms: int) -> None:
        """A node starts: when no node has marked anything alive for `gap_ms`, the service was down since the last
        mark; that outage is kept (rooms opened later skip it on their clocks)."""
        ...

    async def last_seen(self) -> int | None:
        """The last time any node of the service marked itself alive (ms; None: never). Older than a few seconds
        means the service is down since then: an export tells its import that this stretch was not served."""
        ...

    async def outages(self, after_ms: int) -> list[tuple[int, int]]:
        """The service's outages (from, to) that end after `after_ms`, in order."""
        ...

    def down_ms(self) -> int:
        """The outages' total so far: schedules keep service time (wall time less this), so that a deadline does
        not move when the service is down."""
        ...
