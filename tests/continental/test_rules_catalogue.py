"""Rules that had no test naming them: descriptive rules pinned by the behaviour they imply, the tables checked
against the printed source (with D-C-2/D-C-8 where they fill it) and shown in use by the engine."""

from __future__ import annotations

from typing import Any

import pytest

from server.continental.forces import sector_factor, support_rating
from server.continental.grid import distance_km
from server.core.engine import MODERATOR, PUBLIC, team_viewer
from server.core.errors import BadOrder, IllegalOrder, UnknownOrder
from tests.continental.helpers import ENGINE, RED, end, kinds, next_turn, order, place, start

CFG: dict[str, Any] = {"scenario": "continental", "level": 1,
                       "teams": [{"colour": "red", "seats": 1}, {"colour": "blue", "seats": 1}]}


def _battle(events: list[Any]) -> dict[str, Any]:
    return dict(next(e for e in events if e.kind == "battle").data)


def _planned(cfg: dict[str, Any], seed: int = 1) -> Any:
    s, _ = ENGINE.setup(cfg, seed)
    s, _ = order(s, RED, type="deploy", unit="r7RD", cell=[31, 21])
    s, _ = end(s, "red")
    s, _ = end(s, "blue")
    return s


# -- C-0, C-1: the game ----------------------------------------------------------------------------------------

def test_only_module_1_the_continental_war_at_levels_1_to_3_is_offered_C_0_1() -> None:
    for level in (1, 2, 3):
        s, events = ENGINE.setup({**CFG, "level": level}, 1)
        assert s.level == level and events[0].data["module"] == 1
    for module in (2, 3, 4, True):
        with pytest.raises(BadOrder) as err:
            ENGINE.setup({**CFG, "module": module}, 1)
        assert err.value.rule == "C-0.1"


def test_victory_only_by_military_means_C_1_1() -> None:
    s = _planned(CFG)
    for _ in range(12):  # no war, no victory: time alone decides nothing
        s = next_turn(s)
    assert not ENGINE.is_over(s) and s.result is None
    s = start(1)
    spd = place(s, "red", "SPD", (43, 18), facing="E")
    place(s, "blue", "RD", (44, 18), facing="W")
    place(s, "blue", "RD", (50, 25), facing="W", uid="b-far")
    s, _ = order(s, RED, type="attack", target=[44, 18], echelons=[[spd]])  # 3:1, the defender capitulates
    s.units["b-far"].status = "destroyed"  # the rest of Blue's army already lost
    s = next_turn(s)
    assert ENGINE.is_over(s) and s.result["winner"] == "red" and s.result["end"] == "annihilation"


def test_the_server_is_the_mediator_and_level_3_needs_one_C_1_4_C_1_3() -> None:
    with pytest.raises(BadOrder) as err:
        ENGINE.setup({**CFG, "level": 3, "mediator": "none"}, 1)
    assert err.value.rule == "C-1.4"
    with pytest.raises(BadOrder) as err:
        ENGINE.setup({**CFG, "mediator": "a friend"}, 1)
    assert err.value.rule == "C-1.3"
    s, events = ENGINE.setup({**CFG, "level": 2, "mediator": "none"}, 1)
    assert events[0].data["mediator"] == "none" and ENGINE.view(s, PUBLIC)["mediator"] == "none"
    assert ENGINE.view(ENGINE.setup(CFG, 1)[0], PUBLIC)["mediator"] == "server"


def test_commanders_maps_and_the_mediators_game_map_C_1_6() -> None:
    s = _planned(CFG)
    game_map = {u["id"] for u in ENGINE.view(s, MODERATOR)["units"]}
    assert game_map == set(s.units)
    for team in ("red", "blue"):
        commander = ENGINE.view(s, team_viewer(team))
        own = {u["id"] for u in commander["units"]}
        assert own == {u.id for u in s.alive_units(team)}
        others = {u["id"] for u in commander["enemy_units"]}
        assert own | others < game_map  # a commander's map never holds the whole game map


# -- C-2, C-3: map and forces ----------------------------------------------------------------------------------

