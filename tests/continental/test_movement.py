"""Movement rules C-4.* (with D-C-2, D-GEN-2, D-C-6) at the levels where they differ."""

from __future__ import annotations

import pytest

from server.continental.forces import REGROUPING, TRANSFER
from server.core.engine import MODERATOR, SPECTATOR, team_viewer
from server.core.errors import BadOrder, IllegalOrder, NotYourTurn, NotYourUnit
from tests.continental.helpers import BLUE, ENGINE, RED, end, kinds, next_turn, order, place, start


def test_rifle_division_moves_30km_a_turn_on_plain_C_4_3_D_C_2() -> None:
    s = start(1)
    uid = place(s, "red", "RD", (32, 18))
    s2, events = order(s, RED, type="move", unit=uid, path=[[33, 18], [34, 18], [35, 18]])
    assert s2.units[uid].cell == (35, 18)
    assert s2.units[uid].used == pytest.approx(1.0)
    assert "moved" in kinds(events)


def test_move_beyond_the_day_is_refused_and_state_unchanged_at_level_1_C_4_3_D_C_6() -> None:
    s = start(1)
    uid = place(s, "red", "RD", (32, 18))
    before = ENGINE.dump(s)
    with pytest.raises(IllegalOrder) as err:
        order(s, RED, type="move", unit=uid, path=[[33, 18], [34, 18], [35, 18], [36, 18]])
    assert err.value.rule == "C-4.3"
    assert ENGINE.dump(s) == before


def test_diagonal_step_is_15km_D_GEN_2() -> None:
    s = start(1)
    uid = place(s, "red", "RD", (32, 18))
    s2, _ = order(s, RED, type="move", unit=uid, path=[[33, 19], [34, 18]])
    assert s2.units[uid].used == pytest.approx(1.0)
    with pytest.raises(IllegalOrder):
        order(s, RED, type="move", unit=uid, path=[[33, 19], [34, 18], [35, 18]])


def test_road_speed_applies_along_the_road_C_4_3_D_C_2() -> None:
    s = start(1)
    uid = place(s, "red", "MD", (34, 20))
    path = [[x, 20] for x in range(35, 43)]  # 80 km along the road from Rotgrad
    s2, _ = order(s, RED, type="move", unit=uid, path=path)
    assert s2.units[uid].cell == (42, 20)


def test_level_3_impossible_move_done_as_far_as_possible_silently_C_9_3_D_C_6() -> None:
    s = start(3)
    uid = place(s, "red", "RD", (32, 18))
    s, events = order(s, RED, type="move", unit=uid, path=[[33, 18], [34, 18], [35, 18], [36, 18], [37, 18]])
    assert "order_recorded" in kinds(events)
    s, events = end(s, "red")
    s, events = end(s, "blue")
    assert s.units[uid].cell == (35, 18)
    adjusted = [e for e in events if e.kind == "order_adjusted"]
    assert adjusted and adjusted[0].audience == frozenset({MODERATOR})
    assert not adjusted[0].visible_to(team_viewer("red"))
    assert not adjusted[0].visible_to(SPECTATOR)


