"""Issue 18 item 2: the Continental War AI (server/continental/ai.py) ends a war whose fronts have settled by
peace in the current position (C-10.2) and fights on where it is winning (C-10.1); it strikes only with units that
may (C-9.8) and can face the target (C-4.3bis), and it plans its turn against its own earlier orders — cells taken,
time used, facings (C-4.12, C-4.3, C-4.3bis, C-9.8) — so none of them is refused. Each decision is from the view
alone."""

from __future__ import annotations

from typing import Any

import pytest

from server.continental.ai import PEACE_AFTER, PEACE_ANYWAY, PEACE_EVERY, command
from server.core.engine import Actor, team_viewer
from server.core.errors import RuleError
from tests.continental.helpers import ENGINE, start

TABLES = ENGINE.view(start(2), team_viewer("red"))["tables"]
"""The movement tables every team's view carries (speeds, crossings, turning times, who strikes)."""


def unit(uid: str, team: str, rating: float, cell: tuple[int, int], arm: str = "RD", facing: str = "N") -> dict:
    return {"id": uid, "team": team, "rating": rating, "cell": list(cell), "arm": arm, "facing": facing}


def view(turn: int, red: float, blue: float, **kw: Any) -> dict[str, Any]:
    return {"active": ["red"], "turn": turn, "war": True, "phase": "planning", "level": 2,
            "units": [unit("r1", "red", red, (5, 5))], "enemy_units": [unit("b1", "blue", blue, (9, 9))],
            "proposals": [], "peace_pairs": [], **kw}


