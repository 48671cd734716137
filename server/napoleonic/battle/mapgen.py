"""The battlefield generator: a campaign cell's terrain and a seed → a 70×70 field (N-START-1, N-START-7,
N-TERRAIN-1 … N-TERRAIN-6, decision D-N-3).

The field is drawn in a canonical frame with the attacker's edge to the south and then turned so that the
attacker's edge faces the campaign cell it came from (D-N-3). Layers, in drawing order: hills and mountain massifs
(elevation, slopes one level per cell), woods (light with dense cores), marsh with ponds, mountains (the cores of
the massifs), the river (west to east across the ground between the zones, with two or three crossings), the main
road from edge to edge through a crossing (a cleared track when the cell has no road), a side road, villages beside
the road and a town astride it. Then the deployment zones of D-N-3 are cleared of impassable ground and dense
wood and kept at least `ZONE_OPEN_SHARE` open to every arm; a breadth-first search checks that a march column can
go from one zone to the other, and a track is cut if it cannot.

All randomness comes from `server.core.dice.Dice` seeded with the room's seed, so the same cell and seed give the
same field byte for byte. The relief of each campaign terrain is the table `RELIEFS`.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import pairwise

from server.core.dice import Dice

from .deployment import EDGES, ZONE_DEPTH, ZONE_GAP, ZONE_MARGIN, to_map
from .footprint import Cell
from .terrain import BY_NAME, FIELD_SIZE, TERRAIN, BattleMap

N = FIELD_SIZE
OPEN = BY_NAME["open"].code
ROAD = BY_NAME["road"].code
LIGHT = BY_NAME["light_forest"].code
DENSE = BY_NAME["dense_forest"].code
SETTLEMENT = BY_NAME["settlement"].code
RIVER = BY_NAME["river"].code
CROSSING = BY_NAME["crossing"].code
MOUNTAIN = BY_NAME["mountain"].code
WATER = BY_NAME["water"].code
MARSH = BY_NAME["marsh"].code
ALL_ARMS_CODES = frozenset(t.code for t in TERRAIN if "artillery" in t.passable)
IMPASSABLE_CODES = frozenset(t.code for t in TERRAIN if not t.passable)

MAP_SALT = 0x4D41_5047_454E  # "MAPGEN": the field's dice stream differs from the battle's own dice
ZONE_OPEN_SHARE = 0.6
"""Our decision: at least this share of each deployment zone is open to every arm (guns can deploy)."""
RIVER_BAND = (24, 43)
"""Rows (canonical frame) the river's upper bank keeps to: the ground between the zones (rows 20–49)."""
CROSSING_WIDTH = 4
MOUNTAIN_LEVEL = 3
"""A massif's cells at this height or above are mountain (impassable, N-TERRAIN-1); below it they are hills."""


@dataclass(frozen=True, slots=True)
class Relief:
    """How a campaign terrain looks on the battlefield: counts (lo, hi) and sizes of each feature."""

    hills: tuple[int, int]
    hill_level: tuple[int, int]
    hill_radius: tuple[int, int]
    massifs: tuple[int, int]
    woods: tuple[int, int]
    wood_radius: tuple[int, int]
    dense_percent: int
    marshes: tuple[int, int]
    villages: tuple[int, int]
    always_road: bool = False


