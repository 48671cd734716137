"""The turn's last three phases: random fire, hand-to-hand, the survival test and demoralisation (S-4, S-5.4,
S-7.3, S-8.3, S-8.6; D-S-10, D-S-11, D-S-12)."""

from __future__ import annotations

from typing import Any

import pytest

from server.core.errors import IllegalOrder
from server.skirmish.state import DOWN, IN_ACTION, OUT, SkirmishState

from .helpers import ATT, DEF, Scripted, fig, kinds, order, put, rifles, rolls, scenario, start, status, tank, unit


def table(attackers: list[dict[str, Any]], defenders: list[dict[str, Any]], at: dict[str, tuple[int, ...]],
          **settings: Any) -> SkirmishState:
    """The attacker has one order left (to pass, ending the orders phase); figures not in `at` are off the table."""
    s = start(scenario(attackers, defenders, settings=settings), orders={ATT: 1, DEF: 0}, first=ATT)
    s.initiative = ATT
    for f in s.figures.values():
        f.status = OUT
    for fid, spot in at.items():
        put(s, fid, *spot)  # type: ignore[arg-type]
    return s


def end_orders(s: SkirmishState, dice: list[int]) -> tuple[SkirmishState, list[Any]]:
    s.dice = Scripted(tuple(dice))
    s2, ev = order(s, ATT, {"type": "pass"})
    assert isinstance(s2.dice, Scripted) and s2.dice.left == 0, "every scripted die is rolled"
    return s2, ev


def test_figures_without_an_order_fire_at_random_then_hand_to_hand_then_the_survival_test_S_4_D_S_10() -> None:
    at = {"a.1": (10, 20), "a.2": (11, 20), "a.3": (12, 20), "d.1": (10, 12), "d.2": (11, 12), "e.1": (30, 12)}
    s = table([rifles("a", 3)], [rifles("d", 2), rifles("e", 1)], at, choose_hits=False)
    dice = [5, 4, 6,  # squad a at d.1, the enemy nearest its commander (8 cells): needs 4 + 1 = 5 → 2 hits
            6, 6,  # squad d at a.1 (8 cells), needs 5 → 2 hits on a's group of 3: riflemen a.2, a.3 by default
            6,  # e.1 at a.3, its nearest (20 cells, long): needs 5 + 1 = 6 → a hit, on a.1 (the one standing)
            4, 1, 6, 3, 5,  # survival: a.1 back, a.2 out, a.3 back, d.1 out, d.2 back
            3,  # squad d lost 1 of 2 (half): 3, its commander out: demoralised
            2, 5, 1, 1]  # turn 2: initiative 2–5, orders 1 and 1
    s, ev = end_orders(s, dice)
    fired = [(r["figure"], r["target"], r["need"]) for r in rolls(ev, "random_fire")]
    assert fired == [("a.1", "d.1", 5), ("a.2", "d.1", 5), ("a.3", "d.1", 5), ("d.1", "a.1", 5),
                     ("d.2", "a.1", 5), ("e.1", "a.3", 6)]
    assert [e.kind for e in ev if e.kind in ("random_fire", "survival_test", "turn_started")] == [
        "random_fire", "survival_test", "turn_started"]
    assert status(s, "a.1", "a.2", "a.3", "d.1", "d.2") == [IN_ACTION, OUT, IN_ACTION, OUT, IN_ACTION]
    assert s.units["d"].demoralised and not s.units["a"].demoralised
    assert kinds(ev, "morale") == [{"unit": "d", "side": DEF, "outcome": "demoralised", "demoralised": True,
                                    "rule": "D-S-12"}]
    assert (s.sides[ATT].points, s.sides[DEF].points) == (1, 1)


def test_a_figure_that_took_an_order_has_no_random_fire_S_5_4_D_S_10() -> None:
    at = {"a.1": (10, 20), "a.2": (11, 20), "d.1": (10, 12)}
    s = table([rifles("a", 2)], [rifles("d", 1)], at, choose_hits=False)
    s.figures["a.2"].ordered = True
    s, ev = end_orders(s, [1, 1, 1, 1, 1, 2, 1, 1])  # a.1 and d.1 fire, miss; turn 2: initiative 1-1, 1-2, orders
    assert [r["figure"] for r in rolls(ev, "random_fire")] == ["a.1", "d.1"]


