"""Events of the skirmish and its dice (D-GEN-1): every roll comes from the state's dice and is an event.

Who receives an event: the moderator always; spectators always; a side when the event concerns only its own
figures and the enemy figures it sees (D-S-7, D-S-3), never a held-back ambush (D-S-13). An event every viewer
class may receive has audience None (public).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from server.core.engine import SPECTATOR, Event, team_viewer

from .sight import hidden_from, is_seen
from .state import SkirmishState


class Log:
    __slots__ = ("events", "state")

    def __init__(self, state: SkirmishState) -> None:
        self.state = state
        self.events: list[Event] = []

    def emit(self, kind: str, audience: frozenset[str] | None = None, /, **data: Any) -> None:
        self.events.append(Event(kind, data, audience))

    def audience(self, figures: Iterable[str | None]) -> frozenset[str] | None:
        """The viewer classes that may know of every figure in `figures` now (None: everyone)."""
        ids = [f for f in figures if f is not None]
        teams = [t for t in self.state.sides if self.knows(t, ids)]
        if len(teams) == len(self.state.sides):
            return None
        return frozenset({SPECTATOR, *(team_viewer(t) for t in teams)})

    def knows(self, team: str, ids: Iterable[str]) -> bool:
        s = self.state
        foreign = [i for i in ids if i in s.figures and s.figures[i].side != team]
        if not foreign:
            return True
        if hidden_from(s, team) & set(foreign):
            return False
        return all(not s.figures[i].on_table or is_seen(s, team, s.figures[i]) for i in foreign)

    def own(self, team: str) -> frozenset[str]:
        """A side's own events (its deployment, its hidden moves): the side and the spectators."""
        return frozenset({SPECTATOR, team_viewer(team)})

    def roll(self, purpose: str, *, dice: int = 1, faces: int = 6, side: str | None = None,
             figure: str | None = None, unit: str | None = None, audience: frozenset[str] | None = None,
             **extra: Any) -> list[int]:
        """`dice` rolls of a d`faces`, one event (purpose, side, unit/figure, faces, result)."""
        out = self.faces(dice, faces)
        data: dict[str, Any] = {"purpose": purpose, "side": side, "figure": figure, "unit": unit, "faces": faces,
                                "dice": dice, "result": out, **extra}
        self.events.append(Event("roll", data, audience))
        return out

    def faces(self, dice: int, faces: int = 6) -> list[int]:
        """Dice rolled for an event the caller emits next (it needs their result)."""
        out: list[int] = []
        for _ in range(dice):
            face, self.state.dice = self.state.dice.roll(faces)
            out.append(face)
        return out

    def die(self, purpose: str, **kw: Any) -> int:
        return self.roll(purpose, **kw)[0]
