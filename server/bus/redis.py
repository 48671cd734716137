"""The event bus on Redis pub/sub: events PUBLISHed as msgpack on `<prefix>:room:<id>:events`; every node with
followers of the room subscribes, the owner included, so all fan-out goes through the same path. Commands for a
room owned elsewhere go to its node on `<prefix>:node:<id>:commands`, answers on `...:replies`."""

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

from server.bus import CommandHandler, EventHandler, pack_events, unpack_events
from server.store import keys
from server.store.records import LoggedEvent

log = logging.getLogger(__name__)


def _pack(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)  # type: ignore[no-any-return]


def _unpack(raw: bytes) -> Any:
    return msgpack.unpackb(raw, raw=False, strict_map_key=False)


class RedisBus:
    """`EventBus` over Redis pub/sub: one subscriber connection per node, one listener task. It also relays
    commands to the node that owns a room (`<prefix>:node:<id>:commands`, answers on `...:replies`)."""

    def __init__(self, client: aioredis.Redis, prefix: str, *, owns_client: bool = False):
        self.r: Any = client
        self.prefix = prefix
        self.owns_client = owns_client
        """Closing the bus closes its client (its own, not the store's)."""
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
        return keys.room_events(self.prefix, room)

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
            except (aioredis.ConnectionError, aioredis.TimeoutError, OSError) as exc:
                # Redis went away (an outage the store's reach reports): the events are in the log, and followers
                # that miss them catch up from it (Feed.resync). A warning, not a traceback.
                log.warning("publishing %d rooms' events failed: %r; followers catch up from the log",
                            len(outbox), exc)
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
        failures = 0
        while True:
            try:
                # timeout=None blocks on the socket: no timeout context and timer per message (6 us each)
                message = await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=None)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis down: the subscriber reconnects (and subscribes again) with back-off
                if failures == 0:
                    log.warning("redis pub/sub listener lost Redis (%r); reconnecting with back-off", exc)
                failures += 1
                await asyncio.sleep(min(5.0, 0.25 * 2 ** min(failures, 5)))
                continue
            if failures:
                log.warning("redis pub/sub listener reconnected after %d tries", failures)
                failures = 0
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

        await self._route(keys.node_commands(self.prefix, node), on_command)
        await self._route(keys.node_replies(self.prefix, node), on_reply)

    async def _answer(self, request: Mapping[str, Any], handler: CommandHandler) -> None:
        reply = await handler(request)
        await self.r.publish(keys.node_replies(self.prefix, str(request["from"])),
                             _pack({**reply, "id": request["id"]}))

    async def forward(self, node: str, request: Mapping[str, Any], timeout_s: float = 5.0) -> dict[str, Any]:
        if self._node is None:
            raise LookupError("this node does not relay commands")
        rid = secrets.token_hex(8)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[rid] = future
        try:
            receivers = await self.r.publish(keys.node_commands(self.prefix, node),
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
        if self.owns_client:
            with contextlib.suppress(Exception):
                await self.r.aclose()
        self._handlers.clear()
        self._routes.clear()
