"""What one server process shares between its sessions: the rooms (the hub), the sessions themselves, the
outbox that writes their frames, the metrics, and the links it hands out."""

from __future__ import annotations

from aiohttp import web

from server.net.flow import CLOSE_REPLACED, CLOSE_REVOKED
from server.net.limits import CreateLimits, FloodLimits
from server.net.metrics import Metrics, registry_of
from server.net.outbox import Load, Outbox
from server.net.session import Session
from server.rooms.hub import Hub
from server.settings import Settings, join_link


class Node:
    def __init__(self, settings: Settings, hub: Hub):
        self.settings = settings
        self.hub = hub
        self.metrics = Metrics()
        self.sessions: set[Session] = set()
        self.outbox = Outbox(load=Load(settings.write_interval_ms / 1000, settings.write_interval_busy))
        hub.kick = self.kick
        hub.revoked = self.revoked
        self.ready = False
        self.registry = registry_of(self)
        self.create_limits = CreateLimits(settings)
        self.flood = FloodLimits(settings, self.create_limits)

    def kick(self, key: str) -> None:
        """The seat of this node's session `key` was signed in again (here or on another node): close it (4009)."""
        for session in list(self.sessions):
            if session.key == key:
                session.close(CLOSE_REPLACED, "signed in elsewhere")

    def revoked(self, campaign: str, player: str, reason: str) -> None:
        """A token of the campaign's `player` was revoked: close this node's sessions signed in with it (4010)."""
        for session in list(self.sessions):
            member = session.member
            if member is not None and member.campaign == campaign and member.player == player:
                session.close(CLOSE_REVOKED, reason or "token revoked")

    def base_url(self) -> str:
        s = self.settings
        return (s.public_url or f"http://{s.host}:{s.port}").rstrip("/")

    def link(self, token: str) -> str:
        return join_link(self.base_url(), token)


NODE = web.AppKey("node", Node)
SETTINGS = web.AppKey("settings", Settings)
