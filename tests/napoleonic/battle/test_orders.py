"""Orders of the order phase: moves, wheels, formation changes and their timing (N-INF, N-CAV, N-ART, N-TERRAIN,
D-GEN-2, D-N-4, D-N-10)."""

from __future__ import annotations

from typing import get_args

import pytest

from server.core.errors import BadOrder, IllegalOrder, NotYourTurn, NotYourUnit, UnknownOrder
from server.napoleonic.battle import orders
from server.napoleonic.battle.engine import UNIT_ORDERS
from server.napoleonic.battle.formation import can_fire, effective_morale, firepower, melee_value, speed

from .helpers import BLUE, ENGINE, RED, ahead, battle, kinds, order, run_turn, unit

FOE = [unit("b1", "infantry", 10, 5, facing="S")]


def field(rows: dict[int, str] | None = None, elevation: dict[int, str] | None = None) -> dict[str, list[str]]:
    r = ["." * 70 for _ in range(70)]
    e = ["0" * 70 for _ in range(70)]
    for y, row in (rows or {}).items():
        r[y] = row.ljust(70, ".")
    for y, row in (elevation or {}).items():
        e[y] = row.ljust(70, "0")
    return {"rows": r, "elevation": e}


def test_line_to_attack_column_worked_example_1_N_INF_8_N_INF_6_N_INF_7() -> None:
    s = battle([unit("r1", "infantry", 30, 50)], FOE)
    u = s.units["r1"]
    assert (u.points, firepower(u), effective_morale(u), melee_value(u)) == (4, 4, 6, 2)
    s, _ = order(s, {"type": "formation", "unit": "r1", "formation": "attack_column"})
    u = s.units["r1"]
    assert u.points == 3  # 4 − 2 (N-INF-6) + 1 (the faster formation's speed at once, N-INF-7 b)
    assert (firepower(u), effective_morale(u), melee_value(u)) == (2, 6, 2)  # lost at once, gained next turn
    s, _ = order(s, {"type": "move", "unit": "r1", "path": ahead(s, "r1", 3)})
    with pytest.raises(IllegalOrder):
        ENGINE.apply(s, RED, {"type": "move", "unit": "r1", "path": ahead(s, "r1", 1)})
    s, _ = run_turn(s)
    u = s.units["r1"]
    assert (u.points, speed(s, u), melee_value(u), effective_morale(u), firepower(u)) == (5, 5, 4, 8, 2)


def test_march_column_to_line_worked_example_2_N_INF_8() -> None:
    s = battle([unit("r1", "infantry", 30, 50, formation="march_column")], FOE)
    assert s.units["r1"].points == 6
    s, _ = order(s, {"type": "formation", "unit": "r1", "formation": "line"})
    u = s.units["r1"]
    assert u.points == 3  # 6 − 3, the march column's speed kept this turn (N-INF-7 a)
    assert not can_fire(u)  # fire and its bonus only next turn (N-INF-7 d)
    s, _ = order(s, {"type": "move", "unit": "r1", "path": ahead(s, "r1", 3)})
    s, _ = run_turn(s)
    u = s.units["r1"]
    assert can_fire(u) and firepower(u) == 4 and u.points == 4


def test_diagonal_steps_cost_one_and_a_half_D_GEN_2() -> None:
    s = battle([unit("r1", "infantry", 30, 50, formation="attack_column")], FOE)  # 5 points
    s, ev = order(s, {"type": "move", "unit": "r1", "path": [[31, 49], [32, 48], [33, 47]]})
    assert kinds(ev, "moved")[0]["spent"] == 4.5
    with pytest.raises(IllegalOrder) as err:
        order(battle([unit("r1", "infantry", 30, 50, formation="attack_column")], FOE),
              {"type": "move", "unit": "r1", "path": [[31, 49], [32, 48], [33, 47], [34, 46]]})
    assert err.value.rule == "D-GEN-2"


