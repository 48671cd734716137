"""Army movement on the campaign map with movement points (D-GEN-2 grid; costs in the scenario's `movement` table),
the post-battle retreat (N-VICTORY-4) and distances for interception (N-START-2) and reinforcements (D-N-12).

Our decisions (docs/napoleonic.md, D-NAP-1): entering a cell costs its terrain's points, a road step costs the
road's, a river cell without a bridge costs extra, a diagonal step costs 1.5 times; unused points are kept until
the team's next turn begins (they are what a side has left to decline battle, N-START-3). A retreat after a
battle counts cells, not points (N-VICTORY-4).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any

from server.continental.grid import CELL_KM, Cell, distance_km, is_adjacent, neighbours, round_half_up, whole_cell
from server.core.errors import BadOrder, IllegalOrder

from .records import Army
from .state import NapoleonicState, cell_of


def cells_apart(a: Cell, b: Cell) -> int:
    """D-GEN-2: Euclidean distance between cell centres, rounded half up, in cells."""
    return int(round_half_up(distance_km(a, b) / CELL_KM))


def step_cost(state: NapoleonicState, a: Cell, b: Cell) -> float | None:
    """Points to step from `a` to the neighbouring `b`; None when `b` cannot be entered."""
    gm = state.map
    table = state.tables["movement"]
    if not gm.contains(b):
        return None
    base = table["terrain"].get(gm.terrain[b])
    if base is None:
        return None
    if gm.on_road(a, b):
        cost = float(table["road_step"])
    else:
        cost = float(base) + (float(table["river_extra"]) if b in gm.rivers and not gm.is_bridge(b) else 0.0)
    return cost * 1.5 if a[0] != b[0] and a[1] != b[1] else cost


def parse_path(raw: Any) -> list[Cell]:
    if not isinstance(raw, Sequence) or isinstance(raw, str) or not raw:
        raise BadOrder("a path is a non-empty list of cells [x, y]", details={"field": "path"})
    try:
        return [whole_cell(c) for c in raw]
    except ValueError:
        raise BadOrder("a cell is [x, y] or \"x-y\" of whole numbers (D-NAP-1)", details={"field": "path"}) from None


def path_cost(state: NapoleonicState, start: Cell, path: Sequence[Cell], rule: str) -> float:
    """The points a path costs; IllegalOrder naming `rule` when a step is not to a neighbour or not passable."""
    total, here = 0.0, start
    for cell in path:
        if not is_adjacent(here, cell):
            raise IllegalOrder(f"{cell} is not next to {here}", rule="D-GEN-2", details={"cell": list(cell)})
        cost = step_cost(state, here, cell)
        if cost is None:
            raise IllegalOrder(f"{cell} cannot be entered", rule=rule, details={"cell": list(cell)})
        total += cost
        here = cell
    return total


def retreat_path(state: NapoleonicState, army: Army, start: Cell, cells: int) -> list[Cell] | None:
    """N-VICTORY-4, D-NAP-3: the engine's choice of retreat for a beaten army — up to `cells` steps over passable
    land, never through or into a cell held by an enemy army, to the reachable cell nearest its base (ties: farther
    from the battle). None when there is no way out."""
    team = str(army.team)
    base = state.map.places.get(army.base or "")
    goal = base.cell if base is not None else start
    came: dict[Cell, Cell | None] = {start: None}
    steps = {start: 0}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        if steps[here] >= cells:
            continue
        for nxt in sorted(neighbours(here)):
            if nxt in came or step_cost(state, here, nxt) is None or state.enemies_at(nxt, team):
                continue
            came[nxt], steps[nxt] = here, steps[here] + 1
            queue.append(nxt)
    options = [c for c in came if c != start]
    if not options:
        return None
    end = min(options, key=lambda c: (distance_km(c, goal), -distance_km(c, start), c))
    path = [end]
    while (back := came[path[-1]]) is not None and back != start:
        path.append(back)
    return path[::-1]


def check_retreat(state: NapoleonicState, army: Army, path: Sequence[Cell], cells: int) -> None:
    """N-VICTORY-4: a retreat the beaten army's team chooses — 1 to `cells` steps to neighbouring passable cells
    (whatever its movement points), never through or into a cell an enemy army holds; it leaves the field."""
    team, here = str(army.team), cell_of(army.cell)
    if not 0 < len(path) <= cells:
        raise IllegalOrder(f"a beaten army retreats 1 to {cells} cells", rule="N-VICTORY-4",
                           details={"army": army.id, "cells": len(path)})
    for cell in path:
        if not is_adjacent(here, cell):
            raise IllegalOrder(f"{cell} is not next to {here}", rule="D-GEN-2", details={"cell": list(cell)})
        if step_cost(state, here, cell) is None:
            raise IllegalOrder(f"{cell} cannot be entered", rule="N-VICTORY-4", details={"cell": list(cell)})
        if state.enemies_at(cell, team):
            raise IllegalOrder("a retreat does not pass through the enemy", rule="N-VICTORY-4",
                               details={"cell": list(cell), "decision": "D-NAP-3"})
        here = cell


def withdrawal_path(state: NapoleonicState, army: Army) -> list[Cell] | None:
    """N-START-3 when the defender gives no path (D-NAP-3's choice): the cheapest path, within the points the army
    has left and never through or into an enemy army's cell, to the reachable cell nearest its base (ties: farther
    from the battle). None when it cannot step out."""
    team, start = str(army.team), cell_of(army.cell)
    budget = float(army.points) + 1e-9
    base = state.map.places.get(army.base or "")
    goal = base.cell if base is not None else start
    best: dict[Cell, tuple[float, list[Cell]]] = {start: (0.0, [])}
    frontier = [start]
    while frontier:
        here = min(frontier, key=lambda c: (best[c][0], c))
        frontier.remove(here)
        for nxt in sorted(neighbours(here)):
            step = step_cost(state, here, nxt)
            if step is None or state.enemies_at(nxt, team):
                continue
            cost = best[here][0] + step
            if cost <= budget and (nxt not in best or cost < best[nxt][0] - 1e-9):
                best[nxt] = (cost, [*best[here][1], nxt])
                frontier.append(nxt)
    options = [c for c in best if c != start]
    if not options:
        return None
    end = min(options, key=lambda c: (distance_km(c, goal), -distance_km(c, start), best[c][0], c))
    return best[end][1]


def can_step_out(state: NapoleonicState, army: Army) -> bool:
    """N-START-3: whether an army has points enough to withdraw at least one cell from where it stands."""
    here = cell_of(army.cell)
    for nxt in neighbours(here):
        cost = step_cost(state, here, nxt)
        if cost is not None and cost <= float(army.points) + 1e-9 and not state.enemies_at(nxt, str(army.team)):
            return True
    return False
