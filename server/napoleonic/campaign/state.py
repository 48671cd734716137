"""The Napoleonic campaign state: one value that the engine copies, changes and returns. Armies, battles and
sieges are typed records (records.py), written as the JSON-shaped dicts of the snapshots by `dump` and read back by
`load`. The map, turn order, dice and scenario loading are the campaign engine's own (server.continental.scenario,
server.core.turns, server.core.dice): this variant adds armies of regiments instead of divisions.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from server.continental.grid import Cell
from server.continental.scenario import GameMap
from server.continental.state import ScenarioGame
from server.core.dice import Dice
from server.core.turns import TurnOrder

from .records import Army, Battle, SiegeRecord

READY = "ready"
IN_BATTLE = "battle"  # D-L-1: frozen on the campaign map until the battle ends
BESIEGING = "besieging"
BESIEGED = "besieged"
RETREATING = "retreating"  # N-VICTORY-4: beaten, its team choosing where it retreats (Army.retreat)
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


RECORDS: dict[str, Any] = {"armies": Army, "battles": Battle, "sieges": SiegeRecord}
"""The state's fields holding records by key, and their record type (written as dicts in snapshots)."""


@dataclass
class NapoleonicState(ScenarioGame):
    scenario: str
    teams: list[dict[str, Any]]
    order: TurnOrder
    dice: Dice
    armies: dict[str, Army]
    battles: dict[str, Battle] = field(default_factory=dict)
    sieges: dict[str, SiegeRecord] = field(default_factory=dict)
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

    def player_of(self, army: Army) -> str:
        """D-N-14: the team member who plays the army's general (player ids are "<colour>-<seat>")."""
        seat = min(max(1, army.seat), self.seats(army.team))
        return f"{army.team}-{seat}"

    def alive_armies(self, team: str | None = None) -> list[Army]:
        return [a for a in self.armies.values() if a.status not in GONE and (team is None or a.team == team)]

    def armies_at(self, cell: Cell) -> list[Army]:
        return [a for a in self.alive_armies() if cell_of(a.cell) == cell]

    def enemies_at(self, cell: Cell, team: str) -> list[Army]:
        return [a for a in self.armies_at(cell) if a.team != team]

    def next_id(self) -> str:
        self.seq += 1
        return str(self.seq)

    def copy(self) -> NapoleonicState:
        return copy.deepcopy(self)

    def _dump_field(self, name: str, value: Any) -> Any:
        if name in RECORDS:
            return {key: record.dump() for key, record in value.items()}
        return super()._dump_field(name, value)

    @classmethod
    def _load_field(cls, name: str, raw: Any) -> Any:
        if name in RECORDS:
            return {str(key): RECORDS[name].load(record) for key, record in raw.items()}
        return super()._load_field(name, raw)

