"""Issue 18 item 2: the Continental War AI (server/continental/ai.py) ends a war whose fronts have settled by
peace in the current position (C-10.2) and fights on where it is winning (C-10.1); it strikes only with units that
may (C-9.8) and can face the target (C-4.3bis). Each decision is from the view alone."""

from __future__ import annotations

from typing import Any

from server.continental.ai import PEACE_AFTER, PEACE_ANYWAY, PEACE_EVERY, command


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
             enemy_units=[unit("b1", "blue", 1, (5, 4))], map={"terrain": {}, "rivers": [[5, 5]]}, tables={})
    assert not orders(v, "attack")
    v["map"]["rivers"] = []
    assert orders(v, "attack")
