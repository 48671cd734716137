"""Ends of the war and scores (C-10.1–C-10.5), penalties (C-9.3), moderator interventions (C-9.4)."""

from __future__ import annotations

import pytest

from server.core.engine import PUBLIC
from server.core.errors import BadOrder, IllegalOrder
from tests.continental.helpers import BLUE, ENGINE, RED, end, kinds, next_turn, order, place, start


def _war() -> object:
    s = start(1)
    a = place(s, "red", "RD", (43, 18), facing="E", uid="rA")
    place(s, "red", "RD", (33, 20), uid="rB")
    place(s, "blue", "RD", (56, 20), uid="bA")
    place(s, "blue", "TD", (52, 27), uid="bB")
    s, _ = order(s, RED, type="move", unit=a, path=[[44, 18]])  # red is the aggressor: −10
    return s


def test_capitulation_ends_the_game_with_victory_points_C_10_1() -> None:
    s = _war()
    s.prisoners["red"] = 2  # type: ignore[attr-defined]
    s, _ = end(s, "red")  # type: ignore[arg-type]
    s, events = order(s, BLUE, type="capitulate")
    assert ENGINE.is_over(s) and ENGINE.active_teams(s) == frozenset()
    result = s.result
    assert result["winner"] == "red" and result["end"] == "capitulation"
    # red: 100 + 5 × 2 divisions + 10 × 2 prisoners − 10 aggressor; blue: 4 × 2 surviving divisions
    assert result["scores"] == {"red": 120, "blue": 8}
    assert "campaign_over" in kinds(events)
    assert ENGINE.view(s, PUBLIC)["result"] == result
    with pytest.raises(IllegalOrder):
        order(s, RED, type="move", unit="rB", path=[[34, 20]])


def test_annihilation_ends_the_game_C_10_1() -> None:
    s = _war()
    for uid in ("bA", "bB"):
        s.units[uid].status = "captured"  # type: ignore[attr-defined]
    s = next_turn(s)  # type: ignore[arg-type]
    assert s.result is not None and s.result["winner"] == "red" and s.result["end"] == "annihilation"
    # loser: 4 a division alive or in captivity
    assert s.result["scores"]["blue"] == 8


def test_whole_territory_captured_ends_the_game_C_10_1() -> None:
    s = _war()
    for cell, owner in s.map.states.items():  # type: ignore[attr-defined]
        if owner == "blue":
            s.control[f"{cell[0]}-{cell[1]}"] = "red"  # type: ignore[attr-defined]
    s = next_turn(s)  # type: ignore[arg-type]
    assert s.result["end"] == "territory" and s.result["winner"] == "red"


def test_peace_in_the_current_position_C_10_2() -> None:
    s = _war()
    s.control["52-27"] = "red"  # type: ignore[attr-defined]  # red holds Blauhafen
    s, events = order(s, RED, type="propose_peace", to="blue", kind="current")  # type: ignore[arg-type]
    prop = next(e for e in events if e.kind == "peace_proposed")
    assert prop.audience is not None and "team:green" not in prop.audience
    s, _ = end(s, "red")
    s, _ = order(s, BLUE, type="answer_peace", proposal=1, accept=True)
    assert s.result["end"] == "peace"
    # red: 5 × 1 city + 2 × 2 divisions − 10; blue: 2 × 2
    assert s.result["scores"] == {"red": -1, "blue": 4}


def test_compromise_peace_moves_the_border_C_10_3() -> None:
    s = _war()
    s, _ = order(s, RED, type="propose_peace", to="blue", kind="compromise",  # type: ignore[arg-type]
                 border=[[[44, 18], "blue"], [[45, 19], "red"], [[52, 27], "red"]])
    s, _ = order(s, BLUE, type="answer_peace", proposal=1, accept=True)
    assert s.controller((44, 18)) == "blue" and s.controller((45, 19)) == "red"
    assert s.result["scores"]["red"] == 5 + 4 - 10


def test_peace_only_by_the_addressee_C_10_2() -> None:
    s = _war()
    s, _ = order(s, RED, type="propose_peace", to="blue")  # type: ignore[arg-type]
    with pytest.raises(IllegalOrder):
        order(s, RED, type="answer_peace", proposal=1, accept=True)


def test_refusing_peace_costs_50_points_per_30_turns_without_decisive_success_C_10_4() -> None:
    s = _war()
    s, _ = order(s, RED, type="propose_peace", to="blue")  # type: ignore[arg-type]
    s, events = order(s, BLUE, type="answer_peace", proposal=1, accept=False)
    assert "peace_rejected" in kinds(events)
    for _ in range(29):
        s = next_turn(s)
    assert not [p for p in s.penalties if p["rule"] == "C-10.4"]
    s = next_turn(s)
    assert [(p["team"], p["points"]) for p in s.penalties if p["rule"] == "C-10.4"] == [("blue", 50)]


