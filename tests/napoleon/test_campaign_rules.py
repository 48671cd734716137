"""What the first author left open (issue 6): campaign clocks while battles run (D-L-1, D-NAP-5), three or four
powers in one cell (N-START-1, D-N-13, D-NAP-6), fortresses built and ports in a siege (D-N-16, D-NAP-7, D-NAP-8)."""

from __future__ import annotations

from typing import Any

import pytest

from server.core.engine import Actor
from server.core.errors import IllegalOrder, NotYourTurn
from server.napoleon.engine import busy_teams
from server.napoleon.state import NapoleonicState

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
    assert busy_teams(state) == set() and E.active_teams(state) == {"green"}
    state, _ = E.end_turn(state, "green", flagged=False)
    assert E.active_teams(state) == {"red"} and state.armies["r2"]["points"] == 6
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
    assert E.active_teams(state) == {"red"} and state.turn == 1  # red's turn resumes where it stopped


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
    assert state.armies["g1"]["status"] == "ready"  # waits aside, not in this battle
    state, events = E.apply(state, BLUE, {"type": "answer", "battle": "1", "choice": "accept"})
    state, events = E.moderate(state, {"type": "battle_result", "battle": "1", "result": result("red", "blue")})
    assert kinds(events)[:2] == ["battle_ended", "contact"]  # red holds the cell: green's turn to answer
    nxt = event(events, "contact")
    assert nxt["attacker"] == "red" and nxt["defender"] == "green" and nxt["can_withdraw"] is False
    assert state.battles["2"]["armies"] == {"red": ["r1"], "green": ["g1"]}
    assert E.active_teams(state) >= {"green"}  # green decides under its clock (D-NAP-4)


def test_the_mover_may_name_the_power_it_attacks_D_NAP_6() -> None:
    with pytest.raises(IllegalOrder):
        E.apply(three_in_a_cell(), RED, {"type": "move", "army": "r1", "path": [[11, 17], [12, 17]],
                                         "attack": "black"})
    state, events = E.apply(three_in_a_cell(), RED, {"type": "move", "army": "r1", "path": [[11, 17], [12, 17]],
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
    assert "contact" not in kinds(events) and state.armies["r1"]["cell"] != [12, 17]
