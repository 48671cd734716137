"""Durable state behind four small interfaces, each with an embedded (files under a data directory, one process)
and a Redis implementation: the room log (log.py), ownership and liveness (leases.py), campaigns and their token
grants (grants.py), and who is connected (presence.py). The formats are records.py's; Redis key names keys.py's."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

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
    ping: Callable[[], Awaitable[object]] | None = None
    """Ask the store whether it answers (Redis: PING); None: it always does (the embedded files)."""


def unreachable(exc: BaseException) -> bool:
    """Whether `exc` says the store could not be reached (Redis down, a connection lost or timed out) rather than
    a bug: such a failure is answered with a retryable error (`unavailable`), never `internal`."""
    return isinstance(exc, RedisConnectionError | RedisTimeoutError | ConnectionError | TimeoutError)


__all__ = ["Grants", "Leases", "Presence", "RoomLog", "Store", "unreachable"]