def test_decisive_success_lifts_the_refusal_clock_C_10_4() -> None:
    s = _war()
    s, _ = order(s, RED, type="propose_peace", to="blue")  # type: ignore[arg-type]
    s, _ = order(s, BLUE, type="answer_peace", proposal=1, accept=False)
    for i in range(6):
        place(s, "blue", "SPD", (55, 10 + i), uid=f"bS{i}")  # a change of balance by ≥ 5 rating units
    s = next_turn(s)
    assert [e for e in s.penalties if e["rule"] == "C-10.4"] == []
    for _ in range(29):
        s = next_turn(s)
    assert s.turn == 31  # without the success, blue would have been penalised now
    assert not [p for p in s.penalties if p["rule"] == "C-10.4"]


def test_moderator_closes_roads_for_weather_and_may_be_limited_C_9_4() -> None:
    s = _war()
    s, events = ENGINE.moderate(s, {"type": "close_road", "cells": [[40, 20]], "turns": 2})  # type: ignore[arg-type]
    assert s.closures["40-20"]["movement"] == s.turn + 1
    s, _ = ENGINE.moderate(s, {"type": "limit_interventions", "on": True})
    with pytest.raises(IllegalOrder) as err:
        ENGINE.moderate(s, {"type": "inform", "team": "red", "text": "rain"})
    assert err.value.rule == "C-9.4"
    for _ in range(7):
        s = next_turn(s)
    s, events = ENGINE.moderate(s, {"type": "inform", "team": "red", "text": "rain"})
    msg = next(e for e in events if e.kind == "mediator_message")
    assert msg.audience == frozenset({"team:red"})


def test_moderator_records_the_penalty_of_an_incorrect_order_C_9_3() -> None:
    s = _war()
    s, _ = ENGINE.moderate(s, {"type": "penalty", "team": "blue", "points": 50,  # type: ignore[arg-type]
                               "rule": "C-9.3", "reason": "impossible order"})
    assert {"team": "blue", "points": 50} in [{k: p[k] for k in ("team", "points")} for p in s.penalties]


def test_road_closed_by_weather_loses_road_speed_C_9_4_C_4_3() -> None:
    s = start(1)
    uid = place(s, "red", "MD", (34, 20))
    s, _ = ENGINE.moderate(s, {"type": "close_road", "cells": [[36, 20]], "turns": 1})
    with pytest.raises(IllegalOrder):
        order(s, RED, type="move", unit=uid, path=[[x, 20] for x in range(35, 43)])


def test_a_refused_order_costs_nothing_unless_the_house_rules_switch_the_fine_on_C_9_3_D_C_6() -> None:
    """Revised D-C-6: with the server as mediator a refused order at levels 1–2 costs no points; C-9.3's 50-point
    fine (a rule for games without a mediator) is a house rule (C-0.3) a campaign may switch on, shown to all."""
    s = start(1)
    uid = place(s, "red", "RD", (32, 18))
    with pytest.raises(IllegalOrder) as err:
        order(s, RED, type="move", unit=uid, path=[[33, 18], [34, 18], [35, 18], [36, 18]])
    assert ENGINE.refused(s, "red", err.value) == (s, [])
    assert ENGINE.view(s, PUBLIC)["refused_order_fine"] is False
    fined, events = ENGINE.setup({"scenario": "continental", "level": 1, "penalise_refused_orders": True}, 7)
    assert next(e for e in events if e.kind == "campaign_created").data["refused_order_fine"] is True
    assert ENGINE.view(fined, PUBLIC)["refused_order_fine"] is True
    s.penalise_refused = True
    s2, _events = ENGINE.refused(s, "red", err.value)
    assert [(p["team"], p["points"], p["rule"]) for p in s2.penalties] == [("red", 50, "C-9.3")]
    with pytest.raises(BadOrder):
        ENGINE.setup({"scenario": "continental", "penalise_refused_orders": "yes"}, 7)


def test_clock_settings_follow_the_level_C_1_9_C_5_2() -> None:
    assert ENGINE.view(start(1), PUBLIC)["clock"] is None
    assert ENGINE.view(start(2), PUBLIC)["clock"]["per_turn"] == 300
    assert ENGINE.view(start(3), PUBLIC)["clock"]["per_turn"] == 600
    s, _ = ENGINE.setup({"scenario": "continental", "level": 2}, 1)
    assert ENGINE.view(s, PUBLIC)["clock"]["per_turn"] == 1800


def test_a_defeated_team_gives_no_more_orders_C_10_1() -> None:
    from server.core.errors import NotYourTurn

    s = _war()
    s, _ = end(s, "red")  # type: ignore[arg-type]
    s, _ = order(s, BLUE, type="capitulate")
    with pytest.raises((NotYourTurn, IllegalOrder)):
        order(s, BLUE, type="move", unit="bA", path=[[55, 20]])