def test_infrastructure_features_by_level_C_2_U1() -> None:
    maps = {lv: ENGINE.view(ENGINE.setup({**CFG, "level": lv}, 1)[0], PUBLIC)["map"] for lv in (1, 2)}
    one, two = maps[1], maps[2]
    assert "sea" in one["terrain"].values()  # coastline
    assert one["rivers"] and one["roads"] and one["states"]  # river, road, state border
    assert {p["kind"] for p in one["places"]} == {"capital", "city"}
    assert one["railways"] == [] and one["tracks"] == []
    assert {p["kind"] for p in two["places"]} == {"capital", "city", "fortress"}
    assert two["railways"] and two["tracks"]
    s, _ = ENGINE.setup({**CFG, "level": 2}, 1)
    assert s.map.is_bridge((48, 20)) and s.map.is_pass((43, 12))


def test_forces_are_preset_establishments_of_table_1_even_at_level_3_C_3_U1_C_T6() -> None:
    with pytest.raises(BadOrder) as err:
        ENGINE.setup({**CFG, "level": 3, "forces": "by_cost"}, 1)
    assert "C-T6" in str(err.value.rule) and "C-3.U1" in str(err.value.rule)
    s, _ = ENGINE.setup({**CFG, "level": 3}, 1)
    compositions = s.tables["compositions"]
    for u in s.units.values():
        assert [r[0] for r in u.regiments] == [r[0] for r in compositions[u.arm]]


def test_table_6_is_blank_as_printed_C_T6() -> None:
    t6 = ENGINE.setup(CFG, 1)[0].tables["mobilization_by_cost"]
    assert t6["columns"] == ["peacetime", "M", "M+5", "M+10", "M+15"]
    assert t6["rows"] == {side: [None] * 5 for side in ("red", "blue", "green")}


# -- C-4: movement ---------------------------------------------------------------------------------------------

T2 = [2, 6, 11, 16, 18, 18]
T2_VALUES = {(2, 6): 6.5, (3, 9): 9.5, (3, 10): 10.5, (3, 11): 11.5, (4, 12): 12.5, (4, 13): 13.5, (4, 14): 14.5,
             (4, 15): 15.5, (4, 16): 16.5, (5, 17): 17.5, (5, 18): 18.5, (6, 18): 19.5}
T3_VALUES = {(2, 2): 1.5, (2, 3): 2.25, (3, 3): 2.75, (3, 4): 3.5, (3, 5): 4.5, (4, 4): 4.25, (4, 6): 5.75,
             (4, 7): 6.75, (5, 5): 5.75, (5, 6): 6.5, (5, 7): 7.25, (6, 7): 7.75, (6, 8): 8.5, (6, 9): 9.5,
             (6, 10): 10.25, (7, 7): 8.5, (7, 8): 9.25, (7, 10): 10.75, (8, 9): 10.75, (8, 10): 11.5,
             (8, 11): 12.25, (9, 9): 11.25, (9, 11): 12.75, (10, 10): 12.75, (10, 11): 13.5, (11, 11): 14.25}
T3_EMPTY = {(1, 1), (4, 5), (5, 8), (5, 9), (6, 6), (7, 9), (8, 8), (9, 10)}


def test_range_table_2_as_printed_C_T2() -> None:
    t2 = ENGINE.setup(CFG, 1)[0].tables["range_tables"]["T2"]
    assert [len(row) for row in t2] == T2
    for r, row in enumerate(t2, 1):
        for c, value in enumerate(row, 1):
            expected = T2_VALUES.get((r, c), None if (r, c) in ((5, 15), (5, 16)) else "--")
            assert value == expected, (r, c)


def test_range_table_3_as_printed_and_symmetric_C_T3_C_4_U1() -> None:
    """C-T3 and C-4.U1: the 45-degree range table is stored as printed."""
    t3 = ENGINE.setup(CFG, 1)[0].tables["range_tables"]["T3"]
    assert len(t3) == 11 and all(len(row) == 11 for row in t3)
    for r in range(1, 12):
        for c in range(1, 12):
            a, b = sorted((r, c))
            expected = T3_VALUES.get((a, b), None if (a, b) in T3_EMPTY else "--")
            assert t3[r - 1][c - 1] == expected, (r, c)


