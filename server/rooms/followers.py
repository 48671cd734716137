"""Rooms owned elsewhere, as this node follows them: one read-only copy (mirror) of each, built from the snapshot
once and then advanced from the log after the last record it has; joins, sign-ins, the lobby and the views for the
sessions here read it instead of rebuilding the room each time. A copy is kept while the room is followed here, or
used within `FOLLOWER_IDLE_MS`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from server.rooms import views
from server.rooms.feed import Feed
from server.rooms.room import Room, RoomServices

log = logging.getLogger(__name__)

MIRROR_TRIES = 100
FOLLOWER_IDLE_MS = 30_000


class Followers:
    def __init__(self, services: RoomServices, *, owned_here: Callable[[str], bool]):
        self.services = services
        self.owned_here = owned_here
        self.mirrors: dict[str, Room] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._used: dict[str, int] = {}  # room -> when its copy was last used
        self._mirroring: dict[str, asyncio.Task[None]] = {}

    async def copy(self, room_id: str) -> Room | None:
        """This node's read-only copy of a room owned elsewhere, up to date with the log."""
        self._used[room_id] = self.services.now()
        async with self._locks.setdefault(room_id, asyncio.Lock()):
            copy = self.mirrors.get(room_id)
            if copy is None:
                copy = await Room.open(room_id, self.services, owner=False)
                if copy is None:
                    return None
                if not self.owned_here(room_id):
                    self.mirrors[room_id] = copy
            else:
                copy.advance(await self.services.store.log.read(room_id, copy.index))
            return copy

    def forget(self, room_id: str) -> None:
        """The room is owned here now: its own copy serves."""
        self.mirrors.pop(room_id, None)

    def drop_idle(self, feeds: dict[str, Feed]) -> None:
        idle = self.services.now() - FOLLOWER_IDLE_MS
        for room_id, used in list(self._used.items()):
            if used < idle and room_id not in feeds:
                del self._used[room_id]
                self.mirrors.pop(room_id, None)
                self._locks.pop(room_id, None)

    def follow(self, feed: Feed) -> None:
        """A batch arrived for a room owned elsewhere: bring its mirror up to date from the log, then post views."""
        if self.owned_here(feed.room) or not feed.subs:
            return
        task = self._mirroring.get(feed.room)
        if task is None or task.done():
            self._mirroring[feed.room] = asyncio.get_running_loop().create_task(self._mirror(feed))

    async def _mirror(self, feed: Feed) -> None:
        room_id = feed.room
        posted = -1
        try:
            for _ in range(MIRROR_TRIES):
                if not feed.subs or self.owned_here(room_id):
                    return
                target = feed.seen or 0
                mirror = self.mirrors.get(room_id)
                if mirror is None or mirror.seq < target:
                    mirror = await self.copy(room_id)
                    if mirror is None:
                        return
                if mirror.seq > posted:
                    views.post(feed, mirror, mirror.seq, mirror.last_at)
                    posted = mirror.seq
                if mirror.seq >= (feed.seen or 0):
                    return
                await asyncio.sleep(0.05)  # the log is a moment behind the bus: look again
        except Exception:
            log.exception("room %s: following its log for views failed", room_id)

    async def close(self) -> None:
        for task in self._mirroring.values():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
