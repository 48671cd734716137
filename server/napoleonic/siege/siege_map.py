"""The storm's battlefield, generated from a seed and the fortress's data (N-SIEGE-6, N-SIEGE-11, D-N-15, D-N-16).

The garrison holds the north, the besieger comes from the south. From north to south (rows y, 70×70):

    y 2 …          the town (settlement rules apply inside it, D-N-15), with a street down to the wall
    … y 29         open ground between town and wall, for manoeuvre and placing troops (N-SIEGE-6)
    y 30–32        the wall, across the whole field, with two breaches 4 cells wide (passable)
    y 33–34        the ditch, two cells, before the wall (and the breaches)
    y 33–38        two forts on the wall's flanks, jutting out in front of it, each with its own two-cell ditch
    y 46–47, 54–55 the two parallels holding the besieger's artillery (cover: −1 accuracy against it)

Fortress gun positions (N-SIEGE-11): the fortress's own number, or one per 10 cells of wall, at least two (D-N-16);
one on each fort and the rest spread along the wall, each a deployed 4×2 company facing the besieger, one row back
from the parapet (the wall's outer row), so that only troops who have climbed the wall can reach it. A gun belongs
to the wall section it stands on: the forts, and the three stretches of wall between the breaches.

Deployment (N-START-7, D-N-3 adapted): the garrison anywhere behind the ditch (town, open ground, wall, forts) one
cell clear of the edges; the besieger in rows 44–64, five columns clear of the sides, which holds both parallels.
Everything that varies (fort and breach positions, the town's extent, the parallels' length) comes from the seed
through the state's dice (SplitMix64), so the same seed and fortress give the same field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from server.core.dice import Dice
from server.napoleonic.battle.footprint import Cell, footprint
from server.napoleonic.battle.terrain import BY_NAME, FIELD_SIZE, BattleMap

from . import rules
from .fortress import MIN_GUN_POSITIONS, Fortress, gun_positions_for

WALL_Y = 30
WALL_DEPTH = 3
DITCH_DEPTH = 2
BREACH_WIDTH = 4
FORT_WIDTH = 10
FORT_DEPTH = 6
PARALLEL_ROWS = (46, 54)
PARALLEL_DEPTH = 2
TOWN_TOP = 2
GARRISON_ROWS = (1, WALL_Y + WALL_DEPTH - 1)
BESIEGER_ROWS = (44, 64)
BESIEGER_MARGIN = 5
GUN_FACING = 4  # south, towards the besieger


@dataclass(frozen=True, slots=True)
class GunPosition:
    """A fixed fortress gun position (N-SIEGE-11): a deployed company at `anchor`, facing the besieger."""

    id: str
    section: str
    anchor: Cell

    def dump(self) -> dict[str, Any]:
        return {"id": self.id, "section": self.section, "anchor": list(self.anchor), "facing": GUN_FACING}


@dataclass(frozen=True, slots=True)
class SiegeField:
    """The generated field and what the storm needs to know about it."""

    map: BattleMap
    sections: Mapping[str, frozenset[Cell]]
    guns: tuple[GunPosition, ...]
    breaches: tuple[int, ...]
    forts: tuple[int, ...]
    seed: int

    def section_at(self, cell: Cell) -> str | None:
        for name, cells in self.sections.items():
            if cell in cells:
                return name
        return None

    def is_wall(self, x: int, y: int) -> bool:
        return self.map.on_map(x, y) and self.map.kind(x, y).name in rules.WALL_KINDS

    def in_zone(self, role: str, x: int, y: int) -> bool:
        """Deployment zones of the storm: "garrison" behind the ditch (and on the forts), "besieger" in the south."""
        if not self.map.on_map(x, y):
            return False
        if role == "garrison":
            return (GARRISON_ROWS[0] <= y <= GARRISON_ROWS[1] and 1 <= x < self.map.width - 1) \
                or self.map.kind(x, y).name == "fort"
        return BESIEGER_ROWS[0] <= y <= BESIEGER_ROWS[1] and \
            BESIEGER_MARGIN <= x < self.map.width - BESIEGER_MARGIN

    def dump(self) -> dict[str, Any]:
        return {
            "map": self.map.dump(), "seed": self.seed, "breaches": list(self.breaches), "forts": list(self.forts),
            "guns": [g.dump() for g in self.guns],
            "sections": {k: sorted([list(c) for c in v]) for k, v in sorted(self.sections.items())},
            "zones": {"garrison": {"rows": list(GARRISON_ROWS), "plus": "fort"},
                      "besieger": {"rows": list(BESIEGER_ROWS), "margin": BESIEGER_MARGIN}},
        }


def generate(fortress: Fortress, seed: int, size: int = FIELD_SIZE) -> SiegeField:
    """N-SIEGE-6, D-N-15: the storm field for `fortress` from `seed`."""
    if size != FIELD_SIZE:
        raise ValueError("the siege field is 70×70 (N-START-1)")
    dice = Dice.from_seed(seed)

    def pick(lo: int, hi: int) -> int:
        nonlocal dice
        face, dice = dice.roll(hi - lo + 1)
        return lo + face - 1

    grid = [["open"] * size for _ in range(size)]

    def paint(x0: int, y0: int, x1: int, y1: int, kind: str) -> None:
        for y in range(max(0, y0), min(size, y1 + 1)):
            for x in range(max(0, x0), min(size, x1 + 1)):
                grid[y][x] = kind

    town_depth = max(3, min(fortress.town_depth, WALL_Y - TOWN_TOP - 10))
    town_x0, town_x1 = pick(6, 12), pick(57, 63)
    paint(town_x0, TOWN_TOP, town_x1, TOWN_TOP + town_depth - 1, "settlement")
    street = pick(30, 39)
    paint(street, 0, street, WALL_Y - 1, "road")

    forts = (pick(3, 6), pick(size - 7 - FORT_WIDTH + 1, size - 4 - FORT_WIDTH + 1))
    breaches = (pick(19, 26), pick(40, 47))
    wall_y1 = WALL_Y + WALL_DEPTH - 1
    ditch_y0, ditch_y1 = wall_y1 + 1, wall_y1 + DITCH_DEPTH
    paint(0, WALL_Y, size - 1, wall_y1, "wall")
    paint(0, ditch_y0, size - 1, ditch_y1, "ditch")
    for b in breaches:
        paint(b, WALL_Y, b + BREACH_WIDTH - 1, wall_y1, "breach")
    fort_y1 = ditch_y0 + FORT_DEPTH - 1
    for f in forts:
        paint(f - DITCH_DEPTH, ditch_y0, f + FORT_WIDTH - 1 + DITCH_DEPTH, fort_y1 + DITCH_DEPTH, "ditch")
        paint(f, ditch_y0, f + FORT_WIDTH - 1, fort_y1, "fort")

    for row in PARALLEL_ROWS:
        x0, x1 = pick(8, 14), pick(55, 61)
        paint(x0, row, x1, row + PARALLEL_DEPTH - 1, "parallel")

    bmap = BattleMap.from_rows(["".join(BY_NAME[k].symbol for k in r) for r in grid])
    sections = _sections(grid, breaches, forts)
    wall_cells = size - len(breaches) * BREACH_WIDTH
    count = fortress.gun_positions if fortress.gun_positions is not None else gun_positions_for(wall_cells)
    guns = _place_guns(grid, sections, forts, breaches, max(MIN_GUN_POSITIONS, count), fort_y1)
    return SiegeField(bmap, sections, guns, breaches, forts, seed)


def _sections(grid: list[list[str]], breaches: tuple[int, ...], forts: tuple[int, ...]) -> dict[str, frozenset[Cell]]:
    """The wall sections of N-SIEGE-11: each fort, and each stretch of wall between breaches."""
    size = len(grid)
    out: dict[str, frozenset[Cell]] = {}
    for name, f in zip(("fort_west", "fort_east"), forts, strict=True):
        out[name] = frozenset((x, y) for y in range(size) for x in range(f, f + FORT_WIDTH) if grid[y][x] == "fort")
    edges = [0, *[e for b in breaches for e in (b, b + BREACH_WIDTH)], size]
    for name, (x0, x1) in zip(("wall_west", "wall_centre", "wall_east"), zip(edges[::2], edges[1::2], strict=True),
                              strict=True):
        out[name] = frozenset((x, y) for y in range(WALL_Y, WALL_Y + WALL_DEPTH) for x in range(x0, x1)
                              if grid[y][x] == "wall")
    return out


def _place_guns(grid: list[list[str]], sections: Mapping[str, frozenset[Cell]], forts: tuple[int, ...],
                breaches: tuple[int, ...], count: int, fort_y1: int) -> tuple[GunPosition, ...]:
    """One gun on each fort, the rest spread evenly along the wall between the forts (D-N-16), all behind the
    parapet row."""
    width, depth = 4, 2
    taken: set[Cell] = set()
    guns: list[GunPosition] = []

    def fits(anchor: Cell, section: str) -> bool:
        """On the section, on no other gun, and not at the end of a stretch (a breach beside it)."""
        cells = footprint(anchor, width, depth, GUN_FACING)
        beside = [(x + dx, y) for x, y in cells for dx in (-1, 1)]
        return all(c in sections[section] and c not in taken for c in cells) \
            and all(c in sections[section] for c in beside)

    def add(anchor: Cell, section: str) -> None:
        taken.update(footprint(anchor, width, depth, GUN_FACING))
        guns.append(GunPosition(f"fortress-gun-{len(guns) + 1}", section, anchor))

    for name, f in zip(("fort_west", "fort_east"), forts, strict=True):
        if len(guns) < count:
            add((f + FORT_WIDTH // 2 + 1, fort_y1 - 1), name)
    lo, hi = forts[0] + FORT_WIDTH, forts[1] - 1
    rest = count - len(guns)
    candidates = [(x, WALL_Y + WALL_DEPTH - 2) for x in range(3, len(grid))]
    for i in range(rest):
        target = lo + (hi - lo) * (2 * i + 1) // (2 * rest)
        placed = False
        for anchor in sorted(candidates, key=lambda a: (abs(a[0] - 3 - target), a[0])):
            section = next((s for s, cells in sections.items() if anchor in cells and s.startswith("wall")), None)
            if section is not None and fits(anchor, section):
                add(anchor, section)
                placed = True
                break
        if not placed:
            raise ValueError(f"no room on the wall for {count} fortress gun positions")
    return tuple(guns)
