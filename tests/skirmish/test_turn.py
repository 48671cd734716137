"""The turn: its four phases, initiative, the number of orders, alternating single orders (S-4, S-5, S-5.1,
S-5.2, S-5.6, D-S-4), passing and the clock."""

from __future__ import annotations

import pytest

from server.core.errors import IllegalOrder, NotYourTurn
from server.skirmish.state import SkirmishState

from .helpers import ACTORS, ATT, DEF, ENGINE, Scripted, kinds, order, rifles, rolls, scenario, start


def _far(turn_dice: list[int] | None = None, **kw: object) -> SkirmishState:
    """Two small squads in opposite corners, out of range of each other (distance 48)."""
    s = start(scenario([rifles("a", 2), rifles("b", 1)], [rifles("d", 2), rifles("e", 1)]), turn_dice=turn_dice,
              **kw)  # type: ignore[arg-type]
    for fid, (x, y) in {"a.1": (0, 29), "a.2": (1, 29), "b.1": (3, 29), "d.1": (39, 0), "d.2": (38, 0),
                        "e.1": (36, 0)}.items():
        s.figures[fid].x, s.figures[fid].y = x, y
    return s


def test_initiative_higher_d6_moves_first_ties_roll_again_S_5_1_D_S_4() -> None:
    # initiative: defender 3, attacker 3 (tie) → defender 2, attacker 5: the attacker gives the first order;
    # then each rolls his own d6 for his orders, the initiative winner first: attacker 4, defender 2
    s = _far([3, 3, 2, 5, 4, 2])
    assert isinstance(s.dice, Scripted) and s.dice.left == 0
    assert s.initiative == ATT and s.next_side == ATT
    assert (s.sides[ATT].orders_left, s.sides[DEF].orders_left) == (4, 2)
    assert ENGINE.active_teams(s) == {ATT}


def test_each_player_rolls_his_own_d6_for_his_number_of_orders_S_5_2_D_S_4() -> None:
    scn = scenario([rifles("a", 1)], [rifles("d", 1)])
    s, _ = ENGINE.setup({"scenario": scn}, 1)
    s, _ = ENGINE.apply(s, ACTORS[DEF], {"type": "deploy"})
    s.dice = Scripted((6, 1, 5, 3))
    s, ev = ENGINE.apply(s, ACTORS[ATT], {"type": "deploy"})
    assert [(r["side"], r["result"]) for r in rolls(ev, "orders")] == [(DEF, [5]), (ATT, [3])]
    assert kinds(ev, "orders_rolled")[0]["orders"] == {ATT: 3, DEF: 5}
    assert [e.kind for e in ev if e.kind in ("turn_started", "initiative", "orders_rolled", "next_order")] == [
        "turn_started", "initiative", "orders_rolled", "next_order"]


def test_single_orders_alternate_by_a_roll_before_each_S_5_6_D_S_4() -> None:
    s = _far([6, 1, 2, 2], dice=[1, 6, 4, 4, 5, 2])
    assert s.next_side == DEF
    s, ev = order(s, DEF, {"type": "move", "body": "d", "moves": [{"figure": "d.1", "to": [39, 1]}]})
    assert [(r["side"], r["result"][0]) for r in rolls(ev, "next_order")] == [(DEF, 1), (ATT, 6)]
    assert s.next_side == ATT and ENGINE.active_teams(s) == {ATT}  # the attacker's clock runs now
    with pytest.raises(NotYourTurn) as err:
        order(s, DEF, {"type": "pass"})
    assert err.value.rule in ("D-S-4", "S-5.6")
    s, ev = order(s, ATT, {"type": "move", "body": "a", "moves": [{"figure": "a.1", "to": [0, 28]}]})
    assert [r["result"][0] for r in rolls(ev, "next_order")] == [4, 4, 5, 2]  # a tie, rolled again
    assert s.next_side == DEF


def test_a_player_out_of_orders_is_skipped_the_other_gives_the_rest_S_5_6_D_S_4() -> None:
    s = _far([6, 1, 1, 3], dice=[])  # defender first with 1 order, attacker 3
    s, ev = order(s, DEF, {"type": "pass"})
    assert not rolls(ev, "next_order") and s.next_side == ATT  # no roll: the defender has none left
    s, ev = order(s, ATT, {"type": "move", "body": "a", "moves": [{"figure": "a.1", "to": [0, 28]}]})
    assert s.next_side == ATT and s.sides[ATT].orders_left == 2 and not rolls(ev, "next_order")


def test_the_turn_runs_orders_random_fire_hand_to_hand_survival_S_4() -> None:
    s = _far([6, 1, 1, 1], dice=[4, 2, 3, 3])  # turn 2's initiative and orders
    s.figures["d.2"].status = "down"  # someone waiting for the survival test
    s.dice = Scripted((5, 4, 2, 3, 3))  # d.2 survives on 5; turn 2: initiative 4-2, orders 3 and 3
    s, ev = order(s, DEF, {"type": "pass"})
    s, ev = order(s, ATT, {"type": "pass"})
    phases = [e.kind for e in ev if e.kind in ("random_fire", "hand_to_hand", "survival_test", "turn_started")]
    assert phases == ["random_fire", "survival_test", "turn_started"]  # nobody in contact: no hand-to-hand
    assert s.turn == 2 and s.figures["d.2"].status == "in_action"


def test_a_pass_uses_one_order_ending_the_turn_gives_up_the_rest_D_S_4() -> None:
    s = _far([6, 1, 3, 3], dice=[6, 1, 6, 1])
    s, _ = order(s, DEF, {"type": "pass"})
    assert s.sides[DEF].orders_left == 2
    s, ev = ENGINE.end_turn(s, DEF, flagged=False)
    assert s.sides[DEF].orders_left == 0 and kinds(ev, "orders_lost")[0]["reason"] == "passed"
    assert s.next_side == ATT


def test_a_flag_loses_only_the_order_at_hand_the_clock_runs_per_order_D_S_4() -> None:
    s = _far([6, 1, 3, 3], dice=[6, 1])
    s, ev = ENGINE.end_turn(s, DEF, flagged=True)
    assert s.sides[DEF].orders_left == 2 and kinds(ev, "orders_lost")[0] == {
        "side": DEF, "orders": 1, "reason": "clock", "rule": "D-S-4"}
    assert ENGINE.active_teams(s) == {DEF}  # won the roll again: its clock starts afresh for this order
    with pytest.raises(NotYourTurn):
        ENGINE.end_turn(s, ATT, flagged=False)


def test_a_side_with_nothing_left_to_order_loses_its_orders_S_5_6() -> None:
    s = _far([6, 1, 2, 2], first=ATT, dice=[])
    for f in ("d.1", "d.2", "e.1"):
        s.figures[f].ordered = True  # every defender figure has had its order
    for u in ("d", "e"):
        s.units[u].ordered = True
    s, ev = order(s, ATT, {"type": "pass"})
    assert kinds(ev, "orders_lost") == [{"side": DEF, "orders": 2, "reason": "nothing to order", "rule": "S-5.6"}]


def test_no_orders_outside_the_orders_phase_or_after_the_last_one_S_5_2_S_5() -> None:
    s = _far([6, 1, 1, 1])
    s.sides[DEF].orders_left = 0
    with pytest.raises(IllegalOrder) as err:
        order(s, DEF, {"type": "pass"})
    assert err.value.rule == "S-5.2"
