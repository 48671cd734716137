"""Shared set-up for campaign tests: a campaign past planning, counters placed where a test needs them."""

from __future__ import annotations

from typing import Any

from server.continental import CampaignEngine
from server.continental.state import CampaignState
from server.core.engine import Actor, Event

ENGINE = CampaignEngine()
RED = Actor("r1", "red", 0)
BLUE = Actor("b1", "blue", 0)


def start(level: int = 1, *, seed: int = 7, deception: bool = False, clear: bool = True,
          teams: list[str] | None = None) -> CampaignState:
    """A campaign at `level` in its first turn of operations (red to move). With `clear`, every counter is taken
    off the map so a test places only what it needs."""
    cfg = {"scenario": "continental", "level": level, "recon_deception": deception,
           "teams": [{"colour": c, "seats": 1} for c in (teams or ["red", "blue"])]}
    state, _ = ENGINE.setup(cfg, seed)
    if clear:
        state.units = {}
        state.armies = {}
    for team in ENGINE.active_teams(state):
        state, _ = ENGINE.end_turn(state, team, flagged=False)
    return state


def place(state: CampaignState, team: str, arm: str, cell: tuple[int, int], facing: str = "E",
          uid: str | None = None, **attrs: Any) -> str:
    from server.continental.forces import new_division

    uid = uid or f"{team[0]}-{arm}-{cell[0]}-{cell[1]}"
    spec = {"id": uid, "name": f"{uid}", "arm": arm, "cell": list(cell), "facing": facing}
    unit = new_division(state.scen, state.level, spec, team, neutral=team in state.neutrals)
    for k, v in attrs.items():
        setattr(unit, k, v)
    state.units[uid] = unit
    return uid


def order(state: CampaignState, actor: Actor, **o: Any) -> tuple[CampaignState, list[Event]]:
    new, events = ENGINE.apply(state, actor, o)
    return new, list(events)


def end(state: CampaignState, team: str) -> tuple[CampaignState, list[Event]]:
    new, events = ENGINE.end_turn(state, team, flagged=False)
    return new, list(events)


def next_turn(state: CampaignState) -> CampaignState:
    """End the turn of every team still to act (in turn order) until the turn number grows."""
    turn = state.turn
    while state.turn == turn and not ENGINE.is_over(state):
        team = sorted(ENGINE.active_teams(state), key=state.order.teams.index)[0]
        state, _ = end(state, team)
    return state


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]
