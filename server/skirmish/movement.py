"""Movement (D-S-6, D-GEN-2): paths, their cost, contact, and the cheapest path to a cell.

Costs are counted in half points so that D-GEN-2's diagonal step (1.5) stays an integer: an orthogonal step into
open ground or a road costs 2, a diagonal one 3, times the ground's multiplier (bushes, woods, houses 2; a wall or
hedge 2 to cross; tanks: bushes and woods 2, never a house). Infantry has 4 points (8 half points), a tank 8; a
tank turns in place for 2 points a quarter turn. No figure enters a cell an enemy holds; moving next to an enemy
in action ends the move (contact). Figures pass through their own side's infantry but do not end on it; nothing
passes through a vehicle, and a vehicle through nothing.

A path is checked against the ground first (the player's intent: a step too far or into a house is refused); then
it is walked against the table as it is, where an enemy the side did not see may stop it early.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from server.core.engine import team_viewer
from server.core.errors import BadOrder, IllegalOrder

from .log import Log
from .orders import Step
from .rules import FACINGS, terrain_table
from .state import IN_ACTION, Figure, SkirmishState, footprint
from .table import NEIGHBOURS, TOWARDS, Cell, edge_distance, footprints_touch

Pose = tuple[int, int, str]


def allowance(s: SkirmishState, f: Figure, *, half: bool = False) -> int:
    """A figure's move in half points (D-S-6; D-S-5 a half move)."""
    vt = f.vtype
    points = 2 * (vt.move if vt else s.settings.infantry_move)
    return points // 2 if half else points


def _quarters(a: str, b: str) -> int:
    d = abs(FACINGS.index(a) - FACINGS.index(b))
    return min(d, 4 - d)


def step_cost(s: SkirmishState, f: Figure, a: Pose, b: Pose) -> int | None:
    """Half points for one step (a turn in place, or a move to a neighbouring cell); None where it may not go."""
    table = s.table
    if f.vehicle is None:
        x, y = b[0], b[1]
        if a[0] == x and a[1] == y:
            return None
        if not (0 <= x < table.width and 0 <= y < table.height):
            return None
        m = _multipliers(s)[0][table.cells[y * table.width + x]]
        if m is None:
            return None
        return (3 if a[0] != x and a[1] != y else 2) * m
    new = footprint(f.vehicle, *b)
    if a[:2] == b[:2]:
        base = 2 * s.settings.tank_turn_cost * _quarters(a[2], b[2])
    else:
        base = 3 if a[0] != b[0] and a[1] != b[1] else 2
    entered = set(new) - set(footprint(f.vehicle, *a))
    tank = _multipliers(s)[1]
    mult = 1
    for x, y in entered:
        if not (0 <= x < table.width and 0 <= y < table.height):
            return None
        m = tank[table.cells[y * table.width + x]]
        if m is None:
            return None
        mult = max(mult, m)
    return base if a[:2] == b[:2] else base * mult


def _multipliers(s: SkirmishState) -> tuple[Mapping[str, int | None], Mapping[str, int | None]]:
    """The movement multiplier of each terrain symbol, for infantry and for vehicles (D-S-6)."""
    st = s.settings
    return _multipliers_for(st.soft_cover, st.hard_cover, st.rough_cost, st.obstacle_cost, st.tank_rough_cost)


@lru_cache(maxsize=64)
def _multipliers_for(soft: int, hard: int, rough: int, obstacle: int, tank: int
                     ) -> tuple[Mapping[str, int | None], Mapping[str, int | None]]:
    kinds = terrain_table(soft, hard, rough, obstacle, tank)
    return ({k.symbol: k.infantry_cost for k in kinds.values()}, {k.symbol: k.tank_cost for k in kinds.values()})


def _next(pose: Pose, step: Step) -> Pose:
    if isinstance(step, str):
        return pose[0], pose[1], step
    return step[0], step[1], pose[2]


