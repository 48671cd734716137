"""Movement (D-S-6, D-GEN-2): infantry 4 cells, rough ground and obstacles 2 a cell, tanks 8 and turning, contact."""

from __future__ import annotations

import pytest

from server.core.errors import BadOrder, IllegalOrder
from server.skirmish.state import SkirmishState

from .helpers import ATT, DEF, element, kinds, order, put, rifles, scenario, start, tank


def _game(terrain: list[dict[str, object]] | None = None) -> SkirmishState:
    scn = scenario([rifles("a", 1), rifles("b", 1), tank("t")], [rifles("d", 1), rifles("e", 1)],
                   terrain=terrain or [])
    s = start(scn, orders={ATT: 6, DEF: 0}, first=ATT)
    put(s, "a.1", 10, 20)
    put(s, "b.1", 30, 28)
    put(s, "t.1", 20, 24, "n")
    put(s, "d.1", 39, 0)
    put(s, "e.1", 0, 0)
    return s


def _path(fid: str, *cells: tuple[int, int] | str) -> dict[str, object]:
    return {"type": "move", "body": fid, "moves": [{"figure": fid, "path": [c if isinstance(c, str) else list(c)
                                                                          for c in cells]}]}


def test_infantry_moves_4_cells_over_open_ground_D_S_6() -> None:
    s = _game()
    s2, ev = order(s, ATT, _path("a.1", (10, 19), (10, 18), (10, 17), (10, 16)))
    assert s2.figures["a.1"].cell == (10, 16) and kinds(ev, "figure_moved")[0]["spent"] == 4
    with pytest.raises(IllegalOrder) as err:
        order(s, ATT, _path("a.1", (10, 19), (10, 18), (10, 17), (10, 16), (10, 15)))
    assert err.value.rule == "D-S-6"


def test_a_diagonal_step_costs_one_and_a_half_D_GEN_2_D_S_6() -> None:
    s = _game()
    _s2, ev = order(s, ATT, _path("a.1", (11, 19), (12, 18), (12, 17)))  # 1.5 + 1.5 + 1 = 4
    assert kinds(ev, "figure_moved")[0]["spent"] == 4
    with pytest.raises(IllegalOrder):  # three diagonals: 4.5
        order(s, ATT, _path("a.1", (11, 19), (12, 18), (13, 17)))


def test_bushes_woods_and_houses_cost_2_a_cell_crossing_a_wall_or_hedge_2_D_S_6() -> None:
    s = _game([element("bushes", 10, 18, 1, 2), element("hedge", 5, 19, 4, 1), element("house", 14, 18, 2, 2)])
    _s2, ev = order(s, ATT, _path("a.1", (10, 19), (10, 18)))  # two bush cells: 2 + 2
    assert kinds(ev, "figure_moved")[0]["spent"] == 4
    with pytest.raises(IllegalOrder):
        order(s, ATT, _path("a.1", (10, 19), (10, 18), (10, 17)))
    _s3, ev = order(s, ATT, _path("a.1", (9, 20), (8, 19)))  # 1, then a diagonal step over the hedge: 1.5 × 2
    assert kinds(ev, "figure_moved")[0]["spent"] == 4
    with pytest.raises(IllegalOrder):
        order(s, ATT, _path("a.1", (9, 20), (8, 19), (8, 18)))


