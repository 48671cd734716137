"""The state model: terrain, unit types, formations, footprints and placement (N-START, N-TERRAIN, D-N-3, D-N-4)."""

from __future__ import annotations

import pytest

from server.core.errors import IllegalOrder
from server.napoleonic.battle.deployment import in_zone, setup_state
from server.napoleonic.battle.footprint import distance, footprint_offsets, front_rank, sector
from server.napoleonic.battle.state import RESERVE, BattleState
from server.napoleonic.battle.terrain import FIELD_SIZE, BattleMap
from server.napoleonic.battle.units import FORMATIONS, HIT_TABLES, UNIT_TYPES

from .helpers import config, unit


def test_field_is_70_by_70_N_START_1() -> None:
    m = BattleMap.open_field()
    assert (m.width, m.height) == (FIELD_SIZE, FIELD_SIZE) == (70, 70)


def test_unit_base_values_N_INF_1_N_CAV_2_N_ART_2() -> None:
    inf = UNIT_TYPES["infantry"]
    assert (inf.firepower, inf.range, inf.melee, inf.speed, inf.morale, inf.loss_tolerance) == (2, 6, 2, 4, 6, 10)
    lc, hc = UNIT_TYPES["light_cavalry"], UNIT_TYPES["heavy_cavalry"]
    assert (lc.melee, lc.charge, lc.speed, lc.morale, lc.loss_tolerance) == (2, 2, 12, 8, 4)
    assert (hc.melee, hc.charge, hc.speed, hc.morale, hc.loss_tolerance) == (3, 4, 9, 6, 6)
    fa, ha = UNIT_TYPES["foot_artillery"], UNIT_TYPES["horse_artillery"]
    assert (fa.range, fa.accuracy, fa.speed, fa.guns) == (30, 2, 2, 4)
    assert (ha.range, ha.accuracy, ha.speed, ha.guns) == (20, 2, 9, 4)


@pytest.mark.parametrize(("arm", "name", "size"), [
    ("infantry", "line", (8, 1)), ("infantry", "attack_column", (4, 2)), ("infantry", "square", (3, 3)),
    ("infantry", "march_column", (2, 4)), ("cavalry", "attack_column", (3, 2)), ("cavalry", "march_column", (2, 3)),
    ("artillery", "deployed", (4, 2)), ("artillery", "limbered", (2, 4)),
])
def test_formation_frontage_and_depth_N_INF_2_to_5_N_CAV_4_5_N_ART_4_5(arm: str, name: str,
                                                                      size: tuple[int, int]) -> None:
    f = FORMATIONS[(arm, name)]
    assert (f.width, f.depth) == size
    for facing in (0, 2, 4, 6):
        assert len(footprint_offsets(f.width, f.depth, facing)) == f.width * f.depth


def test_diagonal_line_fills_its_staircase_D_N_4() -> None:
    cells = set(footprint_offsets(8, 1, 1))  # line facing north-east
    assert len(cells) == 15
    lattice = [(i, i) for i in range(8)]
    assert set(lattice) <= cells
    for i in range(7):  # every diagonal step has a filled corner behind the front (to the south-west)
        assert (i, i + 1) in cells


def test_diagonal_block_has_no_holes_D_N_4() -> None:
    cells = set(footprint_offsets(3, 3, 3))
    xs = [c[0] for c in cells]
    for x in range(min(xs), max(xs) + 1):
        ys = sorted(c[1] for c in cells if c[0] == x)
        assert ys == list(range(ys[0], ys[-1] + 1)), "a diagonal square is solid column by column"


def test_front_rank_faces_its_direction_N_INF_9() -> None:
    assert front_rank((10, 10), 4, 0) == ((10, 10), (11, 10), (12, 10), (13, 10))
    assert front_rank((10, 10), 4, 4) == ((10, 10), (9, 10), (8, 10), (7, 10))


def test_distance_is_euclidean_rounded_half_up_D_GEN_2() -> None:
    assert distance((0, 0), (3, 0)) == 3
    assert distance((0, 0), (1, 1)) == 1  # 1.41
    assert distance((0, 0), (2, 2)) == 3  # 2.83
    assert distance((0, 0), (3, 4)) == 5


def test_sectors_front_flank_rear_D_N_5() -> None:
    assert sector((10, 10), 0, (10, 5)) == "front"
    assert sector((10, 10), 0, (15, 10)) == "flank"
    assert sector((10, 10), 0, (10, 15)) == "rear"
    assert sector((10, 10), 0, (15, 5)) == "front"  # exactly 45°


