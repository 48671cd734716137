"""The room log on Redis: a Stream per room (record `n` has the entry id `n-0`), a snapshot key, and the schedule,
a sorted set room → next timer in service time (wall ms less the outages' total). A Lua script appends only the
next index and updates the schedule with it, so a node that lost its lease and still writes is refused
(LogConflict) instead of forking the log, and the schedule never lags the log. Given the writer's lease epoch, the
same script refuses the write (Fenced) unless the room's lease is still held in that epoch (issue 12 §10). The appends
of many rooms in the same moment go out in one pipeline (group commit, server/store/batch.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from redis.exceptions import NoScriptError, ResponseError

from server.store import keys
from server.store.batch import GroupCommit
from server.store.log import RoomStat
from server.store.records import Fenced, LogConflict, Record, RoomSnapshot

_APPEND = """
if ARGV[5] ~= '' then
  local cur = redis.call('GET', KEYS[3])
  if not cur or string.match(cur, ' (%d+)$') ~= ARGV[5] then return redis.error_reply('FENCED ' .. (cur or '-')) end
end
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local top = 0
if #last > 0 then top = tonumber(string.match(last[1][1], '^(%d+)')) end
if top + 1 ~= tonumber(ARGV[1]) then return redis.error_reply('CONFLICT ' .. top) end
redis.call('XADD', KEYS[1], ARGV[1] .. '-0', 'r', ARGV[2])
if ARGV[3] == '' then redis.call('ZREM', KEYS[2], ARGV[4]) else redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4]) end
return top + 1
"""


@dataclass(frozen=True, slots=True)
class _Append:
    room: str
    index: int
    epoch: int | None
    keys: list[str]
    args: list[Any]

    def refused(self, exc: Exception) -> Exception:
        """What the script's error reply means to the room."""
        if isinstance(exc, ResponseError) and "FENCED" in str(exc):
            return Fenced(f"{self.room}: record {self.index}: epoch {self.epoch} no longer holds the lease ({exc})")
        if isinstance(exc, ResponseError) and "CONFLICT" in str(exc):
            return LogConflict(f"{self.room}: record {self.index}: {exc}")
        return exc


PIPELINE_BYTES = 12 * 1024
"""Records per pipeline, by their bytes (see `RedisLog._pipeline`)."""
IN_FLIGHT = 16
"""Groups waiting for Redis at once (server/store/batch.py)."""