def test_a_group_without_commander_fires_jointly_at_one_target_S_8_3() -> None:
    at = {"a.2": (10, 20), "a.3": (11, 20), "d.1": (10, 12), "d.2": (25, 20)}
    s = table([rifles("a", 3)], [rifles("d", 2)], at, choose_hits=False)  # a.1, the commander, is out
    for f in ("d.1", "d.2"):
        s.figures[f].ordered = True
    s, ev = end_orders(s, [1, 1, 1, 2, 1, 1])
    fired = rolls(ev, "random_fire")
    # the group's nearest enemy: d.1 (8 from a.2) rather than d.2 (14 from a.3)
    assert [(r["figure"], r["target"]) for r in fired] == [("a.2", "d.1"), ("a.3", "d.1")]


def test_soldiers_of_different_units_fire_separately_even_side_by_side_S_8_6_D_S_10() -> None:
    at = {"a.1": (10, 20), "b.1": (11, 20), "d.1": (10, 12), "e.1": (13, 17)}
    s = table([rifles("a", 1), rifles("b", 1)], [rifles("d", 1), rifles("e", 1)], at, choose_hits=False)
    for f in ("d.1", "e.1"):
        s.figures[f].ordered = True
    s, ev = end_orders(s, [1, 1, 1, 2, 1, 1])
    fired = [(r["figure"], r["target"]) for r in rolls(ev, "random_fire")]
    assert fired == [("a.1", "e.1"), ("b.1", "e.1")]  # two volleys: each unit's nearest enemy (e.1: 4 and 3)
    assert kinds(ev, "random_fire")[0]["volleys"] == 2


def test_hand_to_hand_pairs_off_with_bonuses_and_the_extras_join_in_D_S_11() -> None:
    squad = unit("a", fig("commander", "submachine_gun"), fig("rifleman"))
    at = {"a.1": (10, 13), "a.2": (11, 13), "d.1": (10, 12)}
    s = table([squad], [unit("d", fig("rifleman"))], at)
    for f in s.figures.values():
        f.ordered = True  # no random fire: this is about hand-to-hand
    s.figures["a.1"].contact = True  # a.1 moved into contact this turn
    dice = [3, 6,  # a.1 3 + 1 (submachine gun) + 1 (commander) + 1 (contact) + 1 (a.2 joins) = 7 against d.1 6
            2]  # d.1's survival test: out — the defender's last figure: the game is over
    s, ev = end_orders(s, dice)
    fights = rolls(ev, "hand_to_hand")
    assert [(r["figure"], r["bonus"]) for r in fights] == [("a.1", 4), ("d.1", 0)]
    assert kinds(ev, "joins_fight") == [{"figure": "a.2", "against": "d.1", "rule": "D-S-11"}]
    assert status(s, "d.1") == [OUT] and s.result is not None and s.result["reason"] == "eliminated"


def test_hand_to_hand_ties_roll_again_and_the_lower_goes_down_D_S_11() -> None:
    at = {"a.1": (10, 13), "d.1": (10, 12), "d.2": (20, 2)}
    s = table([unit("a", fig("rifleman"))], [unit("d", fig("rifleman"), fig("rifleman"))], at)
    for f in s.figures.values():
        f.ordered = True
    dice = [4, 4, 2, 5,  # a tie, then a.1 2 against d.1 5: a.1 down
            5,  # a.1 survives
            1, 2, 1, 1]
    s, ev = end_orders(s, dice)
    assert [r["result"][0] for r in rolls(ev, "hand_to_hand")] == [4, 4, 2, 5]
    assert status(s, "a.1", "d.1") == [IN_ACTION, IN_ACTION]
    assert [h["figure"] for h in kinds(ev, "figure_hit")] == ["a.1"]