def test_light_forest_slows_infantry_to_two_cells_N_TERRAIN_2() -> None:
    m = field({y: "." * 20 + "f" * 20 for y in range(30, 50)})
    s = battle([unit("r1", "infantry", 24, 50, formation="attack_column")], FOE, map=m)
    s, ev = order(s, {"type": "move", "unit": "r1", "path": [[24, 49], [24, 48]]})
    assert kinds(ev, "moved")[0]["spent"] == 5  # speed 5 reduced to 2: each forest step costs 5/2
    light = battle([unit("c1", "light_cavalry", 24, 50)], FOE, map=m)
    path = [[24, 49 - i] for i in range(8)]
    light, ev = order(light, {"type": "move", "unit": "c1", "path": path})  # 12 → 8 cells a turn
    assert kinds(ev, "moved")[0]["spent"] == pytest.approx(12)


def test_dense_forest_closed_to_cavalry_and_guns_N_TERRAIN_3() -> None:
    m = field({49: "." * 20 + "F" * 20})
    s = battle([unit("c1", "heavy_cavalry", 24, 50)], FOE, map=m)
    with pytest.raises(IllegalOrder) as err:
        order(s, {"type": "move", "unit": "c1", "path": [[24, 49]]})
    assert err.value.rule == "N-TERRAIN-3"


def test_settlement_forbids_line_and_slows_N_TERRAIN_5() -> None:
    m = field({y: "." * 20 + "S" * 20 for y in range(40, 50)})
    s = battle([unit("r1", "infantry", 22, 52, formation="attack_column")], FOE, map=m)
    s, ev = order(s, {"type": "move", "unit": "r1", "path": [[22, 51], [22, 50], [22, 49]]})
    assert kinds(ev, "moved")[0]["spent"] == pytest.approx(2 + 5 / 3)  # speed 5 − 2 in the settlement
    s2 = battle([unit("r1", "infantry", 22, 45, formation="attack_column")], FOE, map=m)
    with pytest.raises(IllegalOrder) as err:
        order(s2, {"type": "formation", "unit": "r1", "formation": "line"})
    assert err.value.rule == "N-TERRAIN-5"


def test_road_gives_march_column_two_more_N_TERRAIN_6_D_N_10() -> None:
    m = field({y: "." * 30 + "==" for y in range(0, 70)})
    s = battle([unit("r1", "infantry", 30, 55, formation="march_column")], FOE, map=m)
    path = [[30, 54 - i] for i in range(8)]  # 8 cells: 6 + 2 on the road
    s, ev = order(s, {"type": "move", "unit": "r1", "path": path})
    assert kinds(ev, "moved")[0]["road"] is True
    off = battle([unit("r1", "infantry", 33, 55, formation="march_column")], FOE, map=m)
    with pytest.raises(IllegalOrder):
        order(off, {"type": "move", "unit": "r1", "path": [[33, 54 - i] for i in range(8)]})


def test_climbing_a_hill_costs_one_descending_gives_one_N_TERRAIN_4_D_N_10() -> None:
    m = field(elevation={y: "0" * 20 + "1" * 20 for y in range(40, 48)})
    s = battle([unit("r1", "infantry", 22, 50, formation="attack_column")], FOE, map=m)
    s, ev = order(s, {"type": "move", "unit": "r1", "path": [[22, 49], [22, 48], [22, 47]]})
    assert kinds(ev, "moved")[0]["spent"] == 4  # 3 steps + 1 for the climb
    s2 = battle([unit("r1", "infantry", 22, 45, formation="attack_column")], FOE, map=m)
    s2, _ = order(s2, {"type": "about_face", "unit": "r1"})
    u = s2.units["r1"]
    path = [[u.x, u.y + i] for i in range(1, 6)]
    s2, ev = order(s2, {"type": "move", "unit": "r1", "path": path})
    assert kinds(ev, "moved")[0]["spent"] == 4  # 5 steps − 1 for the descent


