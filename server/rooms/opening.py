"""A lock per room id for opening that room, held in a table only while somebody holds or waits for it (issue 12
§12, §14): asking about rooms that do not exist leaves nothing behind."""

from __future__ import annotations

import asyncio


class Held:
    __slots__ = ("lock", "users")

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.users = 0


class OpeningLock:
    """`async with` a room's opening lock, kept in `table` only while someone holds or waits for it: asking about
    rooms that do not exist leaves nothing behind (issue 12 §12, §14: the locks of every room id ever asked about
    were kept for ever)."""

    __slots__ = ("room", "table")

    def __init__(self, table: dict[str, Held], room: str):
        self.table, self.room = table, room

    def locked(self) -> bool:
        held = self.table.get(self.room)
        return held is not None and held.lock.locked()

    async def __aenter__(self) -> None:
        held = self.table.get(self.room)
        if held is None:
            held = self.table[self.room] = Held()
        held.users += 1
        try:
            await held.lock.acquire()
        except BaseException:
            self._leave(held)
            raise

    async def __aexit__(self, *exc: object) -> None:
        held = self.table[self.room]
        held.lock.release()
        self._leave(held)

    def _leave(self, held: Held) -> None:
        held.users -= 1
        if held.users == 0 and self.table.get(self.room) is held:
            del self.table[self.room]
