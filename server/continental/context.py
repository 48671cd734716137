"""The working context of one command: the state being changed, the events so far, and the mediator's mode.

C-9.3 / D-C-6: at levels 1–2 an impossible order is refused (the error propagates, the room keeps the old state);
at level 3 the mediator carries it out as far as possible, silently for the player, noting it for the moderator.
"""

from __future__ import annotations

from typing import Any

from server.continental.events import umpire
from server.continental.forces import Unit
from server.continental.state import CampaignState
from server.core.engine import MODERATOR, Event
from server.core.errors import IllegalOrder, NotYourUnit, RuleError
from server.core.events import Collector, team_audience


class Dropped(Exception):
    """Level 3: an order that cannot be carried out at all is dropped (the moderator is told why)."""


class Ctx(Collector):
    """The common event collector (server/core/events.py) with the campaign's state and the mediator's mode."""

    __slots__ = ("silent", "state")

    def __init__(self, state: CampaignState, *, silent: bool = False) -> None:
        super().__init__()
        self.state = state
        self.silent = silent

    @property
    def level(self) -> int:
        return self.state.level

    def emit(self, event: Event) -> None:
        self.add(event)

    def adjusted(self, error: RuleError, **note: Any) -> None:
        """The order goes against the rules. Levels 1–2: refuse it. Level 3: note it and go on with what is
        possible (the caller carries out the possible part)."""
        if not self.silent:
            raise error
        self.emit(umpire("order_adjusted", rule=error.rule, message=error.message, **note))

    def fail(self, error: RuleError, **note: Any) -> None:
        """Nothing of the order is possible: refuse it, or at level 3 drop it silently."""
        self.adjusted(error, **note)
        raise Dropped(error.message)

    def own_unit(self, team: str, unit_id: str) -> Unit:
        unit = self.state.units.get(unit_id)
        if unit is None or not unit.alive:
            raise NotYourUnit(f"no unit {unit_id!r} of yours", rule="C-9.2")
        if unit.team != team:
            raise NotYourUnit(f"{unit.name} is not yours", rule="C-9.2")
        return unit

    def roll(self, purpose: str, *, secret: bool = False, team: str | None = None, faces: int = 6) -> int:
        """D-GEN-1: every roll is an event; a secret roll (C-8.3 lies) goes to the moderator only."""
        value, self.state.dice = self.state.dice.roll(faces)
        data: dict[str, Any] = {"purpose": purpose, "faces": faces, "result": value}
        self.rolled(data, frozenset({MODERATOR}) if secret else team_audience(team) if team is not None else None)
        return value


def require(condition: bool, message: str, rule: str) -> None:
    if not condition:
        raise IllegalOrder(message, rule=rule)
