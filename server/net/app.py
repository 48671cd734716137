"""The aiohttp application: the app factory, typed app state, managed lifetimes (the store, the bus, the rooms,
the sessions) and the route table (/ws: server/net/ws.py; the HTTP API: server/net/http.py)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from aiohttp import web

from server.admin import retention
from server.backends import open_backend
from server.demo import ensure_demo
from server.engines import ENGINES
from server.net.flow import CLOSE_GOING_AWAY
from server.net.http import add_routes
from server.net.limits import body_limit
from server.net.node import NODE, SETTINGS, Node
from server.net.ws import websocket
from server.rooms.hub import Hub
from server.settings import Settings


async def _backend_ctx(app: web.Application) -> AsyncIterator[None]:
    settings = app[SETTINGS]
    store, bus = await open_backend(settings)
    hub = Hub(store, bus, ENGINES, node=settings.node, lease_ms=settings.lease_ms,
              snapshot_every=settings.snapshot_every, room_idle_ms=int(settings.room_idle_s * 1000))
    node = Node(settings, hub)
    app[NODE] = node
    await hub.start()
    if settings.demo:
        await ensure_demo(hub, node.link, settings)
    retention = _retention(settings, hub)
    node.ready = True
    try:
        yield
    finally:
        if retention is not None:
            retention.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await retention
        await _close_sessions(app)
        await hub.close()
        await bus.close()
        await store.close()


def _retention(settings: Settings, hub: Hub) -> asyncio.Task[None] | None:
    """With --retention-days, this node archives the campaigns finished that long (server/admin/retention.py)."""
    if settings.retention_days <= 0:
        return None
    return asyncio.get_running_loop().create_task(retention.periodically(
        hub.store, hub.services, settings.archive_dir, settings.retention_days, settings.retention_every_s,
        node=f"{hub.node}-retention", local=hub.ownership, source=f"node {hub.node}"))


async def _close_sessions(app: web.Application) -> None:
    """Shutting down: every socket is closed with 1001 (going away) so clients reconnect elsewhere at once."""
    node = app.get(NODE)
    if node is None:
        return
    node.ready = False
    sessions = list(node.sessions)
    for session in sessions:
        session.close(CLOSE_GOING_AWAY, "server shutting down")
    closers = [s.closing_task for s in sessions if s.closing_task is not None]
    if closers:
        await asyncio.wait(closers, timeout=3)


def create_app(settings: Settings) -> web.Application:
    app = web.Application(client_max_size=settings.max_body_bytes, middlewares=[body_limit(settings.max_body_bytes)])
    app[SETTINGS] = settings
    app.cleanup_ctx.append(_backend_ctx)
    app.on_shutdown.append(_close_sessions)
    app.router.add_get("/ws", websocket)
    add_routes(app, settings)
    return app


__all__ = ["NODE", "Node", "create_app"]
