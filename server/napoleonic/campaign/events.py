"""Emitting events: public ones, and a team's own (its players, spectators and the moderator) — the common event
collector (server/core/events.py) with the campaign's state."""

from __future__ import annotations

from typing import Any

from server.core.events import Collector

from .state import NapoleonicState


class Ctx(Collector):
    __slots__ = ("state",)

    def __init__(self, state: NapoleonicState) -> None:
        super().__init__()
        self.state = state

    def roll(self, purpose: str, sixths: int, rule: str, **data: Any) -> bool:
        """D-GEN-1: a d6 from the state's dice, success on a roll <= `sixths`; the roll is a public event."""
        ok, face, self.state.dice = self.state.dice.chance(sixths)
        self.public("roll", purpose=purpose, faces=6, result=face, need=sixths, success=ok, rule=rule, **data)
        return ok