@pytest.mark.parametrize("facing", ["E", "NE"])
def test_ranges_are_d_gen_2_distances_in_any_orientation_C_T2_C_4_U1_D_GEN_2(facing: str) -> None:
    """C-4.U1: T2/T3 have no headings, so the engine measures every range by D-GEN-2 — a 45° counter included."""
    s = start(2)
    ad = place(s, "red", "AD", (40, 18), facing=facing)
    place(s, "blue", "RD", (42, 20), facing="W", uid="b-near")
    place(s, "blue", "RD", (43, 20), facing="W", uid="b-far")
    assert round(distance_km((40, 18), (42, 20))) == 28 and round(distance_km((40, 18), (43, 20))) == 36
    with pytest.raises(IllegalOrder) as err:
        order(s, RED, type="strike", unit=ad, target=[43, 20])
    assert err.value.rule == "C-9.7a"
    s2, _ = order(s, RED, type="strike", unit=ad, target=[42, 20])
    assert s2.units["b-near"].rating < s.units["b-near"].rating


def test_division_stretches_along_its_line_through_a_bridge_at_level_2_only_C_4_7() -> None:
    for level, second in ((1, None), (2, (47, 20))):
        s = start(level)
        rd = place(s, "red", "RD", (46, 20), facing="E")
        s, _ = order(s, RED, type="move", unit=rd, path=[[47, 20], [48, 20]])
        assert s.units[rd].cell == (48, 20) and s.units[rd].second == second


def test_a_corps_crossing_a_bridge_stretches_into_one_card_of_its_divisions_plus_one_C_4_7() -> None:
    """C-4.7 [L2]: one division stretches 1×2; a corps of two 1×3, of three 1×4 — each division marching up closes
    the one ahead onto its square and takes the tail. A division of another corps is still blocked by the tail."""
    s = start(2)
    a, b, c = (place(s, "red", "RD", (x, 20), facing="E", uid=f"1C-{x}", corps="1C") for x in (46, 45, 44))
    other = place(s, "red", "RD", (46, 19), facing="E", uid="other", corps="2C")
    s = next_turn(s)
    assert "red:1C" in s.corps_cards
    s, _ = order(s, RED, type="move", unit=a, path=[[47, 20], [48, 20]])
    assert s.units[a].cells() == [(48, 20), (47, 20)]  # on the bridge: 1×2
    with pytest.raises(IllegalOrder):
        order(s, RED, type="move", unit=other, path=[[47, 20]])
    s, events = order(s, RED, type="move", unit=b, path=[[46, 20], [47, 20]])
    assert kinds(events).count("corps_column") == 1
    cards = sorted(cell for u in (a, b) for cell in s.units[u].cells())
    assert cards == [(46, 20), (47, 20), (48, 20)]  # two divisions: 1×3
    s, _ = order(s, RED, type="move", unit=c, path=[[45, 20], [46, 20]])
    cards = sorted(cell for u in (a, b, c) for cell in s.units[u].cells())
    assert cards == [(45, 20), (46, 20), (47, 20), (48, 20)]  # three: 1×4
    assert all(u.status == "ready" for u in s.units.values())  # nobody regroups: no counters overlap (C-4.12)


def test_corps_divisions_off_the_laid_card_become_independent_at_level_2_C_4_9() -> None:
    s = start(2)
    a = place(s, "red", "RD", (36, 18), facing="S", corps="1C")
    b = place(s, "red", "RD", (36, 19), facing="S", corps="1C")
    c = place(s, "red", "RD", (37, 19), facing="S", corps="1C")
    s = next_turn(s)
    assert "red:1C" in s.corps_cards  # side by side: the corps card is laid
    s, _ = order(s, RED, type="move", unit=a, path=[[35, 17], [34, 16]])
    s = next_turn(s)
    assert s.units[a].corps is None and s.units[b].corps == s.units[c].corps == "1C"
    lvl1 = start(1)
    x = place(lvl1, "red", "RD", (36, 18), facing="N", corps="1C")
    place(lvl1, "red", "RD", (36, 19), facing="N", corps="1C")
    lvl1 = next_turn(lvl1)
    lvl1, _ = order(lvl1, RED, type="move", unit=x, path=[[36, 17], [36, 16]])
    assert next_turn(lvl1).units[x].corps == "1C"  # C-4.9 is a level-2 rule


