"""Melee, charge, contact and morale (N-MELEE, N-CHARGE, N-ART-1, N-MORALE, N-INF-5, N-CAV-5; D-N-5, D-N-6, D-N-9)."""

from __future__ import annotations

import pytest

from server.core.engine import Event
from server.core.errors import IllegalOrder
from server.napoleonic.battle.log import Log
from server.napoleonic.battle.morale import dispersal_check
from server.napoleonic.battle.state import BattleState

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
    """The cavalry touches the line's end cell from beside it (the line's side file): a flank attack."""
    s = battle([unit("c1", "light_cavalry", 20, 43, facing="E")], [unit("b1", "infantry", 31, 45, facing="S")])
    s, ev = order(s, {"type": "move", "unit": "c1", "path": [[21 + i, 43] for i in range(3)]})
    assert kinds(ev, "contact")[0]["sector"] == "flank"
    assert s.units["b1"].morale == 4 and s.units["c1"].morale == 9


def test_a_column_striking_the_end_of_a_lines_front_is_a_front_attack_N_MORALE_2_D_N_5() -> None:
    """Revised D-N-5: the sector is read from the target's cells the attacker touches. A column that strikes the
    last three cells of a line's front rank (and the diagonal beyond its end) attacks it in front — seen from the
    centres, 63° off the line's facing, it used to count as a flank attack."""
    s = battle([unit("r1", "infantry", 29, 50, formation="attack_column")],
               [unit("b1", "infantry", 31, 45, facing="S")])
    s, ev = order(s, {"type": "move", "unit": "r1", "path": ahead(s, "r1", 4)})
    assert kinds(ev, "contact")[0]["sector"] == "front"
    assert (s.units["b1"].morale, s.units["r1"].morale) == (6, 6)


@pytest.mark.parametrize(("cell", "sector"), [
    ((31, 50), "front"),  # ahead of the front rank
    ((29, 50), "front"),  # the diagonal of the front rank's left end cell
    ((34, 51), "flank"),  # beside the right side file, level with the front rank
    ((29, 52), "flank"),  # beside the left side file
    ((32, 53), "rear"),   # behind the rear rank
    ((34, 53), "rear"),   # the diagonal behind the rear rank's right end cell
])
def test_sector_from_the_cells_touched_D_N_5(cell: tuple[int, int], sector: str) -> None:
    """A 4×2 column at (30, 51) facing north (cells x 30–33, rows 51 and 52) touched by one cell: ahead of its
    front rank, the end cells' diagonals included — front; beside a side file — flank; only the rear rank, from
    behind — rear. The same for a column facing north-east (a diagonal footprint)."""
    from server.napoleonic.battle.footprint import contact_sector, footprint

    assert contact_sector((30, 51), 4, 2, 0, (cell,)) == sector
    assert contact_sector((30, 51), 4, 2, 0, (cell, (28, 49))) == sector  # a cell touching nothing counts for nothing
    diagonal = set(footprint((30, 51), 4, 2, 1))  # front rank (30, 51) … (33, 54), rear rank (29, 52) … (32, 55)
    for touching, where in (((31, 50), "front"), ((28, 51), "flank"), ((28, 53), "rear")):
        assert touching not in diagonal
        assert contact_sector((30, 51), 4, 2, 1, (touching,)) == where
    with pytest.raises(ValueError):
        contact_sector((30, 51), 4, 2, 0, ((28, 49),))


def _column_attacked(*attacks: tuple[int, int, str, list[list[int]]]) -> tuple[BattleState, list[Event]]:
    """A blue march column (2×4 facing south: cells x 30–31, rows 42–45) attacked by red attack columns, each
    given as (x, y, facing, path) and moved in that order in red's phase."""
    red = [unit(f"r{i}", "infantry", x, y, facing=f, formation="attack_column")
           for i, (x, y, f, _) in enumerate(attacks)]
    s = battle([*red, unit("r9", "infantry", 5, 65)],
               [unit("b1", "infantry", 31, 45, facing="S", formation="march_column"),
                unit("b9", "infantry", 60, 5, facing="S")])
    events: list[Event] = []
    for i, (_, _, _, path) in enumerate(attacks):
        if path:
            s, ev = order(s, {"type": "move", "unit": f"r{i}", "path": path})
            events += ev
    return s, events