def orders(v: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [o for o in command(v, "red", 1) if o["type"] == kind]


def offer(number: int, turn: int, status: str = "open") -> dict[str, Any]:
    return {"number": number, "from": "blue", "to": "red", "kind": "current", "turn": turn, "status": status}


def test_no_peace_offer_early_in_the_war_C_10_2() -> None:
    assert not orders(view(PEACE_AFTER - 1, 10, 10), "propose_peace")


def test_an_even_war_is_ended_by_peace_in_the_current_position_C_10_2() -> None:
    assert orders(view(PEACE_AFTER, 10, 10), "propose_peace") == [
        {"type": "propose_peace", "to": "blue", "kind": "current"}]
    answer = orders(view(PEACE_AFTER, 10, 10, proposals=[offer(1, PEACE_AFTER)]), "answer_peace")
    assert answer == [{"type": "answer_peace", "proposal": 1, "accept": True}]


def test_one_offer_every_few_turns_C_10_4() -> None:
    recent = [offer(1, PEACE_AFTER, "rejected")]
    recent[0] |= {"from": "red", "to": "blue"}
    assert not orders(view(PEACE_AFTER + PEACE_EVERY - 1, 10, 10, proposals=recent), "propose_peace")
    assert orders(view(PEACE_AFTER + PEACE_EVERY, 10, 10, proposals=recent), "propose_peace")


def test_the_winning_side_fights_on_for_the_decisive_end_C_10_1() -> None:
    assert not orders(view(PEACE_AFTER, 30, 10), "propose_peace")
    late = [offer(1, PEACE_AFTER)]
    assert orders(view(PEACE_AFTER, 30, 10, proposals=late), "answer_peace")[0]["accept"] is False
    assert orders(view(PEACE_ANYWAY, 30, 10, proposals=late), "answer_peace")[0]["accept"] is True


def test_guns_and_forts_do_not_strike_C_9_8() -> None:
    v = view(1, 10, 1, phase="operations", units=[unit("a", "red", 5, (5, 5), arm="AD"),
                                                  unit("f", "red", 5, (5, 6), arm="FORT")],
             enemy_units=[unit("b1", "blue", 1, (5, 4))], map={"terrain": {}, "rivers": []},
             tables={"no_regular_strike": ["AD", "ATD", "FORT"]})
    assert not orders(v, "attack")


def test_a_unit_on_a_river_that_cannot_face_the_target_does_not_strike_C_4_3bis() -> None:
    v = view(1, 10, 1, phase="operations", units=[unit("r", "red", 5, (5, 5), facing="N")],
             enemy_units=[unit("b1", "blue", 1, (5, 4))], map={"terrain": {}, "rivers": [[5, 5]]}, tables=TABLES)
    assert not orders(v, "attack")
    v["map"]["rivers"] = []
    assert orders(v, "attack")


def operations(units: list[dict[str, Any]], enemies: list[dict[str, Any]], level: int = 2,
               **map_: Any) -> dict[str, Any]:
    return view(5, 1, 1, phase="operations", level=level, war=False, units=units, enemy_units=enemies,
                map={"terrain": {}, "rivers": [], "roads": [], "tracks": [], **map_}, tables=TABLES)


def test_a_move_does_not_end_where_its_own_stretched_counter_stands_C_4_12() -> None:
    """r1 spent its turn entering a defile and is stretched back over 4-6 (C-4.7): r2, marching south, takes
    another cell."""
    r1 = unit("r1", "red", 1, (4, 5)) | {"second": [4, 6], "used": 1.0}
    r2 = unit("r2", "red", 1, (5, 7))
    moves = orders(operations([r1, r2], [unit("b1", "blue", 1, (5, 0))]), "move")
    assert [o["unit"] for o in moves] == ["r2"]
    assert moves[0]["path"][0] not in ([4, 5], [4, 6])


def test_a_move_needs_the_time_its_counter_has_left_C_4_3() -> None:
    """Half the turn used, a step into the mountains (10 km at 10 km a turn) does not fit; into the plain it does."""
    r1 = unit("r1", "red", 1, (5, 5)) | {"used": 0.5}
    mountains = {f"{x}-4": "mountains" for x in (4, 5, 6)}
    assert not orders(operations([r1], [unit("b1", "blue", 1, (5, 0))], terrain=mountains), "move")
    assert orders(operations([r1], [unit("b1", "blue", 1, (5, 0))]), "move")


def test_a_strike_after_a_turn_needs_time_left_for_it_C_4_3bis_C_9_8() -> None:
    """Level 1: facing east, a quarter turn north (half the turn) leaves time to strike; facing south, the turn
    about takes the whole turn — it turns now and strikes the next."""
    b1 = unit("b1", "blue", 1, (5, 6))
    east = command(operations([unit("r1", "red", 5, (5, 5), facing="E")], [b1], level=1), "red", 1)
    assert [o["type"] for o in east] == ["turn", "attack"] and east[0]["facing"] == "N"
    south = command(operations([unit("r1", "red", 5, (5, 5), facing="S")], [b1], level=1), "red", 1)
    assert south == [{"type": "turn", "unit": "r1", "facing": "N"}]


def test_a_diagonal_strike_at_level_1_within_45_degrees_of_the_front_C_9_8() -> None:
    v = operations([unit("r1", "red", 5, (5, 5), facing="N")], [unit("b1", "blue", 1, (6, 6))], level=1)
    assert [o["type"] for o in command(v, "red", 1)] == ["attack"]


def test_no_turn_in_a_pass_and_no_strike_by_headquarters_C_4_3bis_C_9_8() -> None:
    pass_ = operations([unit("r1", "red", 5, (5, 5), facing="S")], [unit("b1", "blue", 1, (5, 6))],
                       terrain={"5-5": "mountains"}, roads=[[5, 5], [5, 4]])
    assert not command(pass_, "red", 1)
    hq = operations([unit("h", "red", 5, (5, 5), arm="AHQ")], [unit("b1", "blue", 1, (5, 6))])
    assert not orders(hq, "attack")


@pytest.mark.parametrize("level", [1, 2, 3])
def test_a_war_played_by_the_ai_on_both_sides_has_no_refused_order(level: int) -> None:
    """Issue 18 (bench.ai's Continental war): every order the AI gives over a war is carried out — none is
    refused for a cell, the time or a facing its own earlier orders took (C-4.12, C-4.3, C-4.3bis, C-9.8) — and the
    war is fought (attacks ordered) and ends (C-10.1, C-10.2)."""
    cfg = {"scenario": "continental", "level": level,
           "teams": [{"colour": "red", "seats": 1}, {"colour": "blue", "seats": 1}]}
    state, _ = ENGINE.setup(cfg, 1)
    refused: list[tuple[dict[str, Any], str]] = []
    attacks = steps = 0
    while not ENGINE.is_over(state) and state.turn <= 40 and steps < 2000:
        steps += 1
        for team in sorted(ENGINE.active_teams(state)):
            for o in command(ENGINE.view(state, team_viewer(team)), team, steps):
                if ENGINE.is_over(state):
                    break
                try:
                    state, _ = ENGINE.apply(state, Actor(f"{team}-1", team, 1), o)
                except RuleError as err:
                    refused.append((o, f"{err.rule}: {err.message}"))
                attacks += o["type"] == "attack"
            if not ENGINE.is_over(state):
                state, _ = ENGINE.end_turn(state, team, flagged=False)
    assert refused == []
    assert attacks >= 10
    assert ENGINE.is_over(state)
