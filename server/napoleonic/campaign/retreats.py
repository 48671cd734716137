"""The beaten army's retreat (N-VICTORY-4, D-NAP-3): it may retreat up to seven cells whatever its movement points,
and its team chooses where — a pending decision under its clock. Until it does the army is `retreating`, frozen in
the battle's cell; when its team's turn ends or its clock flags without a choice, the engine's choice applies
(`movement.retreat_path`: toward its base). An army with no way out at all is captured.

Order: {"type": "retreat", "army": id, "path": [[x, y], ...]} — 1 to 7 steps to neighbouring passable cells, never
through or into a cell an enemy army holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from server.continental.grid import Cell
from server.core.errors import IllegalOrder

from . import fortify
from .events import Ctx
from .interception import watch
from .movement import check_retreat, retreat_path
from .records import Army, Retreat
from .state import CAPTURED, READY, RETREATING, NapoleonicState, cell_of


def begin(ctx: Ctx, army: Army, winner: str, *, battle: Any = None, siege: str | None = None,
          cells: int | None = None) -> bool:
    """The beaten `army` must leave its cell (N-VICTORY-4): it is `retreating` until its team chooses where (the
    event that ends the battle or the siege shows it so). With no cell to go to it is captured at once, its units
    the winner's prisoners (D-NAP-3): False then."""
    s = ctx.state
    reach = int(s.tables["retreat_cells"]) if cells is None else cells
    here = cell_of(army.cell)
    suggested = retreat_path(s, army, here, reach)
    if suggested is None:
        army.status = CAPTURED
        for unit in army.units:
            s.prisoners.setdefault(winner, []).append({**unit, "team": army.team, "army": army.id})
        army.units = []
        return False
    army.status = RETREATING
    army.retreat = Retreat(list(here), reach, None if battle is None else str(battle), siege, winner,
                           [list(c) for c in suggested])
    return True


def due(state: NapoleonicState, team: str | None = None) -> list[Army]:
    """The armies (of `team`) whose retreat is still to be chosen."""
    return [a for a in state.alive_armies(team) if a.status == RETREATING]


def _pending(army: Army) -> Retreat:
    """The retreat its team is choosing (an army `retreating` has one)."""
    if army.retreat is None:
        raise IllegalOrder(f"{army.id} has no retreat to make", rule="N-VICTORY-4", details={"army": army.id})
    return army.retreat


def order(ctx: Ctx, army: Army, raw_path: Sequence[Cell]) -> None:
    """N-VICTORY-4: the team's choice of retreat for one of its beaten armies."""
    if army.status != RETREATING:
        raise IllegalOrder(f"{army.id} has no retreat to make", rule="N-VICTORY-4", details={"army": army.id})
    check_retreat(ctx.state, army, raw_path, _pending(army).cells)
    _retreat(ctx, army, list(raw_path), chosen=True)


def by_default(ctx: Ctx, army: Army) -> None:
    """The team did not choose in time: the engine's choice (D-NAP-3), found again from where things stand now."""
    s = ctx.state
    path = retreat_path(s, army, cell_of(army.cell), _pending(army).cells)
    if path is None:
        winner = _pending(army).winner
        army.status, army.retreat = CAPTURED, None
        for unit in army.units:
            s.prisoners.setdefault(winner, []).append({**unit, "team": army.team, "army": army.id})
        army.units = []
        ctx.public("retreat_cut_off", army=army.id, team=army.team, cell=army.cell, rule="N-VICTORY-4")
        return
    _retreat(ctx, army, path, chosen=False)


def _retreat(ctx: Ctx, army: Army, path: list[Cell], *, chosen: bool) -> None:
    s = ctx.state
    origin = _pending(army)
    army.cell, army.status, army.retreat = list(path[-1]), READY, None
    s.interceptions = [i for i in s.interceptions if i["target"] != army.id]
    ctx.public("retreat_made", army=army.id, team=army.team, cell=origin.start, chosen=chosen,
               rule="N-VICTORY-4" if chosen else "N-VICTORY-4, D-NAP-3")
    ctx.team(str(army.team), "army_retreated", army=army.id, path=[list(c) for c in path], cell=army.cell,
             chosen=chosen, rule="N-VICTORY-4")
    fortify.moved(ctx, army)
    watch(ctx, army)
