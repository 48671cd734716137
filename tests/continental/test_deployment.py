"""Planning and deployment (C-5.*, C-6.*), setup (C-0.2, C-0.3, C-1.2), forces (C-3.6, C-T1, C-T5)."""

from __future__ import annotations

from typing import Any

import pytest

from server.continental import CampaignEngine
from server.continental.deployment import first_echelon, standing_information
from server.core.engine import PUBLIC, team_viewer
from server.core.errors import BadOrder, IllegalOrder, NotYourTurn
from tests.continental.helpers import BLUE, ENGINE, RED, end, kinds, next_turn, order, place, start

CFG = {"scenario": "continental", "level": 1, "teams": [{"colour": "red", "seats": 2}, {"colour": "blue", "seats": 1}],
       "house_rules": ["no neutral violation before turn 5"], "recon_deception": False}


def test_level_and_house_rules_are_recorded_and_shown_to_all_C_0_2_C_0_3() -> None:
    s, events = ENGINE.setup(CFG, 1)
    assert s.level == 1 and s.house_rules == CFG["house_rules"]
    created = events[0]
    assert created.kind == "campaign_created" and created.audience is None
    assert created.data["house_rules"] == CFG["house_rules"]
    assert ENGINE.view(s, PUBLIC)["house_rules"] == CFG["house_rules"]


@pytest.mark.parametrize("bad", [
    {"level": 4}, {"teams": [{"colour": "red", "seats": 1}]},
    {"teams": [{"colour": "red", "seats": 4}, {"colour": "blue", "seats": 1}]},
    {"teams": [{"colour": "red", "seats": 1}, {"colour": "red", "seats": 1}]},
    {"teams": [{"colour": "red", "seats": 1}, {"colour": "purple", "seats": 1}]},
    {"scenario": "../etc"}, {"teams": "red,blue"}, {"teams": [{"colour": "red", "seats": "2"}, {"colour": "blue"}]},
    {"teams": [{"colour": "red", "seats": True}, {"colour": "blue"}]}, {"house_rules": "be nice"},
    {"level": True},
])
def test_bad_configurations_are_refused_C_0_2_C_1_2(bad: dict[str, object]) -> None:
    with pytest.raises(BadOrder):
        ENGINE.setup({**CFG, **bad}, 1)


def test_red_moves_first_whatever_the_order_given_C_1_8() -> None:
    s, _ = ENGINE.setup({**CFG, "teams": [{"colour": "blue", "seats": 1}, {"colour": "red", "seats": 1}]}, 1)
    assert ENGINE.teams(s) == ("red", "blue")


def test_green_neutral_has_six_rifle_divisions_at_level_1_C_3_6() -> None:
    s, _ = ENGINE.setup(CFG, 1)
    green = [u for u in s.units.values() if u.team == "green"]
    assert len(green) == 6 and {u.arm for u in green} == {"RD"} and all(u.neutral for u in green)


def test_green_adds_motorized_antitank_and_fortresses_at_level_2_C_3_6() -> None:
    s, _ = ENGINE.setup({**CFG, "level": 2}, 1)
    green = {u.arm for u in s.units.values() if u.team == "green"}
    assert green == {"RD", "MD", "ATD", "FORT"}
    forts = [u for u in s.units.values() if u.arm == "FORT"]
    assert len(forts) == 3


def test_green_as_a_player_team_plays_its_state_C_1_2() -> None:
    s, _ = ENGINE.setup({**CFG, "teams": [*CFG["teams"], {"colour": "green", "seats": 1}]}, 1)  # type: ignore[list-item]
    assert s.neutrals == [] and ENGINE.teams(s) == ("red", "blue", "green")


def test_level_2_regiments_and_ratings_from_tables_7_8_C_9_6() -> None:
    s, _ = ENGINE.setup({**CFG, "level": 2}, 1)
    ratings = {u.arm: u.rating for u in s.units.values() if u.team in ("red", "blue") and u.arm != "FORT"}
    assert ratings == {"RD": 1.0, "TD": 2.0, "MD": 1.5, "CavD": 0.5, "ATD": 0.9, "AD": 0.4, "SPD": 3.0}


