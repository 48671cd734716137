"""Battle flow: initiative, reinforcements, the end of the battle and its result (N-START-4..6, N-VICTORY,
N-MORALE-7; D-N-1, D-N-2, D-N-12, D-N-14)."""

from __future__ import annotations

import pytest

from server.core.errors import BadOrder
from server.napoleonic.battle.state import BattleState

from .helpers import ENGINE, battle, config, kinds, order, run_turn, unit


def test_attacker_acts_first_then_initiative_rolls_D_N_1() -> None:
    s = battle([unit("r1", "infantry", 30, 50)], [unit("b1", "infantry", 37, 20, facing="S")])
    assert ENGINE.active_teams(s) == {"red"}
    s, ev = ENGINE.end_turn(s, "red", flagged=False)
    assert ENGINE.active_teams(s) == {"blue"} and not kinds(ev, "resolution")
    s, ev = ENGINE.end_turn(s, "blue", flagged=True)
    assert kinds(ev, "resolution") and s.turn == 2
    rolls = [e for e in kinds(ev, "roll") if e["purpose"] == "initiative"]
    assert len(rolls) >= 2 and len(rolls) % 2 == 0
    a, b = rolls[-2:]
    assert a["face"] != b["face"]
    winner = a["side"] if a["face"] > b["face"] else b["side"]
    assert s.order[0] == winner and ENGINE.active_teams(s) == {winner}


def _with_reinforcement(distance: int) -> BattleState:
    return battle([unit("r1", "infantry", 30, 50)], [unit("b1", "infantry", 37, 20, facing="S")],
                  red_reinf=[{"group": "red-2", "distance": distance, "edge": "west",
                              "units": [unit("r9", "infantry"), unit("r10", "light_cavalry")]}])


def test_reinforcement_rolls_from_turn_four_N_START_5_D_N_12() -> None:
    s = _with_reinforcement(1)
    needs = []
    arrived_turn = None
    while not s.over and s.turn < 30 and arrived_turn is None:
        turn = s.turn
        s, ev = run_turn(s)
        needs += [(turn, e["need"]) for e in kinds(ev, "roll") if e["purpose"] == "reinforcement"]
        if kinds(ev, "arrived"):
            arrived_turn = s.turn
            assert s.units["r9"].formation == "march_column" and s.units["r9"].facing == 2  # from the west edge
            assert s.units["r9"].x < 10
    assert needs[0] == (4, 1)
    assert needs[1:2] in ([], [(5, 2)]) and all(n == 3 for t, n in needs if t >= 6)
    assert arrived_turn == needs[-1][0] + 1  # a success brings it on next turn


def test_reinforcement_from_further_away_starts_later_D_N_12() -> None:
    s = _with_reinforcement(3)
    needs = []
    while s.turn < 7:
        turn = s.turn
        s, ev = run_turn(s)
        needs += [(turn, e["need"]) for e in kinds(ev, "roll") if e["purpose"] == "reinforcement"]
    assert needs[0] == (6, 1)


def test_more_than_twenty_five_wait_until_a_place_is_free_N_START_6() -> None:
    red = [unit(f"r{i}", "infantry", formation="attack_column") for i in range(26)]
    s, _ = ENGINE.setup({"sides": [{"name": "red", "edge": "south", "attacker": True, "units": red},
                                   {"name": "blue", "edge": "north", "units": [unit("b1", "infantry")]}]}, 3)
    assert s.units["r25"].status == "reserve"
    s.units["r0"].status = "destroyed"  # as if it had fallen
    s.lift(s.units["r0"])
    s, ev = run_turn(s)
    assert s.units["r25"].status == "field" and kinds(ev, "arrived")


def _fall(s: BattleState, uid: str) -> None:
    s.units[uid].status = "destroyed"  # as if it had fallen
    s.lift(s.units[uid])


def test_field_limit_per_side_holds_the_rest_off_the_field_N_START_1_N_START_6_N_SIEGE_5() -> None:
    """The setup's limit is per side: a number for both, {side: n}, or a side's own `field_limit` (N-SIEGE-5: a
    storm's 30 and 25). Units beyond it wait off the field and come on, in their own formation, as places free."""
    red = [unit(f"r{i}", "infantry", formation="attack_column") for i in range(5)]
    blue = [unit(f"b{i}", "infantry", formation="attack_column") for i in range(5)]
    cfg = config(red, blue, field_limit={"red": 3, "blue": 4})
    s, _ = ENGINE.setup(cfg, 3)
    assert s.field_limit == {"red": 3, "blue": 4}
    assert [u.id for u in s.units.values() if u.status == "reserve"] == ["r3", "r4", "b4"]
    cfg["sides"][1]["field_limit"] = 2
    s, _ = ENGINE.setup(cfg, 3)
    assert (s.counted("red"), s.counted("blue")) == (3, 2)
    s, _ = ENGINE.setup(config(red, blue, field_limit=4), 3)
    assert s.field_limit == {"red": 4, "blue": 4} and s.units["r4"].group == "red-reserve"
    _fall(s, "r0")
    _fall(s, "b0")
    s, ev = run_turn(s)
    arrived = kinds(ev, "arrived")
    assert [a["unit"] for a in arrived] == ["r4", "b4"] and {a["rule"] for a in arrived} == {"N-START-6"}
    assert s.units["r4"].formation == "attack_column" and s.counted("red") == 4