class RedisLog:
    def __init__(self, client: Any, prefix: str, *, down_ms: Callable[[], int], group_commit: bool = True):
        self.r = client
        self.prefix = prefix
        self.down_ms = down_ms
        self._append = client.register_script(_APPEND)
        self.commits = GroupCommit(self._flush, grouped=group_commit, in_flight=IN_FLIGHT)
        """Group commit (server/store/batch.py): the appends of many rooms in the same moment go in one pipeline,
        one round trip, each still its own run of the script. Off (--no-group-commit): a pipeline of one, a round
        trip, each."""

    async def append(self, room: str, record: Record, due_ms: int | None = None, *, epoch: int | None = None) -> None:
        append = _Append(room, record.index, epoch,
                         [keys.room_log(self.prefix, room), keys.schedule(self.prefix),
                          keys.room_lease(self.prefix, room)],
                         [record.index, record.pack(), "" if due_ms is None else due_ms - self.down_ms(), room,
                          "" if epoch is None else str(epoch)])
        await self.commits.write(append)

    async def _flush(self, appends: Sequence[_Append]) -> list[BaseException | None]:
        """One pipeline of EVALSHA (no MULTI: each run of the script is atomic on its own, and a room has one
        append at a time); the script is loaded once more and those appends sent again if Redis lost it (NOSCRIPT:
        they did not run)."""
        replies = await self._pipeline(appends)
        again = [i for i, reply in enumerate(replies) if isinstance(reply, NoScriptError)]
        if again:
            await self.r.script_load(_APPEND)
            for i, reply in zip(again, await self._pipeline([appends[i] for i in again]), strict=True):
                replies[i] = reply
        return [a.refused(reply) if isinstance(reply, Exception) else None
                for a, reply in zip(appends, replies, strict=True)]

    async def _pipeline(self, appends: Sequence[_Append]) -> list[Any]:
        """The appends in pipelines of about `PIPELINE_BYTES` each, sent at once on as many connections: Redis
        reads at most 16 KiB of one client per turn of its event loop, and with `appendfsync always` fsyncs at the
        end of every turn that wrote, so one large pipeline cost an fsync per 16 KiB (100 appends of 3 KB: half
        the appends/s of one round trip each), where pipelines on separate connections are all read in one turn."""
        chunks: list[list[_Append]] = [[]]
        size = 0
        for a in appends:
            if chunks[-1] and size + len(a.args[1]) > PIPELINE_BYTES:
                chunks.append([])
                size = 0
            chunks[-1].append(a)
            size += len(a.args[1])
        replies: list[Any] = []
        for part in await asyncio.gather(*(self._one_pipeline(chunk) for chunk in chunks)):
            replies += part
        return replies

    async def _one_pipeline(self, appends: Sequence[_Append]) -> list[Any]:
        async with self.r.pipeline(transaction=False) as pipe:
            for a in appends:
                pipe.evalsha(self._append.sha, len(a.keys), *a.keys, *a.args)
            replies: list[Any] = await pipe.execute(raise_on_error=False)
        return replies

    async def read(self, room: str, after_index: int) -> list[Record]:
        key = keys.room_log(self.prefix, room)
        out: list[Record] = []
        start = f"{after_index + 1}-0"
        while True:
            chunk = await self.r.xrange(key, min=start, max="+", count=1000)
            if not chunk:
                return out
            out += [Record.unpack(fields[b"r"]) for _, fields in chunk]
            start = "(" + chunk[-1][0].decode()

    async def save_snapshot(self, room: str, snapshot: RoomSnapshot) -> None:
        await self.r.set(keys.room_snapshot(self.prefix, room), snapshot.pack())

    async def load_snapshot(self, room: str) -> RoomSnapshot | None:
        raw = await self.r.get(keys.room_snapshot(self.prefix, room))
        return RoomSnapshot.unpack(raw) if raw else None

    async def set_due(self, room: str, due_ms: int | None) -> None:
        if due_ms is None:
            await self.r.zrem(keys.schedule(self.prefix), room)
        else:
            await self.r.zadd(keys.schedule(self.prefix), {room: due_ms - self.down_ms()})

    async def due_rooms(self, until_ms: int) -> list[str]:
        raw = await self.r.zrangebyscore(keys.schedule(self.prefix), "-inf", until_ms - self.down_ms())
        return [r.decode() for r in raw]

    async def sync(self) -> None:
        return None  # every write is whole when its command returns

    async def forget(self, room: str) -> None:
        return None

    async def rooms(self) -> list[str]:
        found = [keys.room_of_log(self.prefix, key.decode())
                 async for key in self.r.scan_iter(match=keys.room_logs(self.prefix), count=500)]
        return sorted(found)

    async def stat(self, room: str) -> RoomStat | None:
        log_key, snapshot_key = keys.room_log(self.prefix, room), keys.room_snapshot(self.prefix, room)
        async with self.r.pipeline(transaction=False) as pipe:
            pipe.xrevrange(log_key, "+", "-", count=1)
            pipe.memory_usage(log_key)
            pipe.memory_usage(snapshot_key)
            last, log_bytes, snapshot_bytes = await pipe.execute()
        if not last:
            return None
        record = Record.unpack(last[0][1][b"r"])
        return RoomStat(record.index, int(log_bytes or 0) + int(snapshot_bytes or 0), record.at_ms)

    async def restore(self, room: str, records: Sequence[Record]) -> None:
        key = keys.room_log(self.prefix, room)
        if await self.r.exists(key):
            raise LogConflict(f"{room}: has a log already")
        if [r.index for r in records] != list(range(1, len(records) + 1)):
            raise LogConflict(f"{room}: a restored log is records 1..n in order")
        for start in range(0, len(records), 500):
            async with self.r.pipeline(transaction=True) as pipe:
                for record in records[start:start + 500]:
                    pipe.xadd(key, {"r": record.pack()}, id=f"{record.index}-0")
                await pipe.execute()

    async def delete(self, room: str) -> None:
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.delete(keys.room_log(self.prefix, room), keys.room_snapshot(self.prefix, room),
                        keys.room_epoch(self.prefix, room))
            pipe.zrem(keys.schedule(self.prefix), room)
            pipe.zrem(keys.alive(self.prefix), room)
            await pipe.execute()
