"""Forces: divisions, their regiments and ratings (C-T1, C-9.6, C-T7 to C-T10, C-3.6), as scenario data.

A counter (`Unit`) is a division, a fortress garrison or, at level 2, a detached regiment. Its simple rating is
the C-9.6 rating at level 1; at level 2 it is the sum of its regiments' values (C-9.6 [L2], C-T8's formulas)
less the loss not yet large enough to remove a regiment (D-C-3 step 7).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from server.continental.grid import Cell
from server.continental.scenario import Scenario

READY = "ready"
REGROUPING = "regrouping"  # C-4.12: lost the next turn, not combat-capable
TRANSFER = "transfer"  # C-4.5
RESTORING = "restoring"  # after a transfer or a march (C-4.5, C-4.8)
MARCH = "march"  # C-4.8
DESTROYED = "destroyed"
CAPTURED = "captured"
GONE = (DESTROYED, CAPTURED)
SECTORS = ("front", "flank45", "flank90", "rear")


@dataclass
class Unit:
    id: str
    name: str
    team: str
    arm: str
    cell: Cell
    facing: str
    regiments: list[list[Any]]
    rating: float
    full_rating: float
    army: str | None = None
    corps: str | None = None
    cover: bool = False
    neutral: bool = False
    second: Cell | None = None
    wide: bool = False
    formation: str = "line"
    orientation: str = "enemy"
    status: str = READY
    status_until: int = 0
    carry: float = 0.0
    used: float = 0.0
    debt: float = 0.0
    pursuit: float = 0.0  # C-9.8a: the part of a turn left to advance after the enemy withdrew, this turn only
    struck: bool = False
    fought: bool = False
    route: list[list[int]] = field(default_factory=list)
    parent: str | None = None

    @property
    def alive(self) -> bool:
        return self.status not in GONE

    @property
    def combat_capable(self) -> bool:
        """C-4.5, C-4.12: counters regrouping, in transfer or recovering from one cannot fight."""
        return self.alive and self.status not in (REGROUPING, TRANSFER, RESTORING)

    @property
    def is_regiment(self) -> bool:
        return self.parent is not None

    def cells(self) -> list[Cell]:
        return [self.cell] if self.second is None else [self.cell, self.second]

    def regiment_count(self) -> int:
        return len(self.regiments)

    def clone(self) -> Unit:
        return replace(self, regiments=[list(r) for r in self.regiments], route=[list(r) for r in self.route])

    def dump(self) -> dict[str, Any]:
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["cell"] = list(self.cell)
        d["second"] = list(self.second) if self.second else None
        return d

    @classmethod
    def load(cls, d: Mapping[str, Any]) -> Unit:
        data = dict(d)
        data["cell"] = (int(d["cell"][0]), int(d["cell"][1]))
        data["second"] = (int(d["second"][0]), int(d["second"][1])) if d.get("second") else None
        data["regiments"] = [list(r) for r in d["regiments"]]
        data["route"] = [list(r) for r in d.get("route", [])]
        return cls(**data)


def is_division(tables: Mapping[str, Any], unit: Unit) -> bool:
    """A division proper (C-T1): neither a regiment nor a fortress or headquarters (tables.non_divisions)."""
    return not unit.is_regiment and unit.arm not in tables["non_divisions"]


def composition(scen: Scenario, arm: str) -> list[list[Any]]:
    """C-T1: the regiments of a division of this arm, each with its value in the division's rating."""
    return [[r, float(v)] for r, v in scen.tables["compositions"][arm]]


def new_division(scen: Scenario, level: int, spec: Mapping[str, Any], team: str, *, neutral: bool = False) -> Unit:
    regs = composition(scen, spec["arm"])
    rating = float(scen.tables["ratings_l1"][spec["arm"]]) if level == 1 else round(sum(v for _, v in regs), 2)
    return Unit(
        id=spec["id"], name=spec["name"], team=team, arm=spec["arm"],
        cell=(int(spec["cell"][0]), int(spec["cell"][1])), facing=spec.get("facing", "N"),
        regiments=regs, rating=rating, full_rating=rating, army=spec.get("army"), corps=spec.get("corps"),
        cover=bool(spec.get("cover", False)), neutral=neutral,
    )


def support_rating(scen: Scenario, unit: Unit) -> float:
    """C-9.8c [L2], C-T8: a division's support rating, scaled by what is left of it."""
    full = float(scen.tables["support_ratings"].get(unit.arm, 0.0))
    return full * (unit.rating / unit.full_rating) if unit.full_rating else 0.0


def sector_factor(scen: Scenario, level: int, unit: Unit, sector: str) -> float:
    """D-C-4 with C-T9-1, C-T9-2, C-T10: how much of a division's rating faces an attack from `sector`.

    The factor is the table's value for the sector over its front value. Level 1 uses the line formation with
    regiments facing the enemy; level 2 the counter's formation and orientation. Arms without a row use RD's."""
    table = scen.tables["formation_ratings"]
    formation = unit.formation if level >= 2 else "line"
    orientation = unit.orientation if level >= 2 else "enemy"
    rows = table[formation][orientation]
    row = rows.get(unit.arm) or rows["RD"]
    i = SECTORS.index(sector)
    base = float(table["line"]["enemy"].get(unit.arm, table["line"]["enemy"]["RD"])[0])
    return float(row[i]) / base


def remove_losses(level: int, unit: Unit, loss: float) -> None:
    """D-C-3 step 7: a loss in simple rating. Level 2+: whole regiments go, largest first, the rest is carried."""
    if level == 1:
        unit.rating = round(max(0.0, unit.rating - loss), 2)
        return
    unit.carry = round(unit.carry + loss, 4)
    for reg in sorted(unit.regiments, key=lambda r: -float(r[1])):
        if float(reg[1]) <= unit.carry + 1e-9:
            unit.regiments.remove(reg)
            unit.carry = round(unit.carry - float(reg[1]), 4)
    total = sum(float(v) for _, v in unit.regiments)
    unit.rating = round(max(0.0, total - unit.carry), 2)
    if not unit.regiments:
        unit.rating = 0.0
