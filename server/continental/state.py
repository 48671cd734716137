"""The campaign state: one plain value the engine copies, changes and returns (functional core).

Only `Unit`, `TurnOrder` and `Dice` are objects; everything else is already JSON-shaped (cells written "x-y"
in keys), so `dump`/`load` are small and a snapshot is byte-stable.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from server.continental.forces import Unit
from server.continental.grid import Cell, label
from server.continental.scenario import GameMap, Scenario, load_scenario
from server.core.dice import Dice
from server.core.turns import TurnOrder

PLANNING = "planning"  # C-1.5, C-5: planning and deployment
OPERATIONS = "operations"  # C-9: combat operations (war from the first border crossing, C-9.1)
OVER = "over"


def cell_of(key: str) -> Cell:
    x, y = key.split("-")
    return (int(x), int(y))


class ScenarioGame:
    """What every campaign state played from a scenario shares (the Continental War and its Napoleonic variant):
    the scenario's data and tables, the turn (C-1.7) and the teams' colours."""

    scenario: str
    teams: list[dict[str, Any]]
    order: TurnOrder

    @property
    def scen(self) -> Scenario:
        return load_scenario(self.scenario)

    @property
    def tables(self) -> Mapping[str, Any]:
        return self.scen.tables

    @property
    def turn(self) -> int:
        return self.order.turn

    @property
    def player_teams(self) -> list[str]:
        return [t["colour"] for t in self.teams]

    __dataclass_fields__: ClassVar[dict[str, Any]]

    def dump(self) -> dict[str, Any]:
        """The state as plain data (the engine's snapshot): every field copied, the turn order and the dice (and
        whatever a game adds in `_dump_field`) by their own form."""
        return {name: self._dump_field(name, getattr(self, name)) for name in self.__dataclass_fields__}

    @classmethod
    def load(cls, data: Mapping[str, Any]) -> Self:
        return cls(**{k: cls._load_field(k, v) for k, v in data.items() if k in cls.__dataclass_fields__})

    def _dump_field(self, name: str, value: Any) -> Any:
        if name == "order":
            return value.dump()
        if name == "dice":
            return value.state
        return copy.deepcopy(value)

    @classmethod
    def _load_field(cls, name: str, raw: Any) -> Any:
        if name == "order":
            return TurnOrder.load(raw)
        if name == "dice":
            return Dice(int(raw))
        return copy.deepcopy(raw)


@dataclass
class CampaignState(ScenarioGame):
    scenario: str
    level: int
    teams: list[dict[str, Any]]
    house_rules: list[Any]
    recon_deception: bool
    phase: str
    order: TurnOrder
    dice: Dice
    units: dict[str, Unit]
    neutrals: list[str] = field(default_factory=list)
    control: dict[str, str] = field(default_factory=dict)
    closures: dict[str, dict[str, int]] = field(default_factory=dict)
    interdictions: list[dict[str, Any]] = field(default_factory=list)
    war: bool = False
    war_turn: int = 0
    aggressor: str | None = None
    violators: list[str] = field(default_factory=list)
    recon: dict[str, dict[str, float]] = field(default_factory=dict)
    answers: list[dict[str, Any]] = field(default_factory=list)
    pending: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    order_numbers: dict[str, int] = field(default_factory=dict)  # C-1.7 [L3]: the last number given per team
    proposals: list[dict[str, Any]] = field(default_factory=list)
    refusals: dict[str, dict[str, Any]] = field(default_factory=dict)
    penalties: list[dict[str, Any]] = field(default_factory=list)
    prisoners: dict[str, int] = field(default_factory=dict)
    armies: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    regulations: dict[str, dict[str, Any]] = field(default_factory=dict)
    mobilization: dict[str, list[str]] = field(default_factory=dict)
    reserves: dict[str, list[list[Any]]] = field(default_factory=dict)
    peace_pairs: list[list[str]] = field(default_factory=list)
    corps_cards: list[str] = field(default_factory=list)  # "team:corps" whose card is laid (C-4.7, C-4.9)
    interventions: list[int] = field(default_factory=list)
    interventions_limited: bool = False
    reports: dict[str, dict[str, Any]] = field(default_factory=dict)
    defeated: dict[str, dict[str, Any]] = field(default_factory=dict)
    penalise_refused: bool = False  # D-C-6: C-9.3's fine for a refused order, a house rule (C-0.3), off by default
    mediator: str = "server"  # C-1.3: "server" (the computer mediator) or "none" (levels 1-2, C-1.4)
    result: dict[str, Any] | None = None
    seq: int = 0

    @property
    def map(self) -> GameMap:
        return self.scen.map_for(self.level)

    def copy(self) -> CampaignState:
        """A working copy for one command (the given state stays as it was)."""
        new = copy.copy(self)
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if name == "units":
                new.units = {k: u.clone() for k, u in value.items()}
            elif isinstance(value, (dict, list)):
                setattr(new, name, copy.deepcopy(value))
        return new

    def controller(self, cell: Cell) -> str | None:
        """Who holds a cell now: its occupier since the war began, or the state it belongs to."""
        return self.control.get(label(cell), self.map.states.get(cell))

    def control_grid(self) -> dict[Cell, str | None]:
        """Every cell's holder at once (fast path for fog and reports)."""
        grid = dict(self.map.states)
        for key, team in self.control.items():
            grid[cell_of(key)] = team
        return grid

    def alive_units(self, team: str | None = None) -> list[Unit]:
        return [u for u in self.units.values() if u.alive and (team is None or u.team == team)]

    def units_at(self, cell: Cell) -> list[Unit]:
        return [u for u in self.units.values() if u.alive and cell in u.cells()]

    def enemies(self, a: str, b: str) -> bool:
        """All player countries are at war with each other once war begins (C-9.1); a neutral is the enemy only of
        the countries that violated it (C-10.5)."""
        if a == b or sorted((a, b)) in self.peace_pairs:
            return False
        if a in self.neutrals:
            return b in self.violators
        if b in self.neutrals:
            return a in self.violators
        return True

    def next_id(self, prefix: str) -> str:
        self.seq += 1
        return f"{prefix}#{self.seq}"

    def _dump_field(self, name: str, value: Any) -> Any:
        if name == "units":
            return {k: u.dump() for k, u in sorted(value.items())}
        return super()._dump_field(name, value)

    @classmethod
    def _load_field(cls, name: str, raw: Any) -> Any:
        if name == "units":
            return {k: Unit.load(u) for k, u in raw.items()}
        return super()._load_field(name, raw)
