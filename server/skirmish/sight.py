"""Line of sight and cover (D-S-7), and what each side sees of the other (the views' fog).

Sight runs between cell centres (table.crossed). Houses block it; woods block it beyond their first cell (a
figure in a wood's edge cell is seen, one deeper is not: no wood cell may lie between); vehicles block it; figures
do not. A target in bushes or a wood, or behind (or in) a hedge, has soft cover; in a house or behind a wall hard
cover. Sight is symmetric: a figure that sees another is seen by it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache

from .rules import SYMBOLS, terrain_kinds
from .state import AMBUSH, ON_TABLE, Figure, SkirmishState
from .table import Cell, crossed, touching


def vehicle_cells(s: SkirmishState) -> dict[Cell, str]:
    return {c: f.id for f in s.figures.values() if f.vehicle and f.on_table for c in f.cells()}


def line_clear(s: SkirmishState, a: Cell, b: Cell, vehicles: Mapping[Cell, str], own: Iterable[str] = ()) -> bool:
    """No house, wood or vehicle (other than `own`, the two ends' vehicles) between the centres of a and b."""
    if terrain_blocked(s.table.cells, s.table.width, a, b):
        return False
    if vehicles:
        mine = set(own)
        for c in crossed(a, b):
            v = vehicles.get(c)
            if v is not None and v not in mine:
                return False
    return True


@lru_cache(maxsize=400_000)
def terrain_blocked(cells: str, width: int, a: Cell, b: Cell) -> bool:
    """A house or a wood cell lies between a and b (memoised: the terrain is fixed once the game is on)."""
    return any(cells[y * width + x] in _BLOCKING for x, y in crossed(a, b))


_BLOCKING = frozenset({SYMBOLS["house"], SYMBOLS["wood"]})


def sight_line(s: SkirmishState, f: Figure, g: Figure, vehicles: Mapping[Cell, str] | None = None
               ) -> tuple[Cell, Cell] | None:
    """The first clear line from a cell of `f` to a cell of `g` (nearest pairs first), or None."""
    if vehicles is None:
        vehicles = vehicle_cells(s)
    if not f.vehicle and not g.vehicle:
        return (f.cell, g.cell) if line_clear(s, f.cell, g.cell, vehicles, (f.id, g.id)) else None
    pairs = sorted(((a, b) for a in f.cells() for b in g.cells()),
                   key=lambda p: ((p[0][0] - p[1][0]) ** 2 + (p[0][1] - p[1][1]) ** 2, p))
    for a, b in pairs:
        if line_clear(s, a, b, vehicles, (f.id, g.id)):
            return a, b
    return None


def sees(s: SkirmishState, f: Figure, g: Figure, vehicles: Mapping[Cell, str] | None = None) -> bool:
    return sight_line(s, f, g, vehicles) is not None


def cover(s: SkirmishState, shooter: Figure, target: Figure, vehicles: Mapping[Cell, str] | None = None) -> int:
    """D-S-7: +1 soft, +2 hard to the number needed, for the target's own cell or a wall/hedge it is behind on
    the line from the shooter. Vehicles take no cover."""
    if target.vehicle:
        return 0
    kinds = terrain_kinds(s.settings)
    best = kinds[s.table.kind(target.cell)].cover
    line = sight_line(s, shooter, target, vehicles)
    if line is not None:
        for c in crossed(*line):
            k = kinds[s.table.kind(c)]
            if k.obstacle and touching(c, target.cell):
                best = max(best, k.cover)
    return best


def eyes(s: SkirmishState, team: str) -> list[Figure]:
    """The figures a side sees with: its figures on the table, in action or down."""
    return [f for f in s.figures.values() if f.side == team and f.status in ON_TABLE]


def seen_by(s: SkirmishState, team: str) -> set[str]:
    """The enemy figures `team` sees now. Nothing before both sides have deployed (D-S-3); never a held-back
    ambush (D-S-13); with fog "table" every enemy figure on the table, with "sight" those in a line of sight
    of one of its own figures (D-S-7)."""
    if not s.revealed:
        return set()
    enemies = [f for f in s.figures.values() if f.side != team and f.status in ON_TABLE]
    if s.settings.fog == "table":
        return {f.id for f in enemies}
    own = eyes(s, team)
    vehicles = vehicle_cells(s)
    return {g.id for g in enemies if any(sees(s, f, g, vehicles) for f in own)}


def is_seen(s: SkirmishState, team: str, g: Figure) -> bool:
    """`team` sees the enemy figure `g` now (as `seen_by`, for one figure)."""
    if not s.revealed or not g.on_table:
        return False
    if s.settings.fog == "table":
        return True
    vehicles = vehicle_cells(s)
    return any(sees(s, f, g, vehicles) for f in eyes(s, team))


def hidden_from(s: SkirmishState, team: str) -> set[str]:
    """The enemy figures `team` may not know of: held back in ambush (D-S-13), and all of them before the
    deployments are revealed (D-S-3)."""
    return {f.id for f in s.figures.values() if f.side != team and (f.status == AMBUSH or not s.revealed)}
