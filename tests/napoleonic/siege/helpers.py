"""Builders for storm tests: a storm of Dresden (map seed 7) with units at given places, and turn drivers.

Map seed 7: breaches at x 20–23 and 46–49; wall rows 30–32 (parapet 32); ditch rows 33–34; forts at x 6–15 and
56–65 (rows 33–38, own ditch to row 40); fortress guns: fortress-gun-4 on wall_centre at x 30–33, fortress-gun-5 at
x 40–43 (rows 30–31); parallels rows 46–47 and 54–55.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from server.core.engine import Actor, Event
from server.napoleonic.siege.engine import SiegeEngine, StormState

ENGINE = SiegeEngine()
Order = Mapping[str, Any] | Callable[[StormState], Mapping[str, Any]]


def u(uid: str, kind: str, x: int | None = None, y: int | None = None, **kw: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"id": uid, "type": kind, **kw}
    if x is not None:
        spec["x"], spec["y"] = x, y
    return spec


def setup(besieger: Sequence[Mapping[str, Any]], garrison: Sequence[Mapping[str, Any]], *,
          howitzers: Sequence[str] = (), seed: int = 5, **extra: Any) -> dict[str, Any]:
    return {"fortress": "Dresden", "map_seed": 7,
            "besieger": {"name": "blue", "general": "Davout", "units": list(besieger), "howitzers": list(howitzers)},
            "garrison": {"name": "red", "general": "Kleist", "units": list(garrison)}, **extra}


def storm(besieger: Sequence[Mapping[str, Any]], garrison: Sequence[Mapping[str, Any]], *,
          howitzers: Sequence[str] = (), seed: int = 5, **extra: Any) -> tuple[StormState, list[Event]]:
    s, ev = ENGINE.setup(setup(besieger, garrison, howitzers=howitzers, **extra), seed)
    return s, list(ev)


def actor(side: str) -> Actor:
    return Actor(player=f"{side}-player", team=side)


def act(state: StormState, side: str, order: Mapping[str, Any]) -> tuple[StormState, list[Event]]:
    s, ev = ENGINE.apply(state, actor(side), order)
    return s, list(ev)


def play_turn(state: StormState, orders: Mapping[str, Sequence[Order]] | None = None) -> tuple[StormState,
                                                                                              list[Event]]:
    """Both order phases of the current turn (each side's orders in its phase, whichever acts first), then the
    resolution."""
    orders = orders or {}
    events: list[Event] = []
    turn = state.battle.turn
    while state.battle.turn == turn and not state.battle.over:
        side = state.battle.active_side or ""
        for o in orders.get(side, ()):
            s2, ev = act(state, side, o(state) if callable(o) else o)
            state = s2
            events += ev
        if state.battle.over:
            break
        state, ev2 = ENGINE.end_turn(state, side, flagged=False)
        events += ev2
    return state, events


def kinds(events: Sequence[Event], kind: str) -> list[dict[str, Any]]:
    return [dict(e.data) for e in events if e.kind == kind]


def north(state: StormState, uid: str, n: int) -> dict[str, Any]:
    """A move of `n` cells north (towards the fortress)."""
    unit = state.battle.units[uid]
    return {"type": "move", "unit": uid, "path": [[unit.x, unit.y - i] for i in range(1, n + 1)]}


def south(state: StormState, uid: str, n: int) -> dict[str, Any]:
    unit = state.battle.units[uid]
    return {"type": "move", "unit": uid, "path": [[unit.x, unit.y + i] for i in range(1, n + 1)]}
