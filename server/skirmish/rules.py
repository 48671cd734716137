"""The skirmish's tables and numbers as data (D-S-1 … D-S-15): weapons, terrain kinds, vehicles, roles, and every
setting a scenario or a house rule may change. The decisions' values are the defaults.

`Settings.load` reads a scenario's (or a room's) overrides once and refuses junk with a typed error naming the
rule; the engine only ever reads the frozen result.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from functools import lru_cache
from typing import Any

from server.core.errors import BadOrder


@dataclass(frozen=True, slots=True)
class Weapon:
    """One row of the small-arms table (D-S-8) or a heavy weapon (D-S-14). Ranges in cells; `need_*` is the
    number a d6 must reach to hit. `dice_alone`: the light machine gun's dice without its assistant in cohesion.
    `blast`: a hit puts down every figure in the target cell and its neighbours (tank gun, mortar, field gun).
    `crew_served`: a crew figure or the assistant next to the fallen bearer may take it up by an order (S-8.5)."""

    name: str
    short: int
    long: int
    dice_short: int = 1
    dice_long: int = 1
    need_short: int = 4
    need_long: int = 5
    dice_alone: int | None = None
    min_range: int = 0
    blast: bool = False
    indirect: bool = False
    harms_vehicles: bool = False
    random_fire: bool = True
    crew_served: bool = False
    close_combat: bool = False

    def dump(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


WEAPONS: Mapping[str, Weapon] = {w.name: w for w in (
    Weapon("pistol", 2, 4, 1, 1, 4, 6, close_combat=True),
    Weapon("rifle", 10, 30, 1, 1, 4, 5),
    Weapon("self_loading_rifle", 10, 30, 2, 1, 4, 5),
    Weapon("submachine_gun", 4, 10, 3, 3, 4, 6, close_combat=True),
    Weapon("light_machine_gun", 15, 40, 5, 5, 4, 5, dice_alone=3, crew_served=True),
    Weapon("tank_machine_gun", 15, 40, 5, 5, 4, 5),
    Weapon("tank_gun", 20, 40, 1, 1, 4, 5, blast=True, harms_vehicles=True, random_fire=False),
    Weapon("field_gun", 20, 40, 1, 1, 4, 5, blast=True, harms_vehicles=True, random_fire=False, crew_served=True),
    Weapon("mortar", 60, 60, 1, 1, 5, 5, min_range=8, blast=True, indirect=True, harms_vehicles=True,
           random_fire=False, crew_served=True),
)}
"""D-S-8's table (S-2's weapons) and D-S-14's heavy weapons. The tank gun's short range (20) and the field gun's
values are ours: D-S-14 gives the gun 'range 40, needs 4 (long 5)' without saying where long range begins."""


@dataclass(frozen=True, slots=True)
class TerrainKind:
    """A kind of ground (D-S-2). `cover`: added to the number needed against a figure in it or behind it (D-S-7:
    soft +1, hard +2). `blocks`: sight through it is blocked (houses; woods beyond their first cell, `wood`).
    `infantry_cost`/`tank_cost`: movement multiplier of a step into it (D-S-6; None: impassable). `broken`: an
    ambush may be placed in it (S-9.4, D-S-13). `obstacle`: a wall or hedge, cover to the figure behind it."""

    name: str
    symbol: str
    cover: int = 0
    blocks: bool = False
    wood: bool = False
    infantry_cost: int = 1
    tank_cost: int | None = 1
    broken: bool = False
    obstacle: bool = False


def terrain_kinds(s: Settings) -> Mapping[str, TerrainKind]:
    """The terrain table with the settings' costs and covers."""
    return terrain_table(s.soft_cover, s.hard_cover, s.rough_cost, s.obstacle_cost, s.tank_rough_cost)


@lru_cache(maxsize=64)
def terrain_table(soft: int, hard: int, rough: int, obstacle: int, tank: int) -> Mapping[str, TerrainKind]:
    kinds = (
        TerrainKind("open", "."),
        TerrainKind("road", "="),
        TerrainKind("bushes", "b", cover=soft, infantry_cost=rough, tank_cost=tank, broken=True),
        TerrainKind("wood", "w", cover=soft, wood=True, infantry_cost=rough, tank_cost=tank, broken=True),
        TerrainKind("house", "H", cover=hard, blocks=True, infantry_cost=rough, tank_cost=None, broken=True),
        TerrainKind("wall", "#", cover=hard, infantry_cost=obstacle, tank_cost=tank, obstacle=True),
        TerrainKind("hedge", "h", cover=soft, infantry_cost=obstacle, tank_cost=tank, obstacle=True),
    )
    return {k.name: k for k in kinds}