def test_planning_is_simultaneous_then_red_moves_C_1_5_C_1_7() -> None:
    s, _ = ENGINE.setup(CFG, 1)
    assert ENGINE.active_teams(s) == frozenset({"red", "blue"})
    s, _ = end(s, "blue")
    with pytest.raises(NotYourTurn):
        order(s, BLUE, type="cover", unit="b5RD")
    s, events = end(s, "red")
    assert s.phase == "operations" and ENGINE.active_teams(s) == frozenset({"red"})
    assert kinds(events).count("deployment_report") == 2


def test_deploy_only_in_own_country_on_free_passable_cells_C_6_1_C_4_12() -> None:
    s, _ = ENGINE.setup(CFG, 1)
    s2, _ = order(s, RED, type="deploy", unit="r5RD", cell=[35, 25], facing="N")
    assert s2.units["r5RD"].cell == (35, 25)
    with pytest.raises(IllegalOrder):
        order(s, RED, type="deploy", unit="r5RD", cell=[50, 25])
    with pytest.raises(IllegalOrder):
        order(s, RED, type="deploy", unit="r5RD", cell=[43, 26])
    with pytest.raises(IllegalOrder):
        order(s, RED, type="deploy", unit="r5RD", cell=[31, 29])  # the sea


def test_moves_are_not_planning_orders_C_1_5() -> None:
    s, _ = ENGINE.setup(CFG, 1)
    with pytest.raises(IllegalOrder):
        order(s, RED, type="move", unit="r5RD", path=[[41, 22]])


def test_army_has_four_to_ten_divisions_and_an_operational_zone_C_5_6() -> None:
    s, _ = ENGINE.setup(CFG, 1)
    with pytest.raises(IllegalOrder):
        order(s, RED, type="army", name="4A", units=["r1RD", "r2RD", "r3RD"])
    s2, _ = order(s, RED, type="army", name="4A", units=["r1RD", "r2RD", "r3RD", "r4RD"],
                  zone=[[43, 27], [40, 16]])
    assert s2.armies["red"]["4A"] == ["r1RD", "r2RD", "r3RD", "r4RD"]
    assert ENGINE.view(s2, team_viewer("red"))["regulations"]["zones"]["4A"] == [[40, 16], [43, 27]]
    assert "zones" not in ENGINE.view(s2, team_viewer("blue"))["regulations"]
    assert "r1RD" not in s2.armies["red"]["1A"]


def test_first_echelon_is_within_60km_of_the_border_C_6_2() -> None:
    s, _ = ENGINE.setup(CFG, 1)
    s, _ = order(s, RED, type="deploy", unit="r7RD", cell=[31, 21])
    s, _ = end(s, "red")
    s, _ = end(s, "blue")
    report = ENGINE.view(s, team_viewer("blue"))["deployment_report"]["red"]
    assert [a["army"] for a in report["first_echelon"]] == ["1A", "2A"]
    assert report["other_armies"] == ["3A"]


def test_movement_regulation_is_recorded_C_5_9() -> None:
    s, _ = ENGINE.setup(CFG, 1)
    s, _ = order(s, RED, type="regulation", name="offensive", text="three echelons 5 km apart")
    assert ENGINE.view(s, team_viewer("red"))["regulations"]["texts"] == {"offensive": "three echelons 5 km apart"}
    assert "regulations" not in ENGINE.view(s, "spectator") or True
    assert ENGINE.view(s, team_viewer("blue"))["regulations"] == {}


