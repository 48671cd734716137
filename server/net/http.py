"""The HTTP API (docs/protocol.md "HTTP"): bodies validated with shared/protocol/http.py's models on the way in and
built from them on the way out; what each request means is the rooms layer's."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from aiohttp import web
from pydantic import ValidationError

from server.net.metrics import metrics_response
from server.net.node import NODE, Node
from server.rooms.errors import RoomError
from server.rooms.ids import RoomId
from server.settings import Settings
from shared.protocol.http import (
    CampaignCreated,
    CreateCampaign,
    Lobby,
    LobbyRoom,
    NameSpectator,
    ReissueToken,
    TokenReissued,
)

_ROOM_ERROR_STATUS = {"no_such_room": 404, "not_over": 409, "unauthorized": 401, "forbidden": 403}


def _room_error(exc: RoomError) -> web.Response:
    return web.json_response({"error": exc.code, "message": exc.message, "rule": exc.rule},
                             status=_ROOM_ERROR_STATUS.get(exc.code, 400))


def _invalid(exc: ValidationError) -> web.Response:
    detail = [{"loc": list(e["loc"]), "msg": e["msg"]} for e in exc.errors(include_url=False)]
    return web.json_response({"error": "bad_request", "details": detail}, status=400)


def _bearer(request: web.Request) -> str:
    return request.headers.get("Authorization", "").removeprefix("Bearer ").strip()


async def healthz(request: web.Request) -> web.Response:
    """Alive: 200 once started (and until it stops), even while the store is out of reach — the node still serves
    what it holds and comes back by itself, so a probe must not restart it. `ready` says whether it can carry out
    commands now (the store answers); /readyz answers 503 when it cannot."""
    node = request.app[NODE]
    if not node.ready:
        return web.json_response({"ok": False, "alive": True, "ready": False}, status=503)
    return web.json_response(_health(node))


async def readyz(request: web.Request) -> web.Response:
    """Ready: 200 when started and its store answers, else 503 (for a balancer that should prefer ready nodes)."""
    node = request.app[NODE]
    if not node.ready:
        return web.json_response({"ok": False, "alive": True, "ready": False}, status=503)
    health = _health(node)
    return web.json_response(health, status=200 if health["ready"] else 503)


def _health(node: Any) -> dict[str, Any]:
    reach = node.hub.ownership.reach
    return {"ok": True, "alive": True, "ready": reach.ok, "store": "ok" if reach.ok else "unreachable",
            "store_down_s": round(reach.down_s(), 1), "node": node.hub.node, "rooms": len(node.hub.rooms)}


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
        return _invalid(exc)
    try:
        made = await node.hub.create_campaign(spec.model_dump())
    except ValidationError as exc:  # the engine's config model (shared/protocol/configs.py)
        return _invalid(exc)
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
    as `Authorization: Bearer …`: a new token for that seat; the old one is revoked and its sessions closed (4010),
    on every node."""
    node = request.app[NODE]
    try:
        body = ReissueToken.model_validate_json(await request.read())
    except ValidationError as exc:
        return _invalid(exc)
    try:
        member, token = await node.hub.reissue_token(_bearer(request), request.match_info["campaign"], body.player)
    except RoomError as exc:
        return _room_error(exc)
    return web.json_response(TokenReissued(player=member.player, token=token, link=node.link(token)).model_dump())


async def name_spectator(request: web.Request) -> web.Response:
    """POST /api/campaigns/{id}/spectators {"name": "Anna"} with the moderator's token as `Authorization: Bearer
    …`: a personal spectator token (`spectator:Anna`) whose holder sees the campaign and its battles live and in
    full (issue 12 item 1); the link is shown once."""
    node = request.app[NODE]
    try:
        body = NameSpectator.model_validate_json(await request.read())
    except ValidationError as exc:
        return _invalid(exc)
    try:
        member, token = await node.hub.name_spectator(_bearer(request), request.match_info["campaign"], body.name)
    except RoomError as exc:
        return _room_error(exc)
    return web.json_response(TokenReissued(player=member.player, token=token, link=node.link(token)).model_dump(),
                             status=201)


async def lobby(request: web.Request) -> web.Response:
    node = request.app[NODE]
    presence = await node.hub.room_counts()

    def online(room: str) -> dict[str, int]:
        return presence.get(room, {})

    def link(meta: Mapping[str, Any]) -> str | None:
        return node.link(meta["spectator_token"]) if meta.get("spectator_token") else None

    listing = node.hub.lobby
    public = await listing.public()
    campaigns = [LobbyRoom(**c) for c in listing.campaigns(public, online, link)]
    battles = [LobbyRoom(**b) for b in await listing.children(public, online, link)]
    finished = [LobbyRoom(**b) for b in await listing.children(public, online, link, finished=True)]
    return web.json_response(Lobby(campaigns=campaigns, battles=battles, finished=finished).model_dump())


async def replay(request: web.Request) -> web.Response:
    """GET /api/rooms/{room}/replay?as=full|spectator|public|team:<colour>[&by=event] with the viewer's token as
    `Authorization: Bearer …`: a finished room's view after each completed turn and at the end — or every
    command's events and view patch (server/rooms/replay.py) — as that viewer may see it now (issue 12 item 2:
    401 without a token, 403 for a class it may not have, until the whole campaign is over); 409 while it is
    still being played. Compressed when the client accepts it (an event replay is large and repetitive)."""
    hub = request.app[NODE].hub
    room_id = request.match_info["room"]
    try:
        rid = RoomId(room_id)
        token = _bearer(request)
        member = await hub.seats.authenticate(token) if token else None
        if token and member is None:
            raise RoomError("unauthorized", "this token is not (or no longer) valid")
        away = member is not None and await hub.lockout_of(member) is not None
        body = await hub.replays.for_member(
            rid, member, request.query.get("as"), current=hub.rooms.get(room_id),
            campaign=hub.rooms.get(RoomId.campaign_room(rid.campaign)), away=away,
            by=request.query.get("by", "turn"))
    except RoomError as exc:
        return _room_error(exc)
    response = web.json_response(body)
    response.enable_compression()
    return response


async def engines(request: web.Request) -> web.Response:
    names = request.app[NODE].hub.engines.names()
    return web.json_response({"engines": names, "default": names[0]})


_NO_CLIENT = """<!doctype html><meta charset="utf-8"><title>Kriegsspiel</title>
<p>The Kriegsspiel server is running. The web client is not built on this machine
(<code>cd client_web && npm install && npx vite build</code>).
Websocket: <code>/ws</code>; protocol: docs/protocol.md.</p>
"""


def add_routes(app: web.Application, settings: Settings) -> None:
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    if settings.metrics_port is None:  # else on its own port only (server/__main__.py)
        app.router.add_get("/metrics", metrics)
    app.router.add_post("/api/campaigns", create_campaign)
    app.router.add_post("/api/campaigns/{campaign}/tokens", reissue_token)
    app.router.add_post("/api/campaigns/{campaign}/spectators", name_spectator)
    app.router.add_get("/api/lobby", lobby)
    app.router.add_get("/api/engines", engines)
    app.router.add_get("/api/rooms/{room}/replay", replay)
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


__all__ = ["Node", "add_routes"]
