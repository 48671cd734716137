"""Unit types and formations as data tables (N-INF-1 … N-INF-6, N-CAV-2 … N-CAV-5, N-ART-2 … N-ART-5, N-HIT).

A unit type carries the base values of the rules; a formation carries its footprint, its modifiers and what it
may do. Variants (siege howitzers: range 25, fire over obstacles, double round shot, N-SIEGE-9; fortress guns)
are new rows added with `register_unit_type`, not engine branches.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

INFANTRY = "infantry"
CAVALRY = "cavalry"
ARTILLERY = "artillery"


@dataclass(frozen=True, slots=True)
class UnitType:
    """Base values of one kind of unit. `hit_table` names a table of `HIT_TABLES`; `round_shot_multiplier` and
    `fires_over` are the howitzer hooks (N-SIEGE-9); `can_move` False for fortress guns (N-SIEGE-11), and
    `in_field_limit` False too: they are the fortress's, not the army's, and count against no side's limit."""

    name: str
    arm: str
    firepower: int = 0
    range: int = 0
    melee: int = 0
    charge: int = 0
    speed: int = 0
    morale: int = 0
    loss_tolerance: int = 0
    guns: int = 0
    accuracy: int = 0
    hit_table: str = ""
    formations: tuple[str, ...] = ()
    default_formation: str = ""
    round_shot_multiplier: int = 1
    fires_over: bool = False
    can_move: bool = True
    in_field_limit: bool = True


UNIT_TYPES: dict[str, UnitType] = {
    t.name: t
    for t in (
        # N-INF-1
        UnitType("infantry", INFANTRY, firepower=2, range=6, melee=2, speed=4, morale=6, loss_tolerance=10,
                 formations=("line", "attack_column", "square", "march_column"), default_formation="line"),
        # N-CAV-2; D-N-11: attack column is the default cavalry formation
        UnitType("light_cavalry", CAVALRY, melee=2, charge=2, speed=12, morale=8, loss_tolerance=4,
                 formations=("attack_column", "march_column"), default_formation="attack_column"),
        UnitType("heavy_cavalry", CAVALRY, melee=3, charge=4, speed=9, morale=6, loss_tolerance=6,
                 formations=("attack_column", "march_column"), default_formation="attack_column"),
        # N-ART-2; D-N-11: four guns a company, accuracy from the scenario
        UnitType("foot_artillery", ARTILLERY, range=30, speed=2, guns=4, accuracy=2, hit_table="foot",
                 formations=("deployed", "limbered"), default_formation="deployed"),
        UnitType("horse_artillery", ARTILLERY, range=20, speed=9, guns=4, accuracy=2, hit_table="horse",
                 formations=("deployed", "limbered"), default_formation="deployed"),
    )
}


def register_unit_type(unit_type: UnitType) -> UnitType:
    """Hook for variants (howitzers, fortress artillery): add a unit type by name."""
    if unit_type.name in UNIT_TYPES:
        raise ValueError(f"unit type {unit_type.name!r} exists")
    UNIT_TYPES[unit_type.name] = unit_type
    return unit_type


@dataclass(frozen=True, slots=True)
class Formation:
    """A formation of one arm. `firepower`, `melee`, `morale`, `speed` are the bonuses over the base values;
    `fires` False means it cannot fire (march column, limbered guns); `all_round` fires to all sides and has no
    flanks (square, N-INF-4); `wheel` costs of 45° and 90° (None: cannot turn); `about_face` allowed at 1 point
    (N-INF-10; not for deployed guns, N-ART-4); `flank_penalty_extra` is the march column's +2 (N-INF-5, D-N-9);
    `no_charge` (N-CAV-5); `speed_rank` orders formations for N-INF-7 (D-N-10)."""

    name: str
    arm: str
    width: int
    depth: int
    firepower: int = 0
    melee: int = 0
    morale: int = 0
    speed: int = 0
    fires: bool = True
    moves: bool = True
    all_round: bool = False
    wheel: tuple[int, int] | None = (1, 2)
    about_face: bool = True
    flank_penalty_extra: int = 0
    no_charge: bool = False
    loses_points: bool = False
    fires_same_turn: bool = False
    speed_rank: int = 0
    firepower_rank: int = 0


