"""Interception (N-START-2, D-N-13): an army that ends a move within 5 cells of an enemy army set to intercept may
be attacked there in that enemy's next turn."""

from __future__ import annotations

from .events import Ctx
from .movement import cells_apart
from .records import Army
from .state import READY, cell_of


def watch(ctx: Ctx, army: Army) -> None:
    """`army` has ended a move (or a retreat): every enemy army set to intercept within reach may attack it there
    in its team's next turn (`interception_possible`, to that team)."""
    s = ctx.state
    reach = int(s.tables["intercept_range"])
    for other in s.alive_armies():
        if other.team == army.team or not other.intercept or other.status != READY:
            continue
        dist = cells_apart(cell_of(other.cell), cell_of(army.cell))
        if dist <= reach:
            s.interceptions.append({"by": other.id, "target": army.id, "cell": list(army.cell),
                                    "turn": s.turn})
            ctx.team(other.team, "interception_possible", army=other.id, target=army.id,
                     cell=army.cell, distance=dist, rule="N-START-2, D-N-13")
