"""A test client speaking the wire protocol over a real websocket (msgpack by default, JSON on request)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import weakref
from typing import Any, ClassVar

import aiohttp
import msgpack

ANSWERS = ("ack", "error", "welcome", "joined", "options")
"""The messages that answer a client's message (echoing its cid)."""


class Client:
    unclosed: ClassVar[weakref.WeakSet[Client]] = weakref.WeakSet()
    """Clients connected and not yet closed: tests/conftest.py closes those an async test left open. Weakly held:
    one nobody closes is collected, and warned of, as it always was."""

    def __init__(self, ws_url: str, *, use_json: bool = False, pong_delay: float = 0.0,
                 headers: dict[str, str] | None = None):
        self.ws_url = ws_url
        self.headers = headers
        self.pong_delay = pong_delay
        self._pongs: set[asyncio.Task[None]] = set()
        self.use_json = use_json
        self.cid = random.randrange(1, 2**40)  # a seat's cids stay unique across its connections (exactly once)
        self.http: aiohttp.ClientSession | None = None
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.inbox: list[dict[str, Any]] = []
        self.last_seq: dict[str, int] = {}
        self.welcome: dict[str, Any] = {}
        self._reader: asyncio.Task[None] | None = None
        self._arrived = asyncio.Event()
        self.closed_code: int | None = None
        self.frames = {"binary": 0, "text": 0}
        self.loop: asyncio.AbstractEventLoop | None = None

    async def connect(self) -> Client:
        self.loop = asyncio.get_running_loop()
        self.http = aiohttp.ClientSession()
        Client.unclosed.add(self)  # before the handshake: a refused one leaves the session open too
        self.ws = await self.http.ws_connect(self.ws_url, autoping=True, max_msg_size=0, headers=self.headers)
        self._reader = asyncio.create_task(self._read())
        return self

    async def _read(self) -> None:
        assert self.ws is not None
        async for msg in self.ws:
            if msg.type == aiohttp.WSMsgType.BINARY:
                obj = msgpack.unpackb(msg.data, raw=False)
                self.frames["binary"] += 1
            elif msg.type == aiohttp.WSMsgType.TEXT:
                obj = json.loads(msg.data)
                self.frames["text"] += 1
            else:
                break
            if obj.get("t") == "ping":
                task = asyncio.create_task(self._pong(obj["nonce"]))
                self._pongs.add(task)
                task.add_done_callback(self._pongs.discard)
                continue
            if obj.get("t") == "ev" or obj.get("t") == "snapshot":
                self.last_seq[obj["room"]] = obj["seq"]
            self.inbox.append(obj)
            self._arrived.set()
        self.closed_code = self.ws.close_code
        self._arrived.set()

    async def _pong(self, nonce: int) -> None:
        if self.pong_delay:
            await asyncio.sleep(self.pong_delay)
        with contextlib.suppress(ConnectionError, RuntimeError):
            await self.send_raw({"t": "pong", "cid": self._next(), "nonce": nonce})

    def _next(self) -> int:
        self.cid += 1
        return self.cid

    async def send_raw(self, obj: Any) -> None:
        assert self.ws is not None
        if self.use_json:
            await self.ws.send_str(json.dumps(obj))
        else:
            await self.ws.send_bytes(msgpack.packb(obj, use_bin_type=True))

    async def request(self, obj: dict[str, Any], within: float = 5) -> dict[str, Any]:
        """Send with a fresh cid; return the ack/error/welcome/joined/options that echoes it."""
        cid = self._next()
        await self.send_raw({**obj, "cid": cid})
        return await self.wait(lambda m: m.get("cid") == cid and m["t"] in ANSWERS, within)

    async def request_patiently(self, obj: dict[str, Any], within: float = 5) -> dict[str, Any]:
        """`request`, as a well-behaved client: a message refused as `rate_limited` (not read by the server) is sent
        again with its cid after the `retry_after_ms` the refusal gives."""
        cid = self._next()
        while True:
            await self.send_raw({**obj, "cid": cid})
            reply = await self.wait(lambda m: m.get("cid") == cid and m["t"] in ANSWERS, within)
            if reply["t"] != "error" or reply["code"] != "rate_limited":
                return reply
            await asyncio.sleep(reply["retry_after_ms"] / 1000)

    async def wait(self, pred: Any, within: float = 5) -> dict[str, Any]:
        async def scan() -> dict[str, Any]:
            seen = 0
            while True:
                for i in range(seen, len(self.inbox)):
                    if pred(self.inbox[i]):
                        return self.inbox.pop(i)
                seen = len(self.inbox)
                if self.closed_code is not None:
                    raise ConnectionError(f"closed with {self.closed_code}")
                self._arrived.clear()
                await self._arrived.wait()

        return await asyncio.wait_for(scan(), within)

    async def event(self, kind: str, within: float = 5, **match: Any) -> dict[str, Any]:
        return await self.wait(lambda m: m["t"] == "ev" and m["kind"] == kind
                               and all(m["data"].get(k) == v for k, v in match.items()), within)

    def events(self, room: str | None = None) -> list[dict[str, Any]]:
        return [m for m in self.inbox if m["t"] == "ev" and (room is None or m["room"] == room)]

    async def hello(self, token: str) -> dict[str, Any]:
        reply = await self.request({"t": "hello", "token": token})
        if reply["t"] == "welcome":
            self.welcome = reply
        return reply

    async def join(self, room: str, since: int | None = None) -> dict[str, Any]:
        msg: dict[str, Any] = {"t": "join", "room": room}
        if since is not None:
            msg["since"] = since
        return await self.request(msg)

    async def wait_closed(self, within: float = 5) -> int | None:
        assert self._reader is not None
        await asyncio.wait_for(asyncio.shield(self._reader), within)
        return self.closed_code

    async def close(self) -> None:
        for task in list(self._pongs):
            task.cancel()
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        if self.http is not None:
            await self.http.close()
        Client.unclosed.discard(self)


async def signed_in(ws_url: str, token: str, room: str | None = None, **kw: Any) -> Client:
    client = await Client(ws_url, **kw).connect()
    welcome = await client.hello(token)
    assert welcome["t"] == "welcome", welcome
    if room:
        joined = await client.join(room)
        assert joined["t"] == "joined", joined
    return client


async def join_when_spawned(client: Client, room: str, tries: int = 200) -> None:
    """A battle room is spawned just after `battle_started` is committed: join it as soon as it exists."""
    for _ in range(tries):
        joined = await client.join(room)
        if joined["t"] == "joined":
            return
        assert joined["code"] == "no_such_room", joined
        await asyncio.sleep(0.05)
    raise AssertionError(f"{room} never appeared")