def test_reinforcements_wait_while_their_side_is_at_its_limit_N_START_6_D_N_12() -> None:
    s = battle([unit("r1", "infantry", 30, 50), unit("r2", "infantry", 10, 50)],
               [unit("b1", "infantry", 37, 20, facing="S")], field_limit={"red": 2, "blue": 25},
               red_reinf=[{"group": "red-2", "distance": 1, "edge": "west", "units": [unit("r9", "infantry")]}])
    s.reinforcements[0].status = "coming"  # as if it had rolled its arrival
    s, ev = run_turn(s)
    assert s.units["r9"].status == "reserve" and not kinds(ev, "arrived")
    _fall(s, "r2")
    s, ev = run_turn(s)
    assert [a["unit"] for a in kinds(ev, "arrived")] == ["r9"] and kinds(ev, "arrived")[0]["rule"] == "N-START-4"


def test_held_back_units_come_on_in_the_rows_their_side_names_N_START_6() -> None:
    """A side's `reserve` names its group and the rows (from its edge, first to last) where it comes on — the
    siege's town reserve comes up behind the wall this way."""
    red = [unit("r0", "infantry", 30, 50), unit("r2", "infantry", 10, 60), unit("r1", "infantry",
                                                                              formation="attack_column")]
    cfg = config(red, [unit("b1", "infantry", 37, 10, facing="S")], field_limit=2)
    cfg["sides"][0]["reserve"] = {"group": "depot", "rows": [20, 15]}
    s, _ = ENGINE.setup(cfg, 3)
    assert s.units["r1"].group == "depot" and s.reinforcements[0].rows == (20, 15)
    _fall(s, "r0")
    s, ev = run_turn(s)
    (arrived,) = kinds(ev, "arrived")
    assert arrived["group"] == "depot" and arrived["at"][1] == 69 - 20 and s.units["r1"].facing == 0


def test_unit_types_outside_the_limit_take_the_field_besides_it_N_START_6_N_SIEGE_11_hook() -> None:
    from server.napoleonic.battle.units import ARTILLERY, UnitType, register_unit_type

    fixed = register_unit_type(UnitType("test_fixed_gun", ARTILLERY, range=10, guns=4, accuracy=2, hit_table="foot",
                                        formations=("deployed",), default_formation="deployed", can_move=False,
                                        in_field_limit=False))
    s = battle([unit("r0", "infantry", 30, 50), unit("g1", fixed.name, 40, 50), unit("r1", "infantry")],
               [unit("b1", "infantry", 37, 10, facing="S")], field_limit=1)
    assert s.units["g1"].on_field and s.units["r1"].status == "reserve" and s.counted("red") == 1


def test_bad_field_limits_and_reserves_are_typed_errors_N_START_1_N_START_6() -> None:
    red, blue = [unit("r0", "infantry")], [unit("b0", "infantry")]
    for limit in (0, -1, "25", True, 2.5, {"red": 0}):
        with pytest.raises(BadOrder) as e:
            ENGINE.setup(config(red, blue, field_limit=limit), 1)
        assert e.value.rule == "N-START-1"
    for reserve in ({"rows": [1]}, {"rows": [0, 99]}, {"rows": "near"}, ["town"]):
        cfg = config(red, blue)
        cfg["sides"][0]["reserve"] = reserve
        with pytest.raises(BadOrder) as e:
            ENGINE.setup(cfg, 1)
        assert e.value.rule in ("N-START-6", "N-START-1")


def test_snapshots_of_a_single_field_limit_still_load_N_START_1() -> None:
    s = battle([unit("r1", "infantry", 30, 50)], [unit("b1", "infantry", 37, 20, facing="S")])
    data = ENGINE.dump(s)
    assert data["field_limit"] == {"red": 25, "blue": 25}
    data["field_limit"] = 30
    assert ENGINE.load(data).field_limit == {"red": 30, "blue": 30}