def test_a_corps_drawn_up_in_planning_over_a_wide_front_is_not_broken_C_4_9_C_5_3() -> None:
    s = start(2, clear=False)
    s = next_turn(next_turn(s))
    assert {s.units[u].corps for u in ("r1RD", "r2RD", "r3RD")} == {"1RC"}


# -- C-5, C-6: planning and deployment -------------------------------------------------------------------------

def test_planning_is_written_in_the_team_log_and_ends_with_the_counters_laid_out_C_5_1_C_5_5() -> None:
    """C-5.1 and C-5.5: planning is logged and ends with the counters laid out."""
    s, _ = ENGINE.setup(CFG, 1)
    s, events = order(s, RED, type="deploy", unit="r7RD", cell=[31, 21], facing="E")
    deployed = next(e for e in events if e.kind == "deployed")
    assert team_viewer("red") in deployed.audience and team_viewer("blue") not in deployed.audience
    mine = {u["id"]: u for u in ENGINE.view(s, team_viewer("red"))["units"]}
    assert mine["r7RD"]["cell"] == [31, 21] and mine["r7RD"]["facing"] == "E"
    s, _ = end(s, "red")
    s, _ = end(s, "blue")
    assert s.phase == "operations" and s.units["r7RD"].cell == (31, 21)
    with pytest.raises(IllegalOrder) as err:
        order(s, RED, type="deploy", unit="r7RD", cell=[31, 22])
    assert err.value.rule == "C-1.5"


def test_planning_time_is_30_minutes_with_clocks_C_5_2() -> None:
    s, _ = ENGINE.setup({**CFG, "level": 2}, 1)
    assert ENGINE.view(s, PUBLIC)["clock"] == {"per_turn": 1800, "accumulate": False, "rule": "C-5.2"}
    s, _ = end(s, "red")
    s, _ = end(s, "blue")
    assert ENGINE.view(s, PUBLIC)["clock"]["per_turn"] == 300


def test_the_plan_zones_regulations_groups_stays_with_its_team_C_5_4_C_5_7() -> None:
    s, _ = ENGINE.setup(CFG, 1)
    armies = sorted(s.armies["red"])
    s, _ = order(s, RED, type="army", name=armies[0], units=s.armies["red"][armies[0]], zone=[[35, 15], [43, 25]])
    s, _ = order(s, RED, type="regulation", name="offensive", text="three echelons 5 km apart")
    s, events = order(s, RED, type="army_group", name="West Front", armies=armies[:2])
    assert "army_group" in kinds(events)
    plan = ENGINE.view(s, team_viewer("red"))["regulations"]
    assert plan["groups"] == {"West Front": armies[:2]} and armies[0] in plan["zones"]
    assert "offensive" in str(plan)
    assert ENGINE.view(s, team_viewer("blue"))["regulations"] == {}
    assert ENGINE.view(s, MODERATOR)["regulations"]["red"] == plan
    with pytest.raises(IllegalOrder) as err:
        order(s, RED, type="army_group", name="East", armies=["no such army"])
    assert err.value.rule == "C-5.7"
    s, _ = order(s, RED, type="army_group", name="Reserve", armies=armies[:1])  # one group per army
    assert ENGINE.view(s, team_viewer("red"))["regulations"]["groups"] == {"West Front": armies[1:2],
                                                                           "Reserve": armies[:1]}


def test_army_groups_are_optional_C_5_7() -> None:
    s = _planned(CFG)
    assert s.phase == "operations" and "groups" not in s.regulations.get("red", {})


def test_deployment_without_a_mediator_tells_the_same_as_the_mediator_C_6_3_C_6_2() -> None:
    told = [ENGINE.view(_planned({**CFG, "mediator": m}), team_viewer("blue"))["deployment_report"]
            for m in ("server", "none")]
    assert told[0] == told[1] and told[0]["red"]["first_echelon"]


# -- C-9: recording moves --------------------------------------------------------------------------------------

