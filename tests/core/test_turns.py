"""C-1.7, C-1.8: turn order of teams."""

from __future__ import annotations

import pytest

from server.core.turns import TurnOrder


def test_red_moves_first_then_the_others_in_colour_order_C_1_7() -> None:
    order = TurnOrder.start(["blue", "green", "red"], simultaneous=False)
    assert order.teams == ("red", "blue", "green")
    assert order.active == {"red"}


def test_teams_move_in_turn_and_the_turn_completes_after_the_last_C_1_8() -> None:
    order = TurnOrder.start(["red", "blue"], simultaneous=False)
    order, complete = order.finish("red")
    assert not complete and order.active == {"blue"} and order.turn == 1
    order, complete = order.finish("blue")
    assert complete and order.active == {"red"} and order.turn == 2


def test_level_3_all_give_orders_and_resolve_when_all_finished_C_1_8() -> None:
    order = TurnOrder.start(["red", "blue", "green"], simultaneous=True)
    assert order.active == {"red", "blue", "green"}
    order, complete = order.finish("blue")
    assert not complete and order.active == {"red", "green"}
    order, _ = order.finish("red")
    order, complete = order.finish("green")
    assert complete and order.turn == 2 and order.active == {"red", "blue", "green"}


def test_a_team_not_to_act_cannot_finish() -> None:
    order = TurnOrder.start(["red", "blue"], simultaneous=False)
    with pytest.raises(ValueError):
        order.finish("blue")


def test_dump_load_roundtrip() -> None:
    order, _ = TurnOrder.start(["red", "blue", "black"], simultaneous=True).finish("black")
    assert TurnOrder.load(order.dump()) == order


def test_defeated_team_is_skipped() -> None:
    order = TurnOrder.start(["red", "blue", "green"], simultaneous=False)
    order, _ = order.finish("red")
    order = order.without("blue")
    assert order.active == {"green"}