RELIEFS: dict[str, Relief] = {
    # D-N-3: open ground with woods, hills, villages and a road for plains; more hills or woods for hilly or
    # wooded cells. Swamps and mountains (campaign level 2 terrain, C-2.U2) bring marsh and impassable massifs.
    "plain": Relief(hills=(1, 3), hill_level=(1, 2), hill_radius=(4, 7), massifs=(0, 0), woods=(3, 6),
                    wood_radius=(2, 5), dense_percent=30, marshes=(0, 1), villages=(1, 3), always_road=True),
    "hills": Relief(hills=(4, 7), hill_level=(2, 3), hill_radius=(5, 9), massifs=(0, 0), woods=(2, 5),
                    wood_radius=(2, 5), dense_percent=30, marshes=(0, 0), villages=(1, 2)),
    "forest": Relief(hills=(0, 2), hill_level=(1, 2), hill_radius=(4, 7), massifs=(0, 0), woods=(8, 12),
                     wood_radius=(4, 9), dense_percent=55, marshes=(0, 1), villages=(0, 1)),
    "swamp": Relief(hills=(0, 1), hill_level=(1, 1), hill_radius=(3, 5), massifs=(0, 0), woods=(2, 4),
                    wood_radius=(2, 5), dense_percent=30, marshes=(5, 8), villages=(0, 1)),
    "mountains": Relief(hills=(2, 4), hill_level=(2, 3), hill_radius=(4, 8), massifs=(2, 4), woods=(3, 6),
                        wood_radius=(2, 5), dense_percent=40, marshes=(0, 0), villages=(0, 1)),
}
RELIEF_ALIASES = {
    "open": "plain", "plains": "plain", "flat": "plain", "hill": "hills", "hilly": "hills", "woods": "forest",
    "wood": "forest", "forests": "forest", "marsh": "swamp", "marshes": "swamp", "swamps": "swamp",
    "mountain": "mountains",
}
"""The campaign engine's names are plain, hills, forest, swamp, mountains (shared/scenarios legend); these
spellings are accepted too."""
TOWN_PLACES = frozenset({"town", "city", "capital", "fortress", "village"})
"""Campaign place kinds that put a town on the field (D-N-3)."""
OPPOSITE = {"north": "south", "south": "north", "east": "west", "west": "east"}
COMPASS_EDGE = {"N": "north", "NE": "north", "E": "east", "SE": "south", "S": "south", "SW": "south",
                "W": "west", "NW": "north"}
"""Compass direction (campaign convention, y growing north) of the cell the attacker came from → its edge.
Diagonal approaches take the north or south edge (our decision)."""


@dataclass(frozen=True, slots=True)
class CellTerrain:
    """What the campaign knows of the cell where the battle is fought."""

    relief: str = "plain"
    river: bool = False
    town: bool = False
    road: bool = False

    def __post_init__(self) -> None:
        name = RELIEF_ALIASES.get(self.relief, self.relief)
        if name not in RELIEFS:
            raise ValueError(f"no battlefield relief for campaign terrain {self.relief!r}")
        object.__setattr__(self, "relief", name)

    @classmethod
    def from_campaign(cls, terrain: str, features: Iterable[str] = (), *, road: bool = False) -> CellTerrain:
        """From the campaign map: its terrain name and `GameMap.defender_features` (river, place kinds)."""
        feats = set(features)
        return cls(terrain, river="river" in feats, town=bool(feats & TOWN_PLACES), road=road)


@dataclass(frozen=True, slots=True)
class Battlefield:
    """A generated field. `town` lists the town's settlement cells (empty without a town); `repaired` is True
    when the zones had to be joined by a cut track."""

    map: BattleMap
    cell: CellTerrain
    seed: int
    attacker_edge: str
    defender_edge: str
    town: tuple[Cell, ...]
    repaired: bool


def edge_from(direction: str) -> str:
    """D-N-3: the attacker's edge faces the campaign cell it came from (a compass direction, e.g. "NE")."""
    try:
        return COMPASS_EDGE[direction.upper()]
    except KeyError:
        raise ValueError(f"not a compass direction: {direction!r}") from None


class _Draw:
    """Draws from the seeded dice (D-GEN-1); the field keeps no dice of its own."""

    def __init__(self, seed: int) -> None:
        self.dice = Dice.from_seed(seed ^ MAP_SALT)

    def between(self, lo: int, hi: int) -> int:
        if hi <= lo:
            return lo
        face, self.dice = self.dice.roll(hi - lo + 1)
        return lo + face - 1

    def percent(self, p: int) -> bool:
        return self.between(1, 100) <= p

    def pick(self, items: list[Cell]) -> Cell:
        return items[self.between(0, len(items) - 1)]