def test_infantry_next_to_a_tank_knocks_it_out_on_a_six_with_grenades_D_S_11() -> None:
    at = {"t.1": (10, 10, "n"), "d.1": (12, 11), "d.2": (12, 12)}
    s = table([tank("t")], [unit("d", fig("rifleman"), fig("rifleman"))], at)
    for f in s.figures.values():
        f.ordered = True
    s, ev = end_orders(s, [5, 6])  # the second grenade knocks it out: the attacker has nothing left
    assert [(r["figure"], r["need"]) for r in rolls(ev, "grenade")] == [("d.1", 6), ("d.2", 6)]
    assert status(s, "t.1") == [OUT] and s.sides[DEF].points == 5
    assert s.result is not None and s.result["winner"] == DEF


def test_the_survival_test_1_3_out_of_action_4_6_back_in_the_fight_D_S_12() -> None:
    at = {"a.1": (0, 29), "a.2": (1, 29), "a.3": (2, 29), "a.4": (3, 29), "d.1": (39, 0)}
    s = table([rifles("a", 4)], [rifles("d", 1)], at)
    for f in ("a.2", "a.3"):
        s.figures[f].status = DOWN
    s, ev = end_orders(s, [3, 4, 1, 1, 1, 2, 1, 1])  # a.2: 3 out, a.3: 4 back; no unit at half losses
    assert [(r["figure"], r["result"]) for r in rolls(ev, "survival")] == [("a.2", [3]), ("a.3", [4])]
    assert status(s, "a.2", "a.3") == [OUT, IN_ACTION] and not rolls(ev, "morale")


@pytest.mark.parametrize(("face", "commander", "demoralised"), [(3, True, False), (2, True, True),
                                                                (3, False, True), (4, False, False)])
def test_a_unit_at_half_losses_tests_plus_one_with_its_commander_4_holds_D_S_12_S_7_3(
        face: int, commander: bool, demoralised: bool) -> None:
    at = {"a.1": (0, 29), "a.2": (1, 29), "a.3": (2, 29), "a.4": (3, 29), "d.1": (39, 0)}
    s = table([rifles("a", 4)], [rifles("d", 1)], at)
    s.figures["a.2"].status = s.figures["a.3"].status = OUT  # two of four: half
    if not commander:
        s.figures["a.1"].status = OUT
    s, ev = end_orders(s, [face, 1, 2, 1, 1])
    assert rolls(ev, "morale")[0]["bonus"] == (1 if commander else 0)
    assert s.units["a"].demoralised is demoralised


def test_a_demoralised_unit_only_falls_back_a_full_move_and_rallies_by_passing_a_later_test_D_S_12() -> None:
    at = {"a.1": (10, 20), "a.2": (11, 20), "a.3": (30, 29), "a.4": (31, 29), "d.1": (39, 0)}
    s = table([rifles("a", 4), rifles("b", 1)], [rifles("d", 1)], {**at, "b.1": (0, 29)})
    s.units["a"].demoralised = True
    s.figures["a.3"].status = s.figures["a.4"].status = OUT
    s.sides[ATT].orders_left = 2
    for o in ({"type": "move", "body": "a", "moves": [{"figure": "a.1", "to": [10, 18]}]},
              {"type": "fire", "body": "a", "target": "d.1"},
              {"type": "move", "body": "a.2", "moves": [{"figure": "a.2", "to": [11, 18]}]}):
        with pytest.raises(IllegalOrder) as err:
            order(s, ATT, o)
        assert err.value.rule == "D-S-12"
    s, ev = order(s, ATT, {"type": "fall_back", "body": "a"})
    assert [s.figures[f].cell for f in ("a.1", "a.2")] == [(10, 24), (11, 24)]  # four cells towards the south edge
    s.dice = Scripted((5, 1, 2, 1, 1))  # the turn's test: 5 + 1 ≥ 4: rallied
    s, ev = order(s, ATT, {"type": "pass"})
    assert kinds(ev, "morale")[0]["outcome"] == "rallied" and not s.units["a"].demoralised
