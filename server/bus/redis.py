"""Store and event bus on Redis (REDIS_URL). Key and channel names come from server/bus/names.py.

- A room's log is a Stream; record `n` has the entry id `n-0`. A Lua script appends only the next index, so a node
  that lost its lease and still writes is refused (LogConflict) instead of forking the log.
- Snapshots, last-alive marks, campaigns and token grants (sha256 only) are plain keys and hashes.
- Room ownership is a lease: `SET <lease> <node> NX PX <ttl>`, renewed by its holder, released compare-and-delete.
- Events are PUBLISHed as msgpack on `<prefix>:room:<id>:events`; every node with followers of the room
  subscribes, the owner included, so all fan-out goes through the same path.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgpack
import redis.asyncio as aioredis
from redis.exceptions import ResponseError

from server.bus import names
from server.bus.base import (
    CommandHandler,
    EventHandler,
    LogConflict,
    LoggedEvent,
    Record,
    RoomSnapshot,
    pack_events,
    unpack_events,
)

log = logging.getLogger(__name__)

_APPEND = """
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local top = 0
if #last > 0 then top = tonumber(string.match(last[1][1], '^(%d+)')) end
if top + 1 ~= tonumber(ARGV[1]) then return redis.error_reply('CONFLICT ' .. top) end
redis.call('XADD', KEYS[1], ARGV[1] .. '-0', 'r', ARGV[2])
if ARGV[3] == '' then redis.call('ZREM', KEYS[2], ARGV[4]) else redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4]) end
return top + 1
"""

_OUTAGE = """
local last = tonumber(redis.call('GET', KEYS[1]))
if last and tonumber(ARGV[1]) - last > tonumber(ARGV[2]) then
  redis.call('RPUSH', KEYS[2], ARGV[3])
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', last)
end
redis.call('SET', KEYS[1], ARGV[1])
return 0
"""

_ACQUIRE = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
return 0
"""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def _pack(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)  # type: ignore[no-any-return]


def _unpack(raw: bytes) -> Any:
    return msgpack.unpackb(raw, raw=False, strict_map_key=False)