def test_a_level_3_order_may_be_amended_or_withdrawn_until_the_turn_is_carried_out_C_1_7() -> None:
    """C-1.7 [L3]: the mediator records the orders and carries them out when every team has finished. Until then
    a team amends an order (it keeps its number and place) or withdraws one, named by its `order_recorded`
    number; afterwards, and at levels 1–2 where nothing waits, it cannot."""
    s = start(3)
    a = place(s, "red", "RD", (32, 18))
    b = place(s, "red", "RD", (32, 22))
    s, ev = order(s, RED, type="move", unit=a, path=[[33, 18]])
    assert [e.data["number"] for e in ev if e.kind == "order_recorded"] == [1]
    s, ev = order(s, RED, type="move", unit=b, path=[[33, 22]])
    assert [e.data["number"] for e in ev if e.kind == "order_recorded"] == [2]
    s, ev = order(s, RED, type="amend_order", number=1, order={"type": "move", "unit": a, "path": [[33, 19]]})
    amended = next(e for e in ev if e.kind == "order_amended")
    assert amended.data["order"]["path"] == [[33, 19]] and amended.audience == frozenset({team_viewer("red")})
    s, ev = order(s, RED, type="withdraw_order", number=2)
    assert "order_withdrawn" in kinds(ev)
    assert [o["number"] for o in s.pending["red"]] == [1]
    with pytest.raises(IllegalOrder):  # gone, or never given
        order(s, RED, type="withdraw_order", number=2)
    with pytest.raises(NotYourUnit):  # the new order is checked like any recorded one
        order(s, RED, type="amend_order", number=1, order={"type": "move", "unit": "nobody", "path": [[33, 19]]})
    with pytest.raises(BadOrder):
        order(s, RED, type="amend_order", number=1, order={"type": "withdraw_order", "number": 1})
    s, _ = end(s, "red")
    with pytest.raises(NotYourTurn):
        order(s, RED, type="withdraw_order", number=1)
    s, _ = end(s, "blue")
    assert s.units[a].cell == (33, 19) and s.units[b].cell == (32, 22) and s.pending == {}
    s1 = start(1)
    with pytest.raises(IllegalOrder) as err:
        order(s1, RED, type="withdraw_order", number=1)
    assert err.value.rule == "C-1.7"


def test_tank_division_needs_two_turns_to_cross_a_river_D_C_2() -> None:
    s = start(2)
    uid = place(s, "blue", "TD", (47, 25), facing="E")
    s = next_turn(s)
    s, _ = end(s, "red")
    s2, _ = order(s, BLUE, type="move", unit=uid, path=[[48, 25]])
    assert s2.units[uid].cell == (48, 25)
    assert s2.units[uid].debt == pytest.approx(1.0)
    s3 = next_turn(s2)
    s3, _ = end(s3, "red")
    with pytest.raises(IllegalOrder):
        order(s3, BLUE, type="move", unit=uid, path=[[49, 25]])


def test_artillery_division_crosses_a_river_only_by_bridge_D_C_2() -> None:
    s = start(2)
    uid = place(s, "blue", "AD", (47, 24))
    s, _ = end(s, "red")
    with pytest.raises(IllegalOrder):
        order(s, BLUE, type="move", unit=uid, path=[[48, 24]])
    uid2 = place(s, "blue", "AD", (47, 20), facing="E")
    s2, _ = order(s, BLUE, type="move", unit=uid2, path=[[48, 20]])
    assert s2.units[uid2].cell == (48, 20) and s2.units[uid2].used == pytest.approx(1 / 3)


def test_mountains_only_by_tracks_for_tanks_C_T4_D_C_2() -> None:
    s = start(2)
    uid = place(s, "red", "TD", (41, 12), facing="S")
    for cell in ("41-12", "40-11", "41-11"):
        s.control[cell] = "red"
    with pytest.raises(IllegalOrder):
        order(s, RED, type="move", unit=uid, path=[[40, 11]])
    s2, _ = order(s, RED, type="move", unit=uid, path=[[41, 11]])
    assert s2.units[uid].cell == (41, 11)


def test_turn_about_takes_a_whole_turn_C_4_3bis() -> None:
    s = start(1)
    uid = place(s, "red", "RD", (32, 18), facing="E")
    s2, _ = order(s, RED, type="turn", unit=uid, facing="W")
    assert s2.units[uid].facing == "W" and s2.units[uid].used == pytest.approx(1.0)
    with pytest.raises(IllegalOrder):
        order(s2, RED, type="move", unit=uid, path=[[31, 18]])


def test_quarter_turn_leaves_half_the_move_C_4_3bis() -> None:
    s = start(1)
    uid = place(s, "red", "CavD", (32, 18), facing="E")
    s2, _ = order(s, RED, type="turn", unit=uid, facing="N")
    s3, _ = order(s2, RED, type="move", unit=uid, path=[[32, 19], [32, 20]])  # 20 of CavD's 50 km → 0.4
    assert s3.units[uid].used == pytest.approx(0.9)
    with pytest.raises(IllegalOrder):
        order(s3, RED, type="move", unit=uid, path=[[32, 21]])