def test_hit_tables_N_HIT_2_N_HIT_3_D_N_7() -> None:
    foot, horse = HIT_TABLES["foot"], HIT_TABLES["horse"]
    assert [foot.chance(2, d) for d in (6, 10, 11, 15, 16, 20, 21, 25, 26, 30)] == [5, 5, 4, 4, 3, 3, 2, 2, 1, 1]
    assert [foot.chance(4, d) for d in (8, 13, 18, 23, 28)] == [6, 6, 5, 4, 3]
    assert [foot.chance(1, d) for d in (8, 13, 18, 23, 28)] == [5, 3, 3, 1, 1]
    assert [horse.chance(1, d) for d in (8, 13, 18)] == [3, 2, 1]
    assert [horse.chance(3, d) for d in (8, 13, 20)] == [5, 4, 3]


def _state(red: list, blue: list, **kw: object) -> BattleState:  # type: ignore[type-arg]
    return setup_state(config(red, blue, **kw), seed=1)


def test_deployment_zones_keep_off_the_edges_N_START_7_D_N_3() -> None:
    m = BattleMap.open_field()
    assert in_zone(m, "south", 5, 64) and in_zone(m, "south", 64, 50)
    assert not in_zone(m, "south", 4, 60) and not in_zone(m, "south", 10, 65) and not in_zone(m, "south", 10, 49)
    assert in_zone(m, "north", 30, 5) and not in_zone(m, "north", 30, 4)
    with pytest.raises(IllegalOrder) as err:
        _state([unit("r1", "infantry", 30, 66)], [unit("b1", "infantry")])
    assert err.value.rule == "N-START-7"


def test_units_without_places_are_deployed_in_their_zone_D_N_3() -> None:
    s = _state([unit(f"r{i}", "infantry") for i in range(10)], [unit(f"b{i}", "light_cavalry") for i in range(10)])
    for u in s.units.values():
        assert all(in_zone(s.map, s.sides[u.side].edge, x, y) for x, y in u.cells)
    assert s.units["r0"].facing == 0 and s.units["b0"].facing == 4


def test_no_overlap_D_N_4() -> None:
    with pytest.raises(IllegalOrder) as err:
        _state([unit("r1", "infantry", 20, 55), unit("r2", "infantry", 25, 55)], [unit("b1", "infantry")])
    assert err.value.rule == "D-N-4"


def test_impassable_ground_N_TERRAIN_1_2_3_5() -> None:
    rows = ["." * 70 for _ in range(70)]
    rows[55] = "." * 20 + "f" * 10 + "F" * 10 + "S" * 10 + "~" * 10 + "." * 10
    m = {"rows": rows}
    _state([unit("r1", "infantry", 20, 55, formation="march_column")], [unit("b1", "infantry")], map=m)
    with pytest.raises(IllegalOrder) as err:
        _state([unit("r1", "foot_artillery", 20, 55)], [unit("b1", "infantry")], map=m)
    assert err.value.rule == "N-TERRAIN-2"
    with pytest.raises(IllegalOrder) as err:
        _state([unit("r1", "light_cavalry", 31, 55)], [unit("b1", "infantry")], map=m)
    assert err.value.rule == "N-TERRAIN-3"
    with pytest.raises(IllegalOrder) as err:
        _state([unit("r1", "infantry", 40, 55)], [unit("b1", "infantry")], map=m)
    assert err.value.rule == "N-TERRAIN-5"
    with pytest.raises(IllegalOrder) as err:
        _state([unit("r1", "infantry", 50, 55, formation="square")], [unit("b1", "infantry")], map=m)
    assert err.value.rule == "N-TERRAIN-1"


def test_more_than_25_units_wait_off_the_field_N_START_6() -> None:
    s = _state([unit(f"r{i}", "infantry", formation="attack_column") for i in range(27)], [unit("b1", "infantry")])
    assert sum(u.on_field for u in s.units.values() if u.side == "red") == 25
    assert sum(u.status == RESERVE for u in s.units.values()) == 2


def test_dump_load_round_trip_and_copy_is_independent() -> None:
    s = _state([unit("r1", "infantry", 20, 55)], [unit("b1", "heavy_cavalry")])
    again = BattleState.load(s.dump())
    assert again.dump() == s.dump()
    assert list(again.occ) == list(s.occ)
    c = s.copy()
    c.units["r1"].morale = 1
    c.lift(c.units["r1"])
    assert s.units["r1"].morale == 6 and s.unit_at(20, 55) is not None
