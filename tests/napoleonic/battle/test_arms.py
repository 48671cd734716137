"""The arms as the engine plays them: cavalry (N-CAV-1 … N-CAV-3, N-CHARGE-3), the infantry attack column (N-INF-3)
and morale that adds up and stays (N-MORALE-4; D-N-9, D-N-10, D-N-11)."""

from __future__ import annotations

import pytest

from server.core.errors import IllegalOrder
from server.napoleonic.battle.formation import effective_morale, melee_value, speed

from .helpers import ENGINE, ahead, battle, kinds, order, run_turn, unit


def test_cavalry_never_fires_and_fights_in_melee_N_CAV_1() -> None:
    s = battle([unit("c1", "heavy_cavalry", 31, 50), unit("c2", "light_cavalry", 41, 50)],
               [unit("b1", "infantry", 32, 47, facing="S", formation="march_column"),
                unit("b2", "infantry", 42, 47, facing="S", formation="march_column")])
    for _ in range(2):
        s, ev = run_turn(s)
        assert not kinds(ev, "fire") and not kinds(ev, "losses")  # enemies 3 cells ahead, and not a shot
    with pytest.raises(IllegalOrder) as err:
        order(s, {"type": "targets", "unit": "c1", "targets": [{"unit": "b1", "guns": 1}]})
    assert err.value.rule == "N-ART-7"
    s, _ = order(s, {"type": "move", "unit": "c1", "path": ahead(s, "c1", 2)})
    s, ev = run_turn(s)
    (m,) = kinds(ev, "melee")
    assert {m["a"], m["b"]} == {"c1", "b1"} and sum(m["losses"]) > 0


@pytest.mark.parametrize(("kind", "melee", "charge", "steps", "morale", "tolerance"), [
    ("light_cavalry", 2, 2, 12, 8, 4), ("heavy_cavalry", 3, 4, 9, 6, 6),
])
def test_cavalry_regiments_play_their_table_values_N_CAV_2(kind: str, melee: int, charge: int, steps: int,
                                                          morale: int, tolerance: int) -> None:
    s = battle([unit("c1", kind, 30, 60)], [unit("b1", "infantry", 37, 5, facing="S")])
    c = s.units["c1"]
    assert (c.morale, effective_morale(c), c.loss_tolerance) == (morale, morale + 2, tolerance)  # column +2
    assert melee_value(c) == melee + 1  # attack column +1 (N-CAV-4)
    with pytest.raises(IllegalOrder):
        order(s, {"type": "move", "unit": "c1", "path": ahead(s, "c1", steps + 1)})
    moved, ev = order(s, {"type": "move", "unit": "c1", "path": ahead(s, "c1", steps)})
    assert kinds(ev, "moved")[0]["steps"] == steps and moved.units["c1"].points == 0
    # the charge value: a straight run of 4 into a square (it feels no cavalry penalty, D-N-9)
    s = battle([unit("c1", kind, 31, 51)], [unit("b1", "infantry", 31, 44, formation="square")])
    s, ev = order(s, {"type": "charge", "unit": "c1", "path": ahead(s, "c1", 6)})
    assert kinds(ev, "charge")[0]["bonus"] == charge
    s, ev = run_turn(s)
    assert sorted(kinds(ev, "melee")[0]["values"]) == sorted([melee + 1 + charge, 4])
    # loss tolerance: destroyed when it reaches zero (N-LOSSES-1)
    s, _ = ENGINE.moderate(s, {"type": "adjust", "unit": "c1", "loss_tolerance": 1})
    s, ev = run_turn(s)
    assert s.units["c1"].status == "destroyed"


@pytest.mark.parametrize(("kind", "start"), [("light_cavalry", 12), ("heavy_cavalry", 9)])
def test_every_cavalry_formation_change_costs_two_N_CAV_3_N_INF_7_D_N_10(kind: str, start: int) -> None:
    s = battle([unit("c1", kind, 30, 60)], [unit("b1", "infantry", 37, 5, facing="S")])
    s, ev = order(s, {"type": "formation", "unit": "c1", "formation": "march_column"})
    (f,) = kinds(ev, "formation")
    assert (f["cost"], f["rule"]) == (2, "N-CAV-3")
    assert s.units["c1"].points == start - 2 + 2  # the faster formation's +2 counts at once (N-INF-7 b)
    s, ev = order(s, {"type": "formation", "unit": "c1", "formation": "attack_column"})
    assert kinds(ev, "formation")[0]["cost"] == 2 and s.units["c1"].points == start - 2
    s, _ = run_turn(s)
    assert s.units["c1"].points == start
    s, _ = order(s, {"type": "formation", "unit": "c1", "formation": "march_column"})
    s, _ = run_turn(s)
    assert s.units["c1"].points == speed(s, s.units["c1"]) == start + 2  # N-CAV-5


def _settlement_rows(*ys: int) -> list[str]:
    rows = ["." * 70 for _ in range(70)]
    for y in ys:
        rows[y] = "S" * 70
    return rows


