"""Fire: musket zones and fractions, canister, round shot, barrage, crossing a zone (N-FIRE, N-ART, N-HIT,
N-BARRAGE, N-CHARGE-2, N-TERRAIN-4; D-N-7, D-N-8)."""

from __future__ import annotations

import pytest

from server.battle.state import BattleState
from server.core.engine import Event
from server.core.errors import IllegalOrder

from .helpers import ENGINE, RED, battle, kinds, order, run_turn, unit


def lost(events: list[Event], uid: str) -> int:
    return sum(e["amount"] for e in kinds(events, "losses") if e["unit"] == uid)


def target_column(d: int, x: int = 31, **kw: object) -> dict[str, object]:
    """A blue march column (it cannot fire back) whose front is `d` rows north of row 50."""
    return unit("b1", "infantry", x, 50 - d, facing="S", formation="march_column", **kw)


def volley(formation: str, d: int, turns: int = 1) -> list[int]:
    s = battle([unit("r1", "infantry", 30, 50, formation=formation)], [target_column(d)])
    out = []
    for _ in range(turns):
        s, ev = run_turn(s)
        out.append(lost(ev, "b1"))
    return out


@pytest.mark.parametrize(("d", "losses"), [(1, 2), (2, 2), (3, 2), (4, 1), (5, 1), (6, 1), (7, 0)])
def test_line_of_four_firepower_example_N_FIRE_3(d: int, losses: int) -> None:
    assert volley("line", d) == [losses]


@pytest.mark.parametrize(("d", "losses"), [(1, [1, 1]), (3, [1, 1]), (4, [0, 1]), (6, [0, 1]), (7, [0, 0])])
def test_column_of_two_firepower_half_a_point_every_other_turn_N_FIRE_3_D_N_8(d: int, losses: list[int]) -> None:
    assert volley("attack_column", d, turns=2) == losses


def test_fraction_is_discarded_after_a_turn_without_fire_D_N_8() -> None:
    s = battle([unit("r1", "infantry", 30, 50, formation="attack_column")], [target_column(5)])
    s, ev = run_turn(s)
    assert lost(ev, "b1") == 0 and s.units["r1"].fractions == {"b1": 0.5}
    s, _ = order(s, {"type": "formation", "unit": "r1", "formation": "march_column"})  # cannot fire this turn
    s, ev = run_turn(s)
    assert lost(ev, "b1") == 0 and s.units["r1"].fractions == {}


def test_fire_goes_straight_ahead_only_N_FIRE_1_D_N_7() -> None:
    s = battle([unit("r1", "infantry", 30, 50)], [target_column(2, x=40)])  # beside the line's frontage
    s, ev = run_turn(s)
    assert lost(ev, "b1") == 0


def test_march_column_cannot_fire_N_INF_5() -> None:
    assert volley("march_column", 2) == [0]


def test_no_fire_over_heads_or_woods_N_FIRE_5_D_N_7() -> None:
    s = battle([unit("r1", "infantry", 30, 50), unit("r2", "light_cavalry", 30, 48)], [target_column(5)])
    s, ev = run_turn(s)
    assert lost(ev, "b1") == 0
    rows = ["." * 70 for _ in range(70)]
    rows[47] = ("." * 30 + "f" * 8).ljust(70, ".")
    s = battle([unit("r1", "infantry", 30, 50)], [target_column(5)], map={"rows": rows})
    s, ev = run_turn(s)
    assert lost(ev, "b1") == 0


def test_hill_adds_two_to_musket_range_N_TERRAIN_4() -> None:
    elev = ["0" * 70 for _ in range(70)]
    elev[50] = ("0" * 30 + "1" * 8).ljust(70, "0")
    s = battle([unit("r1", "infantry", 30, 50)], [target_column(8)], map={"rows": ["." * 70] * 70, "elevation": elev})
    s, ev = run_turn(s)
    assert lost(ev, "b1") == 1
    assert volley("line", 8) == [0]


def test_canister_hits_every_enemy_in_the_zone_by_guns_N_ART_6_D_N_7() -> None:
    s = battle([unit("a1", "foot_artillery", 30, 50)],
               [unit("b1", "infantry", 30, 47, facing="S", formation="march_column"),
                unit("b2", "infantry", 35, 45, facing="S", formation="march_column"),
                unit("b3", "infantry", 40, 45, facing="S", formation="march_column")])
    s, ev = run_turn(s)
    assert (lost(ev, "b1"), lost(ev, "b2"), lost(ev, "b3")) == (4, 4, 0)
    assert {e["weapon"] for e in kinds(ev, "fire") if e["unit"] == "a1"} == {"canister"}


def _gun_and_target(d: int, map_: dict[str, list[str]] | None = None, seed: int = 1) -> BattleState:
    extra = {"map": map_} if map_ else {}
    return battle([unit("a1", "foot_artillery", 30, 50)], [target_column(d, x=32)], seed=seed, **extra)