def check_path(s: SkirmishState, f: Figure, steps: Sequence[Step], budget: int) -> int:
    """The ground check (D-S-6, D-GEN-2): every step a neighbour (or a vehicle's turn), onto ground the figure
    may enter, within `budget` half points. Returns the cost."""
    pose: Pose = (f.x, f.y, f.facing)
    spent = 0
    for step in steps:
        nxt = _next(pose, step)
        if isinstance(step, str):
            if not f.vehicle:
                raise BadOrder("only a vehicle turns in place", rule="D-S-6", details={"figure": f.id})
        elif max(abs(nxt[0] - pose[0]), abs(nxt[1] - pose[1])) != 1:
            raise BadOrder("each step of a path is a neighbouring cell", rule="D-GEN-2",
                           details={"figure": f.id, "cell": list(step)})
        cost = step_cost(s, f, pose, nxt)
        if cost is None:
            cell = footprint(f.vehicle, *nxt)[0]
            where = s.table.kind(cell) if s.table.on_table(cell) else "off the table"
            raise IllegalOrder(f"{f.id} cannot go there ({where})", rule="D-S-6",
                               details={"figure": f.id, "cell": [nxt[0], nxt[1]]})
        spent += cost
        if spent > budget:
            raise IllegalOrder(f"the path costs more than {f.id}'s {budget / 2:g} points", rule="D-S-6",
                               details={"figure": f.id, "points": budget / 2})
        pose = nxt
    return spent


def in_contact(s: SkirmishState, f: Figure, cells: Iterable[Cell]) -> bool:
    """D-S-6: next to an enemy figure in action (or an enemy vehicle)."""
    mine = list(cells)
    return any(g.side != f.side and g.status == IN_ACTION and footprints_touch(mine, g.cells())
               for g in s.figures.values())


@dataclass(frozen=True, slots=True)
class Walked:
    path: tuple[Pose, ...]
    spent: int
    stopped: str | None


def walk(s: SkirmishState, f: Figure, steps: Sequence[Step], budget: int) -> Walked:
    """Walk a ground-checked path against the table: an enemy in the way or contact ends it (D-S-6)."""
    spent = check_path(s, f, steps, budget)
    occ = {c: g for g in s.figures.values() if g.on_table and g.id != f.id for c in g.cells()}
    pose: Pose = (f.x, f.y, f.facing)
    trail: list[Pose] = [pose]
    stopped: str | None = None
    cost = 0
    for step in steps:
        nxt = _next(pose, step)
        cells = footprint(f.vehicle, *nxt)
        blockers = [occ[c] for c in cells if c in occ]
        if any(g.side != f.side for g in blockers):
            stopped = "enemy"
            break
        if blockers and (f.vehicle or any(g.vehicle for g in blockers)):
            raise IllegalOrder("nothing passes through a vehicle, nor a vehicle through figures", rule="D-S-6",
                               details={"figure": f.id, "cell": [nxt[0], nxt[1]]})
        cost += step_cost(s, f, pose, nxt) or 0
        pose = nxt
        trail.append(pose)
        if in_contact(s, f, cells):
            stopped = "contact"
            break
    while len(trail) > 1 and any(c in occ for c in footprint(f.vehicle, *trail[-1])):
        if stopped is None:
            raise IllegalOrder(f"{f.id} may not end its move on another figure", rule="D-S-1",
                               details={"figure": f.id, "cell": [trail[-1][0], trail[-1][1]]})
        trail.pop()
    if stopped is not None:
        cost = sum(step_cost(s, f, a, b) or 0 for a, b in pairwise(trail))
    return Walked(tuple(trail), cost if stopped else spent, stopped)


def apply_walk(s: SkirmishState, log: Log, f: Figure, w: Walked, rule: str = "D-S-6") -> None:
    """Put the figure at the end of its walk; a move event for those who may see it before or after."""
    start = f.cell
    seen_before = {t for t in s.sides if t != f.side and log.knows(t, [f.id])}
    end = w.path[-1]
    f.x, f.y, f.facing = end
    if w.stopped == "contact":
        f.contact = True
    seen_after = {t for t in s.sides if t != f.side and log.knows(t, [f.id])}
    data = {"figure": f.id, "side": f.side, "path": [list(p[:2]) for p in w.path[1:]], "facing": f.facing,
            "from": list(start), "to": [f.x, f.y], "spent": w.spent / 2, "stopped": w.stopped, "rule": rule}
    log.emit("figure_moved", log.own(f.side), **data)
    for t in sorted(seen_before | seen_after):
        log.emit("enemy_moved", frozenset({team_viewer(t)}), figure=f.id, side=f.side,
                 **{"from": list(start) if t in seen_before else None},
                 to=[f.x, f.y] if t in seen_after else None, facing=f.facing if t in seen_after else None,
                 stopped=w.stopped, rule=rule)


