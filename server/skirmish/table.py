"""The table (D-S-1): a grid of 5 cm cells, 40 × 30 by default, with its terrain elements (D-S-2); distances
(D-GEN-2), neighbours, and the cells a line of sight crosses (D-S-7).

Terrain is a tuple of rectangular elements and a cell string (one symbol a cell, row by row) built from them; the
table is immutable once deployment begins, so the cells a sight line crosses are memoised per table.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from math import isqrt
from typing import Any

from server.core.errors import BadOrder, IllegalOrder

from .rules import ELEMENT_SIZES, KIND_OF_SYMBOL, SYMBOLS

Cell = tuple[int, int]


def distance(a: Cell, b: Cell) -> int:
    """D-GEN-2: Euclidean between cell centres, rounded half up (exact integer arithmetic)."""
    n = (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2
    r = isqrt(n)
    return r + 1 if 4 * n >= (2 * r + 1) ** 2 else r


def cells_distance(a: Iterable[Cell], b: Iterable[Cell]) -> int:
    """The distance between the nearest cells of two footprints (a vehicle's 2 × 3 block, D-S-1)."""
    bs = list(b)
    return min(distance(x, y) for x in a for y in bs)


def touching(a: Cell, b: Cell) -> bool:
    """D-S-1: "within 5 cm" is a neighbouring cell (eight neighbours)."""
    return a != b and max(abs(a[0] - b[0]), abs(a[1] - b[1])) <= 1


def footprints_touch(a: Iterable[Cell], b: Iterable[Cell]) -> bool:
    bs = list(b)
    return any(max(abs(x[0] - y[0]), abs(x[1] - y[1])) <= 1 for x in a for y in bs)


NEIGHBOURS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))


@lru_cache(maxsize=400_000)
def crossed(a: Cell, b: Cell) -> tuple[Cell, ...]:
    """The cells strictly between `a` and `b` whose inside the line between their centres crosses, in order
    (exact grid traversal). A line through a cell corner passes between the two corner cells (D-S-7)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    nx, ny = abs(dx), abs(dy)
    sx, sy = (1 if dx > 0 else -1), (1 if dy > 0 else -1)
    x, y = a
    ix = iy = 0
    out: list[Cell] = []
    while ix < nx or iy < ny:
        lhs, rhs = (1 + 2 * ix) * ny, (1 + 2 * iy) * nx
        if lhs == rhs:
            x, y, ix, iy = x + sx, y + sy, ix + 1, iy + 1
        elif lhs < rhs:
            x, ix = x + sx, ix + 1
        else:
            y, iy = y + sy, iy + 1
        out.append((x, y))
    return tuple(out[:-1])


@dataclass(frozen=True, slots=True)
class Element:
    """One terrain element (D-S-2): a rectangle of one kind. `objective`: the scenario's marked element (D-S-15).
    `by`: who placed it ("scenario", "server", or a side's colour)."""

    id: str
    kind: str
    x: int
    y: int
    w: int
    h: int
    objective: bool = False
    by: str = "scenario"

    def cells(self) -> Iterator[Cell]:
        for j in range(self.y, self.y + self.h):
            for i in range(self.x, self.x + self.w):
                yield i, j

    def dump(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "x": self.x, "y": self.y, "w": self.w, "h": self.h,
                "objective": self.objective, "by": self.by}

    @classmethod
    def load(cls, d: Mapping[str, Any], *, default_id: str = "", by: str = "scenario") -> Element:
        try:
            kind = str(d["kind"])
            x, y = d["x"], d["y"]
            w, h = d.get("w", 1), d.get("h", 1)
        except (KeyError, TypeError):
            raise BadOrder("a terrain element is {kind, x, y, w, h}", rule="D-S-2") from None
        for name, v in (("x", x), ("y", y), ("w", w), ("h", h)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise BadOrder(f"a terrain element's {name} is an integer", rule="D-S-2", details={"field": name})
        if kind not in ELEMENT_SIZES:
            raise BadOrder(f"no terrain element {kind!r}; known: {', '.join(ELEMENT_SIZES)}", rule="D-S-2",
                           details={"kind": kind})
        return cls(str(d.get("id") or default_id), kind, x, y, w, h, bool(d.get("objective", False)),
                   str(d.get("by", by)))


@dataclass(frozen=True, slots=True)
class Table:
    width: int
    height: int
    elements: tuple[Element, ...] = ()
    cells: str = ""

    @classmethod
    def empty(cls, width: int, height: int) -> Table:
        return cls(width, height, (), "." * (width * height))

    def on_table(self, c: Cell) -> bool:
        return 0 <= c[0] < self.width and 0 <= c[1] < self.height

    def kind(self, c: Cell) -> str:
        return KIND_OF_SYMBOL[self.cells[c[1] * self.width + c[0]]]

    def element_at(self, c: Cell) -> Element | None:
        return next((e for e in self.elements if e.x <= c[0] < e.x + e.w and e.y <= c[1] < e.y + e.h), None)

    def element(self, element_id: str) -> Element | None:
        return next((e for e in self.elements if e.id == element_id), None)

    def with_element(self, e: Element, *, margin: int | None = None) -> Table:
        """The table with `e` added. Refused when it leaves the table, comes within `margin` cells of an edge
        (D-S-2: placed elements), has a size its kind does not allow, or overlaps another element."""
        if not ELEMENT_SIZES[e.kind].allows(e.w, e.h):
            raise IllegalOrder(f"a {e.kind} may not be {e.w} × {e.h}", rule="D-S-2",
                               details={"kind": e.kind, "w": e.w, "h": e.h})
        lo = margin or 0
        if e.x < lo or e.y < lo or e.x + e.w > self.width - lo or e.y + e.h > self.height - lo:
            rule_text = f"outside {margin} cells of a table edge" if margin else "on the table"
            raise IllegalOrder(f"a terrain element is placed {rule_text}", rule="D-S-2",
                               details={"x": e.x, "y": e.y})
        if any(self.cells[y * self.width + x] != "." for x, y in e.cells()):
            raise IllegalOrder("terrain elements may not overlap", rule="D-S-2", details={"x": e.x, "y": e.y})
        if any(o.id == e.id for o in self.elements):
            raise BadOrder(f"two terrain elements named {e.id!r}", rule="D-S-2")
        grid = list(self.cells)
        for x, y in e.cells():
            grid[y * self.width + x] = SYMBOLS[e.kind]
        return Table(self.width, self.height, (*self.elements, e), "".join(grid))

    def dump(self) -> dict[str, Any]:
        return {"width": self.width, "height": self.height, "elements": [e.dump() for e in self.elements]}

    @classmethod
    def load(cls, d: Mapping[str, Any]) -> Table:
        table = cls.empty(int(d["width"]), int(d["height"]))
        for e in d["elements"]:
            table = table.with_element(Element.load(e))
        return table


def edge_distance(c: Cell, edge: str, width: int, height: int) -> int:
    """How many cells lie between `c` and a table edge, plus one: 1 for a cell on the edge row. "Within n cells
    of an edge" (D-S-3, D-S-13) is `edge_distance <= n`."""
    x, y = c
    return {"north": y + 1, "south": height - y, "west": x + 1, "east": width - x}[edge]


TOWARDS: Mapping[str, Cell] = {"north": (0, -1), "south": (0, 1), "west": (-1, 0), "east": (1, 0)}
"""The step towards an edge."""
OPPOSITE = {"north": "south", "south": "north", "east": "west", "west": "east"}
