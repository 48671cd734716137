"""Who is speaking to a room: a member's role, and the viewer class it sees the game as."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from server.core.engine import MODERATOR, SPECTATOR, Actor, team_viewer

Role = Literal["player", "moderator", "spectator"]
SERVER = "server"
"""The player name of the server acting as the moderator (a battle's result, a fallen general's lockout)."""


@dataclass(frozen=True, slots=True)
class Member:
    """A token's grant: `player` is the seat's player id ("red-1"), "moderator", or "spectator"."""

    campaign: str
    role: Role
    player: str
    team: str | None = None
    seat: int | None = None

    @classmethod
    def server(cls, campaign: str) -> Member:
        return cls(campaign, "moderator", SERVER)

    @property
    def is_server(self) -> bool:
        return self.role == "moderator" and self.player == SERVER

    @property
    def actor(self) -> Actor | None:
        if self.role == "moderator":
            return Actor(player=self.player, team=None, moderator=True)
        if self.role == "player":
            return Actor(player=self.player, team=self.team, seat=self.seat)
        return None

    @property
    def viewer(self) -> str:
        """The viewer class when not in the secret module."""
        if self.role == "moderator":
            return MODERATOR
        if self.role == "spectator":
            return SPECTATOR
        assert self.team is not None
        return team_viewer(self.team)

    def dump(self) -> dict[str, Any]:
        return {"campaign": self.campaign, "role": self.role, "player": self.player, "team": self.team,
                "seat": self.seat}

    @classmethod
    def load(cls, data: Mapping[str, Any]) -> Member:
        return cls(campaign=str(data["campaign"]), role=data["role"], player=str(data["player"]),
                   team=data.get("team"), seat=data.get("seat"))