def test_every_move_is_recorded_for_the_team_and_the_mediator_C_9_2() -> None:
    s = start(1)
    rd = place(s, "red", "RD", (32, 18))
    s, events = order(s, RED, type="move", unit=rd, path=[[33, 18], [34, 18]])
    moved = next(e for e in events if e.kind == "moved")
    assert moved.data["unit"] == rd and moved.data["path"] == [[33, 18], [34, 18]]
    assert team_viewer("red") in moved.audience and team_viewer("blue") not in moved.audience


# -- Tables 7 to 10 ---------------------------------------------------------------------------------------------

T7 = {"rifle": (0.2, 0.1), "tank": (0.65, 0.3), "motor": (0.4, 0.2), "spgun": (0.9, 0.2), "sapper": (0.1, 0.0),
      "artillery": (0.1, 0.4), "artillery_motor": (0.1, 0.3), "artillery_heavy": (0.0, 0.8),
      "antitank": (0.2, 0.0), "cavalry": (0.15, 0.0)}
T8 = {"RD": (1.0, 0.4), "TD": (2.0, 0.3), "MD": (1.5, 0.3), "SPD": (3.0, 0.6), "AD": (0.4, 2.0), "ATD": (0.9, 0.0),
      "CavD": (0.5, 0.0)}


def test_regiment_ratings_table_7_blank_cells_zero_C_T7_D_C_8() -> None:
    s = start(2)
    regs = s.tables["regiments"]
    assert {k: (v["direct"], v["support"]) for k, v in regs.items() if k in T7} == T7
    rd = place(s, "red", "RD", (36, 18))
    assert [r[0] for r in s.units[rd].regiments] == ["rifle", "rifle", "rifle", "artillery"]
    # every regiment's value in its division is its T7 direct or support rating (C-9.6 [L2]), except where T8's
    # own arithmetic departs from T7 (SPD's motor regiment 0.3, CavD's unexplained 0.05: docs/campaign.md)
    departures = {("SPD", "motor", 0.3), ("CavD", "horse_battery", 0.05)}
    for arm, regiments in s.tables["compositions"].items():
        if arm.startswith("_"):
            continue
        for name, value in regiments:
            assert value in T7.get(name, ()) or (arm, name, value) in departures, (arm, name, value)
    # split regiments carry those values as their ratings (C-4.10)
    s, _ = order(s, RED, type="split", unit=rd)
    assert sorted(u.rating for u in s.alive_units("red") if u.parent == rd) == [0.2, 0.2, 0.2, 0.4]


def test_division_ratings_table_8_used_at_level_2_C_T8_D_C_8() -> None:
    s = start(2)
    for arm, (direct, support) in T8.items():
        uid = place(s, "red", arm, (31 + list(T8).index(arm), 12))
        unit = s.units[uid]
        assert unit.rating == pytest.approx(direct) == sum(v for _, v in s.tables["compositions"][arm])
        assert support_rating(s.scen, unit) == pytest.approx(support)
        unit.rating = direct / 2
        assert support_rating(s.scen, unit) == pytest.approx(support / 2)  # what is left of it supports


T9_1 = {"RD": [1.0, 0.9, 0.5, 0.4], "TD": [2.0, 1.65, 1.25, 0.9], "MD": [1.5, 1.3, 0.9, 0.7],
        "CavD": [0.5, 0.25, 0.15, 0.05]}
T9_2 = {"RD": [0.25, 0.2], "TD": [0.75, 0.4], "MD": [0.45, 0.3], "CavD": [0.25, 0.1]}
T10 = {"RD": [0.9, 0.8, 0.8, 0.6, 0.4], "TD": [1.8, 1.65, 1.3, 0.9, 0.6], "MD": [1.3, 1.1, 1.1, 0.7, 0.5]}


def test_formation_tables_as_printed_C_T9_1_C_T9_2_C_T10_D_C_8() -> None:
    """C-T9-1, C-T9-2 and C-T10 as printed, blanks filled per D-C-8."""
    f = start(2).tables["formation_ratings"]
    assert f["sectors"] == ["front", "flank45", "flank90", "rear"]
    assert f["line"]["enemy"] == T9_1  # RD/TD front = T8 direct (D-C-8)
    for arm, (f90, rear) in T9_2.items():
        assert f["line"]["front_line"][arm] == [*T9_1[arm][:2], f90, rear]
    for arm, (front, f45_90, rear, f90_star, rear_star) in T10.items():
        assert f["support"]["enemy"][arm] == [front, f45_90, f45_90, rear]
        assert f["support"]["front_line"][arm] == [front, f45_90, f90_star, rear_star]