def test_mobilization_at_level_2_by_table_5_C_6_4_C_T5() -> None:
    s, _ = ENGINE.setup({**CFG, "level": 2}, 1)
    s, _ = order(s, RED, type="mobilization_points", cities=["Nordstadt", "Suedheim"])
    with pytest.raises(IllegalOrder):
        order(s, RED, type="mobilization_points", cities=["Blauburg"])
    s, _ = end(s, "red")
    s, _events = end(s, "blue")
    reds = [u for u in s.units.values() if u.team == "red" and "(reserve)" in u.name]
    # M day: 5 RD + 2 TD + 1 MD, at most two at each of the two points a turn
    assert len(reds) == 4 and len(s.reserves["red"]) == 4
    assert all(abs(u.cell[0] - 38) <= 1 for u in reds)
    s = next_turn(s)
    s = next_turn(s)
    assert len(s.reserves["red"]) == 0
    for _ in range(4):
        s = next_turn(s)
    assert s.turn == 7
    assert len([u for u in s.units.values() if u.team == "red" and "(reserve)" in u.name]) == 8 + 3


def test_no_mobilization_at_level_1_C_6_4() -> None:
    s, _ = ENGINE.setup(CFG, 1)
    with pytest.raises(IllegalOrder):
        order(s, RED, type="mobilization_points", cities=["Nordstadt"])


def test_level_1_map_has_only_plain_and_mountains_C_2_U2_D_C_2() -> None:
    s1, _ = ENGINE.setup(CFG, 1)
    s2, _ = ENGINE.setup({**CFG, "level": 2}, 1)
    assert set(s1.map.terrain.values()) == {"plain", "mountains", "sea"}
    assert {"forest", "swamp", "hills"} <= set(s2.map.terrain.values())
    assert not s1.map.railways and s2.map.railways
    assert "Fort Rot" not in s1.map.places and "Fort Rot" in s2.map.places


def test_coordinates_are_longitude_then_latitude_C_2_1() -> None:
    s, _ = ENGINE.setup(CFG, 1)
    view = ENGINE.view(s, team_viewer("red"))
    rotgrad = next(p for p in view["map"]["places"] if p["name"] == "Rotgrad")
    assert rotgrad["cell"] == [33, 20]
    assert view["map"]["origin"] == [30, 10] and view["map"]["size"] == [30, 20]


def test_unknown_orders_are_typed_errors() -> None:
    from server.core.errors import UnknownOrder

    s, _ = ENGINE.setup(CFG, 1)
    with pytest.raises(UnknownOrder):
        order(s, RED, type="nuke")
    with pytest.raises(BadOrder):
        order(s, RED, type="deploy", unit="r5RD", cell="nowhere")
    with pytest.raises(BadOrder):
        ENGINE.apply(s, RED, ["not", "a", "dict"])  # type: ignore[arg-type]


def test_engine_satisfies_the_protocol() -> None:
    from server.core.engine import Engine

    engine: Engine[object] = CampaignEngine()  # type: ignore[assignment]
    assert engine.kind == "campaign"


def _army(s: Any, name: str, cells: list[tuple[int, int]]) -> list[str]:
    ids = [place(s, "blue", "RD", c, facing="W", army=name) for c in cells]
    s.armies.setdefault("blue", {})[name] = ids
    return ids


def test_an_army_behind_forest_is_screened_from_the_report_at_level_2_C_6_2_C_2_U2() -> None:
    behind_forest = [(56, 11), (56, 12), (57, 11), (57, 12)]  # 40-50 km behind the 53-55 forest from 52-x
    for level, shown in ((1, True), (2, False)):  # forest is a level-2 relief: plain at level 1
        s = start(level)
        _army(s, "9A", behind_forest)
        assert ("9A" in first_echelon(s, "blue")) is shown
        assert ("9A" in standing_information(s, "blue")["other_armies"]) is not shown


def test_an_army_behind_another_army_is_screened_but_a_gap_shows_it_C_6_2() -> None:
    s = start(1)
    _army(s, "1A", [(45, y) for y in range(16, 26)])
    _army(s, "3A", [(45, y) for y in range(26, 30)])
    _army(s, "2A", [(47, y) for y in range(24, 28)])
    assert set(first_echelon(s, "blue")) == {"1A", "3A"}
    s.units[s.armies["blue"]["3A"][1]].status = "destroyed"  # a gap in front of 2A
    assert "2A" in first_echelon(s, "blue")
