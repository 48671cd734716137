"""What one server process shares between its sessions: the rooms (the hub), the sessions themselves, the
outbox that writes their frames, the metrics, and the links it hands out."""

from __future__ import annotations

from aiohttp import web

from server.net.flow import CLOSE_REPLACED
from server.net.limits import CreateLimits
from server.net.metrics import Metrics, registry_of
from server.net.outbox import Outbox
from server.net.session import Session
from server.rooms.hub import Hub
from server.settings import Settings


class Node:
    def __init__(self, settings: Settings, hub: Hub):
        self.settings = settings
        self.hub = hub
        self.metrics = Metrics()
        self.sessions: set[Session] = set()
        self.outbox = Outbox()
        hub.kick = self.kick
        self.ready = False
        self.registry = registry_of(self)
        self.create_limits = CreateLimits(settings)

    def kick(self, key: str) -> None:
        """The seat of this node's session `key` was signed in again (here or on another node): close it (4009)."""
        for session in list(self.sessions):
            if session.key == key:
                session.close(CLOSE_REPLACED, "signed in elsewhere")

    def base_url(self) -> str:
        s = self.settings
        return (s.public_url or f"http://{s.host}:{s.port}").rstrip("/")

    def link(self, token: str) -> str:
        """A join link: the token rides in the URL fragment, which browsers never send to a server."""
        return f"{self.base_url()}/#token={token}"


NODE = web.AppKey("node", Node)
SETTINGS = web.AppKey("settings", Settings)
