"""The table, distances, sight and cover (S-3.1, D-S-1, D-S-7, D-GEN-2)."""

from __future__ import annotations

import pytest

from server.core.errors import IllegalOrder
from server.skirmish.command import chain, in_cohesion
from server.skirmish.sight import cover, sees
from server.skirmish.table import Element, Table, crossed, distance

from .helpers import ATT, DEF, element, put, rifles, scenario, start, tank


def test_the_table_is_40_by_30_cells_of_5_cm_S_3_1_D_S_1() -> None:
    s = start(scenario([rifles("a", 1)], [rifles("d", 1)]))
    assert (s.table.width, s.table.height) == (40, 30)  # 2 × 1.5 m in 5 cm cells
    assert len(s.table.cells) == 1200


@pytest.mark.parametrize(("a", "b", "d"), [((0, 0), (3, 0), 3), ((0, 0), (1, 1), 1), ((0, 0), (2, 1), 2),
                                           ((0, 0), (1, 2), 2), ((0, 0), (3, 3), 4), ((0, 0), (5, 5), 7),
                                           ((0, 0), (18, 0), 18), ((0, 0), (6, 8), 10), ((0, 0), (2, 2), 3)])
def test_distances_are_euclidean_between_centres_rounded_half_up_D_GEN_2(a: tuple[int, int], b: tuple[int, int],
                                                                          d: int) -> None:
    # (1, 1): √2 = 1.41 → 1; (2, 1): √5 = 2.24 → 2; (3, 3): √18 = 4.24 → 4; (2, 2): √8 = 2.83 → 3
    assert distance(a, b) == d == distance(b, a)


def test_distance_rounds_exactly_half_up_D_GEN_2() -> None:
    # no pair of cells is exactly n.5 apart (n² + m² = k² + k + 1/4 has no integer solution), so the rounding is
    # decided by comparing 4n with (2r + 1)²: √12.25 would be the boundary; √12 = 3.46 → 3, √13 = 3.61 → 4
    assert distance((0, 0), (2, 2)) == 3 and distance((0, 0), (3, 2)) == 4 and distance((0, 0), (3, 1)) == 3


def test_cohesion_is_a_chain_of_neighbouring_cells_to_the_commander_D_S_1_S_7_2() -> None:
    s = start(scenario([rifles("a", 4)], [rifles("d", 1)]))
    put(s, "a.1", 10, 10)
    put(s, "a.2", 11, 11)  # diagonal neighbour: within 5 cm
    put(s, "a.3", 12, 11)
    put(s, "a.4", 14, 11)  # two cells from a.3: not in cohesion
    assert in_cohesion(s, "a") == ["a.1", "a.2", "a.3"]
    put(s, "a.4", 13, 12)
    assert set(in_cohesion(s, "a")) == {"a.1", "a.2", "a.3", "a.4"}
    assert chain(s, s.figures["a.4"], ["a.1", "a.2", "a.3"])[0] == "a.4"


def test_a_vehicle_fills_a_2_by_3_block_turned_with_its_facing_D_S_1() -> None:
    s = start(scenario([tank("t")], [rifles("d", 1)]))
    put(s, "t.1", 10, 10, "n")
    assert sorted(s.figures["t.1"].cells()) == [(10, 10), (10, 11), (10, 12), (11, 10), (11, 11), (11, 12)]
    put(s, "t.1", 10, 10, "e")
    assert sorted(s.figures["t.1"].cells()) == [(10, 10), (10, 11), (11, 10), (11, 11), (12, 10), (12, 11)]


def test_sight_lines_are_symmetric_and_slip_between_corner_cells_D_S_7() -> None:
    assert crossed((0, 0), (4, 0)) == ((1, 0), (2, 0), (3, 0))
    assert crossed((0, 0), (3, 3)) == ((1, 1), (2, 2))  # through the corners, not the cells beside them
    for a, b in [((2, 3), (17, 9)), ((0, 0), (5, 2)), ((30, 1), (4, 28))]:
        assert set(crossed(a, b)) == set(crossed(b, a))


