"""Ground distances for the battle AI: how far a cell is from a goal for a unit that must go round what its arm
cannot enter (rivers but at their crossings, dense forest for horse and guns, water, marsh, mountains:
N-TERRAIN-1/2/3) and pays the ground's cost on the way (D-GEN-2 steps, N-TERRAIN-2/3/5 speed caps).

A straight-line walk stalls on the near bank of a river whose crossing lies to the side; the AI's walker follows
this field down instead. The field is a Dijkstra from the goal over single cells (a footprint's other cells are
still checked by the walker against the state, D-N-4); it depends only on the map, the unit's step costs per
terrain code and the goal, so it is cached (the map is immutable and the same all battle).
"""

from __future__ import annotations

import heapq
import math
from functools import lru_cache

from .footprint import NEIGHBOURS, Cell, step_cost
from .terrain import TERRAIN, BattleMap

INF = math.inf


def factors_for(arm: str, factors: list[float]) -> tuple[float, ...]:
    """Step-cost multipliers per terrain code for a unit of `arm` (inf where the arm may not enter)."""
    return tuple(f if arm in TERRAIN[code].passable else INF for code, f in enumerate(factors))


def open_line(bmap: BattleMap, factors: tuple[float, ...], a: Cell, b: Cell, pad: int = 0) -> bool:
    """Whether every cell on the straight line from `a` to `b` (and `pad` cells either side of it) may be
    entered: then walking straight is as good as the field, and cheaper to plan."""
    w, cover = bmap.width, bmap.cover
    n = max(abs(b[0] - a[0]), abs(b[1] - a[1]), 1)
    for i in range(n + 1):
        cx = a[0] + (b[0] - a[0]) * i / n
        cy = a[1] + (b[1] - a[1]) * i / n
        for ox in range(-pad, pad + 1):
            for oy in range(-pad, pad + 1):
                x, y = int(cx + 0.5) + ox, int(cy + 0.5) + oy
                if bmap.on_map(x, y) and factors[cover[y * w + x]] > 1.0:
                    return False
    return True


@lru_cache(maxsize=64)
def _costs(bmap: BattleMap, factors: tuple[float, ...], clearance: int) -> tuple[float, ...]:
    """The multiplier of entering each cell; with `clearance` r, the dearest of the cells within r (Chebyshev) —
    a formation that wide pays for the worst ground under it (the engine charges a step by its footprint's
    slowest cell, N-TERRAIN-2/3), and cannot pass where any of them is closed to its arm (inf)."""
    w, h, cover = bmap.width, bmap.height, bmap.cover
    base = [factors[c] for c in cover]
    if clearance <= 0:
        return tuple(base)
    rows = []  # the dearest along each row's window first, then down the columns
    for y in range(h):
        line = base[y * w:(y + 1) * w]
        rows.append([max(line[max(0, x - clearance):x + clearance + 1]) for x in range(w)])
    out = [0.0] * (w * h)
    for x in range(w):
        col = [rows[y][x] for y in range(h)]
        for y in range(h):
            out[y * w + x] = max(col[max(0, y - clearance):y + clearance + 1])
    return tuple(out)


def clearance_of(width: int) -> int:
    """The clearance (paths.py) a formation `width` cells wide needs: a march column (2) none, an attack column
    (3, 4) one cell, a line (8) three."""
    return max(0, (width - 1) // 2)


@lru_cache(maxsize=256)
def ground_field(bmap: BattleMap, factors: tuple[float, ...], goal: Cell, clearance: int = 0) -> tuple[float, ...]:
    """Cost of the cheapest walk from each cell to `goal` (row-major); inf where there is none. A step costs its
    D-GEN-2 length times the multiplier of the cell it enters; with `clearance`, only cells that leave room for a
    formation that wide (`_costs`) are walked."""
    w, h = bmap.width, bmap.height
    costs = _costs(bmap, factors, clearance)
    dist = [INF] * (w * h)
    gx, gy = goal
    if not (0 <= gx < w and 0 <= gy < h):
        return tuple(dist)
    dist[gy * w + gx] = 0.0
    heap: list[tuple[float, int, int]] = [(0.0, gx, gy)]
    steps = [(dx, dy, step_cost(dx, dy)) for dx, dy in NEIGHBOURS]
    while heap:
        d, x, y = heapq.heappop(heap)
        if d > dist[y * w + x]:
            continue
        here = costs[y * w + x]  # walking backwards: the step from (nx, ny) enters (x, y)
        if here == INF:
            if (x, y) != goal:
                continue
            here = 1.0  # the goal itself (an enemy's centre) need not leave room
        for dx, dy, length in steps:
            nx, ny = x + dx, y + dy
            if 0 <= nx < w and 0 <= ny < h:
                i = ny * w + nx
                nd = d + length * here
                if nd < dist[i] and costs[i] != INF:
                    dist[i] = nd
                    heapq.heappush(heap, (nd, nx, ny))
    return tuple(dist)


def ground_distance(field: tuple[float, ...], bmap: BattleMap, point: tuple[float, float]) -> float:
    """The field's value at the cell holding `point` (inf off the map or where the goal cannot be reached)."""
    x, y = int(point[0] + 0.5), int(point[1] + 0.5)
    if not bmap.on_map(x, y):
        return INF
    return field[y * bmap.width + x]
