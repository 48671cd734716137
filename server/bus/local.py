"""The event bus inside one process (the embedded default): publish calls the room's handlers directly (no copy,
no encoding), and nothing is ever forwarded: one process owns every room."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from server.bus import CommandHandler, EventHandler
from server.store.records import LoggedEvent


class LocalBus:
    """`EventBus` inside one process: publish calls the room's handlers directly (no copy, no encoding)."""

    def __init__(self) -> None:
        self._handlers: dict[str, list[EventHandler]] = defaultdict(list)

    async def publish(self, room: str, events: Sequence[LoggedEvent]) -> None:
        for handler in list(self._handlers.get(room, ())):
            handler(room, events)

    async def subscribe(self, room: str, handler: EventHandler) -> None:
        self._handlers[room].append(handler)

    async def unsubscribe(self, room: str, handler: EventHandler) -> None:
        handlers = self._handlers.get(room)
        if handlers and handler in handlers:
            handlers.remove(handler)
            if not handlers:
                del self._handlers[room]

    async def serve(self, node: str, handler: CommandHandler) -> None:
        return None  # one process owns every room: nothing is ever forwarded

    async def forward(self, node: str, request: Mapping[str, Any], timeout_s: float = 5.0) -> dict[str, Any]:
        raise LookupError("the embedded bus has no other nodes")

    async def close(self) -> None:
        self._handlers.clear()
