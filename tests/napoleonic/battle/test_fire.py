"""Fire: musket zones and fractions, canister, round shot, barrage, fire into a unit on the move (N-FIRE, N-ART,
N-HIT, N-BARRAGE, N-CHARGE-2, N-TERRAIN-4; D-N-7, D-N-8, D-N-17)."""

from __future__ import annotations

import pytest

from server.core.engine import Event
from server.core.errors import IllegalOrder
from server.napoleonic.battle.state import BattleState

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


def _two_targets(guns: int) -> tuple[BattleState, list[Event]]:
    s = battle([unit("a1", "foot_artillery", 30, 50, guns=guns)],
               [unit("b1", "infantry", 31, 38, facing="S", formation="march_column"),
                unit("b2", "infantry", 34, 36, facing="S", formation="march_column")])
    s, _ = ENGINE.apply(s, RED, {"type": "targets", "unit": "a1",
                                 "targets": [{"unit": "b1", "guns": guns // 2}, {"unit": "b2", "guns": guns // 2}]})
    return run_turn(s)


def test_two_targets_each_get_their_own_roll_and_the_damage_of_the_guns_in_action_N_ART_7_D_N_7() -> None:
    """Revised D-N-7: a hit does the damage of the company's guns in action (3–4: 2 loss units; 1–2: 1), however
    the guns are split between its two targets — each with its own roll."""
    for guns, damage in ((4, 2), (2, 1)):
        _, ev = _two_targets(guns)
        rolls = [e for e in kinds(ev, "roll") if e["purpose"] == "round_shot"]
        assert [r["target"] for r in rolls] == ["b1", "b2"]
        shots = [e for e in kinds(ev, "fire") if e["weapon"] == "round_shot"]
        assert [e["guns"] for e in shots] == [guns // 2] * 2
        assert [e["losses"] for e in shots] == [damage if r["success"] else 0 for r in rolls]
        assert [lost(ev, t) for t in ("b1", "b2")] == [damage if r["success"] else 0 for r in rolls]


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


def _index(events: list[Event], kind: str, **match: object) -> int:
    return next(i for i, e in enumerate(events) if e.kind == kind and all(e.data.get(k) == v for k, v in match.items()))


def test_a_line_fires_into_cavalry_charging_it_N_CHARGE_2_D_N_17() -> None:
    """Heavy cavalry charges a line from the front: the volley (half the line's 4 firepower) hits it at once, at the
    first cell of its path inside the musket zone (6 cells ahead), before the charge's contact opens the melee."""
    s = battle([unit("r1", "infantry", 30, 50)], [unit("c1", "heavy_cavalry", 33, 41, facing="S")])
    s, ev = order(s, {"type": "charge", "unit": "c1", "path": [[33, 41 + i] for i in range(1, 9)]})
    (shot,) = [e for e in kinds(ev, "fire") if e["weapon"] == "crossing"]
    assert (shot["unit"], shot["at"], shot["step"], shot["distance"], shot["losses"], shot["rule"]) == \
        ("r1", [33, 44], 3, 6, 2, "N-CHARGE-2")
    assert lost(ev, "c1") == 2 and s.units["c1"].loss_tolerance == 4
    assert _index(ev, "fire", weapon="crossing") < _index(ev, "contact") and kinds(ev, "charge")[0]["bonus"] == 4
    s, ev = run_turn(s)
    assert not [e for e in kinds(ev, "fire") if e["unit"] == "r1"]  # in melee with it: the melee table does the rest


def test_only_cavalry_attacking_the_line_is_fired_on_as_it_moves_N_CHARGE_2_D_N_17() -> None:
    """Cavalry riding across the front of a line without attacking it, and infantry attacking it, take no volley on
    the move (D-N-17: the musket zone fires on the move only at cavalry attacking that regiment)."""
    s = battle([unit("r1", "infantry", 30, 50)], [unit("c1", "light_cavalry", 28, 46, facing="E")])
    s, ev = order(s, {"type": "move", "unit": "c1", "path": [[28 + i, 46] for i in range(1, 12)]})
    assert lost(ev, "c1") == 0 and not [e for e in kinds(ev, "fire") if e["weapon"] == "crossing"]
    s = battle([unit("r1", "infantry", 30, 50)],
               [unit("b1", "infantry", 35, 44, facing="S", formation="attack_column")])
    s, ev = order(s, {"type": "move", "unit": "b1", "path": [[35, 44 + i] for i in range(1, 6)]})
    assert kinds(ev, "contact") and lost(ev, "b1") == 0


def test_canister_fires_into_a_frontal_charge_before_the_guns_are_overrun_N_ART_6_D_N_17() -> None:
    """A battery charged from the front fires its canister (4 guns: 4 losses) at the first cell of the charge's path
    inside its canister zone; heavy cavalry (6) lives through it and overruns the guns; light cavalry (4) charging
    from ten cells is destroyed there and the battery stands."""
    s = battle([unit("a1", "foot_artillery", 30, 50)], [unit("c1", "heavy_cavalry", 32, 41, facing="S")])
    s, ev = order(s, {"type": "charge", "unit": "c1", "path": [[32, 41 + i] for i in range(1, 9)]})
    (shot,) = [e for e in kinds(ev, "fire") if e["weapon"] == "crossing"]
    assert (shot["at"], shot["distance"], shot["losses"], shot["rule"]) == ([32, 45], 5, 4, "N-ART-6")
    assert _index(ev, "fire", weapon="crossing") < _index(ev, "overrun")
    assert s.units["c1"].loss_tolerance == 2 and s.units["a1"].status == "destroyed"
    light = battle([unit("a1", "foot_artillery", 30, 50)], [unit("c1", "light_cavalry", 32, 39, facing="S")])
    light, ev = order(light, {"type": "move", "unit": "c1", "path": [[32, 39 + i] for i in range(1, 11)]})
    assert light.units["c1"].status == "destroyed" and light.units["a1"].on_field
    moved = kinds(ev, "moved")[0]
    assert (moved["to"], moved["steps"], moved["stopped"]) == ([32, 45], 6, "fire")
    assert not kinds(ev, "overrun") and light.units["a1"].guns == 4


def test_every_zone_entered_fires_once_per_move_and_again_at_the_resolution_N_ART_6_D_N_17() -> None:
    """Cavalry riding across the canister zones of two one-gun batteries takes each one's canister once on the move,
    in the order it enters them, though it crosses the first zone along several cells; it stops inside the second,
    which fires on it again at the resolution, as usual."""
    s = battle([unit("a1", "foot_artillery", 22, 50, guns=1), unit("a2", "foot_artillery", 30, 50, guns=1)],
               [unit("c1", "light_cavalry", 20, 45, facing="E", formation="march_column")])
    s, ev = order(s, {"type": "move", "unit": "c1", "path": [[20 + i, 45] for i in range(1, 12)]})
    shots = [(e["unit"], e["step"], e["losses"]) for e in kinds(ev, "fire") if e["weapon"] == "crossing"]
    assert shots == [("a1", 1, 1), ("a2", 9, 1)] and s.units["c1"].loss_tolerance == 2
    s, ev = run_turn(s)
    assert [e["unit"] for e in kinds(ev, "fire") if e["weapon"] == "canister"] == ["a2"]
    assert s.units["c1"].loss_tolerance == 1


def test_moving_out_of_or_along_a_zone_one_started_in_costs_nothing_D_N_17() -> None:
    """A march column three cells in front of a line walks out of its zone: no volley on the move (the issue's
    case), and none at the resolution. A column already in a battery's canister zone moves along it: nothing on
    the move; the resolution's canister finds it there as usual."""
    s = battle([unit("r1", "infantry", 30, 50)], [target_column(3, x=33)])
    s, ev = order(s, {"type": "move", "unit": "b1", "path": [[33 + i, 47] for i in range(1, 7)]})
    assert lost(ev, "b1") == 0 and s.units["b1"].x == 39
    s, ev = run_turn(s)
    assert lost(ev, "b1") == 0
    s = battle([unit("a1", "foot_artillery", 30, 50)], [target_column(3, x=31)])
    s, ev = order(s, {"type": "move", "unit": "b1", "path": [[31 + i, 47] for i in range(1, 3)]})
    assert lost(ev, "b1") == 0
    s, ev = run_turn(s)
    assert lost(ev, "b1") == 4