def test_45_degree_turn_is_level_2_and_takes_a_quarter_C_4_3bis() -> None:
    s1 = start(1)
    uid = place(s1, "red", "RD", (32, 18), facing="E")
    with pytest.raises(IllegalOrder) as err:
        order(s1, RED, type="turn", unit=uid, facing="NE")
    assert err.value.rule == "C-4.3bis"
    s2 = start(2)
    uid = place(s2, "red", "RD", (32, 18), facing="E")
    s3, _ = order(s2, RED, type="turn", unit=uid, facing="NE")
    assert s3.units[uid].used == pytest.approx(0.25)


def test_turning_in_swamp_takes_two_turns_C_4_3bis() -> None:
    s = start(2)
    uid = place(s, "blue", "RD", (51, 18), facing="W")
    s, _ = end(s, "red")
    s.units[uid].cell = (50, 17)
    s2, _ = order(s, BLUE, type="turn", unit=uid, facing="E")
    assert s2.units[uid].debt == pytest.approx(1.0)


def test_withdrawal_at_half_speed_only_at_level_3_C_4_4() -> None:
    s1 = start(1)
    uid = place(s1, "red", "RD", (35, 18), facing="E")
    s2, _ = order(s1, RED, type="move", unit=uid, path=[[34, 18], [33, 18], [32, 18]])
    assert s2.units[uid].cell == (32, 18)
    s3 = start(3)
    uid = place(s3, "red", "RD", (35, 18), facing="E")
    s3, _ = order(s3, RED, type="move", unit=uid, path=[[34, 18], [33, 18], [32, 18]])
    s3, _ = end(s3, "red")
    s3, _ = end(s3, "blue")
    assert s3.units[uid].cell == (34, 18)  # 15 km a day backwards: one cell


def test_divisions_may_not_overlap_at_levels_1_2_C_4_12() -> None:
    s = start(1)
    a = place(s, "red", "RD", (32, 18))
    place(s, "red", "RD", (33, 18))
    with pytest.raises(IllegalOrder) as err:
        order(s, RED, type="move", unit=a, path=[[33, 18]])
    assert err.value.rule == "C-4.12"


def test_divisions_ending_in_one_cell_lose_the_next_turn_regrouping_C_4_12() -> None:
    s = start(3)
    a = place(s, "red", "RD", (32, 18))
    b = place(s, "red", "RD", (34, 18))
    s, _ = order(s, RED, type="move", unit=a, path=[[33, 18]])
    s, _ = order(s, RED, type="move", unit=b, path=[[33, 18]])
    s, _ = end(s, "red")
    s, events = end(s, "blue")
    assert "regrouping" in kinds(events)
    assert s.units[a].status == REGROUPING and not s.units[a].combat_capable
    assert s.units[a].used == pytest.approx(1.0)
    s = next_turn(s)
    assert s.units[a].status == "ready"


def test_level_2_up_to_five_regiments_share_a_cell_C_4_12() -> None:
    s = start(2)
    uid = place(s, "red", "RD", (32, 18))
    s2, events = order(s, RED, type="split", unit=uid)
    regiments = [u for u in s2.units.values() if u.parent == uid]
    assert len(regiments) == 4 and all(r.cell == (32, 18) for r in regiments)
    assert "regrouping" not in kinds(events)
    assert sum(r.rating for r in regiments) == pytest.approx(1.0)


def test_splitting_is_level_2_C_4_10() -> None:
    s = start(1)
    uid = place(s, "red", "RD", (32, 18))
    with pytest.raises(IllegalOrder):
        order(s, RED, type="split", unit=uid)


def test_regiments_recombine_into_a_division_in_two_turns_C_4_10() -> None:
    s = start(2)
    uid = place(s, "red", "RD", (32, 18))
    s, _ = order(s, RED, type="split", unit=uid)
    regiments = sorted(u.id for u in s.units.values() if u.parent == uid)
    s = next_turn(s)
    s, _events = order(s, RED, type="merge", units=regiments)
    merged = [u for u in s.units.values() if u.team == "red" and "#" in u.id and "M-" not in u.id]
    assert len(merged) == 1 and merged[0].rating == pytest.approx(1.0)
    assert merged[0].debt == pytest.approx(1.0)


