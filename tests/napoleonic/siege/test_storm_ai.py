"""Issue 18 item 3: the storm's AI commander (server/napoleonic/siege/commander.py) on both sides of a storm of
Dresden (helpers.py: map seed 7, breaches at x 20–23 and 46–49, wall rows 30–32), each side deciding from its own
view as the rooms ask it: the garrison mans the walls (N-SIEGE-10), the stormers go round the wall to the breaches
(D-N-15) rather than standing at its foot, get inside and carry the storm (N-SIEGE-7)."""

from __future__ import annotations

from typing import Any

from server.core.engine import Actor, Event, team_viewer
from server.core.errors import RuleError
from server.napoleonic.siege.commander import CommandedSiegeEngine
from server.napoleonic.siege.engine import StormState
from tests.napoleonic.siege.helpers import setup, u

ENGINE = CommandedSiegeEngine()


def storm() -> StormState:
    besieger = [u(f"b{i}", "infantry") for i in range(6)] + [u("bc", "heavy_cavalry"), u("ba", "foot_artillery")]
    garrison = [u("g0", "infantry"), u("g1", "infantry")]
    state, _ = ENGINE.setup(setup(besieger, garrison), 5)
    return state


ENTERED: set[str] = set()
"""The stormers seen inside the walls (a cell north of the wall's row 30) after any phase of the last `play`."""


def play(state: StormState, turns: int) -> tuple[StormState, list[Event]]:
    """Both sides' phases by the AI, as the rooms run it: the side's view, its commander, each order through the
    engine (a refused one dropped), then the end of the phase."""
    events: list[Event] = []
    ENTERED.clear()
    while not ENGINE.is_over(state) and state.battle.turn <= turns:
        ENTERED.update(u.id for u in state.battle.field_units("blue") if any(y < 30 for _, y in u.cells))
        side = state.battle.active_side or ""
        view = ENGINE.view(state, team_viewer(side))
        for order in ENGINE.commander(view, side, 1000 + state.battle.turn) or ():
            try:
                state, ev = ENGINE.apply(state, Actor(f"{side}-1", side), order)
                events += ev
            except RuleError:
                pass
        if not ENGINE.is_over(state):
            state, ev = ENGINE.end_turn(state, side, flagged=False)
            events += ev
    return state, events


def data(events: list[Event], kind: str) -> list[dict[str, Any]]:
    return [dict(e.data) for e in events if e.kind == kind]


def test_the_garrison_ai_mans_the_walls_N_SIEGE_10_N_SIEGE_11() -> None:
    _, events = play(storm(), 3)
    climbed = {c["unit"] for c in data(events, "climbed")}
    assert climbed & {"g0", "g1"}, "the garrison's infantry climbs onto the wall by its stairs"
    assert any(c["rule"] == "N-SIEGE-10" for c in data(events, "climbed"))
    assert any(g["manned"] for g in data(events, "fortress_gun")), "a manned section's guns fire (N-SIEGE-11)"


def test_the_storming_ai_goes_through_the_breaches_and_carries_the_storm_D_N_15_N_SIEGE_7() -> None:
    state, _ = play(storm(), 40)
    assert ENGINE.is_over(state)
    result = ENGINE.result(state)
    assert result is not None and result["winner"] == "blue", result
    assert result["turn"] < 40, "not held to the turn limit"
    assert ENTERED, "stormers got inside the walls"