@pytest.mark.parametrize(("where", "formation", "bonus", "rule"), [
    ("open", "attack_column", 2, "N-CHARGE-1"),
    ("settlement", "attack_column", 0, "N-TERRAIN-5"),
    ("open", "march_column", 0, "N-CAV-5"),
    ("target in settlement", "attack_column", 2, "N-CHARGE-1"),  # our decision 14 (docs/battle.md)
])
def test_no_charge_in_march_column_or_in_a_settlement_N_CHARGE_3(where: str, formation: str, bonus: int,
                                                                 rule: str) -> None:
    rows = {"settlement": _settlement_rows(*range(40, 50)),
            "target in settlement": _settlement_rows(*range(38, 45))}.get(where, ["." * 70] * 70)
    s = battle([unit("c1", "light_cavalry", 31, 53, formation=formation)],
               [unit("b1", "infantry", 31, 44, facing="S", formation="march_column")], map={"rows": rows})
    s, ev = order(s, {"type": "charge", "unit": "c1", "path": ahead(s, "c1", 8)})
    (charge,) = kinds(ev, "charge")
    assert charge["run"] >= 4 and (charge["bonus"], charge["rule"]) == (bonus, rule)
    s, ev = run_turn(s)
    values = dict(zip([kinds(ev, "melee")[0]["a"], kinds(ev, "melee")[0]["b"]], kinds(ev, "melee")[0]["values"],
                      strict=True))
    assert values["c1"] == 2 + (1 if formation == "attack_column" else 0) + bonus


def test_infantry_attack_column_melee_morale_speed_and_turns_N_INF_3() -> None:
    s = battle([unit("r1", "infantry", 30, 60, formation="attack_column"), unit("r2", "infantry", 50, 60)],
               [unit("b1", "infantry", 37, 5, facing="S")])
    r1, r2 = s.units["r1"], s.units["r2"]
    assert (melee_value(r1), effective_morale(r1), r1.points) == (4, 8, 5)  # melee +2, morale +2, speed +1
    assert (melee_value(r2), effective_morale(r2), r2.points) == (2, 6, 4)  # a line for comparison
    assert {c[0] for c in r1.cells} == {30, 31, 32, 33} and {c[1] for c in r1.cells} == {60, 61}  # 4 × 2
    with pytest.raises(IllegalOrder):
        order(s, {"type": "move", "unit": "r1", "path": ahead(s, "r1", 6)})
    moved, _ = order(s, {"type": "move", "unit": "r1", "path": ahead(s, "r1", 5)})
    assert moved.units["r1"].y == 55
    s, ev = order(s, {"type": "wheel", "unit": "r1", "degrees": 45})
    assert s.units["r1"].points == 4
    s, ev = order(s, {"type": "wheel", "unit": "r1", "degrees": -90})
    assert s.units["r1"].points == 2
    # in melee the column's +2 counts: column against line, 4 against 2
    s = battle([unit("r1", "infantry", 32, 50, formation="attack_column")],
               [unit("b1", "infantry", 37, 46, facing="S")])
    s, _ = order(s, {"type": "move", "unit": "r1", "path": ahead(s, "r1", 3)})
    s, ev = run_turn(s)
    m = kinds(ev, "melee")[0]
    assert dict(zip([m["a"], m["b"]], m["values"], strict=True)) == {"r1": 4, "b1": 2}


def test_morale_factors_add_up_and_stay_to_the_end_of_the_battle_N_MORALE_4_D_N_9() -> None:
    """Every factor of N-MORALE-2/3 adds to the unit's morale and stays: the flank attack and the attack by cavalry
    are still counted long after the melee is over, and the result carries the sum. The attack column's +2 is a
    formation bonus (D-N-9), not one of these: it goes when the column does."""
    s = battle([unit("c1", "light_cavalry", 20, 43, facing="E"), unit("r9", "infantry", 5, 65)],
               [unit("b1", "infantry", 31, 45, facing="S", formation="attack_column"),
                unit("b9", "infantry", 60, 5, facing="S")])
    s, ev = order(s, {"type": "move", "unit": "c1", "path": [[21 + i, 43] for i in range(7)]})  # at its side file
    assert kinds(ev, "contact")[0]["sector"] == "flank"
    deltas = {"b1": 0, "c1": 0}
    events = list(ev)
    s, ev = run_turn(s)
    events += ev
    s, ev = order(s, {"type": "leave_melee", "unit": "c1", "path": [[s.units["c1"].x - i, 43] for i in (1, 2, 3)]})
    events += ev
    for _ in range(3):
        s, ev = run_turn(s)
        events += ev
    for e in kinds(events, "morale"):
        if e["unit"] in deltas:
            deltas[e["unit"]] += e["delta"]
    reasons = [e["reason"] for e in kinds(events, "morale") if e["unit"] == "b1"]
    assert "attacked in the flank" in reasons and "infantry attacked by cavalry" in reasons
    assert not s.melees and s.units["b1"].morale == 6 + deltas["b1"] and deltas["b1"] < 0
    assert s.units["c1"].morale == 8 + deltas["c1"]
    assert effective_morale(s.units["b1"]) == s.units["b1"].morale + 2
    s, _ = order(s, {"type": "formation", "unit": "b1", "formation": "line"})
    assert effective_morale(s.units["b1"]) == s.units["b1"].morale  # the column's +2 is gone at once
    s, _ = ENGINE.moderate(s, {"type": "end_battle", "winner": "blue"})
    assert s.result is not None
    assert {u["id"]: u["morale"] for u in s.result["units"]}["b1"] == 6 + deltas["b1"]