def test_transfer_between_cities_takes_two_turns_plus_nodes_C_4_5() -> None:
    s = start(1)
    uid = place(s, "red", "RD", (33, 20))
    s, events = order(s, RED, type="transfer", unit=uid, to="Nordstadt")
    begun = next(e for e in events if e.kind == "transfer_begun")
    assert begun.data["turns"] == 3  # one node on the way: the crossing at 38-20
    assert s.units[uid].status == TRANSFER and not s.units[uid].combat_capable
    s = next_turn(s)
    assert s.units[uid].cell == (38, 20)
    s = next_turn(s)
    assert s.units[uid].cell == (38, 26) and s.units[uid].status == "restoring"
    s = next_turn(s)
    assert s.units[uid].status == "ready"


def test_transfer_uses_railways_from_level_2_C_4_5() -> None:
    s = start(2)
    uid = place(s, "red", "RD", (33, 20))
    s, events = order(s, RED, type="transfer", unit=uid, to="Suedheim")
    assert next(e for e in events if e.kind == "transfer_begun").data["turns"] == 3


def test_march_along_roads_at_one_and_a_half_speed_C_4_8() -> None:
    s = start(2)
    uid = place(s, "red", "RD", (33, 20))
    path = [[x, 20] for x in range(34, 42)]
    s, _ = order(s, RED, type="march", unit=uid, path=path)
    # half a turn to prepare, then 0.5 × 60 km = 30 km
    assert s.units[uid].cell == (36, 20) and s.units[uid].status == "march"
    assert s.units[uid].second == (35, 20)
    s = next_turn(s)
    assert s.units[uid].cell == (41, 20) and s.units[uid].status == "ready"


def test_march_is_level_2_C_4_8() -> None:
    s = start(1)
    uid = place(s, "red", "RD", (33, 20))
    with pytest.raises(IllegalOrder):
        order(s, RED, type="march", unit=uid, path=[[34, 20]])


def test_frontage_change_takes_a_turn_C_4_6() -> None:
    s = start(2)
    uid = place(s, "red", "RD", (32, 18), facing="E")
    s2, _ = order(s, RED, type="frontage", unit=uid, width=2)
    assert s2.units[uid].cells() == [(32, 18), (32, 17)] and s2.units[uid].used == pytest.approx(1.0)


def test_first_border_crossing_starts_the_war_C_9_1_C_10_5() -> None:
    s = start(1)
    uid = place(s, "red", "RD", (43, 18))
    assert not s.war
    s, events = order(s, RED, type="move", unit=uid, path=[[44, 18]])
    assert s.war and s.aggressor == "red"
    assert {(p["team"], p["points"]) for p in s.penalties} == {("red", 10)}
    assert s.controller((44, 18)) == "red"
    assert "war_begun" in kinds(events)


def test_entering_a_neutral_state_costs_20_points_C_10_5() -> None:
    s = start(1)
    uid = place(s, "red", "RD", (38, 16))
    s, _ = order(s, RED, type="move", unit=uid, path=[[39, 15]])
    assert ("red", 20) in {(p["team"], p["points"]) for p in s.penalties}
    assert "red" in s.violators and s.enemies("red", "green")


def test_orders_out_of_turn_and_for_others_units_are_refused_C_1_7() -> None:
    s = start(1)
    uid = place(s, "red", "RD", (32, 18))
    bid = place(s, "blue", "RD", (50, 26))
    with pytest.raises(NotYourTurn):
        order(s, BLUE, type="move", unit=bid, path=[[50, 25]])
    with pytest.raises(NotYourUnit):
        order(s, RED, type="move", unit=bid, path=[[50, 25]])
    assert uid in s.units


def test_level_3_all_teams_act_at_once_red_first_C_1_7_C_1_8() -> None:
    s1 = start(1)
    assert ENGINE.active_teams(s1) == frozenset({"red"})
    s3 = start(3)
    assert ENGINE.active_teams(s3) == frozenset({"red", "blue"})