def test_side_with_nothing_left_loses_and_result_is_ready_for_the_campaign_N_VICTORY_1_D_N_2() -> None:
    s = battle([unit("c1", "light_cavalry", 33, 36, facing="S"), unit("r1", "infantry", 10, 60)],
               [unit("a1", "foot_artillery", 34, 44, facing="S")])
    s, _ = order(s, {"type": "move", "unit": "c1", "path": [[33, 37 + i] for i in range(6)]})  # from behind
    s, ev = run_turn(s)
    assert s.over and ENGINE.active_teams(s) == frozenset()
    r = s.result
    assert r is not None
    assert (r["winner"], r["loser"], r["retreats"], r["retreat_cells"]) == ("red", "blue", "blue", 7)
    assert r["guns_taken"] == {"red": 4, "blue": 0}
    (death,) = [e for e in kinds(ev, "roll") if e["purpose"] == "general_death"]
    assert death["need"] == 3 and r["general_killed"] == death["success"]  # N-VICTORY-3: 1/2
    statuses = {u["id"]: u["status"] for u in r["units"]}
    assert statuses == {"c1": "in_line", "r1": "in_line", "a1": "destroyed"}


def test_after_battle_dispersed_and_surrendered_units_N_MORALE_7_D_N_14() -> None:
    s = battle([unit("r1", "infantry", 30, 50), unit("r2", "infantry", 10, 60)],
               [unit("b1", "infantry", 37, 20, facing="S"), unit("b2", "infantry", 60, 20, facing="S")])
    for uid in ("r2", "b2"):
        s.units[uid].status = "dispersed"
        s.lift(s.units[uid])
    s, _ = ENGINE.moderate(s, {"type": "end_battle", "winner": "red"})
    assert s.result is not None
    by_id = {u["id"]: u for u in s.result["units"]}
    assert by_id["r2"]["status"] == "in_line" and by_id["r2"]["morale"] == 1
    assert by_id["b2"]["status"] == "destroyed"


def test_retreating_units_in_melee_surrender_D_N_2_D_N_14() -> None:
    s = battle([unit("r1", "infantry", 32, 50, formation="attack_column"), unit("r2", "infantry", 5, 60)],
               [unit("b1", "infantry", 34, 46, facing="S", formation="attack_column"),
                unit("b2", "infantry", 60, 10, facing="S")])
    s, _ = order(s, {"type": "move", "unit": "r1", "path": [[32, 49], [32, 48], [32, 47]]})
    s, _ = order(s, {"type": "retreat"}, side="blue")
    s, _ = run_turn(s)
    s, _ = run_turn(s)
    assert s.result is not None and s.result["loser"] == "blue" and s.result["reason"] == "retreat"
    by_id = {u["id"]: u for u in s.result["units"]}
    assert s.units["b1"].status == "surrendered"
    assert by_id["b1"]["status"] == "prisoner" and s.result["prisoners"]["red"] == ["b1"]
    assert by_id["b2"]["status"] == "in_line"


def test_turn_limit_defender_holds_the_field_D_N_2() -> None:
    s = battle([unit("r1", "infantry", 30, 50)], [unit("b1", "infantry", 37, 20, facing="S")], turn_limit=3)
    for _ in range(3):
        s, _ = run_turn(s)
    assert s.result is not None and s.result["winner"] == "blue" and s.result["turn"] == 3


def test_retreating_army_leaves_its_dispersed_units_as_prisoners_D_N_2_D_N_14_N_MORALE_7() -> None:
    """D-N-2: when the retreat takes effect, the retreating side's dispersed units surrender (prisoners, D-N-14),
    where a side beaten any other way loses them as destroyed (N-MORALE-7, the test above)."""
    s = battle([unit("r1", "infantry", 30, 50)],
               [unit("b1", "infantry", 37, 20, facing="S"), unit("b2", "infantry", 60, 20, facing="S")])
    s, _ = ENGINE.moderate(s, {"type": "adjust", "unit": "b2", "morale": 0})
    s, ev = run_turn(s)
    assert s.units["b2"].status == "dispersed"  # out of contact: it leaves the field (N-MORALE-5)
    s, _ = order(s, {"type": "retreat"}, side="blue")
    s, _ = run_turn(s)
    s, ev = run_turn(s)
    assert s.result is not None and s.result["reason"] == "retreat"
    assert {"unit": "b2", "status": "surrendered", "rule": "D-N-2", "taken_by": "red"} in kinds(ev, "fallen")
    by_id = {u["id"]: u for u in s.result["units"]}
    assert by_id["b2"]["status"] == "prisoner" and s.result["prisoners"]["red"] == ["b2"]
    assert by_id["b1"]["status"] == "in_line"
