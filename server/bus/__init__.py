"""The event bus: a room's events fanned out to every node (and on each node to the room's local feed), and
commands forwarded to the node that owns a room. Two implementations: in-process (local.py, the embedded
default) and Redis pub/sub (redis.py). Events travel as records.py's `LoggedEvent`s, packed once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol

from server.store.records import LoggedEvent, unpacker_of
from shared.protocol.codec import pack, pack_array_header

EventHandler = Callable[[str, Sequence[LoggedEvent]], None]
CommandHandler = Callable[[Mapping[str, Any]], Awaitable[dict[str, Any]]]


class EventBus(Protocol):
    """Fan-out of room events to every node (and, on each node, to the room's local feed)."""

    async def publish(self, room: str, events: Sequence[LoggedEvent]) -> None: ...

    async def subscribe(self, room: str, handler: EventHandler) -> None: ...

    async def unsubscribe(self, room: str, handler: EventHandler) -> None: ...

    async def serve(self, node: str, handler: CommandHandler) -> None:
        """Take commands other nodes forward to rooms this node owns."""
        ...

    async def forward(self, node: str, request: Mapping[str, Any], timeout_s: float = 5.0) -> dict[str, Any]:
        """Run a command on the node that owns its room; LookupError when it cannot be reached."""
        ...

    async def close(self) -> None: ...


def pack_events(room: str, events: Sequence[LoggedEvent]) -> bytes:
    """The pub/sub payload: msgpack `{"room": id, "events": [[seq, at_ms, kind, data, audience], ...]}`."""
    return (b"\x82" + pack("room") + pack(room) + pack("events") + pack_array_header(len(events))
            + b"".join([e.packed() for e in events]))


def unpack_events(raw: bytes) -> tuple[str, list[LoggedEvent]]:
    unpacker = unpacker_of(raw)
    room, events = None, None
    for _ in range(unpacker.read_map_header()):
        key = unpacker.unpack()
        if key == "events":
            events = [LoggedEvent.read(unpacker, raw) for _ in range(unpacker.read_array_header())]
        else:
            value = unpacker.unpack()
            room = str(value) if key == "room" else room
    if room is None or events is None:
        raise ValueError("a bus payload is {room, events}")
    return room, events
