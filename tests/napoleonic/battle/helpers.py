"""Small builders for battle tests: a setup with units at given places on an open or drawn field."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def side(name: str, edge: str, units: list[dict[str, Any]], *, attacker: bool = False,
         reinforcements: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"name": name, "edge": edge, "attacker": attacker, "units": units,
            "reinforcements": reinforcements or []}


def config(red: list[dict[str, Any]], blue: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """Red attacks from the south edge, blue defends the north."""
    cfg: dict[str, Any] = {
        "sides": [side("red", "south", red, attacker=True, reinforcements=extra.pop("red_reinf", None)),
                  side("blue", "north", blue, reinforcements=extra.pop("blue_reinf", None))],
    }
    cfg.update(extra)
    return cfg


def unit(uid: str, kind: str, x: int | None = None, y: int | None = None, **kw: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"id": uid, "type": kind, **kw}
    if x is not None:
        spec["x"], spec["y"] = x, y
    return spec


from server.core.engine import Actor, Event  # noqa: E402
from server.napoleonic.battle.engine import BattleEngine  # noqa: E402
from server.napoleonic.battle.state import BattleState  # noqa: E402

ENGINE = BattleEngine()
RED, BLUE = Actor("p-red", "red"), Actor("p-blue", "blue")
ACTORS = {"red": RED, "blue": BLUE}


def battle(red: list[dict[str, Any]], blue: list[dict[str, Any]], seed: int = 1,
           **extra: Any) -> BattleState:
    """A battle with units placed freely (the scenario places them: no deployment zones)."""
    extra.setdefault("deployment_zones", False)
    state, _ = ENGINE.setup(config(red, blue, **extra), seed)
    return state


def order(state: BattleState, o: dict[str, Any], side: str | None = None) -> tuple[BattleState, list[Event]]:
    """Give an order in `side`'s phase, first ending the other side's phase if it is not `side`'s turn."""
    side = side or state.units[o["unit"]].side
    events: list[Event] = []
    while state.active_side != side:
        state, ev = ENGINE.end_turn(state, state.active_side or "", flagged=False)
        events += ev
    state, ev = ENGINE.apply(state, ACTORS[side], o)
    return state, events + list(ev)


def run_turn(state: BattleState) -> tuple[BattleState, list[Event]]:
    """End the phases left in this turn, so the turn resolves."""
    events: list[Event] = []
    turn = state.turn
    while state.turn == turn and not state.over:
        state, ev = ENGINE.end_turn(state, state.active_side or "", flagged=False)
        events += ev
    return state, events


def kinds(events: Sequence[Event], kind: str) -> list[dict[str, Any]]:
    return [dict(e.data) for e in events if e.kind == kind]


def ahead(state: BattleState, uid: str, n: int, direction: int | None = None) -> list[list[int]]:
    """A path of `n` steps straight ahead of the unit (or in `direction`, a facing number)."""
    from server.napoleonic.battle.footprint import DIRECTIONS

    u = state.units[uid]
    dx, dy = DIRECTIONS[u.facing if direction is None else direction]
    return [[u.x + dx * i, u.y + dy * i] for i in range(1, n + 1)]
