"""The siege's terrain kinds and unit types, registered on the battle engine's hooks (N-SIEGE-6, N-SIEGE-9 …
N-SIEGE-12, D-N-15). Importing this module registers them once; nothing in the battle engine changes.

Terrain: the fortress `wall` and the `fort` platforms (infantry, and the fixed fortress guns; entered only by
the 3-point climb, N-SIEGE-10; they block sight like any obstacle, D-N-7; infantry on them +2 range), the `ditch`
(ends any move that enters it, N-SIEGE-12), the `breach` (open, passable), the attacker's `parallel` (cover for
artillery: round shot at a unit in it −1 accuracy, D-N-15).

Unit types: `howitzer` and `horse_howitzer` (N-SIEGE-9: range 25, the foot-artillery hit table, double round-shot
damage, firing over heads and obstacles; accuracy and speed those of the company converted), `fortress_artillery`
(N-SIEGE-11: foot artillery of accuracy 2, range 35, over heads and obstacles, immobile, 4 guns — D-N-15). A fortress
gun whose wall section holds no friendly unit is put in the `silent` formation (cannot fire) for the turn.
"""

from __future__ import annotations

from server.napoleonic.battle.terrain import BY_NAME, TERRAIN, TerrainKind, register_terrain
from server.napoleonic.battle.units import (
    ARTILLERY,
    FORMATIONS,
    INFANTRY,
    UNIT_TYPES,
    Formation,
    UnitType,
    register_unit_type,
)

WALL_RANGE_BONUS = 2
"""N-SIEGE-10: infantry on the walls gets +2 range."""
CLIMB_COST = 3
"""N-SIEGE-10: climbing onto the wall costs 3 speed points."""
HOWITZER_RANGE = 25
FORTRESS_GUN_RANGE = 35
FORTRESS_GUN_ACCURACY = 2
PARALLEL_COVER = 1
"""D-N-15: fire at artillery in a parallel −1 accuracy."""

WALL_KINDS = ("wall", "fort")
HOWITZER_OF = {"foot_artillery": "howitzer", "horse_artillery": "horse_howitzer"}
"""N-SIEGE-9: the type a company becomes when converted for the storm (accuracy and speed stay its own)."""
ORIGINAL_OF = {v: k for k, v in HOWITZER_OF.items()}


def _terrain(name: str, symbol: str, passable: frozenset[str], **kw: object) -> TerrainKind:
    if name in BY_NAME:
        return BY_NAME[name]
    return register_terrain(TerrainKind(len(TERRAIN), name, symbol, passable, **kw))  # type: ignore[arg-type]


_ALL = frozenset({"infantry", "cavalry", "artillery"})
_ON_WALL = frozenset({INFANTRY, ARTILLERY})
WALL = _terrain("wall", "#", _ON_WALL, blocks_sight=True, range_bonus={INFANTRY: WALL_RANGE_BONUS})
FORT = _terrain("fort", "X", _ON_WALL, blocks_sight=True, range_bonus={INFANTRY: WALL_RANGE_BONUS})
DITCH = _terrain("ditch", "_", _ALL, ends_move=True, rule="N-SIEGE-12")
BREACH = _terrain("breach", "b", _ALL)
PARALLEL = _terrain("parallel", "P", _ALL, accuracy_penalty=PARALLEL_COVER)


def _unit_type(t: UnitType) -> UnitType:
    return UNIT_TYPES[t.name] if t.name in UNIT_TYPES else register_unit_type(t)


_foot, _horse = UNIT_TYPES["foot_artillery"], UNIT_TYPES["horse_artillery"]
HOWITZER = _unit_type(UnitType(
    "howitzer", ARTILLERY, range=HOWITZER_RANGE, speed=_foot.speed, guns=_foot.guns, accuracy=_foot.accuracy,
    hit_table="foot", formations=_foot.formations, default_formation="deployed", round_shot_multiplier=2,
    fires_over=True))
HORSE_HOWITZER = _unit_type(UnitType(
    "horse_howitzer", ARTILLERY, range=HOWITZER_RANGE, speed=_horse.speed, guns=_horse.guns,
    accuracy=_horse.accuracy, hit_table="foot", formations=_horse.formations, default_formation="deployed",
    round_shot_multiplier=2, fires_over=True))
FORTRESS_ARTILLERY = _unit_type(UnitType(
    "fortress_artillery", ARTILLERY, range=FORTRESS_GUN_RANGE, speed=0, guns=4, accuracy=FORTRESS_GUN_ACCURACY,
    hit_table="foot", formations=("deployed", "silent"), default_formation="deployed", fires_over=True,
    can_move=False, in_field_limit=False))

_deployed = FORMATIONS[(ARTILLERY, "deployed")]
SILENT = FORMATIONS.setdefault((ARTILLERY, "silent"), Formation(
    "silent", ARTILLERY, _deployed.width, _deployed.depth, fires=False, moves=False, wheel=None, about_face=False))
"""N-SIEGE-11: a fortress gun with no friendly unit on its wall section may not fire."""
