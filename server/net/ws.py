"""The /ws endpoint: one session per websocket, its read loop (frames to the session, a burst of them handled
within a turn budget), the `hello` deadline, and the session's end."""

from __future__ import annotations

import asyncio
import contextlib
import time

from aiohttp import WSMsgType, web

from server.net.flow import CLOSE_NO_HELLO
from server.net.node import NODE
from server.net.session import Session
from server.net.sockets import bound_send_buffer

TURN_BUDGET_S = 0.002
"""A client's frames already read are handled one after another for up to this long before the others get the
loop: a burst of orders costs one turn (and one write per watching socket, server/net/outbox.py), not one each."""


async def websocket(request: web.Request) -> web.StreamResponse:
    node = request.app[NODE]
    address = node.flood.address(request)
    refused = node.flood.connect(address)  # issue 12 §13: a cap on the sockets one address holds
    if refused is not None:
        return refused
    try:
        return await _serve(request, address)
    finally:
        node.flood.disconnect(address)


async def _serve(request: web.Request, address: str | None) -> web.WebSocketResponse:
    node = request.app[NODE]
    s = node.settings
    ws = web.WebSocketResponse(heartbeat=s.heartbeat_s, max_msg_size=s.max_frame_bytes, compress=False)
    await ws.prepare(request)
    bound_send_buffer(request.transport, s.socket_send_buffer_bytes)
    session = Session(ws, node.hub, s, node.outbox, node.metrics, request.transport, flood=node.flood,
                      address=address)
    node.sessions.add(session)
    node.metrics.connections += 1
    node.metrics.connections_total += 1
    pinger = asyncio.create_task(session.pinger())

    def no_hello() -> None:
        if session.member is None:
            session.close(CLOSE_NO_HELLO, "no hello")

    timeout = asyncio.get_running_loop().call_later(s.hello_timeout_s, no_hello)
    turn_began = time.monotonic()
    try:
        async for msg in ws:
            if msg.type == WSMsgType.BINARY or msg.type == WSMsgType.TEXT:
                await session.on_frame(msg.data)
                if time.monotonic() - turn_began > TURN_BUDGET_S:  # a burst from one client holds up the others
                    await asyncio.sleep(0)  # at most this long (and the outbox flushes what it wrote)
                    turn_began = time.monotonic()
            elif msg.type == WSMsgType.ERROR:
                node.metrics.closes[ws.close_code or 1006] += 1
                break
            if session.closing:
                break
    finally:
        timeout.cancel()
        node.sessions.discard(session)
        node.metrics.connections -= 1
        await session.finish()
        pinger.cancel()
        with contextlib.suppress(asyncio.CancelledError, ConnectionError, RuntimeError):
            await pinger
        if session.closing_task is not None:
            with contextlib.suppress(Exception):
                await session.closing_task
    return ws
