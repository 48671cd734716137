"""The Napoleonic campaign state: one plain value (armies, battles and sieges are JSON-shaped dicts) that the engine
copies, changes and returns. The map, turn order, dice and scenario loading are the campaign engine's own
(server.continental.scenario, server.core.turns, server.core.dice): this variant adds armies of regiments instead of
divisions.

An army: {id, name, team, general, seat, cell: [x, y], points, max_points, base, status, intercept, support,
battle, units: [{id, type, morale, loss_tolerance, guns, accuracy}], retreat}. Campaign morale is kept per unit (it
is the unit's morale when its next battle begins). `retreat` is set while a beaten army's team chooses where it
retreats (N-VICTORY-4): {"from": [x, y], "cells": 7, "battle": id | None, "siege": city | None, "winner": team,
"suggested": path}.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from server.continental.grid import Cell
from server.continental.scenario import GameMap
from server.continental.state import ScenarioGame
from server.core.dice import Dice
from server.core.turns import TurnOrder

READY = "ready"
IN_BATTLE = "battle"  # D-L-1: frozen on the campaign map until the battle ends
BESIEGING = "besieging"
BESIEGED = "besieged"
RETREATING = "retreating"  # N-VICTORY-4: beaten, its team choosing where it retreats (army["retreat"])
DESTROYED = "destroyed"
CAPTURED = "captured"
GONE = (DESTROYED, CAPTURED)
FROZEN = (IN_BATTLE, BESIEGING, BESIEGED, RETREATING)

CONTACT = "contact"  # armies met; the defender decides (N-START-3)
RUNNING = "running"  # the battle room is being fought (N-START-1)
DECLINED = "declined"
OVER = "over"


def cell_of(value: Any) -> Cell:
    return (int(value[0]), int(value[1]))


@dataclass
class NapoleonicState(ScenarioGame):
    scenario: str
    teams: list[dict[str, Any]]
    order: TurnOrder
    dice: Dice
    armies: dict[str, dict[str, Any]]
    battles: dict[str, dict[str, Any]] = field(default_factory=dict)
    sieges: dict[str, dict[str, Any]] = field(default_factory=dict)
    interceptions: list[dict[str, Any]] = field(default_factory=list)
    prisoners: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    control: dict[str, str] = field(default_factory=dict)
    fortifications: dict[str, dict[str, Any]] = field(default_factory=dict)  # D-N-16: work in progress, by city
    fortresses: dict[str, dict[str, Any]] = field(default_factory=dict)  # D-N-16: fortresses built, by city
    lockout_minutes: float = 20.0
    seq: int = 0

    @property
    def map(self) -> GameMap:
        return self.scen.full_map

    def seats(self, team: str) -> int:
        return next((int(t["seats"]) for t in self.teams if t["colour"] == team), 1)

    def player_of(self, army: Mapping[str, Any]) -> str:
        """D-N-14: the team member who plays the army's general (player ids are "<colour>-<seat>")."""
        seat = min(max(1, int(army.get("seat", 1))), self.seats(str(army["team"])))
        return f"{army['team']}-{seat}"

    def alive_armies(self, team: str | None = None) -> list[dict[str, Any]]:
        return [a for a in self.armies.values() if a["status"] not in GONE and (team is None or a["team"] == team)]

    def armies_at(self, cell: Cell) -> list[dict[str, Any]]:
        return [a for a in self.alive_armies() if cell_of(a["cell"]) == cell]

    def enemies_at(self, cell: Cell, team: str) -> list[dict[str, Any]]:
        return [a for a in self.armies_at(cell) if a["team"] != team]

    def next_id(self) -> str:
        self.seq += 1
        return str(self.seq)

    def copy(self) -> NapoleonicState:
        return copy.deepcopy(self)