def test_wheel_costs_by_formation_N_INF_2_N_INF_3() -> None:
    s = battle([unit("r1", "infantry", 30, 50)], FOE)
    s, _ = order(s, {"type": "wheel", "unit": "r1", "degrees": 45})
    assert s.units["r1"].points == 2 and s.units["r1"].facing == 1
    s, _ = order(s, {"type": "wheel", "unit": "r1", "degrees": -45})
    assert s.units["r1"].points == 0 and s.units["r1"].facing == 0
    c = battle([unit("r1", "infantry", 30, 50, formation="attack_column")], FOE)
    c, _ = order(c, {"type": "wheel", "unit": "r1", "degrees": 90})
    assert c.units["r1"].points == 3 and c.units["r1"].facing == 2


def test_square_cannot_move_or_turn_and_loses_its_points_N_INF_4_N_INF_9() -> None:
    s = battle([unit("r1", "infantry", 30, 50, formation="attack_column")], FOE)
    s, _ = order(s, {"type": "formation", "unit": "r1", "formation": "square"})
    u = s.units["r1"]
    assert u.points == 0 and len(u.cells) == 9
    s, _ = run_turn(s)
    for o, rule in (({"type": "move", "unit": "r1", "path": [[u.x, u.y - 1]]}, "N-INF-4"),
                    ({"type": "wheel", "unit": "r1", "degrees": 45}, "N-INF-4")):
        with pytest.raises(IllegalOrder) as err:
            order(s, o)
        assert err.value.rule == rule
    with pytest.raises(IllegalOrder, match=r"^a unit in square cannot turn$"):
        order(s, {"type": "wheel", "unit": "r1", "degrees": 45})


def test_about_face_costs_one_point_and_keeps_the_ground_N_INF_10() -> None:
    s = battle([unit("r1", "infantry", 30, 50, formation="attack_column")], FOE)
    before = set(s.units["r1"].cells)
    s, _ = order(s, {"type": "about_face", "unit": "r1"})
    u = s.units["r1"]
    assert u.facing == 4 and u.points == 4 and set(u.cells) == before


def test_deployed_guns_cannot_move_or_about_face_N_ART_4() -> None:
    s = battle([unit("a1", "foot_artillery", 30, 50)], FOE)
    for o in ({"type": "move", "unit": "a1", "path": [[30, 49]]}, {"type": "about_face", "unit": "a1"}):
        with pytest.raises(IllegalOrder) as err:
            order(s, o)
        assert err.value.rule == "N-ART-4"
    with pytest.raises(IllegalOrder, match=r"^a deployed unit cannot about-face$"):  # said in words, not "in deployed"
        order(s, {"type": "about_face", "unit": "a1"})


def test_foot_battery_wheel_of_90_takes_two_turns_N_ART_4_D_N_10() -> None:
    s = battle([unit("a1", "foot_artillery", 30, 50)], FOE)
    s, ev = order(s, {"type": "wheel", "unit": "a1", "degrees": 90})
    assert kinds(ev, "order_carried") and s.units["a1"].facing == 0
    with pytest.raises(IllegalOrder) as err:
        order(s, {"type": "limber", "unit": "a1"})
    assert err.value.rule == "D-N-10"
    s, ev = run_turn(s)
    assert s.units["a1"].facing == 2 and s.units["a1"].points == 0 and s.units["a1"].busy is None


def test_limber_and_unlimber_cost_two_and_guns_fire_at_once_N_ART_3_N_ART_4_N_ART_5() -> None:
    s = battle([unit("a1", "horse_artillery", 30, 50, formation="limbered")], FOE)
    assert s.units["a1"].points == 9
    s, _ = order(s, {"type": "move", "unit": "a1", "path": [[30, 49], [30, 48]]})
    s, _ = order(s, {"type": "unlimber", "unit": "a1"})
    u = s.units["a1"]
    assert u.formation == "deployed" and u.points == 5 and can_fire(u)


def test_units_may_not_pass_through_each_other_D_N_4() -> None:
    s = battle([unit("r1", "infantry", 30, 50, formation="attack_column"),
                unit("r2", "infantry", 30, 46, formation="attack_column")], FOE)
    with pytest.raises(IllegalOrder) as err:
        order(s, {"type": "move", "unit": "r1", "path": [[30, 49], [30, 48], [30, 47]]})
    assert err.value.rule == "D-N-4"