def _neighbours(s: SkirmishState, f: Figure, pose: Pose) -> Iterable[Pose]:
    for dx, dy in NEIGHBOURS:
        yield pose[0] + dx, pose[1] + dy, pose[2]
    if f.vehicle:
        for facing in FACINGS:
            if facing != pose[2]:
                yield pose[0], pose[1], facing


def reach(s: SkirmishState, f: Figure, budget: int, known: set[str] | None = None
          ) -> dict[Pose, tuple[int, Pose | None]]:
    """Every pose `f` can end its move on within `budget` half points, planned on what its side knows (`known`:
    the enemy figures it sees; None: all of them). Values: the cost and the pose before it (`path_to` walks
    back through the tree, whose inner poses may be friendly figures' cells)."""
    tree = _tree(s, f, budget, known)
    occupied = {c for g in s.figures.values() if g.on_table and g.id != f.id
                and (g.side == f.side or known is None or g.id in known) for c in g.cells()}
    return {p: v for p, v in tree.items() if not set(footprint(f.vehicle, *p)) & occupied}


def _tree(s: SkirmishState, f: Figure, budget: int, known: set[str] | None
          ) -> dict[Pose, tuple[int, Pose | None]]:
    occ: dict[Cell, Figure] = {}
    for g in s.figures.values():
        if g.on_table and g.id != f.id and (g.side == f.side or known is None or g.id in known):
            for c in g.cells():
                occ[c] = g
    contact = {(x + dx, y + dy) for c, g in occ.items() if g.side != f.side and g.status == IN_ACTION
               for x, y in (c,) for dx in (-1, 0, 1) for dy in (-1, 0, 1)}
    start: Pose = (f.x, f.y, f.facing)
    best: dict[Pose, tuple[int, Pose | None]] = {start: (0, None)}
    heap: list[tuple[int, Pose]] = [(0, start)]
    while heap:
        cost, pose = heapq.heappop(heap)
        if best[pose][0] < cost:
            continue
        if pose != start and (contact.intersection(footprint(f.vehicle, *pose))):
            continue  # contact: the move ends here
        for nxt in _neighbours(s, f, pose):
            step = step_cost(s, f, pose, nxt)
            if step is None or cost + step > budget:
                continue
            cells = footprint(f.vehicle, *nxt)
            blockers = [occ[x] for x in cells if x in occ]
            if any(g.side != f.side or g.vehicle for g in blockers) or (blockers and f.vehicle):
                continue
            if nxt not in best or best[nxt][0] > cost + step:
                best[nxt] = (cost + step, pose)
                heapq.heappush(heap, (cost + step, nxt))
    return best


def path_to(tree: Mapping[Pose, tuple[int, Pose | None]], end: Pose) -> list[Step]:
    steps: list[Step] = []
    pose: Pose | None = end
    while pose is not None:
        prev = tree[pose][1]
        if prev is not None:
            steps.append(pose[2] if prev[:2] == pose[:2] else (pose[0], pose[1]))
        pose = prev
    return steps[::-1]


def plan(s: SkirmishState, f: Figure, to: Cell, budget: int, known: set[str] | None) -> list[Step]:
    """The cheapest path to `to` on what the side knows; IllegalOrder when it is out of reach (D-S-6)."""
    tree = _tree(s, f, budget, known)
    ends = sorted((v[0], p) for p, v in reach(s, f, budget, known).items() if p[:2] == to)
    if not ends:
        raise IllegalOrder(f"{f.id} cannot reach {list(to)} this move", rule="D-S-6",
                           details={"figure": f.id, "cell": list(to)})
    return path_to(tree, ends[0][1])


def fall_back_path(s: SkirmishState, f: Figure, edge: str, known: set[str] | None) -> list[Step]:
    """D-S-12: a full move towards the side's own edge: the reachable cell nearest that edge (then the cheapest,
    then the straightest)."""
    tree = _tree(s, f, allowance(s, f), known)
    dy = TOWARDS[edge][1]
    w, h = s.table.width, s.table.height

    def rank(p: Pose) -> tuple[int, int, int, Pose]:
        lateral = abs(p[0] - f.x) if dy else abs(p[1] - f.y)
        return edge_distance(p[:2], edge, w, h), tree[p][0], lateral, p

    target = min(reach(s, f, allowance(s, f), known), key=rank)
    return path_to(tree, target)