SYMBOLS = {"open": ".", "road": "=", "bushes": "b", "wood": "w", "house": "H", "wall": "#", "hedge": "h"}
KIND_OF_SYMBOL = {v: k for k, v in SYMBOLS.items()}


@dataclass(frozen=True, slots=True)
class ElementSize:
    """The sizes a terrain element may take (D-S-2), as its shorter and longer side: a house is 2 × 2 to 3 × 4."""

    short_min: int
    short_max: int
    long_min: int
    long_max: int

    def allows(self, w: int, h: int) -> bool:
        a, b = min(w, h), max(w, h)
        return self.short_min <= a <= self.short_max and self.long_min <= b <= self.long_max


ELEMENT_SIZES: Mapping[str, ElementSize] = {
    "house": ElementSize(2, 3, 2, 4),
    "wood": ElementSize(2, 8, 2, 8),
    "bushes": ElementSize(1, 4, 1, 4),
    "wall": ElementSize(1, 1, 2, 8),
    "hedge": ElementSize(1, 1, 2, 8),
    "road": ElementSize(1, 1, 2, 20),
}
"""D-S-2 fixes the house (2 × 2 to 3 × 4); the other sizes are ours (a wall or hedge is a line one cell thick)."""

AUTO_TERRAIN = ("house", "wood", "bushes", "hedge", "wall", "wood")
"""D-S-2 "the server places the rest from the room seed": a d6 picks each element's kind from this row."""


@dataclass(frozen=True, slots=True)
class VehicleType:
    """D-S-1: a vehicle fills a 2 × 3 block; D-S-6 its move; D-S-14 its weapons. `points`: its crew, counted
    for the record when it is knocked out (D-S-15)."""

    name: str
    width: int = 2
    length: int = 3
    move: int = 8
    weapons: tuple[str, ...] = ("tank_gun", "tank_machine_gun")
    points: int = 5


VEHICLES: Mapping[str, VehicleType] = {"medium_tank": VehicleType("medium_tank"),
                                       "heavy_tank": VehicleType("heavy_tank", move=6)}

ROLES = ("commander", "machine_gunner", "assistant", "rifleman", "submachine_gunner", "messenger", "crew",
         "gunner", "sniper", "tank")
HIT_ORDER: Mapping[str, int] = {"rifleman": 0, "messenger": 0, "assistant": 1, "crew": 1, "submachine_gunner": 2,
                                "sniper": 2, "gunner": 3, "machine_gunner": 3, "commander": 3, "tank": 3}
"""D-S-9's default order of hits: riflemen first, commanders and machine gunners last."""

FACINGS = ("n", "e", "s", "w")
EDGES = ("north", "south", "east", "west")


