"""The room log: each room's accepted commands in order, its snapshots, and the schedule of its next timers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from server.store.records import Record, RoomSnapshot


@dataclass(frozen=True, slots=True)
class RoomStat:
    """What the store holds of one room: its records, about how many bytes they and its snapshot take, and when
    its last record was written (its last activity)."""

    records: int
    bytes: int
    last_at_ms: int


class RoomLog(Protocol):
    async def append(self, room: str, record: Record, due_ms: int | None = None, *, epoch: int | None = None) -> None:
        """Make `record` durable; it must be the room's next index (else LogConflict). `due_ms` is the room's next
        timer after the record (clock deadline, end of a lockout; None: nothing due), kept in the schedule. With
        `epoch` (the writer's lease epoch, `Leases.acquire`) the write is refused (Fenced) unless the writer still
        holds the room's lease in that epoch — checked inside the write, atomically."""
        ...

    async def read(self, room: str, after_index: int) -> list[Record]: ...

    async def save_snapshot(self, room: str, snapshot: RoomSnapshot) -> None: ...

    async def load_snapshot(self, room: str) -> RoomSnapshot | None: ...

    async def set_due(self, room: str, due_ms: int | None) -> None:
        """Keep the room's next timer in the schedule (None: nothing due)."""
        ...

    async def due_rooms(self, until_ms: int) -> list[str]:
        """Rooms with a timer due by `until_ms`: they are opened even when nobody joins them."""
        ...

    async def sync(self) -> None:
        """Write what is kept lazily (the embedded schedule after appends), every half second."""
        ...

    async def forget(self, room: str) -> None:
        """The room is closed on this node (unloaded): let go of what is held open for it."""
        ...

    async def rooms(self) -> list[str]:
        """Every room that has a log, sorted (the operator's listing, exports, retention)."""
        ...

    async def stat(self, room: str) -> RoomStat | None:
        """The room's size and last record (None: it has no log)."""
        ...

    async def restore(self, room: str, records: Sequence[Record]) -> None:
        """Write a whole log, records 1..n, into a room that has none (an import) in one go; LogConflict if it has
        one. The caller holds the room (its lease, or the embedded data directory's LOCK)."""
        ...

    async def delete(self, room: str) -> None:
        """Forget the room: its log, its snapshot, its schedule entry. The caller holds the room (its lease, or the
        embedded data directory's LOCK), so that no node has it open."""
        ...