FLANK = (24, 42, "E", [[25 + i, 42] for i in range(5)])
FRONT = (31, 50, "N", [[31, 49 - i] for i in range(4)])
OTHER_FLANK = (37, 42, "W", [[36 - i, 42] for i in range(5)])
REAR = (31, 36, "S", [[31, 37 + i] for i in range(5)])


def test_a_single_flank_attack_on_a_march_column_costs_the_ordinary_one_N_INF_5_D_N_9() -> None:
    """Revised D-N-9: the march column's 2 worse is not for a single flank attack."""
    s, ev = _column_attacked(FLANK)
    assert [e["sector"] for e in kinds(ev, "contact")] == ["flank"]
    assert s.units["b1"].morale == 6 - 1


def test_a_march_column_attacked_from_the_rear_pays_two_more_N_INF_5_D_N_9() -> None:
    s, ev = _column_attacked(REAR)
    assert [e["sector"] for e in kinds(ev, "contact")] == ["rear"]
    reasons = [(e["delta"], e["reason"]) for e in kinds(ev, "morale") if e["unit"] == "b1"]
    assert reasons == [(-1, "attacked in the rear"), (-2, "march column attacked from the rear")]
    assert s.units["b1"].morale == 6 - 3


def test_a_march_column_attacked_from_two_sectors_pays_two_more_once_a_turn_N_INF_5_D_N_9_D_N_5() -> None:
    """Flank, then front, then the other flank, all in one turn: −1; then −2 as the front attack makes a second
    sector (the front attack itself costs nothing); then the ordinary −1 — the 2 worse is paid once a turn."""
    s, ev = _column_attacked(FLANK, FRONT, OTHER_FLANK)
    assert [e["sector"] for e in kinds(ev, "contact")] == ["flank", "front", "flank"]
    assert [e["delta"] for e in kinds(ev, "morale") if e["unit"] == "b1"] == [-1, -2, -1]
    assert s.units["b1"].morale == 6 - 4


def test_a_melee_going_on_counts_as_a_sector_in_the_next_turn_N_INF_5_D_N_9_D_N_5() -> None:
    """Struck in the flank on turn 1 (−1); on turn 2, with that melee still going on, a front attack makes two
    sectors in that turn: the 2 worse is due."""
    s, _ = _column_attacked(FLANK, (*FRONT[:3], []))
    s, _ = run_turn(s)
    assert ("b1", "r0") in s.melees or ("r0", "b1") in s.melees
    s, ev = order(s, {"type": "move", "unit": "r1", "path": FRONT[3]})
    assert [e["sector"] for e in kinds(ev, "contact")] == ["front"]
    assert [(e["delta"], e["reason"]) for e in kinds(ev, "morale") if e["unit"] == "b1"] == \
        [(-2, "march column attacked from 2 sides")]


def test_a_cavalry_march_column_attacked_in_the_flank_costs_one_from_the_rear_three_N_CAV_5_D_N_9() -> None:
    flank = battle([unit("r1", "infantry", 24, 41, facing="E", formation="attack_column")],
                   [unit("c1", "light_cavalry", 31, 44, facing="S", formation="march_column")])
    flank, ev = order(flank, {"type": "move", "unit": "r1", "path": [[25 + i, 41] for i in range(5)]})
    assert kinds(ev, "contact")[0]["sector"] == "flank" and flank.units["c1"].morale == 8 - 1
    rear = battle([unit("r1", "infantry", 31, 37, facing="S", formation="attack_column")],
                  [unit("c1", "light_cavalry", 31, 44, facing="S", formation="march_column")])
    rear, ev = order(rear, {"type": "move", "unit": "r1", "path": [[31, 38 + i] for i in range(4)]})
    assert kinds(ev, "contact")[0]["sector"] == "rear" and rear.units["c1"].morale == 8 - 3
    assert [e["rule"] for e in kinds(ev, "morale") if e["unit"] == "c1"] == ["N-MORALE-2", "N-CAV-5"]


def test_artillery_touched_by_cavalry_is_destroyed_guns_taken_N_ART_1_D_N_6() -> None:
    """Cavalry rides into the guns from behind, where no canister reaches it (a charge from the front: D-N-17)."""
    s = battle([unit("c1", "light_cavalry", 33, 36, facing="S")], [unit("a1", "foot_artillery", 34, 44, facing="S")])
    s, ev = order(s, {"type": "move", "unit": "c1", "path": ahead(s, "c1", 6)})
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
    from server.napoleonic.battle.losses import apply_losses

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