class RedisStore:
    def __init__(self, client: aioredis.Redis, prefix: str):
        self.r: Any = client  # redis-py's return types are unions of bytes/str/awaitables; we use bytes replies
        self.prefix = prefix
        self._append = client.register_script(_APPEND)
        self._acquire = client.register_script(_ACQUIRE)
        self._release = client.register_script(_RELEASE)
        self._outage = client.register_script(_OUTAGE)
        self._down = 0  # the service's outages so far, ms: schedule scores are wall time less this

    async def append(self, room: str, record: Record, due_ms: int | None = None) -> None:
        """The record and the room's next due time in one script: the schedule never lags the log."""
        try:
            await self._append(keys=[names.room_log(self.prefix, room), names.schedule(self.prefix)],
                               args=[record.index, record.pack(), "" if due_ms is None else due_ms - self._down,
                                     room])
        except ResponseError as exc:
            if "CONFLICT" in str(exc):
                raise LogConflict(f"{room}: record {record.index}: {exc}") from None
            raise

    async def read_log(self, room: str, after_index: int) -> list[Record]:
        key = names.room_log(self.prefix, room)
        out: list[Record] = []
        start = f"{after_index + 1}-0"
        while True:
            chunk = await self.r.xrange(key, min=start, max="+", count=1000)
            if not chunk:
                return out
            out += [Record.unpack(fields[b"r"]) for _, fields in chunk]
            start = "(" + chunk[-1][0].decode()

    async def save_snapshot(self, room: str, snapshot: RoomSnapshot) -> None:
        await self.r.set(names.room_snapshot(self.prefix, room), snapshot.pack())

    async def load_snapshot(self, room: str) -> RoomSnapshot | None:
        raw = await self.r.get(names.room_snapshot(self.prefix, room))
        return RoomSnapshot.unpack(raw) if raw else None

    async def mark_alive(self, rooms: Sequence[str], now_ms: int) -> None:
        async with self.r.pipeline(transaction=False) as pipe:
            pipe.set(names.service_alive(self.prefix), now_ms)
            if rooms:
                pipe.zadd(names.alive(self.prefix), {room: now_ms for room in rooms})
            await pipe.execute()

    async def last_alive(self, room: str) -> int | None:
        raw = await self.r.zscore(names.alive(self.prefix), room)
        return int(raw) if raw is not None else None

    async def orphans(self, before_ms: int) -> list[str]:
        raw = await self.r.zrangebyscore(names.alive(self.prefix), "-inf", before_ms)
        return [r.decode() for r in raw]

    async def record_outage(self, now_ms: int, gap_ms: int) -> None:
        """Atomic, so that nodes starting together record one outage; the marks of the rooms owned when the
        service stopped are dropped (the outage covers them)."""
        last = await self.r.get(names.service_alive(self.prefix))
        await self._outage(keys=[names.service_alive(self.prefix), names.outages(self.prefix),
                                 names.alive(self.prefix)],
                           args=[now_ms, gap_ms, _pack([int(last or 0), now_ms])])
        self._down = sum(b - a for a, b in await self.outages(0))

    async def outages(self, after_ms: int) -> list[tuple[int, int]]:
        raw = await self.r.lrange(names.outages(self.prefix), 0, -1)
        return [(int(a), int(b)) for a, b in map(_unpack, raw) if int(b) > after_ms]

    async def set_due(self, room: str, due_ms: int | None) -> None:
        if due_ms is None:
            await self.r.zrem(names.schedule(self.prefix), room)
        else:
            await self.r.zadd(names.schedule(self.prefix), {room: due_ms - self._down})

    async def due_rooms(self, until_ms: int) -> list[str]:
        raw = await self.r.zrangebyscore(names.schedule(self.prefix), "-inf", until_ms - self._down)
        return [r.decode() for r in raw]

    async def put_campaign(self, campaign: Mapping[str, Any], grants: Mapping[str, Mapping[str, Any]]) -> None:
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.hset(names.campaigns(self.prefix), str(campaign["id"]), _pack(dict(campaign)))
            for digest, grant in grants.items():
                pipe.hset(names.tokens(self.prefix), digest, _pack(dict(grant)))
            await pipe.execute()

    async def get_campaign(self, campaign_id: str) -> dict[str, Any] | None:
        raw = await self.r.hget(names.campaigns(self.prefix), campaign_id)
        return dict(_unpack(raw)) if raw else None

    async def list_campaigns(self) -> list[dict[str, Any]]:
        raw = await self.r.hgetall(names.campaigns(self.prefix))
        return [dict(_unpack(v)) for v in raw.values()]

    async def find_grant(self, token_hash: str) -> dict[str, Any] | None:
        raw = await self.r.hget(names.tokens(self.prefix), token_hash)
        return dict(_unpack(raw)) if raw else None

    async def replace_grant(self, campaign_id: str, player: str, token_hash: str, grant: Mapping[str, Any]) -> None:
        key = names.tokens(self.prefix)
        stale = []
        async for digest, raw in self.r.hscan_iter(key, count=500):
            old = _unpack(raw)
            if old.get("campaign") == campaign_id and old.get("player") == player:
                stale.append(digest)
        async with self.r.pipeline(transaction=True) as pipe:
            if stale:
                pipe.hdel(key, *stale)
            pipe.hset(key, token_hash, _pack(dict(grant)))
            await pipe.execute()

    async def acquire_lease(self, room: str, node: str, ttl_ms: int) -> bool:
        return bool(await self._acquire(keys=[names.room_lease(self.prefix, room)], args=[node, ttl_ms]))

    async def release_lease(self, room: str, node: str) -> None:
        if await self._release(keys=[names.room_lease(self.prefix, room)], args=[node]):
            await self.r.zrem(names.alive(self.prefix), room)

    async def lease_holder(self, room: str) -> str | None:
        raw = await self.r.get(names.room_lease(self.prefix, room))
        return raw.decode() if raw else None

    async def report_presence(self, node: str, counts: Mapping[str, Mapping[str, int]], ttl_ms: int) -> None:
        await self.r.set(names.presence(self.prefix, node), _pack({k: dict(v) for k, v in counts.items()}),
                         px=ttl_ms)

    async def presence(self, exclude: str | None = None) -> dict[str, dict[str, int]]:
        total: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        skip = names.presence(self.prefix, exclude).encode() if exclude is not None else None
        async for key in self.r.scan_iter(match=names.presence_pattern(self.prefix), count=100):
            if key == skip:
                continue
            raw = await self.r.get(key)
            if not raw:
                continue
            for room, by_role in _unpack(raw).items():
                for role, n in by_role.items():
                    total[room][role] += int(n)
        return {room: dict(c) for room, c in total.items()}

    async def claim_seat(self, campaign: str, player: str, session: str) -> str | None:
        previous = await self.r.set(names.seat(self.prefix, campaign, player), session, get=True)
        return previous.decode() if previous else None

    async def release_seat(self, campaign: str, player: str, session: str) -> None:
        await self._release(keys=[names.seat(self.prefix, campaign, player)], args=[session])

    async def close(self) -> None:
        await self.r.aclose()


