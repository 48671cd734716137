"""Grid geometry: facings, footprints, distances, sectors and sight lines (D-GEN-2, D-N-4, D-N-5, D-N-7).

Coordinates are (x, y) with x to the east and y to the south. Facing 0 is north, then clockwise in 45° steps.
A footprint is `anchor + i·lateral + j·back` for i < width, j < depth (D-N-4): the anchor is the left end of the
front rank, `lateral` points to the unit's right, `back` to its rear. For a diagonal facing the lattice has
holes; between every two diagonal neighbours of the footprint the cell more to the rear (then more to the right)
is occupied too — the staircase of a diagonal line and the hole in the middle of every 2×2 block.
"""

from __future__ import annotations

import math
from functools import cache, lru_cache

Cell = tuple[int, int]

DIRECTIONS: tuple[Cell, ...] = ((0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1))
"""Unit vectors of the eight facings, 0 = north, clockwise."""
FACING_NAMES = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
NEIGHBOURS = DIRECTIONS


def is_diagonal(facing: int) -> bool:
    return facing % 2 == 1


def step_cost(dx: int, dy: int) -> float:
    """D-GEN-2: an orthogonal step costs 1, a diagonal 1.5."""
    return 1.5 if dx and dy else 1.0


def distance(a: Cell, b: Cell) -> int:
    """D-GEN-2: Euclidean distance between cell centres, rounded half up."""
    return math.floor(math.hypot(a[0] - b[0], a[1] - b[1]) + 0.5)


@cache
def footprint_offsets(width: int, depth: int, facing: int) -> tuple[Cell, ...]:
    """Cells of a width×depth formation relative to its anchor (D-N-4). The front rank comes first, left to right."""
    fx, fy = DIRECTIONS[facing]
    lx, ly = DIRECTIONS[(facing + 2) % 8]
    bx, by = -fx, -fy
    lattice = [(i * lx + j * bx, i * ly + j * by) for j in range(depth) for i in range(width)]
    cells = list(lattice)
    if is_diagonal(facing):
        present = set(lattice)
        extra: set[Cell] = set()
        for (x, y) in lattice:
            for dx, dy in ((lx, ly), (bx, by)):
                if (x + dx, y + dy) not in present:
                    continue
                a, b = (x + dx, y), (x, y + dy)
                extra.add(min(a, b, key=lambda c: (c[0] * fx + c[1] * fy, -(c[0] * lx + c[1] * ly))))
        cells.extend(sorted(extra - present))
    return tuple(cells)


def footprint(anchor: Cell, width: int, depth: int, facing: int) -> tuple[Cell, ...]:
    ax, ay = anchor
    return tuple((ax + dx, ay + dy) for dx, dy in footprint_offsets(width, depth, facing))


def front_rank(anchor: Cell, width: int, facing: int) -> tuple[Cell, ...]:
    """N-INF-9: movement and distances are counted from the front rank (the lattice cells of rank 0)."""
    ax, ay = anchor
    lx, ly = DIRECTIONS[(facing + 2) % 8]
    return tuple((ax + i * lx, ay + i * ly) for i in range(width))


def pivot_cell(anchor: Cell, width: int, facing: int) -> Cell:
    """The cell wheels and formation changes turn about: the middle cell of the front rank (for an even frontage the
    one left of the middle). Turning there and back, or changing formation and back, returns the same anchor
    (our decision; the rules do not say where a turning formation stands)."""
    lx, ly = DIRECTIONS[(facing + 2) % 8]
    h = (width - 1) // 2
    return anchor[0] + h * lx, anchor[1] + h * ly


def anchor_for_pivot(pivot: Cell, width: int, facing: int) -> Cell:
    lx, ly = DIRECTIONS[(facing + 2) % 8]
    h = (width - 1) // 2
    return pivot[0] - h * lx, pivot[1] - h * ly


def front_centre(anchor: Cell, width: int, facing: int) -> tuple[float, float]:
    lx, ly = DIRECTIONS[(facing + 2) % 8]
    half = (width - 1) / 2
    return anchor[0] + half * lx, anchor[1] + half * ly


def centre_of(cells: tuple[Cell, ...]) -> tuple[float, float]:
    n = len(cells)
    return sum(c[0] for c in cells) / n, sum(c[1] for c in cells) / n


def sector(target_centre: tuple[float, float], target_facing: int, attacker_centre: tuple[float, float]) -> str:
    """The bearing of a point seen from a unit's centre: within 45° of its facing in front, 45°–135° on a flank,
    beyond 135° behind ("front" | "flank" | "rear"). For aiming (the AI turning to face a point); the sector of an
    attack is `contact_sector` (D-N-5 reads it from the cells touched, not from centres)."""
    dx = attacker_centre[0] - target_centre[0]
    dy = attacker_centre[1] - target_centre[1]
    if dx == 0 and dy == 0:
        return "front"
    fx, fy = DIRECTIONS[target_facing]
    cos = (dx * fx + dy * fy) / (math.hypot(dx, dy) * math.hypot(fx, fy))
    if cos >= math.cos(math.radians(45)) - 1e-9:
        return "front"
    if cos > math.cos(math.radians(135)) + 1e-9:
        return "flank"
    return "rear"


def contact_sector(anchor: Cell, width: int, depth: int, facing: int, attacker: tuple[Cell, ...]) -> str:
    """D-N-5 (revised): the sector of an attack, read from the target's footprint cells the attacker touches. In the
    target's own frame (`a`: ranks ahead of its front rank, 0 on the front rank, −(depth − 1) on the rear rank), an
    attacker cell touching the target ahead of its front rank — the diagonals of the front rank's end cells
    included — makes a front attack; otherwise one beside a side file a flank attack; otherwise (it touches only
    the rear rank, from behind) a rear attack. A column striking the end of a line's front is a front attack."""
    fx, fy = DIRECTIONS[facing]
    norm = fx * fx + fy * fy
    target = set(footprint(anchor, width, depth, facing))
    touched = set()
    for x, y in attacker:
        if not any((x + dx, y + dy) in target for dx, dy in NEIGHBOURS):
            continue
        a = ((x - anchor[0]) * fx + (y - anchor[1]) * fy) / norm
        if a > 1e-9:
            return "front"
        touched.add("rear" if a < -(depth - 1) - 1e-9 else "flank")
    if not touched:
        raise ValueError("the attacker does not touch the target")
    return "flank" if "flank" in touched else "rear"


@lru_cache(maxsize=65536)
def line_between(dx: int, dy: int) -> tuple[Cell, ...]:
    """Offsets of the cells strictly between (0, 0) and (dx, dy) on a Bresenham line (sight and fire lines)."""
    cells: list[Cell] = []
    x = y = 0
    sx = 1 if dx > 0 else -1
    sy = 1 if dy > 0 else -1
    adx, ady = abs(dx), abs(dy)
    err = adx - ady
    while (x, y) != (dx, dy):
        e2 = 2 * err
        if e2 > -ady:
            err -= ady
            x += sx
        if e2 < adx:
            err += adx
            y += sy
        if (x, y) != (dx, dy):
            cells.append((x, y))
    return tuple(cells)


def rotate(facing: int, eighths: int) -> int:
    return (facing + eighths) % 8