@dataclass(frozen=True, slots=True)
class Settings:
    """Every number of the skirmish (the D-S-* values by default). Distances in cells of 5 cm (D-S-1)."""

    width: int = 40
    height: int = 30
    turns: int = 8
    terrain_count: int | None = None  # None: each player rolls a d6 and the total is the count (D-S-2)
    terrain_margin: int = 5
    defender_zone: int = 8
    attacker_zone: int = 4
    deploy_distance: int = 18
    ambush_zone: int = 6
    ambush_distance: int = 4
    infantry_move: int = 4
    rough_cost: int = 2
    obstacle_cost: int = 2
    tank_rough_cost: int = 2
    tank_turn_cost: int = 2
    soft_cover: int = 1
    hard_cover: int = 2
    six_hits_short: bool = True
    move_fire_penalty: int = 1
    random_fire_penalty: int = 1
    knock_out_front: int = 4
    knock_out_side: int = 3
    grenade_need: int = 6
    melee_close_weapon: int = 1
    melee_commander: int = 1
    melee_contact: int = 1
    melee_extra: int = 1
    melee_max_rolls: int = 20
    survive_on: int = 4
    morale_losses: tuple[int, int] = (1, 2)  # a unit tests having lost this fraction of its figures (half)
    morale_hold: int = 4
    morale_commander: int = 1
    objective_radius: int = 2
    pickup_turns: int = 1
    choose_hits: bool = True
    fog: str = "sight"  # "sight": a side sees the enemies its figures see (D-S-7); "table": every deployed one
    weapons: Mapping[str, Weapon] = field(default_factory=lambda: dict(WEAPONS))

    @property
    def half_move(self) -> int:
        return self.infantry_move // 2

    @classmethod
    def load(cls, data: Mapping[str, Any] | None) -> Settings:
        """The defaults under `data` (a scenario's `settings`, then a room's house rules). `weapons` may change
        single fields of a weapon (`{"rifle": {"short": 12}}`) or add one."""
        base = cls()
        if not data:
            return base
        if not isinstance(data, Mapping):
            raise BadOrder("settings are an object", rule="D-S-1")
        changes: dict[str, Any] = {}
        by_name = {f.name: f for f in fields(cls)}
        for key, value in data.items():
            if key not in by_name:
                raise BadOrder(f"unknown skirmish setting {key!r}", rule="D-S-1", details={"setting": key})
            if key == "weapons":
                changes[key] = _weapons(base.weapons, value)
            elif key == "terrain_count":
                changes[key] = None if value is None or value == "roll" else _int(key, value, 0, 40)
            elif key == "fog":
                if value not in ("sight", "table"):
                    raise BadOrder("fog is 'sight' or 'table'", rule="D-S-7", details={"setting": key})
                changes[key] = value
            elif key == "morale_losses":
                if not (isinstance(value, list | tuple) and len(value) == 2):
                    raise BadOrder("morale_losses is [numerator, denominator]", rule="D-S-12")
                changes[key] = (_int(key, value[0], 1, 100), _int(key, value[1], 1, 100))
            elif isinstance(getattr(base, key), bool):
                if not isinstance(value, bool):
                    raise BadOrder(f"{key} is true or false", rule="D-S-1", details={"setting": key})
                changes[key] = value
            else:
                changes[key] = _int(key, value, 0, 1000)
        out = replace(base, **changes)
        if not (10 <= out.width <= 200 and 10 <= out.height <= 200):
            raise BadOrder("the table is 10 to 200 cells a side", rule="D-S-1")
        if out.turns < 1:
            raise BadOrder("a game has at least one turn", rule="D-S-15")
        return out

    def dump(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "weapons":
                value = {name: w.dump() for name, w in sorted(value.items())}
            elif f.name == "morale_losses":
                value = list(value)
            out[f.name] = value
        return out


def _int(name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadOrder(f"{name} must be an integer from {low} to {high}", rule="D-S-1", details={"setting": name})
    return value


def _weapons(base: Mapping[str, Weapon], data: Any) -> dict[str, Weapon]:
    if not isinstance(data, Mapping):
        raise BadOrder("weapons is an object of weapon name to fields", rule="D-S-8")
    out = dict(base)
    names = {f.name: f for f in fields(Weapon)}
    for name, spec in data.items():
        if not isinstance(spec, Mapping):
            raise BadOrder(f"weapon {name!r} is an object", rule="D-S-8")
        values: dict[str, Any] = {}
        for key, value in spec.items():
            if key not in names or key == "name":
                raise BadOrder(f"unknown weapon field {key!r}", rule="D-S-8", details={"weapon": name})
            if key == "dice_alone":
                values[key] = None if value is None else _int(key, value, 0, 20)
            elif isinstance(getattr(WEAPONS["rifle"], key), bool):
                if not isinstance(value, bool):
                    raise BadOrder(f"{key} is true or false", rule="D-S-8", details={"weapon": name})
                values[key] = value
            else:
                values[key] = _int(key, value, 0, 200)
        if name in out:
            out[name] = replace(out[name], **values)
        else:
            if "short" not in values or "long" not in values:
                raise BadOrder(f"a new weapon {name!r} needs short and long ranges", rule="D-S-8")
            out[name] = Weapon(name=str(name), **values)
    return out
