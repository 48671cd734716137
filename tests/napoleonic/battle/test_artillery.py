"""Artillery companies as the engine plays them: base values (N-ART-2, D-N-11), the travel position (N-ART-5) and
the horse artillery's hit table (N-HIT-3), each proven through orders and resolutions, not the tables alone."""

from __future__ import annotations

from typing import Any

import pytest

from server.core.errors import BadOrder, IllegalOrder
from server.napoleonic.battle.state import BattleState

from .helpers import ENGINE, RED, battle, config, kinds, order, run_turn, unit


def target_column(d: int, x: int = 32) -> dict[str, Any]:
    """A blue march column (it cannot fire back) whose front is `d` rows north of the guns' front on row 50."""
    return unit("b1", "infantry", x, 50 - d, facing="S", formation="march_column")


def company(kind: str, d: int = 20, **kw: Any) -> BattleState:
    """A red company at (30, 50) facing north and a blue target `d` rows ahead."""
    extra = {"map": kw.pop("map")} if "map" in kw else {}
    return battle([unit("a1", kind, 30, 50, **kw)], [target_column(d)], **extra)


def aim(state: BattleState) -> BattleState:
    state, _ = ENGINE.apply(state, RED, {"type": "targets", "unit": "a1", "targets": [{"unit": "b1", "guns": 4}]})
    return state


def round_shot_roll(state: BattleState) -> dict[str, Any]:
    _, events = run_turn(aim(state))
    (roll,) = [e for e in kinds(events, "roll") if e["purpose"] == "round_shot"]
    return roll


def north(state: BattleState, n: int) -> list[list[int]]:
    u = state.units["a1"]
    return [[u.x, u.y - i] for i in range(1, n + 1)]


# --- N-ART-2: range, accuracy, speed ------------------------------------------------------------------------------

@pytest.mark.parametrize(("kind", "reach"), [("foot_artillery", 30), ("horse_artillery", 20)])
def test_round_shot_reaches_the_company_range_and_no_further_N_ART_2_N_ART_7(kind: str, reach: int) -> None:
    roll = round_shot_roll(company(kind, reach))
    assert roll["distance"] == reach
    with pytest.raises(IllegalOrder) as err:
        aim(company(kind, reach + 1))
    assert err.value.rule == "N-ART-7"


@pytest.mark.parametrize(("kind", "speed"), [("foot_artillery", 2), ("horse_artillery", 9)])
def test_a_limbered_company_moves_its_speed_in_cells_N_ART_2_N_ART_5(kind: str, speed: int) -> None:
    s = company(kind, formation="limbered")
    assert s.units["a1"].points == speed
    moved, _ = order(s, {"type": "move", "unit": "a1", "path": north(s, speed)})
    assert moved.units["a1"].y == 50 - speed and moved.units["a1"].points == 0
    with pytest.raises(IllegalOrder) as err:
        order(s, {"type": "move", "unit": "a1", "path": north(s, speed + 1)})
    assert err.value.rule == "D-GEN-2"


@pytest.mark.parametrize(("kind", "d", "need"), [("foot_artillery", 8, 5), ("foot_artillery", 22, 2),
                                                 ("horse_artillery", 8, 4), ("horse_artillery", 18, 2)])
def test_both_companies_shoot_with_accuracy_two_by_default_N_ART_2_N_HIT_2_N_HIT_3(kind: str, d: int,
                                                                                    need: int) -> None:
    roll = round_shot_roll(company(kind, d))
    assert (roll["accuracy"], roll["need"]) == (2, need)


@pytest.mark.parametrize(("kind", "accuracy", "ok"), [
    ("foot_artillery", 1, True), ("foot_artillery", 4, True), ("foot_artillery", 0, False),
    ("foot_artillery", 5, False), ("horse_artillery", 1, True), ("horse_artillery", 3, True),
    ("horse_artillery", 4, False), ("horse_artillery", 0, False),
])
def test_scenario_accuracy_is_one_to_four_on_foot_one_to_three_horse_N_ART_2_D_N_11(kind: str, accuracy: int,
                                                                                    ok: bool) -> None:
    cfg = config([unit("a1", kind, 30, 50, accuracy=accuracy)], [target_column(8)], deployment_zones=False)
    if ok:
        state, _ = ENGINE.setup(cfg, 1)
        assert round_shot_roll(state)["accuracy"] == accuracy
    else:
        with pytest.raises(BadOrder) as err:
            ENGINE.setup(cfg, 1)
        assert err.value.rule == "D-N-11"


# --- N-ART-5: the travel position ---------------------------------------------------------------------------------

def test_travel_position_is_two_cells_wide_and_four_deep_N_ART_5() -> None:
    s, ev = order(company("horse_artillery"), {"type": "limber", "unit": "a1"})
    u = s.units["a1"]
    assert kinds(ev, "formation")[0]["formation"] == "limbered"
    assert sorted(u.cells) == [(x, y) for x in (31, 32) for y in range(50, 54)]  # front rank on row 50, 4 deep
    assert all(s.occ[y * s.map.width + x] == u.num for x, y in u.cells)
    assert s.occ[50 * s.map.width + 30] == 0 and s.occ[50 * s.map.width + 33] == 0  # the deployed flanks are free