@pytest.mark.parametrize(("formation", "orientation", "sector", "arm", "factor"), [
    ("line", "enemy", "flank90", "RD", 0.5),  # T9-1
    ("line", "enemy", "flank45", "TD", 1.65 / 2),
    ("line", "front_line", "rear", "TD", 0.4 / 2),  # T9-2
    ("support", "enemy", "front", "MD", 1.3 / 1.5),  # T10
    ("support", "front_line", "rear", "RD", 0.4),  # T10*
])
def test_engine_reads_the_formation_tables_at_level_2_C_T9_1_C_T9_2_C_T10(
        formation: str, orientation: str, sector: str, arm: str, factor: float) -> None:
    s = start(2)
    uid = place(s, "blue", arm, (44, 18), formation=formation, orientation=orientation)
    assert sector_factor(s.scen, 2, s.units[uid], sector) == pytest.approx(factor)


def test_attack_on_the_rear_of_a_support_formation_facing_the_front_line_C_T10_C_CRT_S1() -> None:
    s = start(2)
    rd = place(s, "red", "RD", (45, 18), facing="W")
    place(s, "blue", "RD", (44, 18), facing="W", formation="support", orientation="front_line")
    s, events = order(s, RED, type="attack", target=[44, 18], echelons=[[rd]])
    rnd = _battle(events)["rounds"][0]
    assert rnd["initial"] == {"attacker": 1.0, "defender": 1.0}  # C-CRT.S1: simple ratings first
    assert rnd["k2"] == pytest.approx(0.4)  # T10*: RD, flank 135 and rear, oriented to the front line


def test_initial_ratings_then_effective_ratings_C_CRT_S1_C_CRT_S2() -> None:
    s = start(1)
    td = place(s, "red", "TD", (43, 18), facing="E")
    place(s, "blue", "RD", (44, 18), facing="W")
    s.units[td].rating = 1.5  # a worn tank division
    s, events = order(s, RED, type="attack", target=[44, 18], echelons=[[td]])
    rnd = _battle(events)["rounds"][0]
    assert rnd["initial"] == {"attacker": 1.5, "defender": 1.0}
    assert rnd["k1"] == pytest.approx(1.5) and rnd["k2"] == pytest.approx(1.0)


# -- C-10.U1, C-COMP --------------------------------------------------------------------------------------------

def test_interpretation_is_the_mediators_or_the_players_unanimously_C_10_U1() -> None:
    s, _ = ENGINE.setup({**CFG, "house_rules": ["rivers freeze in winter"]}, 1)
    assert ENGINE.view(s, team_viewer("blue"))["house_rules"] == ["rivers freeze in winter"]  # agreed by all
    s = start(1)
    rd = place(s, "red", "RD", (36, 18))
    s2, _ = ENGINE.moderate(s, {"type": "adjust_rating", "unit": rd, "rating": 0.7})
    assert s2.units[rd].rating == pytest.approx(0.7)
    with pytest.raises(UnknownOrder):  # rulings are no player's order
        order(s, RED, type="adjust_rating", unit=rd, rating=0.1)
    assert s.units[rd].rating == pytest.approx(1.0)


def test_components_game_map_commanders_maps_counters_jokers_and_table_C_COMP() -> None:
    s, _ = ENGINE.setup(CFG, 1)
    assert {u.team for u in s.units.values()} == {"red", "blue", "green"}  # division counters of three colours
    assert {u.team for u in s.units.values() if u.corps} == {"red", "blue"}  # corps of Red and Blue
    game_map = ENGINE.view(s, MODERATOR)
    commanders = [ENGINE.view(s, team_viewer(t)) for t in ("red", "blue")]
    assert len(game_map["units"]) == len(s.units) and all("enemy_units" in v for v in commanders)
    assert s.tables["crt"]["rows"]["1.0"] == [0.15, 0.9]  # the main combat table
    s = start(1)
    first = place(s, "red", "RD", (43, 18), facing="E")
    second = place(s, "red", "RD", (42, 18), facing="E")
    place(s, "blue", "CavD", (44, 18), facing="W")
    s, events = order(s, RED, type="attack", target=[44, 18], echelons=[[first], [second]])  # a joker per echelon
    assert _battle(events)["rounds"][0]["attackers"] == [first]