def test_regiment_passes_to_another_division_at_level_3_C_4_11() -> None:
    s = start(3)
    a = place(s, "red", "RD", (32, 18))
    b = place(s, "red", "RD", (33, 18))
    s, _ = order(s, RED, type="split", unit=a)
    s, _ = end(s, "red")
    s, _ = end(s, "blue")
    reg = sorted(u.id for u in s.units.values() if u.parent == a)[0]
    s, _ = order(s, RED, type="reassign", regiment=reg, to=b)
    s, _ = end(s, "red")
    s, _ = end(s, "blue")
    assert reg not in s.units and len(s.units[b].regiments) == 5
    assert s.units[b].rating == pytest.approx(1.2)


def test_reassign_is_level_3_C_4_11() -> None:
    s = start(2)
    a = place(s, "red", "RD", (32, 18))
    b = place(s, "red", "RD", (33, 18))
    s, _ = order(s, RED, type="split", unit=a)
    reg = sorted(u.id for u in s.units.values() if u.parent == a)[0]
    with pytest.raises(IllegalOrder):
        order(s, RED, type="reassign", regiment=reg, to=b)


def test_divisions_form_a_corps_free_in_planning_and_in_3_turns_at_level_2_C_5_3_C_4_10() -> None:
    from tests.continental.helpers import ENGINE as engine

    s, _ = engine.setup({"scenario": "continental", "level": 1}, 1)
    s, _ = order(s, RED, type="corps", name="9RC", units=["r5RD", "r6RD"])
    assert s.units["r5RD"].corps == "9RC"
    s1 = start(1)
    a, b = place(s1, "red", "RD", (32, 18)), place(s1, "red", "RD", (33, 18))
    with pytest.raises(IllegalOrder):
        order(s1, RED, type="corps", name="9RC", units=[a, b])
    s2 = start(2)
    a, b = place(s2, "red", "RD", (32, 18)), place(s2, "red", "RD", (33, 18))
    far = place(s2, "red", "RD", (36, 18))
    with pytest.raises(IllegalOrder):
        order(s2, RED, type="corps", name="9RC", units=[a, far])
    s2, _ = order(s2, RED, type="corps", name="9RC", units=[a, b])
    assert s2.units[a].corps == "9RC" and s2.units[a].debt == pytest.approx(2.0)


def test_level_3_moves_are_simultaneous_step_by_step_C_1_7() -> None:
    """Red's division three cells away and Blue's one cell away both make for 44-20: Blue gets there in the first
    round, Red stops next to it — Red moving first in turn order does not give it the whole road."""
    s = start(3)
    r = place(s, "red", "MD", (41, 20), facing="E")
    b = place(s, "blue", "RD", (45, 20), facing="W")
    s, _ = order(s, RED, type="move", unit=r, path=[[42, 20], [43, 20], [44, 20]])
    s, _ = order(s, BLUE, type="move", unit=b, path=[[44, 20]])
    s, _ = end(s, "red")
    s, events = end(s, "blue")
    assert s.units[b].cell == (44, 20) and s.units[r].cell == (43, 20)
    assert any(e.kind == "order_adjusted" for e in events)


def test_regrouped_counters_are_sorted_out_even_by_the_second_cell_C_4_12() -> None:
    from server.continental.movement import stack_allowed

    s = start(3)
    wide = place(s, "red", "RD", (32, 20), facing="N")
    s.units[wide].wide, s.units[wide].second = True, (33, 20)
    mover = place(s, "red", "MD", (34, 20), facing="W")
    s, _ = order(s, RED, type="move", unit=mover, path=[[33, 20]])
    s, _ = end(s, "red")
    s, _ = end(s, "blue")
    assert s.units[mover].status == REGROUPING and s.units[wide].status == REGROUPING
    s = next_turn(s)
    cells = {}
    for u in s.alive_units("red"):
        for c in u.cells():
            cells.setdefault(c, []).append(u)
    assert all(stack_allowed(s, here) for here in cells.values())
