"""What the first author left open (issue 6): campaign clocks while battles run (D-L-1, D-NAP-5), three or four
powers in one cell (N-START-1, D-N-13, D-NAP-6), fortresses built and ports in a siege (D-N-16, D-NAP-7, D-NAP-8)."""

from __future__ import annotations

from typing import Any

import pytest

from server.core.engine import Actor
from server.core.errors import IllegalOrder, NotYourTurn
from server.napoleonic.campaign.engine import busy_teams
from server.napoleonic.campaign.state import NapoleonicState

from .helpers import BLUE, RED, E, army, event, kinds

GREEN = Actor("green-1", "green", 1)
BLACK = Actor("black-1", "black", 1)


def powers(**armies: list[dict[str, Any]]) -> NapoleonicState:
    state, _ = E.setup({"teams": [{"colour": c, "seats": 1} for c in armies], "armies": armies}, 1)
    return state


def result(winner: str, loser: str, units: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"winner": winner, "loser": loser, "reason": "retreat", "retreats": loser, "general_killed": False,
            "units": units or []}


def battle_red_blue(state: NapoleonicState) -> NapoleonicState:
    state, _ = E.apply(state, RED, {"type": "move", "army": "r1", "path": [[11, 17], [12, 17]]})
    state, _ = E.apply(state, BLUE, {"type": "answer", "battle": "1", "choice": "accept"})
    return state


# --- D-L-1, D-NAP-5: campaign clocks of the teams in battle ---------------------------------------------------

def test_teams_in_battle_are_not_active_their_turn_passes_the_others_play_D_L_1_D_NAP_5() -> None:
    state = powers(red=[army("r1", (10, 17)), army("r2", (10, 13))], blue=[army("b1", (12, 17))],
                   green=[army("g1", (12, 10))])
    state, _ = E.apply(state, RED, {"type": "move", "army": "r1", "path": [[11, 17], [12, 17]]})
    assert E.active_teams(state) == {"red", "blue"}  # contact: the defender decides, red's turn goes on
    state, events = E.apply(state, BLUE, {"type": "answer", "battle": "1", "choice": "accept"})
    assert busy_teams(state) == {"red", "blue"}
    # red's turn passes (it attacked last), blue's comes up while it fights and passes too: green plays
    passed = [e.data["team"] for e in events if e.kind == "turn_passed"]
    assert passed == ["red", "blue"] and state.order.active == {"green"}
    assert E.active_teams(state) == {"green"}
    with pytest.raises(NotYourTurn):  # red's free army waits for red's next turn
        E.apply(state, RED, {"type": "move", "army": "r2", "path": [[11, 13]]})
    state, _ = E.apply(state, GREEN, {"type": "move", "army": "g1", "path": [[12, 11]]})
    state, events = E.end_turn(state, "green", flagged=False)
    assert state.turn == 2 and [e.data["team"] for e in events if e.kind == "turn_passed"] == ["red", "blue"]
    assert state.order.active == {"green"}
    # the battle ends: the campaign turn goes on, red is to act again from its own next turn
    state, events = E.moderate(state, {"type": "battle_result", "battle": "1", "result": result("blue", "red")})
    assert busy_teams(state) == set() and E.active_teams(state) == {"green", "red"}  # red chooses its retreat
    state, _ = E.apply(state, RED, {"type": "retreat", "army": "r1", "path": [[11, 17]]})
    assert E.active_teams(state) == {"green"}
    state, _ = E.end_turn(state, "green", flagged=False)
    assert E.active_teams(state) == {"red"} and state.armies["r2"].points == 6
    state, _ = E.apply(state, RED, {"type": "move", "army": "r2", "path": [[11, 13]]})


def test_when_every_team_fights_the_turn_waits_with_every_clock_stopped_D_NAP_5() -> None:
    state = battle_red_blue(powers(red=[army("r1", (10, 17))], blue=[army("b1", (12, 17))]))
    assert E.active_teams(state) == set() and state.order.active == {"red"}
    with pytest.raises(NotYourTurn):
        E.end_turn(state, "red", flagged=False)
    with pytest.raises(NotYourTurn) as err:
        E.apply(state, RED, {"type": "posture", "army": "r1", "support": True})
    assert err.value.rule == "D-L-1"
    state, events = E.moderate(state, {"type": "battle_result", "battle": "1", "result": result("red", "blue")})
    assert "turn_passed" not in kinds(events)
    assert E.active_teams(state) == {"red", "blue"} and state.turn == 1  # red's turn resumes; blue owes a retreat
    state, _ = E.apply(state, BLUE, {"type": "retreat", "army": "b1", "path": [[13, 17]]})
    assert E.active_teams(state) == {"red"}