def test_round_shot_rolls_the_hit_table_N_ART_7_N_HIT_2_D_GEN_1() -> None:
    for seed in range(1, 12):
        s = _gun_and_target(10, seed=seed)
        s, _ = ENGINE.apply(s, RED, {"type": "targets", "unit": "a1", "targets": [{"unit": "b1", "guns": 4}]})
        s, ev = run_turn(s)
        (roll,) = [e for e in kinds(ev, "roll") if e["purpose"] == "round_shot"]
        assert roll["need"] == 5 and roll["distance"] == 10  # accuracy 2, 6–10 cells: 5/6
        assert lost(ev, "b1") == (2 if roll["face"] <= 5 else 0)  # 3–4 guns: 2 loss units


def test_round_shot_at_a_forest_loses_one_accuracy_N_HIT_1_N_TERRAIN_2() -> None:
    rows = ["." * 70 for _ in range(70)]
    for y in range(30, 35):  # the target stands at the edge of the wood
        rows[y] = ("." * 30 + "f" * 6).ljust(70, ".")
    s = _gun_and_target(16, map_={"rows": rows})
    s, _ = ENGINE.apply(s, RED, {"type": "targets", "unit": "a1", "targets": [{"unit": "b1", "guns": 4}]})
    s, ev = run_turn(s)
    (roll,) = [e for e in kinds(ev, "roll") if e["purpose"] == "round_shot"]
    assert roll["accuracy"] == 1 and roll["need"] == 3  # 16–20 cells, accuracy 1: 1/2


def test_two_targets_each_get_their_own_roll_and_guns_N_ART_7_D_N_7() -> None:
    s = battle([unit("a1", "foot_artillery", 30, 50)],
               [unit("b1", "infantry", 31, 38, facing="S", formation="march_column"),
                unit("b2", "infantry", 34, 36, facing="S", formation="march_column")])
    s, _ = ENGINE.apply(s, RED, {"type": "targets", "unit": "a1",
                                 "targets": [{"unit": "b1", "guns": 2}, {"unit": "b2", "guns": 2}]})
    s, ev = run_turn(s)
    rolls = [e for e in kinds(ev, "roll") if e["purpose"] == "round_shot"]
    assert [r["target"] for r in rolls] == ["b1", "b2"]
    shots = [e for e in kinds(ev, "fire") if e["weapon"] == "round_shot"]
    assert all(e["losses"] in (0, 1) for e in shots)  # 1–2 guns: 1 loss unit


def test_target_outside_the_zone_or_too_close_is_refused_N_ART_7() -> None:
    s = _gun_and_target(1)
    with pytest.raises(IllegalOrder) as err:
        ENGINE.apply(s, RED, {"type": "targets", "unit": "a1", "targets": [{"unit": "b1", "guns": 4}]})
    assert err.value.rule == "N-ART-7"
    with pytest.raises(IllegalOrder):
        ENGINE.apply(_gun_and_target(10), RED, {"type": "targets", "unit": "a1",
                                                "targets": [{"unit": "b1", "guns": 5}]})


def test_barrage_doubles_round_shot_for_two_turns_then_costs_two_guns_N_BARRAGE_1() -> None:
    s = _gun_and_target(8)
    s, _ = ENGINE.apply(s, RED, {"type": "targets", "unit": "a1", "targets": [{"unit": "b1", "guns": 4}]})
    s, _ = ENGINE.apply(s, RED, {"type": "barrage", "unit": "a1"})
    damage = []
    for _ in range(3):
        s, ev = run_turn(s)
        damage += [e["losses"] for e in kinds(ev, "fire") if e["weapon"] == "round_shot" and e["hit"]]
        damage += [-1 for e in kinds(ev, "fire") if e["weapon"] == "round_shot" and not e["hit"]]
    assert all(d in (4, -1) for d in damage[:2])  # 2 loss units doubled
    assert s.units["a1"].guns == 2
    assert damage[2] in (1, -1)  # two guns left: 1 loss unit
    with pytest.raises(IllegalOrder):
        order(s, {"type": "barrage", "unit": "a1"})


def test_fire_on_artillery_puts_guns_out_of_action_N_ART_8() -> None:
    s = battle([unit("r1", "infantry", 30, 50)], [unit("a1", "horse_artillery", 33, 48, facing="S",
                                                       formation="limbered")])
    s, ev = run_turn(s)
    assert lost(ev, "a1") == 2 and s.units["a1"].guns == 2


def test_cavalry_crossing_a_musket_zone_takes_close_range_losses_N_CHARGE_2_D_N_1() -> None:
    s = battle([unit("r1", "infantry", 30, 50)], [unit("c1", "light_cavalry", 28, 46, facing="E")])
    path = [[28 + i, 46] for i in range(1, 12)]
    s, ev = order(s, {"type": "move", "unit": "c1", "path": path})
    assert lost(ev, "c1") == 2  # half of the line's 4 firepower
    assert s.units["c1"].morale == 7  # half its loss tolerance left: −1 (N-MORALE-2)
    stays = battle([unit("r1", "infantry", 30, 50)], [unit("c1", "light_cavalry", 28, 46, facing="E")])
    stays, ev = order(stays, {"type": "move", "unit": "c1", "path": path[:5]})
    assert lost(ev, "c1") == 0  # it stopped inside the zone: the resolution's fire deals with it
