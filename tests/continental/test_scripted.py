"""Whole campaigns played through the engine by two scripted teams, one per level, to a peace or a victory, with
the final score checked against C-10.1/C-10.2 and the replay rebuilding the same end (D-GEN-1)."""

from __future__ import annotations

from typing import Any

from server.continental.grid import direction, neighbours, turn_angle
from server.continental.state import CampaignState
from server.core.engine import Actor
from server.core.errors import RuleError
from tests.continental.helpers import ENGINE

ACTORS = {"red": Actor("r", "red", 0), "blue": Actor("b", "blue", 0)}
TOWARDS = {"red": "E", "blue": "W"}


def _greedy_orders(state: CampaignState, team: str) -> list[dict[str, Any]]:
    """A plain general: strike every enemy in front; otherwise face the enemy's side and step towards it."""
    orders: list[dict[str, Any]] = []
    for u in sorted(state.alive_units(team), key=lambda u: u.id):
        if u.arm == "FORT" or not u.combat_capable:
            continue
        targets = sorted(c for c in neighbours(u.cell) for e in state.units_at(c)
                         if state.enemies(team, e.team) and not e.neutral)
        front = [c for c in targets if turn_angle(u.facing, direction(u.cell, c)) <= 45]
        if u.arm == "AD":
            near = [e.cell for e in state.alive_units() if state.enemies(team, e.team) and not e.neutral
                    and abs(e.cell[0] - u.cell[0]) <= 2 and abs(e.cell[1] - u.cell[1]) <= 2]
            if near:
                orders.append({"type": "strike", "unit": u.id, "target": list(sorted(near)[0])})
            continue
        if front and u.arm != "ATD":
            orders.append({"type": "attack", "target": list(front[0]), "echelons": [[u.id]]})
        elif targets and u.arm != "ATD":
            orders.append({"type": "turn", "unit": u.id, "facing": direction(u.cell, targets[0])})
        elif state.war or team == "red":
            step = (u.cell[0] + (1 if team == "red" else -1), u.cell[1])
            orders.append({"type": "move", "unit": u.id, "path": [list(step)]})
    return orders


def _play(level: int, seed: int, turns: int) -> tuple[CampaignState, list[tuple[str, str, Any]]]:
    cfg = {"scenario": "continental", "level": level,
           "teams": [{"colour": "red", "seats": 2}, {"colour": "blue", "seats": 1}]}
    state, _ = ENGINE.setup(cfg, seed)
    log: list[tuple[str, str, Any]] = []

    def do(kind: str, team: str, payload: Any = None) -> None:
        nonlocal state
        try:
            if kind == "end":
                state, _ = ENGINE.end_turn(state, team, flagged=False)
            else:
                state, _ = ENGINE.apply(state, ACTORS[team], payload)
        except RuleError:
            return
        log.append((kind, team, payload))

    do("order", "blue", {"type": "posture", "on_attack": "accept"})
    do("order", "red", {"type": "regulation", "name": "offensive", "text": "one echelon, strike in front"})
    for team in ("red", "blue"):
        do("end", team)
    while state.turn <= turns and not ENGINE.is_over(state):
        for team in sorted(ENGINE.active_teams(state), key=state.order.teams.index):
            for o in _greedy_orders(state, team):
                do("order", team, o)
            do("end", team)
    return state, log


def _replay(level: int, seed: int, log: list[tuple[str, str, Any]]) -> CampaignState:
    cfg = {"scenario": "continental", "level": level,
           "teams": [{"colour": "red", "seats": 2}, {"colour": "blue", "seats": 1}]}
    state, _ = ENGINE.setup(cfg, seed)
    for kind, team, payload in log:
        if kind == "end":
            state, _ = ENGINE.end_turn(state, team, flagged=False)
        else:
            state, _ = ENGINE.apply(state, ACTORS[team], payload)
    return state


def _divisions(state: CampaignState, team: str) -> int:
    """Divisions proper (C-T1): fortresses and the level-3 HQ counters are not divisions."""
    return len([u for u in state.alive_units(team) if u.arm not in ("FORT", "AHQ", "CHQ") and not u.is_regiment])


def _penalties(state: CampaignState, team: str) -> int:
    return sum(p["points"] for p in state.penalties if p["team"] == team)


def test_level_1_campaign_to_peace_in_the_current_position_C_10_2() -> None:
    state, log = _play(1, 11, turns=6)
    assert state.war and state.aggressor == "red"
    assert any(u.status in ("destroyed", "captured") for u in state.units.values())
    state, _ = ENGINE.apply(state, ACTORS["red"], {"type": "propose_peace", "to": "blue"})
    state, _ = ENGINE.apply(state, ACTORS["blue"], {"type": "answer_peace", "proposal": 1, "accept": True})
    assert ENGINE.is_over(state) and state.result["end"] == "peace"
    assert state.result["scores"] == {"red": -12, "blue": -2}  # golden: same seed and orders, same end
    cities = {t: sum(1 for p in state.map.places.values() if p.kind in ("city", "capital") and p.state != t
                     and state.controller(p.cell) == t) for t in ("red", "blue")}
    for team in ("red", "blue"):
        expected = 5 * cities[team] + 2 * _divisions(state, team) - _penalties(state, team)
        assert state.result["scores"][team] == expected
    replayed = _replay(1, 11, log)
    assert ENGINE.dump(replayed)["units"] == ENGINE.dump(state)["units"]


def test_level_2_campaign_to_victory_by_capitulation_C_10_1() -> None:
    state, log = _play(2, 5, turns=8)
    played = ENGINE.dump(state)
    assert state.war
    prisoners = state.prisoners.get("red", 0)
    state, _ = ENGINE.end_turn(state, "red", flagged=False) if "red" in ENGINE.active_teams(state) else (state, [])
    state, _ = ENGINE.apply(state, ACTORS["blue"], {"type": "capitulate"})
    result = state.result
    assert result["winner"] == "red" and result["end"] == "capitulation"
    assert result["scores"]["red"] == 100 + 5 * _divisions(state, "red") + 10 * prisoners - _penalties(state, "red")
    blue_captive = sum(1 for u in state.units.values() if u.team == "blue" and u.status == "captured"
                       and u.arm != "FORT")
    assert result["scores"]["blue"] == 4 * (_divisions(state, "blue") + blue_captive) - _penalties(state, "blue")
    assert ENGINE.dump(_replay(2, 5, log)) == played


def test_level_3_campaign_simultaneous_turns_to_a_compromise_peace_C_1_7_C_10_3() -> None:
    state, _log = _play(3, 9, turns=6)
    assert state.war and state.order.simultaneous
    fought = [u for u in state.units.values() if u.rating < u.full_rating]
    assert fought, "the armies met"
    border = [[[44, y], "red"] for y in range(16, 30)]
    state, _ = ENGINE.apply(state, ACTORS["blue"], {"type": "propose_peace", "to": "red", "kind": "compromise",
                                                    "border": border})
    state, _ = ENGINE.apply(state, ACTORS["red"], {"type": "answer_peace", "proposal": 1, "accept": True})
    assert state.result["end"] == "peace"
    assert all(state.controller((44, y)) == "red" for y in range(16, 30))
    for team in ("red", "blue"):
        cities = sum(1 for p in state.map.places.values() if p.kind in ("city", "capital") and p.state != team
                     and state.controller(p.cell) == team)
        assert state.result["scores"][team] == 5 * cities + 2 * _divisions(state, team) - _penalties(state, team)