def test_a_reinforcing_team_is_in_battle_too_D_N_12_D_NAP_5() -> None:
    state = powers(red=[army("r1", (10, 17))], blue=[army("b1", (12, 17))],
                   green=[army("g1", (12, 10))], black=[army("k1", (14, 14))])
    state, _ = E.apply(state, RED, {"type": "move", "army": "r1", "path": [[11, 17], [12, 17]]})
    state, _ = E.apply(state, BLUE, {"type": "answer", "battle": "1", "choice": "accept"})
    assert busy_teams(state) == {"red", "blue"} and E.active_teams(state) == {"green"}
    state, _ = E.end_turn(state, "green", flagged=False)
    assert E.active_teams(state) == {"black"}


# --- N-START-1, D-N-13, D-NAP-6: several enemy powers in one cell ------------------------------------------------

def three_in_a_cell() -> NapoleonicState:
    """Blue and green armies share a cell (set up there: nobody entered it), red marches in."""
    return powers(red=[army("r1", (10, 17))], blue=[army("b1", (12, 17))], green=[army("g1", (12, 17), points=0)])


def test_the_mover_fights_the_powers_in_the_cell_one_at_a_time_next_in_turn_order_N_START_1_D_NAP_6() -> None:
    state, events = E.apply(three_in_a_cell(), RED, {"type": "move", "army": "r1", "path": [[11, 17], [12, 17]]})
    c = event(events, "contact")
    assert c["defender"] == "blue" and c["waiting"] == ["green"]
    assert state.armies["g1"].status == "ready"  # waits aside, not in this battle
    state, events = E.apply(state, BLUE, {"type": "answer", "battle": "1", "choice": "accept"})
    state, events = E.moderate(state, {"type": "battle_result", "battle": "1", "result": result("red", "blue")})
    assert kinds(events)[:2] == ["battle_ended", "contact"]  # red holds the cell: green's turn to answer
    nxt = event(events, "contact")
    assert nxt["attacker"] == "red" and nxt["defender"] == "green" and nxt["can_withdraw"] is False
    assert state.battles["2"].armies == {"red": ["r1"], "green": ["g1"]}
    assert E.active_teams(state) >= {"green"}  # green decides under its clock (D-NAP-4)


def test_the_mover_may_name_the_power_it_attacks_D_NAP_6() -> None:
    with pytest.raises(IllegalOrder):
        E.apply(three_in_a_cell(), RED, {"type": "move", "army": "r1", "path": [[11, 17], [12, 17]],
                                         "attack": "black"})
    _state, events = E.apply(three_in_a_cell(), RED, {"type": "move", "army": "r1", "path": [[11, 17], [12, 17]],
                                                      "attack": "green"})
    c = event(events, "contact")
    assert c["defender"] == "green" and c["waiting"] == ["blue"]


def test_a_declined_battle_brings_the_next_power_and_a_beaten_attacker_none_N_START_3_D_NAP_6() -> None:
    state, _ = E.apply(three_in_a_cell(), RED, {"type": "move", "army": "r1", "path": [[11, 17], [12, 17]]})
    state, events = E.apply(state, BLUE, {"type": "answer", "battle": "1", "choice": "withdraw",
                                          "paths": {"b1": [[13, 17]]}})
    assert event(events, "contact")["defender"] == "green"
    state, _ = E.apply(three_in_a_cell(), RED, {"type": "move", "army": "r1", "path": [[11, 17], [12, 17]]})
    state, _ = E.apply(state, BLUE, {"type": "answer", "battle": "1", "choice": "accept"})
    state, events = E.moderate(state, {"type": "battle_result", "battle": "1", "result": result("blue", "red")})
    assert "contact" not in kinds(events) and state.armies["r1"].status == "retreating"
    state, events = E.apply(state, RED, {"type": "retreat", "army": "r1", "path": [[11, 17]]})
    assert "contact" not in kinds(events) and state.armies["r1"].cell == [11, 17]


# --- D-N-16: fortresses built, ports in a siege (D-NAP-7, D-NAP-8) -----------------------------------------------

GUNS = (("infantry", 2), ("foot_artillery", 1))


def turns(state: NapoleonicState, n: int) -> tuple[NapoleonicState, list[Any]]:
    seen: list[Any] = []
    for _ in range(n):
        for team in state.order.teams:
            state, events = E.end_turn(state, team, flagged=False)
            seen += events
    return state, seen


