"""Durable state behind four small interfaces, each with an embedded (files under a data directory, one process)
and a Redis implementation: the room log (log.py), ownership and liveness (leases.py), campaigns and their token
grants (grants.py), and who is connected (presence.py). The formats are records.py's; Redis key names keys.py's."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from server.store.grants import Grants
from server.store.leases import Leases
from server.store.log import RoomLog
from server.store.presence import Presence


@dataclass(frozen=True, slots=True)
class Store:
    log: RoomLog
    leases: Leases
    grants: Grants
    presence: Presence
    close: Callable[[], Awaitable[None]]
    """Let go of the files or the connection (the embedded data directory's lock with them)."""


__all__ = ["Grants", "Leases", "Presence", "RoomLog", "Store"]
