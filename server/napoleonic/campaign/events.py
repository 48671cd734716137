"""Emitting events: public ones, and a team's own (its players, spectators and the moderator)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from server.core.engine import SPECTATOR, Event, team_viewer

from .state import NapoleonicState


@dataclass
class Ctx:
    state: NapoleonicState
    events: list[Event] = field(default_factory=list)

    def public(self, kind: str, /, **data: Any) -> None:
        self.events.append(Event(kind, data))

    def team(self, team: str, kind: str, /, **data: Any) -> None:
        self.events.append(Event(kind, data, frozenset({team_viewer(team), SPECTATOR})))

    def roll(self, purpose: str, sixths: int, rule: str, **data: Any) -> bool:
        """D-GEN-1: a d6 from the state's dice, success on a roll <= `sixths`; the roll is a public event."""
        ok, face, self.state.dice = self.state.dice.chance(sixths)
        self.public("roll", purpose=purpose, faces=6, result=face, need=sixths, success=ok, rule=rule, **data)
        return ok