def test_fortify_needs_a_city_artillery_and_no_fortress_yet_D_N_16_N_SIEGE_1() -> None:
    state = powers(red=[army("r1", (12, 15)), army("r2", (12, 14), units=GUNS), army("r3", (24, 18), units=GUNS)],
                   blue=[army("b1", (16, 17))])
    for aid, rule in (("r1", "D-N-16"), ("r2", "D-N-16"), ("r3", "N-SIEGE-1")):  # no guns; no city; Dresden
        with pytest.raises(IllegalOrder) as err:
            E.apply(state, RED, {"type": "fortify", "army": aid})
        assert err.value.rule == rule
    with pytest.raises(NotYourTurn):
        E.apply(state, BLUE, {"type": "fortify", "army": "b1"})


def test_ten_turns_in_a_city_with_artillery_make_it_a_fortress_that_is_besieged_D_N_16_N_SIEGE_2() -> None:
    state = powers(red=[army("r1", (12, 15), units=GUNS)], blue=[army("b1", (12, 12), units=GUNS, points=6)])
    state, events = E.apply(state, RED, {"type": "fortify", "army": "r1"})
    assert event(events, "fortifying_begun")["city"] == "Paris"
    assert next(e for e in events if e.kind == "fortifying_begun").audience is not None  # the builder's own news
    state, events = turns(state, 9)
    assert "fortress_built" not in kinds(events) and state.fortifications["Paris"]["done"] == 9
    state, events = turns(state, 1)
    built = event(events, "fortress_built")
    assert built["city"] == "Paris" and built["port"] is False and state.control["Paris"] == "red"
    assert E.view(state, "team:blue")["fortresses_built"] == ["Paris"]
    state, _ = E.end_turn(state, "red", flagged=False)
    state, events = E.apply(state, BLUE, {"type": "move", "army": "b1", "path": [[12, 13], [12, 14], [12, 15]]})
    assert "siege_laid" in kinds(events) and "contact" not in kinds(events)


def test_marching_off_abandons_the_work_D_N_16() -> None:
    state = powers(red=[army("r1", (12, 15), units=GUNS)], blue=[army("b1", (16, 17))])
    state, _ = E.apply(state, RED, {"type": "fortify", "army": "r1"})
    state, _ = turns(state, 3)
    state, events = E.apply(state, RED, {"type": "move", "army": "r1", "path": [[12, 14]]})
    assert event(events, "fortifying_abandoned")["done"] == 3 and state.fortifications == {}


def test_a_coastal_city_becomes_a_port_fortress_D_N_16() -> None:
    state = powers(red=[army("r1", (9, 11), units=GUNS)], blue=[army("b1", (16, 17))])
    state, _ = E.apply(state, RED, {"type": "fortify", "army": "r1"})
    state, events = turns(state, 10)
    assert event(events, "fortress_built") == {"city": "Bordeaux", "army": "r1", "port": True, "rule": "D-N-16",
                                               "team": "red"}


@pytest.mark.parametrize(("fortress", "cell", "approach"), [
    ("Dresden", (24, 18), [[26, 18], [25, 18], [24, 18]]),
    ("Hamburg", (20, 21), [[22, 21], [21, 21], [20, 21]]),
])
def test_a_besieger_cuts_a_fortress_off_but_not_a_port_D_N_16_D_NAP_8(
        fortress: str, cell: tuple[int, int], approach: list[list[int]]) -> None:
    start = (27, 18) if fortress == "Dresden" else (23, 21)
    state = powers(red=[army("r1", start, units=GUNS, points=9)],
                   blue=[army("b1", cell, units=GUNS)])
    state, events = E.apply(state, RED, {"type": "move", "army": "r1", "path": approach})
    assert "siege_laid" in kinds(events)
    before = [u["morale"] for u in state.armies["b1"].units]
    state, events = E.end_turn(state, "red", flagged=False)
    state, events = E.end_turn(state, "blue", flagged=False)
    after = [u["morale"] for u in state.armies["b1"].units]
    if fortress == "Hamburg":
        assert event(events, "garrison_resupplied")["by"] == "sea" and after == before
    else:
        cut = event(events, "garrison_cut_off")
        assert after == [before[0] - 1, before[1] - 1, before[2]]  # the guns have no morale (D-N-11)
        assert len(cut["units"]) == 2


def test_a_withdrawal_without_a_path_goes_toward_the_base_within_the_points_left_N_START_3() -> None:
    state = powers(red=[army("r1", (10, 17))], blue=[army("b1", (12, 17), points=2, base="Brussels")])
    state, _ = E.apply(state, RED, {"type": "move", "army": "r1", "path": [[11, 17], [12, 17]]})
    state, events = E.apply(state, BLUE, {"type": "answer", "battle": "1", "choice": "withdraw"})
    assert "battle_declined" in kinds(events)
    b1 = state.armies["b1"]
    assert b1.cell != [12, 17] and b1.points >= 0 and b1.status == "ready"
    moved = event(events, "army_moved")
    assert moved["path"][-1] == b1.cell and all(c != [11, 17] for c in moved["path"])