FORMATIONS: dict[tuple[str, str], Formation] = {
    (f.arm, f.name): f
    for f in (
        # N-INF-2 … N-INF-5; ranks from D-N-10 (speed: march > attack > line > square; fire: line > column = square)
        Formation("line", INFANTRY, 8, 1, firepower=2, wheel=(2, 4), speed_rank=1, firepower_rank=2),
        Formation("attack_column", INFANTRY, 4, 2, melee=2, morale=2, speed=1, speed_rank=2, firepower_rank=1),
        Formation("square", INFANTRY, 3, 3, melee=2, morale=1, moves=False, all_round=True, wheel=None,
                  about_face=False, loses_points=True, speed_rank=0, firepower_rank=1),
        Formation("march_column", INFANTRY, 2, 4, speed=2, fires=False, flank_penalty_extra=2, speed_rank=3,
                  firepower_rank=0),
        # N-CAV-4, N-CAV-5
        Formation("attack_column", CAVALRY, 3, 2, melee=1, morale=2, fires=False, speed_rank=1),
        Formation("march_column", CAVALRY, 2, 3, speed=2, fires=False, flank_penalty_extra=2, no_charge=True,
                  speed_rank=2),
        # N-ART-4, N-ART-5: guns fire on the turn they unlimber
        Formation("deployed", ARTILLERY, 4, 2, moves=False, wheel=(2, 4), about_face=False, fires_same_turn=True,
                  speed_rank=0, firepower_rank=1),
        Formation("limbered", ARTILLERY, 2, 4, fires=False, speed_rank=1),
    )
}


def formation_of(arm: str, name: str) -> Formation:
    return FORMATIONS[(arm, name)]


def change_cost(arm: str, old: str, new: str) -> int:
    """N-INF-6 (to or from attack column 2, else 3), N-CAV-3 (2), N-ART-3 (2)."""
    if arm == INFANTRY:
        return 2 if "attack_column" in (old, new) else 3
    return 2


# N-HIT-2, N-HIT-3: hit chances in sixths by accuracy (row) and distance column (D-N-7: 6–10, 11–15, 16–20,
# 21–25, 26 to range; horse artillery: 6–10, 11–15, 16 to range). D-GEN-1: a hit on a roll <= the number.
@dataclass(frozen=True, slots=True)
class HitTable:
    bands: tuple[int, ...]
    """Upper bound (inclusive) of every column but the last, which runs to the range."""
    sixths: Mapping[int, tuple[int, ...]] = field(default_factory=dict)

    @property
    def accuracies(self) -> range:
        """The accuracies the table has a row for: a company's accuracy must be one of them (D-N-11: foot 1–4,
        horse 1–3 — the GAP of N-HIT-3, no horse row for 4, is settled by never giving a horse company 4)."""
        return range(min(self.sixths), max(self.sixths) + 1)

    def chance(self, accuracy: int, distance: int) -> int:
        """Sixths to hit at `accuracy` (a row of the table; N-HIT-1's terrain penalty stops at 1) and `distance`."""
        column = len(self.bands)
        for i, upper in enumerate(self.bands):
            if distance <= upper:
                column = i
                break
        return self.sixths[accuracy][column]


HIT_TABLES: dict[str, HitTable] = {
    "foot": HitTable(
        bands=(10, 15, 20, 25),
        sixths={1: (5, 3, 3, 1, 1), 2: (5, 4, 3, 2, 1), 3: (6, 5, 4, 3, 2), 4: (6, 6, 5, 4, 3)},
    ),
    "horse": HitTable(bands=(10, 15), sixths={1: (3, 2, 1), 2: (4, 3, 2), 3: (5, 4, 3)}),
}

CANISTER_RANGE = 5
"""N-ART-6: canister at 1–5 cells; round shot from 6 cells (N-ART-7)."""
CLOSE_RANGE = 3
"""N-FIRE-2: musket fire at 3 cells or less does half the firepower, further a quarter."""
HILL_RANGE_BONUS = {INFANTRY: 2, ARTILLERY: 5}
"""N-TERRAIN-4."""
CHARGE_RUN = 4
"""N-CHARGE-1: at least 4 cells in a straight line."""