# -- C-T1: headquarters -----------------------------------------------------------------------------------------

def test_headquarters_are_nominal_at_levels_1_and_2_C_T1() -> None:
    for level in (1, 2):
        s, _ = ENGINE.setup({**CFG, "level": level}, 1)
        assert not [u for u in s.units.values() if u.arm in ("AHQ", "CHQ")]
        assert {u.army for u in s.units.values() if u.team == "red"} >= {"1A", "2A", "3A"}  # armies as labels


def test_level_3_army_and_corps_hq_counters_of_table_1_troops_C_T1_C_9_6() -> None:
    s, _ = ENGINE.setup({**CFG, "level": 3}, 1)
    for team in ("red", "blue"):
        divisions = [u for u in s.units.values() if u.team == team and u.arm not in ("AHQ", "CHQ", "FORT")]
        hqs = {u.id: u for u in s.units.values() if u.team == team and u.arm in ("AHQ", "CHQ")}
        armies = {u.army for u in divisions if u.army}
        corps = {u.corps for u in divisions if u.corps}
        assert sorted(u.army for u in hqs.values() if u.arm == "AHQ") == sorted(armies)
        assert sorted(u.corps for u in hqs.values() if u.arm == "CHQ") == sorted(corps)
        assert all(uid not in ids for ids in s.armies[team].values() for uid in hqs)  # not an army's division
        for hq in hqs.values():
            assert s.controller(hq.cell) == team and len(s.units_at(hq.cell)) == 1
            if hq.arm == "AHQ":  # a heavy-calibre artillery battalion: support 0.8 counts in direct (C-9.6)
                assert [r[0] for r in hq.regiments] == ["artillery_heavy"] and hq.rating == pytest.approx(0.8)
            else:  # a rifle regiment 0.2 and an artillery regiment's support 0.4
                assert [r[0] for r in hq.regiments] == ["rifle", "artillery"] and hq.rating == pytest.approx(0.6)


def test_hq_counters_move_but_do_not_strike_and_are_no_divisions_C_T1_C_9_8_C_10_1() -> None:
    s = start(3)
    hq = place(s, "red", "CHQ", (42, 18), facing="E")
    place(s, "blue", "RD", (43, 18), facing="W")
    s2, _ = order(s, RED, type="attack", target=[43, 18], echelons=[[hq]])  # recorded at level 3 ...
    s2 = next_turn(s2)
    assert s2.units[hq].fought is False and not s2.war  # ... and dropped by the mediator: HQs do not strike
    s1 = start(1)  # at levels 1-2 the refusal: test_combat.py, C-9.8
    hq1 = place(s1, "red", "CHQ", (42, 18), facing="E")
    s1, _ = order(s1, RED, type="move", unit=hq1, path=[[41, 18], [40, 18], [39, 18]])  # at RD speed, 30 km
    assert s1.units[hq1].cell == (39, 18)
    planning, _ = ENGINE.setup({**CFG, "level": 3}, 1)
    with pytest.raises(IllegalOrder) as err:
        order(planning, RED, type="army", name="4A", units=["rHQ-1A", "r1RD", "r2RD", "r3RD"])
    assert err.value.rule == "C-5.6"
    # a side left with HQs only has lost its whole army (C-10.1)
    s = start(1)
    spd = place(s, "red", "SPD", (43, 18), facing="E")
    place(s, "blue", "RD", (44, 18), facing="W")
    place(s, "blue", "AHQ", (52, 22), facing="W")
    s, _ = order(s, RED, type="attack", target=[44, 18], echelons=[[spd]])
    s = next_turn(s)
    assert s.result is not None and s.result["end"] == "annihilation" and s.prisoners == {"red": 1}
