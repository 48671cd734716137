"""The metric grid (C-2.1, D-GEN-2): square 10×10 km cells, eight neighbours, longitude then latitude.

A cell is `(x, y)`: x is the longitude (grows eastwards), y the latitude (grows northwards). Players write a
cell "45-22" or send `[45, 22]`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

Cell = tuple[int, int]
CELL_KM = 10

FACINGS: tuple[str, ...] = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
VECTORS: dict[str, Cell] = {
    "N": (0, 1), "NE": (1, 1), "E": (1, 0), "SE": (1, -1), "S": (0, -1), "SW": (-1, -1), "W": (-1, 0), "NW": (-1, 1),
}
ORTHOGONAL = ("N", "E", "S", "W")


def whole_cell(value: Any) -> Cell:
    """A cell as players write it ("45-22", [45, 22], ["45", "22"]); ValueError unless it is two whole numbers —
    [1.5, 2.5] is no cell (int() would round it to [1, 2]), nor is `true`. An integral float (2.0) is whole."""
    parts = value.split("-", 1) if isinstance(value, str) and "-" in value else value
    if isinstance(parts, str) or not isinstance(parts, (list, tuple)) or len(parts) != 2:
        raise ValueError("a cell is two numbers")
    return (_whole(parts[0]), _whole(parts[1]))


def _whole(value: Any) -> int:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ValueError("a coordinate is a whole number")
    return int(value)


def label(cell: Cell) -> str:
    """C-2.1: longitude first, then latitude, e.g. "45-22"."""
    return f"{cell[0]}-{cell[1]}"


def neighbours(cell: Cell) -> Iterator[Cell]:
    for dx, dy in VECTORS.values():
        yield (cell[0] + dx, cell[1] + dy)


def is_adjacent(a: Cell, b: Cell) -> bool:
    return a != b and max(abs(a[0] - b[0]), abs(a[1] - b[1])) == 1


def step_km(a: Cell, b: Cell) -> float:
    """D-GEN-2: an orthogonal step is one cell (10 km), a diagonal step 1.5 cells (15 km)."""
    return 1.5 * CELL_KM if a[0] != b[0] and a[1] != b[1] else float(CELL_KM)


def distance_km(a: Cell, b: Cell) -> float:
    """Euclidean distance between cell centres in km (D-GEN-2)."""
    return float(math.hypot(a[0] - b[0], a[1] - b[1])) * CELL_KM


def round_half_up(value: float, places: int = 0) -> float:
    scale = 10.0**places
    return float(math.floor(value * scale + 0.5 + 1e-9)) / scale


def direction(a: Cell, b: Cell) -> str:
    """The facing nearest to the bearing from a to b."""
    angle = math.degrees(math.atan2(b[0] - a[0], b[1] - a[1])) % 360
    return FACINGS[int((angle + 22.5) // 45) % 8]


def turn_angle(facing: str, other: str) -> int:
    """The smaller angle between two facings, in degrees (0, 45, 90, 135, 180)."""
    diff = abs(FACINGS.index(facing) - FACINGS.index(other)) % 8
    return min(diff, 8 - diff) * 45


def opposite(facing: str) -> str:
    return FACINGS[(FACINGS.index(facing) + 4) % 8]


def right_of(facing: str) -> str:
    return FACINGS[(FACINGS.index(facing) + 2) % 8]


def shift(cell: Cell, facing: str, n: int = 1) -> Cell:
    dx, dy = VECTORS[facing]
    return (cell[0] + n * dx, cell[1] + n * dy)


def chebyshev(a: Cell, b: Cell) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def line_from(a: Cell, b: Cell) -> list[Cell]:
    """The cells a straight line between the centres of a and b crosses, from a (included) to b (excluded)."""
    steps = 4 * chebyshev(a, b)
    out: list[Cell] = []
    for i in range(steps):
        t = i / steps
        cell = (int(round_half_up(a[0] + (b[0] - a[0]) * t)), int(round_half_up(a[1] + (b[1] - a[1]) * t)))
        if cell != b and cell not in out:
            out.append(cell)
    return out
