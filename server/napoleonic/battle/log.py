"""Events of the battle engine and the dice (D-GEN-1): every roll comes from the state's Dice and is an event — the
common event collector (server/core/events.py) with the battle's state."""

from __future__ import annotations

from typing import Any

from server.core.events import Collector

from .state import BattleState


class Log(Collector):
    """Collects the events of one engine call. `audience` (None: everyone) is set while a side gives orders in a
    hidden-information battle, so the other side does not learn its moves from the event stream; rolls are
    public all the same."""

    __slots__ = ("state",)

    def __init__(self, state: BattleState, audience: frozenset[str] | None = None) -> None:
        super().__init__(audience)
        self.state = state

    def emit(self, kind: str, **data: Any) -> None:
        self.public(kind, **data)

    def roll(self, purpose: str, need: int, unit: str | None = None, **extra: Any) -> tuple[bool, int]:
        """D-GEN-1: a d6 that succeeds on a roll <= `need`; the roll is a public event."""
        ok, face, self.state.dice = self.state.dice.chance(need)
        self.rolled({"purpose": purpose, "unit": unit, "faces": 6, "need": need, "face": face, "success": ok, **extra})
        return ok, face

    def die(self, purpose: str, **extra: Any) -> int:
        face, self.state.dice = self.state.dice.roll()
        self.rolled({"purpose": purpose, "faces": 6, "face": face, **extra})
        return face