class _Canvas:
    """The field in the canonical frame (attacker south) while it is drawn."""

    def __init__(self) -> None:
        self.cover = bytearray(N * N)
        self.height = bytearray(N * N)
        self.route: list[Cell] = []
        self.town: list[Cell] = []

    def get(self, x: int, y: int) -> int:
        return self.cover[y * N + x]

    def set(self, x: int, y: int, code: int) -> None:
        if 0 <= x < N and 0 <= y < N:
            self.cover[y * N + x] = code


def _inside(x: int, y: int) -> bool:
    return 0 <= x < N and 0 <= y < N


def _blob(draw: _Draw, cx: int, cy: int, radius: int) -> dict[Cell, float]:
    """An irregular patch: a few overlapping discs. Maps each cell to its depth inside (1 at a disc's centre)."""
    discs = [(cx, cy, radius)]
    for _ in range(draw.between(1, 3)):
        r = max(1, radius - draw.between(0, radius // 2 + 1))
        discs.append((cx + draw.between(-radius, radius), cy + draw.between(-radius, radius), r))
    depth: dict[Cell, float] = {}
    for dx, dy, r in discs:
        for y in range(dy - r, dy + r + 1):
            for x in range(dx - r, dx + r + 1):
                if not _inside(x, y):
                    continue
                d = math.hypot(x - dx, y - dy)
                if d <= r + 0.25:
                    depth[(x, y)] = max(depth.get((x, y), 0.0), 1.0 - d / (r + 1))
    return depth


def _raise_hill(canvas: _Canvas, draw: _Draw, cx: int, cy: int, radius: int, level: int) -> dict[Cell, int]:
    """N-TERRAIN-4: a hill of `level` levels falling off towards its edge; returns the levels it raised."""
    raised: dict[Cell, int] = {}
    for cell, depth in _blob(draw, cx, cy, radius).items():
        lvl = math.ceil(level * depth * 1.25 - 1e-9)
        lvl = min(level, lvl)
        if lvl > 0:
            i = cell[1] * N + cell[0]
            canvas.height[i] = max(canvas.height[i], lvl)
            raised[cell] = lvl
    return raised


def _limit_slopes(height: bytearray) -> None:
    """Slopes: neighbouring cells (diagonals included) differ by at most one level (two chamfer passes)."""
    for y in range(N):
        for x in range(N):
            i = y * N + x
            h = height[i]
            for nx, ny in ((x - 1, y), (x - 1, y - 1), (x, y - 1), (x + 1, y - 1)):
                if _inside(nx, ny):
                    h = min(h, height[ny * N + nx] + 1)
            height[i] = h
    for y in range(N - 1, -1, -1):
        for x in range(N - 1, -1, -1):
            i = y * N + x
            h = height[i]
            for nx, ny in ((x + 1, y), (x + 1, y + 1), (x, y + 1), (x - 1, y + 1)):
                if _inside(nx, ny):
                    h = min(h, height[ny * N + nx] + 1)
            height[i] = h


def _relief(canvas: _Canvas, draw: _Draw, relief: Relief) -> None:
    for _ in range(draw.between(*relief.hills)):
        _raise_hill(canvas, draw, draw.between(4, N - 5), draw.between(4, N - 5), draw.between(*relief.hill_radius),
                    draw.between(*relief.hill_level))
    mountains: list[Cell] = []
    for _ in range(draw.between(*relief.massifs)):
        flank = draw.between(0, 1)
        cx = draw.between(0, 12) if flank == 0 else draw.between(N - 13, N - 1)
        raised = _raise_hill(canvas, draw, cx, draw.between(18, N - 19), draw.between(6, 10), 5)
        mountains.extend(c for c, lvl in raised.items() if lvl >= MOUNTAIN_LEVEL)
    for _ in range(draw.between(*relief.woods)):
        depth = _blob(draw, draw.between(0, N - 1), draw.between(0, N - 1), draw.between(*relief.wood_radius))
        core = 1.0 - relief.dense_percent / 100
        for (x, y), d in depth.items():
            canvas.set(x, y, DENSE if d > core else LIGHT)
    for _ in range(draw.between(*relief.marshes)):
        depth = _blob(draw, draw.between(0, N - 1), draw.between(0, N - 1), draw.between(3, 6))
        for (x, y), d in depth.items():
            canvas.set(x, y, WATER if d > 0.7 else MARSH)
            canvas.height[y * N + x] = 0
    for x, y in mountains:
        canvas.set(x, y, MOUNTAIN)


def _river(canvas: _Canvas, draw: _Draw) -> tuple[int, int]:
    """N-TERRAIN-1: a river from the west edge to the east edge, one or two cells wide, four-connected and
    advancing one column at a time (so a crossing's columns cut it cleanly). Returns its top and bottom rows."""
    lo, hi = RIVER_BAND
    width = draw.between(1, 2)
    y = draw.between(lo + 4, hi - 4)
    top, bottom = y, y + width - 1
    for x in range(N):
        ny = y
        if x and draw.percent(45):
            ny = max(lo, min(hi, y + (1 if draw.between(0, 1) else -1) * draw.between(1, 2)))
        for yy in range(min(y, ny), max(y, ny) + width):
            canvas.set(x, yy, RIVER)
            canvas.height[yy * N + x] = 0
        top, bottom = min(top, ny, y), max(bottom, max(y, ny) + width - 1)
        y = ny
    return top, bottom


def _crossings(canvas: _Canvas, draw: _Draw, main_x: int) -> None:
    """Two or three crossings (fords and bridges, D-N-3), one carrying the main road, the others apart from it."""
    starts = [main_x - 1]
    wanted = draw.between(2, 3)
    for _ in range(40):
        if len(starts) >= wanted:
            break
        x = draw.between(6, N - 6 - CROSSING_WIDTH)
        if all(abs(x - s) >= CROSSING_WIDTH + 8 for s in starts):
            starts.append(x)
    if len(starts) < 2:  # the dice left no room: take the far side of the field from the road
        starts.append(8 if main_x > N // 2 else N - 8 - CROSSING_WIDTH)
    for sx in starts:
        band = range(sx, sx + CROSSING_WIDTH)
        rows = [y for x in band for y in range(N) if canvas.get(x, y) == RIVER]
        for x in band:
            for y in range(min(rows) - 3, max(rows) + 4):
                c = canvas.get(x, y)
                if c == RIVER:
                    canvas.set(x, y, CROSSING)
                elif c in IMPASSABLE_CODES or c == DENSE:
                    canvas.set(x, y, OPEN)  # the approaches: a crossing leads to ground an army can use


def _segment(a: Cell, b: Cell) -> Iterator[Cell]:
    """Cells of a two-cell-wide orthogonal segment from a to b (a march column's width)."""
    (ax, ay), (bx, by) = a, b
    if ax == bx:
        for y in range(min(ay, by), max(ay, by) + 2):
            yield ax, y
            yield ax + 1, y
    else:
        for x in range(min(ax, bx), max(ax, bx) + 2):
            yield x, ay
            yield x, ay + 1


def _cut(canvas: _Canvas, waypoints: list[Cell], code: int) -> list[Cell]:
    """Lay a road (or clear a track) along orthogonal legs between waypoints; rivers become crossings."""
    cells: list[Cell] = []
    for a, b in pairwise(waypoints):
        for x, y in _segment(a, b):
            if not _inside(x, y):
                continue
            cur = canvas.get(x, y)
            if cur in (RIVER, CROSSING):
                canvas.set(x, y, CROSSING)
            elif cur != ROAD:
                canvas.set(x, y, code)
            cells.append((x, y))
    return cells


def _main_route(canvas: _Canvas, draw: _Draw, river: tuple[int, int] | None, code: int) -> int:
    """The road from the attacker's edge to the defender's, through the main crossing. Returns that crossing's x."""
    xs, xn = draw.between(20, 48), draw.between(20, 48)
    cx = draw.between(18, 50)
    if river is None:
        ym = draw.between(26, 42)
        points = [(xs, N - 1), (xs, ym), (xn, ym), (xn, 0)]
    else:
        top, bottom = river
        ys = min(N - 3, max(bottom + 3, draw.between(bottom + 3, 48)))
        yn = max(1, min(top - 4, draw.between(18, top - 4)))
        points = [(xs, N - 1), (xs, ys), (cx, ys), (cx, yn), (xn, yn), (xn, 0)]
    canvas.route = _cut(canvas, [(x, min(y, N - 2)) for x, y in points], code)
    return cx


def _side_road(canvas: _Canvas, draw: _Draw, river: tuple[int, int] | None) -> None:
    """A road from a side edge to the main road, on one bank (it does not cross the river)."""
    rows = [y for y in range(ZONE_GAP + ZONE_DEPTH, N - ZONE_GAP - ZONE_DEPTH - 1)
            if river is None or y + 1 < river[0] - 1 or y > river[1] + 1]
    if not rows:
        return
    y = rows[draw.between(0, len(rows) - 1)]
    west = draw.between(0, 1) == 0
    road_xs = sorted(x for x, ry in canvas.route if ry == y)
    if not road_xs:
        return
    end = road_xs[0] if west else road_xs[-1]
    _cut(canvas, [(0 if west else N - 2, y), (end, y)], ROAD)


def _settle(canvas: _Canvas, x0: int, y0: int, w: int, h: int) -> list[Cell]:
    """N-TERRAIN-5: a block of houses; roads stay streets, rivers and crossings stay as they are."""
    cells = []
    for y in range(y0, y0 + h):
        for x in range(x0, x0 + w):
            if _inside(x, y) and canvas.get(x, y) not in (ROAD, RIVER, CROSSING):
                canvas.set(x, y, SETTLEMENT)
                cells.append((x, y))
    return cells


def _villages(canvas: _Canvas, draw: _Draw, relief: Relief, town: bool) -> None:
    if town:
        middle = [c for c in canvas.route if 16 <= c[1] <= 30]
        x, y = draw.pick(middle or canvas.route)
        w, h = draw.between(8, 11), draw.between(6, 8)
        canvas.town = _settle(canvas, x - w // 2, y - h // 2, w, h)
    for _ in range(draw.between(*relief.villages)):
        x, y = draw.pick(canvas.route)
        w, h = draw.between(3, 5), draw.between(3, 4)
        side = draw.between(0, 1)
        _settle(canvas, x + 1 if side else x - w, y - h // 2, w, h)


def _zone_rect(edge: str) -> tuple[range, range]:
    """The canonical frame's zone rectangles: the attacker's at the south, the defender's at the north (D-N-3)."""
    xs = range(ZONE_MARGIN, N - ZONE_MARGIN)
    if edge == "south":
        return xs, range(N - ZONE_GAP - ZONE_DEPTH, N - ZONE_GAP)
    return xs, range(ZONE_GAP, ZONE_GAP + ZONE_DEPTH)


def _clear_zones(canvas: _Canvas) -> None:
    """D-N-3 / N-START-7: zones hold no impassable ground and no dense wood."""
    for edge in ("south", "north"):
        xs, ys = _zone_rect(edge)
        for y in ys:
            for x in xs:
                c = canvas.get(x, y)
                if c in IMPASSABLE_CODES:
                    canvas.set(x, y, OPEN)
                elif c == DENSE:
                    canvas.set(x, y, LIGHT)


def _open_zones(canvas: _Canvas) -> None:
    """Our decision: at least `ZONE_OPEN_SHARE` of each zone is open to every arm, so the guns can deploy; woods
    are cleared a whole row at a time from the rear forwards (the main road crosses every row, so a cleared row
    stays joined to it)."""
    for edge in ("south", "north"):
        xs, ys = _zone_rect(edge)
        rear_first = list(ys) if edge == "north" else list(reversed(ys))
        need = math.ceil(ZONE_OPEN_SHARE * len(xs) * len(ys))
        have = sum(canvas.get(x, y) in ALL_ARMS_CODES for y in ys for x in xs)
        for y in rear_first:
            if have >= need:
                break
            for x in xs:
                if canvas.get(x, y) == LIGHT:
                    canvas.set(x, y, OPEN)
                    have += 1


def _fill_pockets(canvas: _Canvas) -> None:
    """A clearing inside a zone that no gun could reach from the main road belongs to the wood around it."""
    seen = _reach(canvas.cover, canvas.route, lambda c: c in ALL_ARMS_CODES)
    for edge in ("south", "north"):
        xs, ys = _zone_rect(edge)
        for y in ys:
            for x in xs:
                if canvas.get(x, y) in ALL_ARMS_CODES and (x, y) not in seen:
                    canvas.set(x, y, LIGHT)


def _reach(cover: bytes | bytearray, starts: Iterable[Cell], test: Callable[[int], bool]) -> set[Cell]:
    """Cells four-connected to `starts` through cells whose code passes `test`."""
    seen: set[Cell] = set()
    queue: deque[Cell] = deque()
    for s in starts:
        if s not in seen and test(cover[s[1] * N + s[0]]):
            seen.add(s)
            queue.append(s)
    while queue:
        x, y = queue.popleft()
        for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if _inside(nx, ny) and (nx, ny) not in seen and test(cover[ny * N + nx]):
                seen.add((nx, ny))
                queue.append((nx, ny))
    return seen


def zone_cells_of(bmap: BattleMap, edge: str) -> list[Cell]:
    """All cells of `edge`'s deployment zone (D-N-3)."""
    return [to_map(bmap, edge, u, v) for v in range(ZONE_GAP, ZONE_GAP + ZONE_DEPTH)
            for u in range(ZONE_MARGIN, bmap.width - ZONE_MARGIN)]


def column_path(bmap: BattleMap, a_edge: str, b_edge: str) -> bool:
    """D-N-3: a march column (two cells wide, guns limbered) can go from zone to zone: a breadth-first search over
    the 2×2 blocks of ground open to every arm (N-TERRAIN-1/2/3)."""
    w = bmap.width

    def block_ok(x: int, y: int) -> bool:
        return (x + 1 < w and y + 1 < bmap.height
                and all(bmap.cover[(y + dy) * w + x + dx] in ALL_ARMS_CODES for dx in (0, 1) for dy in (0, 1)))

    goal = set(zone_cells_of(bmap, b_edge))
    queue = deque(c for c in zone_cells_of(bmap, a_edge) if block_ok(*c))
    seen = set(queue)
    while queue:
        x, y = queue.popleft()
        if (x, y) in goal:
            return True
        for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if 0 <= nx < w and 0 <= ny < bmap.height and (nx, ny) not in seen and block_ok(nx, ny):
                seen.add((nx, ny))
                queue.append((nx, ny))
    return False


def crossings(bmap: BattleMap) -> list[list[Cell]]:
    """The river's crossings: groups of crossing cells touching each other (diagonals included)."""
    w = bmap.width
    cells = {(i % w, i // w) for i, c in enumerate(bmap.cover) if c == CROSSING}
    groups: list[list[Cell]] = []
    while cells:
        start = min(cells)
        cells.discard(start)
        group, queue = [start], [start]
        while queue:
            x, y = queue.pop()
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    n = (x + dx, y + dy)
                    if n in cells:
                        cells.discard(n)
                        group.append(n)
                        queue.append(n)
        groups.append(sorted(group))
    return sorted(groups)


def _turn(canvas: _Canvas, attacker_edge: str) -> tuple[BattleMap, tuple[Cell, ...]]:
    """Turn the canonical field so that the attacker's edge is `attacker_edge`."""
    probe = BattleMap.open_field(N, N)
    cover, height = bytearray(N * N), bytearray(N * N)
    for y in range(N):
        for x in range(N):
            mx, my = to_map(probe, attacker_edge, x, N - 1 - y)
            cover[my * N + mx] = canvas.cover[y * N + x]
            height[my * N + mx] = canvas.height[y * N + x]
    town = tuple(sorted(to_map(probe, attacker_edge, x, N - 1 - y) for x, y in canvas.town))
    return BattleMap(N, N, bytes(cover), bytes(height)), town


def generate(cell: CellTerrain, seed: int, attacker_edge: str = "south") -> Battlefield:
    """D-N-3: the field for a battle in `cell`, from the room's `seed`, the attacker deploying at `attacker_edge`."""
    if attacker_edge not in EDGES:
        raise ValueError(f"edge must be one of {EDGES}")
    relief = RELIEFS[cell.relief]
    draw = _Draw(seed)
    canvas = _Canvas()
    _relief(canvas, draw, relief)
    river = _river(canvas, draw) if cell.river else None
    route_code = ROAD if (cell.road or relief.always_road) else OPEN
    main_x = _main_route(canvas, draw, river, route_code)
    if river is not None:
        _crossings(canvas, draw, main_x)
    if route_code == ROAD and draw.percent(60):
        _side_road(canvas, draw, river)
    _villages(canvas, draw, relief, cell.town)
    _clear_zones(canvas)
    _fill_pockets(canvas)
    _open_zones(canvas)
    _limit_slopes(canvas.height)
    bmap, town = _turn(canvas, attacker_edge)
    bmap, repaired = join_zones(bmap, attacker_edge)
    return Battlefield(bmap, cell, seed, attacker_edge, OPPOSITE[attacker_edge], town, repaired)


def join_zones(bmap: BattleMap, attacker_edge: str) -> tuple[BattleMap, bool]:
    """D-N-3: check that the zones are joined (`column_path`); if not, cut a straight track two cells wide from
    edge to edge through the middle of the field (woods, marsh and mountains cleared, river cells made a ford).
    Returns the map and whether it was repaired."""
    defender_edge = OPPOSITE[attacker_edge]
    if column_path(bmap, attacker_edge, defender_edge):
        return bmap, False
    cover = bytearray(bmap.cover)
    w, h = bmap.width, bmap.height
    across = attacker_edge in ("north", "south")
    mid = (w if across else h) // 2
    for t in range(h if across else w):
        for k in (mid - 1, mid):
            x, y = (k, t) if across else (t, k)
            c = cover[y * w + x]
            if c == RIVER:
                cover[y * w + x] = CROSSING
            elif c not in ALL_ARMS_CODES:
                cover[y * w + x] = OPEN
    return BattleMap(w, h, bytes(cover), bmap.elevation), True


def battle_map(terrain: str | CellTerrain, seed: int, attacker_edge: str = "south", **features: bool) -> BattleMap:
    """Shorthand: the generated map alone, e.g. `battle_map("hills", 7, river=True)`."""
    cell = terrain if isinstance(terrain, CellTerrain) else CellTerrain(terrain, **features)
    return generate(cell, seed, attacker_edge).map


def render(bmap: BattleMap, *, heights: bool = True) -> str:
    """Rows of terrain symbols (the symbols of `terrain.TERRAIN`); with `heights`, open ground on a hill shows its
    level as a digit instead of '.'."""
    lines = []
    for y, row in enumerate(bmap.rows()):
        chars = list(row)
        if heights:
            for x, ch in enumerate(chars):
                h = bmap.height_at(x, y)
                if ch == "." and h:
                    chars[x] = str(h)
        lines.append("".join(chars))
    return "\n".join(lines)


def legend() -> Mapping[str, str]:
    """Symbol → terrain name, for the text rendering."""
    return {t.symbol: t.name for t in TERRAIN} | {"1-9": "open ground on a hill of that level"}