def test_tanks_move_8_on_open_ground_4_through_woods_never_into_houses_and_turn_for_2_D_S_6() -> None:
    s = _game([element("wood", 20, 19, 2, 2), element("house", 23, 24, 2, 2)])
    _s2, ev = order(s, ATT, _path("t.1", (20, 23), (20, 22), (20, 21)))  # into the wood's cells at row 20
    # the steps into rows 23, 22, 21 enter open ground (1 each); the step to row 20 would enter wood (2)
    assert kinds(ev, "figure_moved")[0]["spent"] == 3
    _s3, ev = order(s, ATT, _path("t.1", (20, 23), (20, 22), (20, 21), (20, 20), (20, 19)))  # 3 + 2 + 2
    assert kinds(ev, "figure_moved")[0]["spent"] == 7
    _s4, ev = order(s, ATT, _path("t.1", (20, 23), (20, 22), (20, 21), (20, 20), (20, 19), (20, 18)))
    assert kinds(ev, "figure_moved")[0]["spent"] == 8  # out of the wood: 1
    with pytest.raises(IllegalOrder) as err:  # one more: 9 > 8
        order(s, ATT, _path("t.1", (20, 23), (20, 22), (20, 21), (20, 20), (20, 19), (20, 18), (20, 17)))
    assert err.value.rule == "D-S-6"
    with pytest.raises(IllegalOrder):  # the block would stand in the house
        order(s, ATT, _path("t.1", (21, 24), (22, 24)))
    s5, ev = order(s, ATT, _path("t.1", "w", (19, 24)))  # a quarter turn (2) and a step (1)
    assert s5.figures["t.1"].facing == "w" and kinds(ev, "figure_moved")[0]["spent"] == 3
    with pytest.raises(BadOrder):  # infantry does not turn in place
        order(s, ATT, _path("a.1", "e"))


def test_moving_next_to_an_enemy_ends_the_move_contact_D_S_6() -> None:
    s = _game()
    put(s, "d.1", 10, 16)
    s2, ev = order(s, ATT, _path("a.1", (10, 19), (10, 18), (10, 17), (11, 17)))
    moved = kinds(ev, "figure_moved")[0]
    assert s2.figures["a.1"].cell == (10, 17) and moved["stopped"] == "contact" and s2.figures["a.1"].contact


def test_no_figure_enters_an_enemy_held_cell_D_S_6() -> None:
    s = _game()
    put(s, "a.1", 10, 17)
    put(s, "d.1", 10, 16)  # already in contact
    s2, ev = order(s, ATT, _path("a.1", (10, 16)))
    assert s2.figures["a.1"].cell == (10, 17) and kinds(ev, "figure_moved")[0]["stopped"] == "enemy"


def test_figures_pass_their_own_infantry_but_do_not_end_on_it_nor_pass_a_vehicle_D_S_6_D_S_1() -> None:
    s = _game()
    put(s, "b.1", 10, 19)
    s2, _ = order(s, ATT, _path("a.1", (10, 19), (10, 18)))
    assert s2.figures["a.1"].cell == (10, 18)
    with pytest.raises(IllegalOrder) as err:
        order(s, ATT, _path("a.1", (10, 19)))
    assert err.value.rule == "D-S-1"
    put(s, "t.1", 10, 17, "e")  # the tank across the way: (10..12, 17..18)
    with pytest.raises(IllegalOrder):
        order(s, ATT, _path("a.1", (10, 19), (10, 18)))


def test_a_destination_is_reached_by_the_cheapest_path_on_what_the_side_sees_D_S_6() -> None:
    s = _game([element("wood", 9, 17, 3, 2)])
    s2, ev = order(s, ATT, {"type": "move", "body": "a.1", "moves": [{"figure": "a.1", "to": [12, 17]}]})
    # round the wood: (11, 19) 1.5, (12, 18) 1.5, (12, 17) 1 → 4; straight through would cost more
    moved = kinds(ev, "figure_moved")[0]
    assert s2.figures["a.1"].cell == (12, 17) and moved["spent"] == 4
    with pytest.raises(IllegalOrder) as err:
        order(s, ATT, {"type": "move", "body": "a.1", "moves": [{"figure": "a.1", "to": [10, 15]}]})
    assert err.value.rule == "D-S-6"


def test_a_path_step_is_a_neighbouring_cell_D_GEN_2() -> None:
    s = _game()
    with pytest.raises(BadOrder) as err:
        order(s, ATT, _path("a.1", (10, 18)))
    assert err.value.rule == "D-GEN-2"
    put(s, "a.1", 0, 20)
    with pytest.raises(IllegalOrder):  # off the table
        order(s, ATT, _path("a.1", (-1, 20)))
