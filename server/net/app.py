"""The aiohttp application: app factory, typed app state, managed lifetimes, the /ws endpoint and the HTTP API."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web
from pydantic import ValidationError

from server.bus import open_backend
from server.bus.names import campaign_room
from server.net.limits import CreateLimits, body_limit
from server.net.metrics import Metrics, metrics_response, registry_of
from server.net.outbox import Outbox
from server.net.session import CLOSE_NO_HELLO, CLOSE_REPLACED, CLOSE_REVOKED, Session
from server.net.sockets import bound_send_buffer
from server.rooms.engines import engine_names
from server.rooms.errors import RoomError
from server.rooms.hub import Hub
from server.settings import Settings
from shared.protocol.http import CampaignCreated, CreateCampaign, Lobby, LobbyRoom, ReissueToken, TokenReissued

log = logging.getLogger(__name__)

TURN_BUDGET_S = 0.002
"""A client's frames already read are handled one after another for up to this long before the others get the
loop: a burst of orders costs one turn (and one write per watching socket, server/net/outbox.py), not one each."""


class Node:
    """What one server process shares between its sessions."""

    def __init__(self, settings: Settings, hub: Hub):
        self.settings = settings
        self.hub = hub
        self.metrics = Metrics()
        self.sessions: set[Session] = set()
        self.outbox = Outbox()
        self.seats: dict[tuple[str, str], Session] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        hub.kick = self.kick
        self.ready = False
        self.registry = registry_of(self)
        self.create_limits = CreateLimits(settings)

    def sign_in(self, session: Session) -> None:
        """A seat is played from one connection: a newer sign-in replaces the older one (4009)."""
        member = session.member
        if member is None or member.role != "player":
            return
        key = (member.campaign, member.player)
        old = self.seats.get(key)
        if old is not None and old is not session:
            old.close(CLOSE_REPLACED, "signed in elsewhere")
        self.seats[key] = session
        self._background(self.hub.claim_seat(member, self.session_key(session)))

    def session_key(self, session: Session) -> str:
        return f"{self.hub.node}/{session.id}"

    def kick(self, key: str) -> None:
        """The seat of this node's session `key` was signed in on another node (4009)."""
        for session in list(self.seats.values()):
            if self.session_key(session) == key:
                session.close(CLOSE_REPLACED, "signed in elsewhere")

    def _background(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def sign_out(self, session: Session) -> None:
        member = session.member
        if member is not None and self.seats.get((member.campaign, member.player)) is session:
            del self.seats[(member.campaign, member.player)]
            self._background(self.hub.store.release_seat(member.campaign, member.player, self.session_key(session)))

    def base_url(self) -> str:
        s = self.settings
        return (s.public_url or f"http://{s.host}:{s.port}").rstrip("/")

    def link(self, token: str) -> str:
        """A join link: the token rides in the URL fragment, which browsers never send to a server."""
        return f"{self.base_url()}/#token={token}"


NODE = web.AppKey("node", Node)
SETTINGS = web.AppKey("settings", Settings)


async def _backend_ctx(app: web.Application) -> AsyncIterator[None]:
    settings = app[SETTINGS]
    store, bus = await open_backend(settings)
    hub = Hub(store, bus, node=settings.node, lease_ms=settings.lease_ms, snapshot_every=settings.snapshot_every,
              room_idle_ms=int(settings.room_idle_s * 1000))
    node = Node(settings, hub)
    app[NODE] = node
    await hub.start()
    if settings.demo:
        from server.demo import ensure_demo

        await ensure_demo(node)
    node.ready = True
    try:
        yield
    finally:
        await _close_sessions(app)
        await hub.close()
        await bus.close()
        await store.close()


async def _close_sessions(app: web.Application) -> None:
    """Shutting down: every socket is closed with 1001 (going away) so clients reconnect elsewhere at once."""
    node = app.get(NODE)
    if node is None:
        return
    node.ready = False
    sessions = list(node.sessions)
    for session in sessions:
        session.close(1001, "server shutting down")
    closers = [s.closing_task for s in sessions if s.closing_task is not None]
    if closers:
        await asyncio.wait(closers, timeout=3)


async def websocket(request: web.Request) -> web.WebSocketResponse:
    node = request.app[NODE]
    s = node.settings
    ws = web.WebSocketResponse(heartbeat=s.heartbeat_s, max_msg_size=s.max_frame_bytes, compress=False)
    await ws.prepare(request)
    bound_send_buffer(request.transport, s.socket_send_buffer_bytes)
    session = Session(ws, node, request.transport)
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


async def healthz(request: web.Request) -> web.Response:
    node = request.app[NODE]
    if not node.ready:
        return web.json_response({"ok": False}, status=503)
    return web.json_response({"ok": True, "node": node.hub.node, "rooms": len(node.hub.rooms)})


async def metrics(request: web.Request) -> web.Response:
    return metrics_response(request.app[NODE].registry)


async def create_campaign(request: web.Request) -> web.Response:
    node = request.app[NODE]
    refused = node.create_limits.check(request)  # the create token, then the per-address rate (limits.py)
    if refused is not None:
        return refused
    try:
        spec = CreateCampaign.model_validate_json(await request.read())
    except ValidationError as exc:
        detail = [{"loc": list(e["loc"]), "msg": e["msg"]} for e in exc.errors(include_url=False)]
        return web.json_response({"error": "bad_request", "details": detail}, status=400)
    try:
        made = await node.hub.create_campaign(spec.model_dump())
    except KeyError as exc:
        return web.json_response({"error": "bad_request", "message": str(exc.args[0])}, status=400)
    except Exception as exc:
        code = getattr(exc, "code", None)
        if code is None:
            raise
        return web.json_response({"error": code, "message": str(exc), "rule": getattr(exc, "rule", None)},
                                 status=400)
    body = CampaignCreated(
        campaign=made["campaign"], room=made["room"],
        moderator_token=made["moderator_token"], moderator_link=node.link(made["moderator_token"]),
        spectator_token=made["spectator_token"], spectator_link=node.link(made["spectator_token"]),
        seats=[{**seat, "link": node.link(seat["token"])} for seat in made["seats"]],
    )
    return web.json_response(body.model_dump(), status=201)


async def reissue_token(request: web.Request) -> web.Response:
    """POST /api/campaigns/{id}/tokens {"player": "red-1" | "moderator" | "spectator"} with the moderator's token
    as `Authorization: Bearer …`: a new token for that seat; the old one is revoked and its sessions closed (4010)."""
    node = request.app[NODE]
    given = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
    try:
        body = ReissueToken.model_validate_json(await request.read())
    except ValidationError as exc:
        detail = [{"loc": list(e["loc"]), "msg": e["msg"]} for e in exc.errors(include_url=False)]
        return web.json_response({"error": "bad_request", "details": detail}, status=400)
    try:
        member, token = await node.hub.reissue_token(given, request.match_info["campaign"], body.player)
    except RoomError as exc:
        status = {"forbidden": 403, "no_such_room": 404}.get(exc.code, 400)
        return web.json_response({"error": exc.code, "message": exc.message, "rule": exc.rule}, status=status)
    for session in list(node.sessions):
        if session.member is not None and session.member.campaign == member.campaign \
                and session.member.player == member.player:
            session.close(CLOSE_REVOKED, "token re-issued")
    return web.json_response(TokenReissued(player=member.player, token=token, link=node.link(token)).model_dump())


async def lobby(request: web.Request) -> web.Response:
    node = request.app[NODE]
    presence = await node.hub.room_counts()

    def online(room: str) -> dict[str, int]:
        return presence.get(room, {})

    public = [m for m in sorted(await node.hub.store.list_campaigns(), key=lambda m: -int(m.get("created_ms", 0)))
              if m.get("public", True)]
    rooms: list[LobbyRoom] = []
    for meta in public:
        room = campaign_room(meta["id"])
        counts = online(room)
        rooms.append(LobbyRoom(
            id=meta["id"], room=room, name=meta["name"], scenario=meta["scenario"], level=meta["level"],
            teams=meta["teams"], players_online=counts.get("player", 0), spectators_online=counts.get("spectator", 0),
            created_ms=int(meta.get("created_ms", 0)), spectator_link=_spectator_link(node)(meta),
        ))
    battles = await node.hub.battles.lobby(public, online, _spectator_link(node))
    finished = await node.hub.battles.lobby(public, online, _spectator_link(node), finished=True)
    return web.json_response(Lobby(campaigns=rooms, battles=[LobbyRoom(**b) for b in battles],
                                   finished=[LobbyRoom(**b) for b in finished]).model_dump())


def _spectator_link(node: Node) -> Callable[[Mapping[str, Any]], str | None]:
    return lambda meta: node.link(meta["spectator_token"]) if meta.get("spectator_token") else None


_REPLAY_STATUS = {"no_such_room": 404, "bad_message": 400, "not_over": 409}


async def replay(request: web.Request) -> web.Response:
    """GET /api/rooms/{room}/replay?as=full|spectator|team:<colour>[&by=event]: a finished room's view after each
    completed turn and at the end — or every command's events and view patch (server/rooms/replay.py); 409 while it
    is still being played. Compressed when the client accepts it (an event replay is large and repetitive)."""
    hub = request.app[NODE].hub
    room_id = request.match_info["room"]
    try:
        body = await hub.replays.replay(room_id, request.query.get("as", "full"), hub.rooms.get(room_id),
                                        by=request.query.get("by", "turn"))
    except RoomError as exc:
        return web.json_response({"error": exc.code, "message": exc.message},
                                 status=_REPLAY_STATUS.get(exc.code, 400))
    except ValueError:  # not a room id the store accepts
        return web.json_response({"error": "no_such_room", "message": f"no room {room_id}"}, status=404)
    response = web.json_response(body)
    response.enable_compression()
    return response


async def engines(request: web.Request) -> web.Response:
    names = engine_names()
    return web.json_response({"engines": names, "default": names[0]})


def _client_routes(app: web.Application, settings: Settings) -> None:
    dist = Path(settings.client_dir)
    index = dist / "index.html"

    async def home(request: web.Request) -> web.StreamResponse:
        if index.exists():
            return web.FileResponse(index)
        return web.Response(text=_NO_CLIENT, content_type="text/html")

    async def favicon(request: web.Request) -> web.StreamResponse:
        icons = sorted((dist / "assets").glob("favicon-*.svg"))
        if not icons:
            raise web.HTTPNotFound()
        return web.FileResponse(icons[0], headers={"Content-Type": "image/svg+xml"})

    app.router.add_get("/", home)
    app.router.add_get("/favicon.ico", favicon)
    if (dist / "assets").is_dir():
        app.router.add_static("/assets", dist / "assets")
    if (dist / "rules").is_dir():  # the rulebook, rendered at build time (client_web/scripts/rulebook.mjs)
        app.router.add_static("/rules", dist / "rules")
    app.on_response_prepare.append(_cache_headers)


HASHED_MAX_AGE_S = 365 * 24 * 3600


async def _cache_headers(request: web.Request, response: web.StreamResponse) -> None:
    """Assets carry a hash of their contents in their name: cached for a year and never asked again. The page that
    names them is asked again every time (so a new build is seen at once); the rulebook for an hour."""
    path = request.path
    if path.startswith("/assets/") and response.status == 200:
        response.headers["Cache-Control"] = f"public, max-age={HASHED_MAX_AGE_S}, immutable"
    elif path == "/":
        response.headers["Cache-Control"] = "no-cache"
    elif path.startswith("/rules/") or path == "/favicon.ico":
        response.headers["Cache-Control"] = "public, max-age=3600"


_NO_CLIENT = """<!doctype html><meta charset="utf-8"><title>Kriegsspiel</title>
<p>The Kriegsspiel server is running. The web client is not built on this machine
(<code>cd client_web && npm install && npx vite build</code>).
Websocket: <code>/ws</code>; protocol: docs/protocol.md.</p>
"""


def create_app(settings: Settings) -> web.Application:
    app = web.Application(client_max_size=settings.max_body_bytes, middlewares=[body_limit(settings.max_body_bytes)])
    app[SETTINGS] = settings
    app.cleanup_ctx.append(_backend_ctx)
    app.on_shutdown.append(_close_sessions)
    app.router.add_get("/ws", websocket)
    app.router.add_get("/healthz", healthz)
    if settings.metrics_port is None:  # else on its own port only (server/__main__.py)
        app.router.add_get("/metrics", metrics)
    app.router.add_post("/api/campaigns", create_campaign)
    app.router.add_post("/api/campaigns/{campaign}/tokens", reissue_token)
    app.router.add_get("/api/lobby", lobby)
    app.router.add_get("/api/engines", engines)
    app.router.add_get("/api/rooms/{room}/replay", replay)
    _client_routes(app, settings)
    return app


__all__ = ["NODE", "Node", "create_app"]

