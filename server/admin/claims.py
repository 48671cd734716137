"""Exclusive use of a campaign's rooms while an operator's command writes them (import, archive, delete): each
room's lease is taken under the command's own node name, so no server opens the room meanwhile, and a room a
server has open (its lease held) is refused with the node named. Under the embedded store the data directory's
LOCK already keeps the server out; the server's own retention also holds its rooms' opening locks and skips the
rooms it has open (`local`)."""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any, Protocol

from server.admin.errors import AdminError
from server.store import Store

ADMIN_LEASE_MS = 60_000
"""Long enough for one room's writes; renewed between rooms. A command that dies lets go within a minute."""


def admin_node() -> str:
    """The node name an operator's command holds leases under (a server asked for such a room names it)."""
    return f"admin-{socket.gethostname()}-{os.getpid()}"


class LocalRooms(Protocol):
    """The rooms of the server process the command runs in (server/rooms/ownership.py)."""

    @property
    def rooms(self) -> Mapping[str, Any]: ...

    def opening(self, room_id: str) -> contextlib.AbstractAsyncContextManager[None]: ...


class Claim:
    """`async with Claim(store, node, rooms):` the rooms are this command's until the block ends."""

    def __init__(self, store: Store, node: str, rooms: Sequence[str], *, local: LocalRooms | None = None):
        self.store, self.node, self.rooms, self.local = store, node, list(rooms), local
        self._held: list[str] = []
        self._locks = contextlib.AsyncExitStack()

    async def __aenter__(self) -> Claim:
        try:
            for room in self.rooms:
                if self.local is not None:
                    await self._locks.enter_async_context(self.local.opening(room))
                    if room in self.local.rooms:
                        raise AdminError(f"room {room} is open on this node: it is taken when it is idle")
                if not await self.store.leases.acquire(room, self.node, ADMIN_LEASE_MS):
                    holder = await self.store.leases.holder(room)
                    raise AdminError(f"room {room} is open on node {holder}: try again when it is idle (a room "
                                     f"nobody uses is unloaded after --room-idle-s), or stop that node")
                self._held.append(room)
        except BaseException:
            await self._let_go()
            raise
        return self

    async def renew(self) -> None:
        for room in self._held:
            await self.store.leases.acquire(room, self.node, ADMIN_LEASE_MS)

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self._let_go()

    async def _let_go(self) -> None:
        held, self._held = self._held, []
        for room in held:
            with contextlib.suppress(Exception):
                await self.store.leases.release(room, self.node)
        await self._locks.aclose()