class RedisBus:
    """`EventBus` over Redis pub/sub: one subscriber connection per node, one listener task. It also relays
    commands to the node that owns a room (`<prefix>:node:<id>:commands`, answers on `...:replies`)."""

    def __init__(self, client: aioredis.Redis, prefix: str):
        self.r: Any = client
        self.prefix = prefix
        self._pubsub: Any = client.pubsub()
        self._handlers: dict[str, list[EventHandler]] = defaultdict(list)
        self._routes: dict[str, Callable[[bytes], None]] = {}
        self._listener: asyncio.Task[None] | None = None
        self._node: str | None = None
        self._waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._serving: set[asyncio.Task[None]] = set()
        self._outbox: dict[str, list[LoggedEvent]] = {}
        self._outbox_ready = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._flusher: asyncio.Task[None] | None = None
        self.published = 0

    def channel(self, room: str) -> str:
        return names.room_events(self.prefix, room)

    async def _route(self, channel: str, handler: Callable[[bytes], None]) -> None:
        self._routes[channel] = handler
        await self._pubsub.subscribe(channel)
        if self._listener is None:
            self._listener = asyncio.create_task(self._listen())

    async def publish(self, room: str, events: Sequence[LoggedEvent]) -> None:
        """Queue the events; one flusher sends, per loop tick, one message per room in one pipeline (in order).
        The events are already durable, so a lost publish is a gap the followers catch up from the log."""
        pending = self._outbox.get(room)
        if pending is None:
            self._outbox[room] = list(events)
        else:
            pending.extend(events)
        self._outbox_ready.set()
        self._idle.clear()
        if self._flusher is None:
            self._flusher = asyncio.create_task(self._flush_loop())

    async def _flush_loop(self) -> None:
        while True:
            await self._outbox_ready.wait()
            await asyncio.sleep(0)  # let this tick's other publishes join the batch
            self._outbox_ready.clear()
            outbox, self._outbox = self._outbox, {}
            try:
                async with self.r.pipeline(transaction=False) as pipe:
                    for room, events in outbox.items():
                        pipe.publish(self.channel(room), pack_events(room, events))
                    await pipe.execute()
                self.published += len(outbox)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("publishing %d rooms' events failed", len(outbox))
            if not self._outbox:
                self._idle.set()

    async def flush(self) -> None:
        """Wait until everything queued so far has been handed to Redis."""
        await self._idle.wait()

    async def subscribe(self, room: str, handler: EventHandler) -> None:
        first = room not in self._handlers
        self._handlers[room].append(handler)
        if first:
            await self._route(self.channel(room), self._on_events)

    async def unsubscribe(self, room: str, handler: EventHandler) -> None:
        handlers = self._handlers.get(room)
        if handlers and handler in handlers:
            handlers.remove(handler)
            if not handlers:
                del self._handlers[room]
                self._routes.pop(self.channel(room), None)
                await self._pubsub.unsubscribe(self.channel(room))

    def _on_events(self, data: bytes) -> None:
        room, events = unpack_events(data)
        for handler in list(self._handlers.get(room, ())):
            try:
                handler(room, events)
            except Exception:
                log.exception("feed of %s failed", room)

    async def _listen(self) -> None:
        while True:
            try:
                # timeout=None blocks on the socket: no timeout context and timer per message (6 us each)
                message = await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=None)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("redis pub/sub listener")
                await asyncio.sleep(0.5)
                continue
            if message is None or message.get("type") != "message":
                continue
            route = self._routes.get(message["channel"].decode())
            if route is None:
                continue
            try:
                route(message["data"])
            except Exception:
                log.exception("message on %s", message["channel"])

    # --- command relay -----------------------------------------------------------------------------------------

    async def serve(self, node: str, handler: CommandHandler) -> None:
        """Answer commands other nodes forward to this node (it owns the room)."""
        self._node = node

        def on_command(data: bytes) -> None:
            request = _unpack(data)
            task = asyncio.get_running_loop().create_task(self._answer(request, handler))
            self._serving.add(task)
            task.add_done_callback(self._serving.discard)

        def on_reply(data: bytes) -> None:
            reply = _unpack(data)
            future = self._waiting.pop(str(reply.get("id")), None)
            if future is not None and not future.done():
                future.set_result(reply)

        await self._route(names.node_commands(self.prefix, node), on_command)
        await self._route(names.node_replies(self.prefix, node), on_reply)

    async def _answer(self, request: Mapping[str, Any], handler: CommandHandler) -> None:
        reply = await handler(request)
        await self.r.publish(names.node_replies(self.prefix, str(request["from"])),
                             _pack({**reply, "id": request["id"]}))

    async def forward(self, node: str, request: Mapping[str, Any], timeout_s: float = 5.0) -> dict[str, Any]:
        if self._node is None:
            raise LookupError("this node does not relay commands")
        rid = secrets.token_hex(8)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[rid] = future
        try:
            receivers = await self.r.publish(names.node_commands(self.prefix, node),
                                             _pack({**request, "id": rid, "from": self._node}))
            if not receivers:
                raise LookupError(f"node {node} is not listening")
            return await asyncio.wait_for(future, timeout_s)
        finally:
            self._waiting.pop(rid, None)

    async def close(self) -> None:
        if self._outbox:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.flush(), 2)
        for task in [self._listener, self._flusher, *self._serving]:
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        with contextlib.suppress(Exception):
            await self._pubsub.aclose()
        self._handlers.clear()
        self._routes.clear()


async def open_redis(url: str, prefix: str) -> tuple[RedisStore, RedisBus]:
    client = aioredis.Redis.from_url(url)
    await client.ping()
    return RedisStore(client, prefix), RedisBus(client, prefix)
