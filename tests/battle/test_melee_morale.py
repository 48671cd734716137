"""Melee, charge, contact and morale (N-MELEE, N-CHARGE, N-ART-1, N-MORALE; D-N-5, D-N-6, D-N-9)."""

from __future__ import annotations

import pytest

from server.battle.log import Log
from server.battle.morale import dispersal_check
from server.core.errors import IllegalOrder

from .helpers import ENGINE, ahead, battle, kinds, order, run_turn, unit


def test_melee_table_difference_of_two_or_more_N_MELEE_1() -> None:
    s = battle([unit("r1", "infantry", 32, 50, formation="attack_column")],
               [unit("b1", "infantry", 37, 46, facing="S")])
    s, ev = order(s, {"type": "move", "unit": "r1", "path": ahead(s, "r1", 3)})
    (contact,) = kinds(ev, "contact")
    assert (contact["sector"] == "front" and ("r1", "b1") in s.melees) or ("b1", "r1") in s.melees
    s, ev = run_turn(s)
    (m,) = kinds(ev, "melee")
    values = dict(zip([m["a"], m["b"]], m["values"], strict=True))
    losses = dict(zip([m["a"], m["b"]], m["losses"], strict=True))
    assert values == {"r1": 4, "b1": 2} and losses == {"r1": 1, "b1": 3}


@pytest.mark.parametrize(("red", "blue", "expected"), [
    ("line", "line", (1, 1)), ("attack_column", "attack_column", (1, 1)),
])
def test_melee_table_equal_values_N_MELEE_1(red: str, blue: str, expected: tuple[int, int]) -> None:
    s = battle([unit("r1", "infantry", 30, 50, formation=red)], [unit("b1", "infantry", 37, 48, facing="S",
                                                                      formation=blue)])
    s, _ = order(s, {"type": "move", "unit": "r1", "path": ahead(s, "r1", 1)})
    s, ev = run_turn(s)
    (m,) = kinds(ev, "melee")
    assert tuple(m["losses"]) == expected


def test_charge_bonus_on_the_first_round_only_and_square_ignores_cavalry_N_CHARGE_1_N_INF_4_D_N_9() -> None:
    s = battle([unit("c1", "heavy_cavalry", 31, 51)], [unit("b1", "infantry", 31, 44, formation="square")])
    s, ev = order(s, {"type": "charge", "unit": "c1", "path": ahead(s, "c1", 6)})
    assert kinds(ev, "charge")[0]["bonus"] == 4
    assert s.units["b1"].morale == 6  # no flank, rear or attacked-by-cavalry penalty for a square
    s, ev = run_turn(s)
    (m,) = kinds(ev, "melee")
    assert sorted(m["values"]) == [4, 8]  # heavy 3 + column 1 + charge 4 against square 2 + 2
    s, ev = run_turn(s)
    (m,) = kinds(ev, "melee")
    assert m["values"] == [4, 4]


def test_short_run_or_march_column_gives_no_charge_N_CHARGE_1_N_CAV_5() -> None:
    s = battle([unit("c1", "heavy_cavalry", 31, 47)], [unit("b1", "infantry", 31, 44, formation="square")])
    s, ev = order(s, {"type": "charge", "unit": "c1", "path": ahead(s, "c1", 2)})
    assert kinds(ev, "charge")[0]["bonus"] == 0
    m = battle([unit("c1", "heavy_cavalry", 31, 53, formation="march_column")],
               [unit("b1", "infantry", 31, 44, formation="square")])
    m, ev = order(m, {"type": "charge", "unit": "c1", "path": ahead(m, "c1", 8)})
    assert kinds(ev, "charge")[0] == {"unit": "c1", "bonus": 0, "run": 8, "reason": "no charge in march column",
                                      "rule": "N-CAV-5"}
    with pytest.raises(IllegalOrder) as err:
        order(battle([unit("c1", "heavy_cavalry", 31, 60)], [unit("b1", "infantry", 31, 44)]),
              {"type": "charge", "unit": "c1", "path": [[31, 59]]})
    assert err.value.rule == "N-CHARGE-1"


def test_flank_attack_by_cavalry_costs_infantry_two_and_gives_attacker_one_N_MORALE_2_N_MORALE_3_D_N_5() -> None:
    s = battle([unit("c1", "light_cavalry", 20, 46, facing="E")], [unit("b1", "infantry", 31, 45, facing="S")])
    s, ev = order(s, {"type": "move", "unit": "c1", "path": [[21 + i, 46] for i in range(3)]})
    assert kinds(ev, "contact")[0]["sector"] == "flank"
    assert s.units["b1"].morale == 4 and s.units["c1"].morale == 9


def test_march_column_flank_penalty_is_two_worse_N_INF_5_D_N_9() -> None:
    s = battle([unit("r1", "infantry", 24, 42, facing="E", formation="attack_column")],
               [unit("b1", "infantry", 31, 45, facing="S", formation="march_column")])
    s, ev = order(s, {"type": "move", "unit": "r1", "path": [[25 + i, 42] for i in range(5)]})
    assert kinds(ev, "contact")[0]["sector"] == "flank"
    assert s.units["b1"].morale == 6 - 3


def test_artillery_touched_by_cavalry_is_destroyed_guns_taken_N_ART_1_D_N_6() -> None:
    s = battle([unit("c1", "light_cavalry", 31, 52)], [unit("a1", "foot_artillery", 34, 44, facing="S")])
    s, ev = order(s, {"type": "move", "unit": "c1", "path": ahead(s, "c1", 7)})
    assert kinds(ev, "overrun")[0]["unit"] == "a1" and s.units["a1"].status == "destroyed"
    assert s.units["c1"].morale == 9  # an enemy in contact destroyed: +1 (N-MORALE-3)