def test_hostile_orders_get_typed_errors() -> None:
    s = battle([unit("r1", "infantry", 30, 50)], FOE)
    with pytest.raises(NotYourUnit):
        ENGINE.apply(s, RED, {"type": "about_face", "unit": "b1"})
    with pytest.raises(NotYourTurn):
        ENGINE.apply(s, BLUE, {"type": "about_face", "unit": "b1"})
    with pytest.raises(UnknownOrder):
        ENGINE.apply(s, RED, {"type": "teleport", "unit": "r1"})
    for bad in ({"type": "move", "unit": "r1", "path": "north"}, {"type": "move", "unit": "r1", "path": [[1]]},
                {"type": "wheel", "unit": "r1", "degrees": 30}, {"type": "move"},
                {"type": "move", "unit": "r1", "path": [[30, 45]]},
                {"type": "move", "unit": "nobody", "path": [[1, 1]]}):
        with pytest.raises(BadOrder):
            ENGINE.apply(s, RED, bad)
    dump = s.dump()
    with pytest.raises(IllegalOrder) as err:
        ENGINE.apply(s, RED, {"type": "move", "unit": "r1", "path": [[30, 49], [30, 48], [30, 47], [30, 46], [30, 45]]})
    assert err.value.rule == "D-GEN-2"
    assert s.dump() == dump, "an illegal order leaves the state unchanged"


def test_retreat_order_costs_morale_and_gives_speed_irrevocably_N_VICTORY_2() -> None:
    s = battle([unit("r1", "infantry", 30, 50)], FOE)
    s, _ = ENGINE.apply(s, RED, {"type": "retreat"})
    assert s.units["r1"].morale == 5 and s.units["r1"].points == 6 and s.units["b1"].morale == 7
    with pytest.raises(IllegalOrder) as err:
        ENGINE.apply(s, RED, {"type": "retreat"})
    assert err.value.rule == "N-VICTORY-2"
    s, _ = run_turn(s)
    assert not s.over and speed(s, s.units["r1"]) == 6
    s, _ = run_turn(s)
    assert s.over and s.result is not None
    assert s.result["loser"] == "red" and s.result["reason"] == "retreat"  # D-N-2: at the end of the next turn


def test_malformed_setup_is_a_typed_error_N_START_1() -> None:
    for cfg in ({}, {"sides": [{"name": "red"}, {"name": "blue"}]},
                {"sides": [{"name": "red", "attacker": True, "units": [{"type": "infantry"}]}, {"name": "blue"}]},
                {"sides": [{"name": "red", "attacker": True, "units": [{"id": "x", "type": "dragon"}]},
                           {"name": "blue"}]},
                {"sides": [{"name": "red", "attacker": True, "units": [{"id": "x", "type": "infantry", "x": "a",
                                                                         "y": 3}]}, {"name": "blue"}]},
                {"sides": [{"name": "red", "attacker": True}, {"name": "blue"}], "map": {"rows": ["?"]}}):
        with pytest.raises(BadOrder):
            ENGINE.setup(cfg, 1)


def test_wheel_and_back_returns_to_the_same_cells_D_N_4() -> None:
    for formation in ("line", "attack_column", "march_column"):
        s = battle([unit("r1", "infantry", 30, 50, formation=formation)], FOE)
        before = set(s.units["r1"].cells)
        s, _ = order(s, {"type": "wheel", "unit": "r1", "degrees": 45})
        s, _ = run_turn(s)
        s, _ = order(s, {"type": "wheel", "unit": "r1", "degrees": -45})
        assert set(s.units["r1"].cells) == before


def test_every_unit_order_has_exactly_one_handler_D_N_1_D_N_10() -> None:
    unit_orders = set(get_args(orders.Command)) - {orders.Retreat}
    assert set(UNIT_ORDERS) == unit_orders
    assert [t.__name__ for t, h in UNIT_ORDERS.items() if h.while_carrying] == ["Targets"]
