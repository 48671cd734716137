"""The message layer the example bots share (docs/bots.md §2, §6): one websocket, msgpack frames, answers matched to
requests by cid, pings answered, the room's last snapshot or view kept, retryable errors retried with the same cid.
Only the standard library, aiohttp and msgpack."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import aiohttp
import msgpack

PACE_S = 0.06  # the server takes 20 messages a second per connection: stay under it
RETRYABLE = ("unavailable", "outcome_unknown", "rate_limited")


class Seat:
    """One signed-in websocket and the room as this seat last saw it (`state` at `seq`)."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.cid = time.time_ns() // 1000 + random.randrange(1000)  # never reused by this seat, across runs too
        self.state: dict[str, Any] = {}
        self.seq = 0  # the room's sequence number that `state` is at
        self.answers: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.changed = asyncio.Event()

    async def read(self) -> None:
        """Run as a task of its own, so that pings are answered while the bot thinks."""
        async for frame in self.ws:
            if frame.type != aiohttp.WSMsgType.BINARY:
                continue
            msg = msgpack.unpackb(frame.data, raw=False)
            if msg["t"] == "ping":
                await self.ws.send_bytes(msgpack.packb({"t": "pong", "nonce": msg["nonce"], "cid": 0}))
            elif msg["t"] in ("snapshot", "view"):
                self.state, self.seq = msg["state"], msg["seq"]  # the room as we may see it; `ev`s are news
                self.changed.set()
            elif msg.get("cid") in self.answers:
                self.answers.pop(msg["cid"]).set_result(msg)
        self.changed.set()

    async def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Send with a new cid and wait for its answer; retry the retryable errors with the same cid."""
        self.cid += 1
        cid = self.cid
        for _ in range(20):
            await asyncio.sleep(PACE_S)
            answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
            self.answers[cid] = answer
            await self.ws.send_bytes(msgpack.packb({**msg, "cid": cid}))
            reply = await asyncio.wait_for(answer, 30)
            if reply["t"] != "error" or reply["code"] not in RETRYABLE:
                return reply
            print(f"{msg['t']} cid {cid}: {reply['code']}, retrying with the same cid")
            await asyncio.sleep((reply.get("retry_after_ms") or 500) / 1000)
        return reply

    async def next_change(self) -> None:
        """Wait for the next snapshot or view; fail if the server closed the connection."""
        self.changed.clear()
        await self.changed.wait()
        if self.ws.closed:
            raise ConnectionError("the server closed the connection")