def test_leave_melee_only_next_turn_and_first_to_leave_pays_N_MELEE_2_N_MELEE_3() -> None:
    s = battle([unit("r1", "infantry", 32, 50, formation="attack_column")],
               [unit("b1", "infantry", 34, 46, facing="S", formation="attack_column")])
    s, _ = order(s, {"type": "move", "unit": "r1", "path": ahead(s, "r1", 3)})
    with pytest.raises(IllegalOrder) as err:
        order(s, {"type": "leave_melee", "unit": "r1", "path": ahead(s, "r1", 1, direction=4)})
    assert err.value.rule == "N-MELEE-3"
    with pytest.raises(IllegalOrder) as err:
        order(s, {"type": "wheel", "unit": "r1", "degrees": 45})
    assert err.value.rule == "N-MELEE-3"
    s, _ = order(s, {"type": "about_face", "unit": "r1"})  # allowed in melee
    s, _ = order(s, {"type": "about_face", "unit": "r1"})
    s, _ = run_turn(s)
    morale = s.units["r1"].morale, s.units["b1"].morale
    with pytest.raises(IllegalOrder) as err:
        order(s, {"type": "move", "unit": "r1", "path": ahead(s, "r1", 1, direction=4)})
    assert err.value.rule == "N-MELEE-3"
    s, ev = order(s, {"type": "leave_melee", "unit": "r1", "path": ahead(s, "r1", 2, direction=4)})
    assert kinds(ev, "left_melee") and not s.melees
    assert (s.units["r1"].morale, s.units["b1"].morale) == (morale[0] - 1, morale[1] + 1)


def test_every_two_turns_in_melee_cost_one_morale_N_MELEE_2() -> None:
    s = battle([unit("r1", "infantry", 30, 50, formation="line")],
               [unit("b1", "infantry", 37, 48, facing="S", formation="line")])
    s, _ = order(s, {"type": "move", "unit": "r1", "path": ahead(s, "r1", 1)})
    s, ev1 = run_turn(s)
    s, ev2 = run_turn(s)
    assert not [e for e in kinds(ev1, "morale") if e["rule"] == "N-MELEE-2"]
    assert {e["unit"] for e in kinds(ev2, "morale") if e["rule"] == "N-MELEE-2"} == {"r1", "b1"}


def test_dispersal_rolls_at_two_and_one_and_zero_disperses_N_MORALE_5_D_N_9() -> None:
    s = battle([unit("r1", "infantry", 30, 50)], [unit("b1", "infantry", 37, 20, facing="S")])
    u = s.units["r1"]
    log = Log(s)
    u.morale = 3
    assert not dispersal_check(log, u) and not log.events
    u.morale = 2
    dispersal_check(log, u)
    assert [e.data["need"] for e in log.events if e.kind == "roll"] == [2]  # 1/3
    log.events.clear()
    u.morale = 2
    dispersal_check(log, u)
    assert not log.events  # rolled once on reaching 2
    u.morale = 4
    dispersal_check(log, u)
    u.morale = 1
    dispersal_check(log, u)
    assert [e.data["need"] for e in log.events if e.kind == "roll"] == [3]  # skipped 2: only the 1/2 roll
    log.events.clear()
    u.morale = 0
    assert dispersal_check(log, u) and not [e for e in log.events if e.kind == "roll"]


def test_loss_tolerance_half_and_one_left_N_MORALE_2_D_N_9() -> None:
    s = battle([unit("r1", "infantry", 30, 50)], [unit("b1", "infantry", 37, 20, facing="S")])
    from server.battle.losses import apply_losses

    log = Log(s)
    u = s.units["r1"]
    apply_losses(s, log, u, 4, "test", None, "N-LOSSES-1")
    assert u.morale == 6
    apply_losses(s, log, u, 1, "test", None, "N-LOSSES-1")
    assert u.morale == 5  # 5 of 10 left
    apply_losses(s, log, u, 4, "test", None, "N-LOSSES-1")
    assert u.morale == 3  # 1 left: −2 more
    apply_losses(s, log, u, 1, "test", None, "N-LOSSES-1")
    assert u.status == "destroyed"


def test_three_turns_of_losses_and_of_inflicting_them_N_MORALE_2_N_MORALE_3() -> None:
    s = battle([unit("r1", "infantry", 30, 50)],
               [unit("b1", "infantry", 31, 48, facing="S", formation="march_column", loss_tolerance=10)])
    for _ in range(3):
        s, ev = run_turn(s)
    assert s.units["r1"].morale == 7
    reasons = [e["reason"] for e in kinds(ev, "morale") if e["unit"] == "b1"]
    assert "losses three turns in a row" in reasons


def test_dispersed_unit_in_contact_surrenders_N_MORALE_6_N_MORALE_8() -> None:
    s = battle([unit("r1", "infantry", 30, 50), unit("r2", "infantry", 40, 60)],
               [unit("b1", "infantry", 31, 48, facing="S", formation="march_column"),
                unit("b2", "infantry", 60, 20, facing="S")])
    s, _ = ENGINE.moderate(s, {"type": "adjust", "unit": "b1", "morale": 1})
    s, _ = run_turn(s)  # 2 losses at close range; morale 1 → dispersal roll or not; force 0 instead
    if s.units["b1"].on_field:
        s, _ = ENGINE.moderate(s, {"type": "adjust", "unit": "b1", "morale": 0})
        s, _ = run_turn(s)
    assert s.units["b1"].status == "surrendered"  # inside r1's fire zone: in contact
