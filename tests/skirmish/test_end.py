"""The end of the game and its points (D-S-15)."""

from __future__ import annotations

from typing import Any

from server.skirmish.state import DOWN, OUT, SkirmishState

from .helpers import ACTORS, ATT, DEF, ENGINE, Scripted, element, kinds, order, put, rifles, scenario, start


def _last_turn(at: dict[str, tuple[int, int]], **settings: Any) -> SkirmishState:
    terrain = [element("house", 18, 3, 3, 3, id="objective-house"), element("house", 30, 20, 2, 2)]
    scn = scenario([rifles("a", 2)], [rifles("d", 2), rifles("e", 1)], terrain=terrain,
                   objective="objective-house", settings={"turns": 1, "choose_hits": False, **settings})
    s = start(scn, orders={ATT: 1, DEF: 0}, first=ATT)
    for fid, spot in at.items():
        put(s, fid, *spot)
    for f in s.figures.values():
        f.ordered = True  # no random fire: this is about the end
    return s


def _finish(s: SkirmishState, dice: tuple[int, ...] = ()) -> tuple[SkirmishState, list[Any]]:
    s.dice = Scripted(dice)
    s2, ev = order(s, ATT, {"type": "pass"})
    assert isinstance(s2.dice, Scripted) and s2.dice.left == 0, "every scripted die is rolled"
    return s2, ev


def test_the_attacker_wins_holding_the_objective_with_no_defender_in_action_within_2_cells_D_S_15() -> None:
    s = _last_turn({"a.1": (19, 4), "a.2": (0, 29), "d.1": (25, 0), "d.2": (26, 0), "e.1": (39, 0)})
    s, ev = _finish(s)
    assert s.result == {"winner": ATT, "reason": "objective", "turn": 1, "points": {ATT: 0, DEF: 0}}
    assert kinds(ev, "game_over")[0]["winner"] == ATT and ENGINE.is_over(s) and not ENGINE.active_teams(s)


def test_a_defender_within_2_cells_of_the_objective_denies_it_D_S_15() -> None:
    s = _last_turn({"a.1": (19, 4), "a.2": (0, 29), "d.1": (22, 4), "d.2": (23, 4), "e.1": (39, 0)})
    s, _ = _finish(s)  # d.1 at (22, 4) is 2 cells from the house's east wall (20, 4)
    assert s.result is not None and (s.result["winner"], s.result["reason"]) == (DEF, "held")
    t = _last_turn({"a.1": (19, 4), "a.2": (0, 29), "d.1": (22, 4), "d.2": (23, 4), "e.1": (39, 0)})
    t.figures["d.1"].status = DOWN  # down is not in action — but it rises again in the survival test first
    t, _ = _finish(t, (2, 6))  # d.1 fails its test: out of action; d (1 of 2 lost) holds on a 6
    assert t.result is not None and t.result["winner"] == ATT and t.result["points"] == {ATT: 1, DEF: 0}


def test_the_attacker_wins_when_every_defender_unit_is_out_of_action_or_demoralised_D_S_15() -> None:
    s = _last_turn({"a.1": (10, 20), "a.2": (11, 20), "d.1": (25, 0), "d.2": (26, 0), "e.1": (39, 0)})
    s.units["d"].demoralised = True
    s.figures["e.1"].status = OUT
    s, _ev = _finish(s)  # d has lost nobody (no test); e's one figure is out
    assert s.result is not None and (s.result["winner"], s.result["reason"]) == (ATT, "defender beaten")


def test_otherwise_the_defender_wins_after_the_last_turn_D_S_15() -> None:
    s = _last_turn({"a.1": (10, 20), "a.2": (11, 20), "d.1": (25, 0), "d.2": (26, 0), "e.1": (39, 0)})
    s, _ = _finish(s)
    assert s.result is not None and (s.result["winner"], s.result["reason"]) == (DEF, "held")


def test_a_game_lasts_eight_turns_by_default_D_S_15() -> None:
    scn = scenario([rifles("a", 1)], [rifles("d", 1)])
    s = start(scn)
    put(s, "a.1", 0, 29)
    put(s, "d.1", 39, 0)  # out of range of each other
    turns = 0
    while not ENGINE.is_over(s):
        team = next(iter(ENGINE.active_teams(s)))
        s, ev = ENGINE.end_turn(s, team, flagged=False)
        turns += len(kinds(ev, "turn_started"))
    assert s.turn == 8 and turns == 7 and s.result is not None and s.result["turn"] == 8
    assert s.settings.turns == 8


def test_each_figure_out_of_action_is_a_point_for_the_other_side_D_S_15() -> None:
    s = _last_turn({"a.1": (10, 20), "a.2": (11, 20), "d.1": (25, 0), "d.2": (26, 0), "e.1": (39, 0)})
    for f in ("a.2", "d.1", "d.2"):
        s.figures[f].status = DOWN
    s, _ev = _finish(s, (1, 1, 1, 6))  # all three fail; then d (2 of 2 lost) is gone, a tests at half: 6
    assert s.result is not None and s.result["points"] == {ATT: 2, DEF: 1}
    assert ACTORS[DEF].team == DEF