def test_limbered_guns_cannot_fire_canister_or_round_shot_N_ART_5() -> None:
    close = battle([unit("a1", "horse_artillery", 30, 50, formation="limbered")], [target_column(3)])
    _, ev = run_turn(close)
    assert not [e for e in kinds(ev, "fire") if e["unit"] == "a1"]
    s = aim(company("horse_artillery", 10))
    s, _ = order(s, {"type": "limber", "unit": "a1"})  # targets stay designated, but the guns are on their limbers
    _, ev = run_turn(s)
    assert not [e for e in kinds(ev, "fire") if e["unit"] == "a1"]
    assert not [e for e in kinds(ev, "roll") if e["purpose"] == "round_shot"]


def test_guns_move_on_the_turn_they_limber_N_ART_3_N_ART_5() -> None:
    s, _ = order(company("horse_artillery"), {"type": "limber", "unit": "a1"})
    assert s.units["a1"].points == 7  # 9 − 2 for limbering
    s, ev = order(s, {"type": "move", "unit": "a1", "path": north(s, 7)})
    assert kinds(ev, "moved")[0]["steps"] == 7 and s.units["a1"].points == 0


def test_a_foot_company_that_limbers_moves_only_with_the_road_bonus_N_ART_5_N_ART_3_N_TERRAIN_6() -> None:
    s, _ = order(company("foot_artillery"), {"type": "limber", "unit": "a1"})
    assert s.units["a1"].points == 0  # speed 2, limbering costs 2
    with pytest.raises(IllegalOrder) as err:
        order(s, {"type": "move", "unit": "a1", "path": north(s, 1)})
    assert err.value.rule == "D-GEN-2"
    rows = ["." * 70 for _ in range(70)]
    for y in range(40, 60):  # a road under the limbered front rank (columns 31–32), running north
        rows[y] = "." * 31 + "==" + "." * 37
    s, _ = order(company("foot_artillery", map={"rows": rows}), {"type": "limber", "unit": "a1"})
    s, ev = order(s, {"type": "move", "unit": "a1", "path": north(s, 2)})
    (moved,) = kinds(ev, "moved")
    assert moved["road"] and moved["steps"] == 2 and s.units["a1"].y == 48


@pytest.mark.parametrize(("degrees", "cost"), [(45, 1), (-45, 1), (90, 2), (-90, 2)])
def test_limbered_guns_wheel_45_for_one_point_90_for_two_N_ART_5(degrees: int, cost: int) -> None:
    s = company("horse_artillery", formation="limbered")
    s, ev = order(s, {"type": "wheel", "unit": "a1", "degrees": degrees})
    assert kinds(ev, "wheeled")[0]["degrees"] == degrees and s.units["a1"].points == 9 - cost
    foot = company("foot_artillery", formation="limbered")  # 2 points: a 90° wheel in one turn (deployed: two)
    foot, ev = order(foot, {"type": "wheel", "unit": "a1", "degrees": 90})
    assert kinds(ev, "wheeled") and not kinds(ev, "order_carried") and foot.units["a1"].facing == 2


# --- N-HIT-3: the horse artillery's hit table, played ----------------------------------------------------------------

HORSE_TABLE = {  # accuracy: (6–10, 11–15, 16–max) in sixths
    1: (3, 2, 1),
    2: (4, 3, 2),
    3: (5, 4, 3),
}


@pytest.mark.parametrize("accuracy", sorted(HORSE_TABLE))
@pytest.mark.parametrize(("d", "column"), [(6, 0), (10, 0), (11, 1), (15, 1), (16, 2), (20, 2)])
def test_horse_round_shot_rolls_its_own_table_by_accuracy_and_distance_N_HIT_3_D_GEN_1(accuracy: int, d: int,
                                                                                      column: int) -> None:
    s = company("horse_artillery", d, accuracy=accuracy)
    s, ev = run_turn(aim(s))
    (roll,) = [e for e in kinds(ev, "roll") if e["purpose"] == "round_shot"]
    assert (roll["distance"], roll["accuracy"], roll["need"]) == (d, accuracy, HORSE_TABLE[accuracy][column])
    (shot,) = [e for e in kinds(ev, "fire") if e["weapon"] == "round_shot"]
    assert shot["hit"] == (roll["face"] <= roll["need"]) and shot["losses"] == (2 if shot["hit"] else 0)


def test_horse_guns_on_a_hill_reach_25_in_the_last_column_N_HIT_3_N_TERRAIN_4() -> None:
    elev = ["0" * 70 for _ in range(70)]
    elev[50] = elev[51] = "0" * 30 + "1111" + "0" * 36
    hill = {"rows": ["." * 70] * 70, "elevation": elev}
    roll = round_shot_roll(company("horse_artillery", 25, accuracy=3, map=hill))
    assert (roll["distance"], roll["need"]) == (25, 3)  # "16–max": the range with the hill's +5


def test_horse_accuracy_one_at_a_forest_stays_one_N_HIT_3_N_HIT_1_N_TERRAIN_2() -> None:
    rows = ["." * 70 for _ in range(70)]
    for y in range(34, 39):  # under the target (rows 35–38), not between it and the guns
        rows[y] = "." * 30 + "f" * 6 + "." * 34
    for accuracy, need in ((1, 2), (2, 2), (3, 3)):  # 11–15 cells, one row down, never below the first
        roll = round_shot_roll(company("horse_artillery", 12, accuracy=accuracy, map={"rows": rows}))
        assert (roll["accuracy"], roll["need"]) == (max(1, accuracy - 1), need)