def _pair(terrain: list[dict[str, object]], a: tuple[int, int], b: tuple[int, int]) -> tuple[bool, int, int]:
    s = start(scenario([rifles("a", 1)], [rifles("d", 1)], terrain=terrain))
    put(s, "a.1", *a)
    put(s, "d.1", *b)
    f, g = s.figures["a.1"], s.figures["d.1"]
    assert sees(s, f, g) == sees(s, g, f)
    return sees(s, f, g), cover(s, f, g), cover(s, g, f)


def test_a_house_between_blocks_sight_D_S_7() -> None:
    assert _pair([element("house", 10, 9, 2, 3)], (8, 10), (14, 10))[0] is False
    assert _pair([element("house", 10, 13, 2, 3)], (8, 10), (14, 10))[0] is True


def test_a_figure_in_a_house_has_hard_cover_and_sees_out_from_its_edge_D_S_7() -> None:
    seen, on_target, _ = _pair([element("house", 10, 9, 3, 3)], (10, 20), (10, 11))  # rows 9-11: its south edge
    assert seen and on_target == 2  # the line leaves the house at once: the window
    seen, _, _ = _pair([element("house", 10, 9, 3, 3)], (11, 20), (11, 10))  # inside: a house cell between
    assert not seen


def test_sight_goes_one_cell_into_a_wood_not_through_it_D_S_7_D_S_2() -> None:
    wood = [element("wood", 10, 5, 6, 4)]  # rows 5-8
    seen, on_target, _ = _pair(wood, (12, 20), (12, 8))  # the wood's first cell
    assert seen and on_target == 1  # soft cover
    assert _pair(wood, (12, 20), (12, 7))[0] is False  # one cell deeper
    assert _pair(wood, (12, 20), (12, 2))[0] is False  # behind it


def test_bushes_give_soft_cover_and_do_not_block_D_S_7_D_S_2() -> None:
    seen, on_target, back = _pair([element("bushes", 11, 11, 3, 3)], (12, 20), (12, 12))
    assert seen and on_target == 1 and back == 0
    assert _pair([element("bushes", 11, 11, 3, 3)], (12, 20), (12, 5))[:2] == (True, 0)


def test_behind_a_hedge_soft_behind_a_wall_hard_cover_for_the_figure_behind_it_D_S_7() -> None:
    hedge = [element("hedge", 8, 11, 8, 1)]
    assert _pair(hedge, (12, 20), (12, 10)) == (True, 1, 0)  # the shooter is not behind it: far from the hedge
    wall = [element("wall", 8, 11, 8, 1)]
    assert _pair(wall, (12, 20), (12, 10)) == (True, 2, 0)
    assert _pair(wall, (12, 20), (12, 7))[1] == 0  # a wall three cells in front covers nobody


def test_vehicles_block_sight_figures_do_not_D_S_7() -> None:
    s = start(scenario([rifles("a", 2), tank("t")], [rifles("d", 1)]))
    put(s, "a.1", 10, 20)
    put(s, "d.1", 10, 10)
    put(s, "a.2", 10, 15)  # a figure between: no block
    assert sees(s, s.figures["a.1"], s.figures["d.1"])
    put(s, "t.1", 9, 14, "n")  # covers (9..10, 14..16)
    assert not sees(s, s.figures["a.1"], s.figures["d.1"])
    assert sees(s, s.figures["t.1"], s.figures["d.1"])  # the tank's own cells do not block it


def test_terrain_elements_may_not_overlap_D_S_2() -> None:
    t = Table.empty(40, 30).with_element(Element("h", "house", 10, 10, 2, 2))
    with pytest.raises(IllegalOrder) as err:
        t.with_element(Element("w", "wood", 11, 11, 3, 3))
    assert err.value.rule == "D-S-2"
    assert ATT != DEF
