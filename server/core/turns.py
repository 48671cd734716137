"""Turn order of a campaign (rules C-1.7, C-1.8): who acts now, and when a turn is over.

Levels 1–2: teams move in turn, red first, each ending its own turn (by command or because its clock flagged).
Level 3: every team gives orders in the same turn; the mediator resolves them when all have finished or flagged.
Engines keep a `TurnOrder` in their state and ask it; it is a plain immutable value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

COLOUR_ORDER = ("red", "blue", "green", "black")


def in_turn_order(teams: Sequence[str]) -> tuple[str, ...]:
    """C-1.7: red moves first; the other colours follow in the order red, blue, green, black."""
    rank = {c: i for i, c in enumerate(COLOUR_ORDER)}
    return tuple(sorted(teams, key=lambda t: (rank.get(t, len(rank)), t)))


@dataclass(frozen=True, slots=True)
class TurnOrder:
    teams: tuple[str, ...]
    simultaneous: bool
    turn: int = 1
    current: int = 0
    finished: frozenset[str] = frozenset()

    @classmethod
    def start(cls, teams: Sequence[str], *, simultaneous: bool) -> TurnOrder:
        if len(set(teams)) < 2:
            raise ValueError("a game needs at least two teams")
        return cls(teams=in_turn_order(teams), simultaneous=simultaneous)

    @property
    def active(self) -> frozenset[str]:
        """Teams that may give orders now (C-1.8 in turn; C-1.8 level 3 all at once)."""
        if self.simultaneous:
            return frozenset(self.teams) - self.finished
        return frozenset({self.teams[self.current]})

    def finish(self, team: str) -> tuple[TurnOrder, bool]:
        """`team` ends its part of the turn. Returns the new order and whether the whole turn is complete
        (the last team in turn finished, or at level 3 every team has finished) — the moment to resolve."""
        if team not in self.active:
            raise ValueError(f"{team} is not to act now")
        if self.simultaneous:
            done = self.finished | {team}
            if done >= frozenset(self.teams):
                return replace(self, turn=self.turn + 1, finished=frozenset()), True
            return replace(self, finished=done), False
        nxt = self.current + 1
        if nxt == len(self.teams):
            return replace(self, turn=self.turn + 1, current=0), True
        return replace(self, current=nxt), False

    def without(self, team: str) -> TurnOrder:
        """A team leaves the game (defeated): the order skips it from now on."""
        teams = tuple(t for t in self.teams if t != team)
        active = self.teams[self.current] if not self.simultaneous else None
        current = teams.index(active) if active in teams else min(self.current, len(teams) - 1)
        return replace(self, teams=teams, current=max(current, 0), finished=self.finished - {team})

    def dump(self) -> dict[str, Any]:
        return {
            "teams": list(self.teams), "simultaneous": self.simultaneous, "turn": self.turn,
            "current": self.current, "finished": sorted(self.finished),
        }

    @classmethod
    def load(cls, data: Mapping[str, Any]) -> TurnOrder:
        return cls(
            teams=tuple(data["teams"]), simultaneous=bool(data["simultaneous"]), turn=int(data["turn"]),
            current=int(data["current"]), finished=frozenset(data["finished"]),
        )
