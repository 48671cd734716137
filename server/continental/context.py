"""The working context of one command: the state being changed, the events so far, and the mediator's mode.

C-9.3 / D-C-6: at levels 1–2 an impossible order is refused (the error propagates, the room keeps the old state);
at level 3 the mediator carries it out as far as possible, silently for the player, noting it for the moderator.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from server.continental.events import for_team, public, umpire
from server.continental.forces import Unit
from server.continental.state import CampaignState
from server.core.engine import Event
from server.core.errors import IllegalOrder, NotYourUnit, RuleError


class Dropped(Exception):
    """Level 3: an order that cannot be carried out at all is dropped (the moderator is told why)."""


@dataclass
class Ctx:
    state: CampaignState
    events: list[Event] = field(default_factory=list)
    silent: bool = False

    @property
    def level(self) -> int:
        return self.state.level

    def emit(self, event: Event) -> None:
        self.events.append(event)

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
        if secret:
            self.emit(umpire("roll", **data))
        elif team is not None:
            self.emit(for_team(team, "roll", **data))
        else:
            self.emit(public("roll", **data))
        return value


def require(condition: bool, message: str, rule: str) -> None:
    if not condition:
        raise IllegalOrder(message, rule=rule)
