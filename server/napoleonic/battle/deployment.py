"""Setting up a battle: deployment zones, placement, the off-field reserve (N-START-1, N-START-3, N-START-6,
N-START-7, D-N-3, D-N-13).

D-N-3: each side deploys in a zone 15 rows deep that starts 5 rows from its own map edge and keeps 5 columns
clear of the side edges. D-N-13: a side that had to accept battle and "retreats with battle" deploys in the part of
its zone nearer its own edge — the first 8 of those 15 rows — so it stands further from the enemy and still off the
edge (N-START-7). Positions are given in the battle setup; units without one are placed by the engine
(front rows first, from the middle outwards). Units beyond the limit a side may have on the field (N-START-1: 25;
the setup may set another per side, N-SIEGE-5) wait off the map and come on from their edge — or in the rows the
side's `reserve` names — as places become free (N-START-6).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from server.core.dice import Dice
from server.core.errors import BadOrder, IllegalOrder

from .footprint import FACING_NAMES
from .state import FIELD_LIMIT, ON_FIELD, RESERVE, BattleState, Reinforcement, Side, Unit, new_unit
from .terrain import FIELD_SIZE, BattleMap
from .units import HIT_TABLES, UNIT_TYPES

ZONE_DEPTH = 15
ZONE_GAP = 5
ZONE_MARGIN = 5
RETREAT_FREE_TURNS = 3
"""D-N-13: the retreat order of a side that retreats with battle costs no morale during the first three turns."""
RETREAT_ZONE_DEPTH = 8
"""D-N-13 (our reading of "the zone nearer its own edge"): the rear 8 rows of the usual zone, rows 5–12 from the
side's own edge; the generated fields keep these rows open like the rest of the zone (D-N-3)."""
EDGES = ("north", "east", "south", "west")
FACING_TOWARDS_ENEMY = {"south": 0, "west": 2, "north": 4, "east": 6}
"""The facing of a side whose own edge is the key: towards the other side of the map."""


def to_map(bmap: BattleMap, edge: str, u: int, v: int) -> tuple[int, int]:
    """Edge frame → map cell: `v` rows in from `edge`, `u` cells along it (left to right, looking at the enemy)."""
    w, h = bmap.width, bmap.height
    if edge == "south":
        return u, h - 1 - v
    if edge == "north":
        return w - 1 - u, v
    if edge == "west":
        return v, u
    if edge == "east":
        return w - 1 - v, h - 1 - u
    raise ValueError(edge)


def edge_length(bmap: BattleMap, edge: str) -> int:
    return bmap.width if edge in ("north", "south") else bmap.height


def zone_depth(with_battle: bool) -> int:
    """D-N-3: 15 rows; D-N-13: 8 for a side that retreats with battle."""
    return RETREAT_ZONE_DEPTH if with_battle else ZONE_DEPTH


def in_zone(bmap: BattleMap, edge: str, x: int, y: int, depth: int = ZONE_DEPTH) -> bool:
    """D-N-3: inside `edge`'s deployment zone (`depth` rows deep, D-N-13)."""
    w, h = bmap.width, bmap.height
    v = {"south": h - 1 - y, "north": y, "west": x, "east": w - 1 - x}[edge]
    u = {"south": x, "north": w - 1 - x, "west": y, "east": h - 1 - y}[edge]
    return ZONE_GAP <= v < ZONE_GAP + depth and ZONE_MARGIN <= u < edge_length(bmap, edge) - ZONE_MARGIN


def zone_cells(bmap: BattleMap, edge: str, depth: int = ZONE_DEPTH) -> Iterator[tuple[int, int]]:
    n = edge_length(bmap, edge)
    for v in range(ZONE_GAP, ZONE_GAP + depth):
        for u in range(ZONE_MARGIN, n - ZONE_MARGIN):
            yield to_map(bmap, edge, u, v)


def parse_facing(value: Any) -> int:
    if isinstance(value, str) and value.upper() in FACING_NAMES:
        return FACING_NAMES.index(value.upper())
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 8:
        return value
    raise BadOrder(f"facing must be 0..7 or one of {', '.join(FACING_NAMES)}", rule="D-N-4",
                   details={"facing": value})


def find_place(state: BattleState, unit: Unit, edge: str, facing: int, v_range: range,
               zone: bool = True, depth: int = ZONE_DEPTH) -> tuple[int, int] | None:
    """The first free anchor, scanning rows `v_range` from `edge`, each row from the middle outwards; with
    `zone` the whole footprint must lie in the side's deployment zone (`depth` rows deep)."""
    n = edge_length(state.map, edge)
    mid = n // 2
    us = sorted(range(ZONE_MARGIN, n - ZONE_MARGIN), key=lambda u: (abs(u - mid), u))
    for v in v_range:
        for u in us:
            x, y = to_map(state.map, edge, u, v)
            try:
                cells = state.place_check(unit, x, y, facing, unit.formation)
            except IllegalOrder:
                continue
            if zone and not all(in_zone(state.map, edge, cx, cy, depth) for cx, cy in cells):
                continue
            return x, y
    return None


def deploy(state: BattleState, unit: Unit, spec: Mapping[str, Any], edge: str, zones: bool = True,
           depth: int = ZONE_DEPTH) -> None:
    """Put `unit` on the field at its given position (which must lie in its side's zone, N-START-7 / D-N-3 /
    D-N-13, unless the scenario places troops itself: `"deployment_zones": false`) or at the first free place of
    the zone."""
    facing = parse_facing(spec.get("facing", FACING_TOWARDS_ENEMY[edge]))
    unit.facing = facing
    if "x" in spec and "y" in spec:
        x, y = int(spec["x"]), int(spec["y"])
        cells = state.place_check(unit, x, y, facing, unit.formation)
        if zones and not all(in_zone(state.map, edge, cx, cy, depth) for cx, cy in cells):
            raise IllegalOrder("units deploy inside their side's zone", rule="N-START-7",
                               details={"unit": unit.id, "zone": "D-N-13" if depth != ZONE_DEPTH else "D-N-3"})
    else:
        place = find_place(state, unit, edge, facing, range(ZONE_GAP + depth - 1, ZONE_GAP - 1, -1), depth=depth)
        if place is None:
            raise IllegalOrder("no room left in the deployment zone", rule="N-START-7", details={"unit": unit.id})
        x, y = place
    unit.x, unit.y, unit.status = x, y, ON_FIELD
    state.put(unit)


def make_unit(spec: Mapping[str, Any], side: str, num: int) -> Unit:
    kind = str(spec.get("type", ""))
    if kind not in UNIT_TYPES:
        raise BadOrder(f"unknown unit type {kind!r}", rule="N-START-1", details={"unit": spec.get("id")})
    t = UNIT_TYPES[kind]
    formation = spec.get("formation")
    if formation is not None and formation not in t.formations:
        raise BadOrder(f"{kind} has no formation {formation!r}", rule="N-INF-2", details={"unit": spec.get("id")})

    def opt(name: str) -> int | None:
        return int(spec[name]) if spec.get(name) is not None else None

    accuracy = opt("accuracy")
    rows = HIT_TABLES[t.hit_table].accuracies if t.hit_table else None
    if accuracy is not None and rows is not None and accuracy not in rows:
        raise BadOrder(f"a {kind} company's accuracy is {rows.start}–{rows.stop - 1}", rule="D-N-11",
                       details={"unit": spec.get("id"), "accuracy": accuracy, "table": t.hit_table})
    return new_unit(str(spec["id"]), side, kind, num, morale=opt("morale"), loss_tolerance=opt("loss_tolerance"),
                    guns=opt("guns"), accuracy=accuracy, formation=formation)


def field_limits(config: Mapping[str, Any], sides_cfg: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """N-START-1, N-SIEGE-5: each side's limit — its own `field_limit`, else the setup's (a number for every side,
    or {side: number}), else 25."""
    default = config.get("field_limit", FIELD_LIMIT)
    out = {}
    for sc in sides_cfg:
        name = str(sc["name"])
        value = sc.get("field_limit", default.get(name, FIELD_LIMIT) if isinstance(default, Mapping) else default)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise BadOrder("a field limit is a positive number of units", rule="N-START-1",
                           details={"side": name, "field_limit": repr(value)})
        out[name] = value
    return out


def parse_reserve(side: str, spec: Any) -> tuple[str, tuple[int, int] | None]:
    """A side's `reserve`: the group name of its units held back by the limit, and the rows (from the side's edge,
    first to last) where they come on (N-START-6)."""
    spec = {} if spec is None else spec
    rows = spec.get("rows") if isinstance(spec, Mapping) else None
    if not isinstance(spec, Mapping) or (rows is not None and not _is_row_pair(rows)):
        raise BadOrder('reserve: {"group": name, "rows": [first, last]}, rows counted from the side\'s edge',
                       rule="N-START-6", details={"side": side, "reserve": repr(spec)})
    return str(spec.get("group", f"{side}-reserve")), (int(rows[0]), int(rows[1])) if rows is not None else None


def _is_row_pair(rows: Any) -> bool:
    return isinstance(rows, (list, tuple)) and len(rows) == 2 and all(
        isinstance(r, int) and not isinstance(r, bool) and 0 <= r < FIELD_SIZE for r in rows)


def setup_state(config: Mapping[str, Any], seed: int) -> BattleState:
    """Build the opening state from a battle setup (see docs/battle.md for the format)."""
    raw_map = config.get("map")
    try:
        bmap = BattleMap.load(raw_map) if raw_map else BattleMap.open_field()
    except (ValueError, KeyError, TypeError) as exc:
        raise BadOrder(f"bad battle map: {exc}", rule="N-START-1") from None
    sides_cfg = list(config.get("sides", ()))
    if len(sides_cfg) != 2:
        raise BadOrder("a battle has exactly two sides", rule="N-START-1")
    state = BattleState(map=bmap, units={}, sides={}, dice=Dice.from_seed(seed),
                        occ=array("H", bytes(2 * bmap.width * bmap.height)), by_num={},
                        turn_limit=int(config.get("turn_limit", 40)), hidden=bool(config.get("hidden", False)),
                        field_limit=field_limits(config, sides_cfg))
    num = 0
    for sc in sides_cfg:
        name, edge = str(sc["name"]), str(sc.get("edge", "south"))
        if edge not in EDGES:
            raise BadOrder(f"edge must be one of {EDGES}", rule="D-N-3")
        state.sides[name] = Side(name, edge, bool(sc.get("attacker", False)),
                                 retreat_free_turns=RETREAT_FREE_TURNS if sc.get("retreat_with_battle") else 0,
                                 general=str(sc.get("general", "")))
    if sum(s.attacker for s in state.sides.values()) != 1:
        raise BadOrder("exactly one side is the attacker (the side that entered the cell)", rule="D-N-1")
    for sc in sides_cfg:
        name = str(sc["name"])
        edge = state.sides[name].edge
        depth = zone_depth(state.sides[name].with_battle)
        group, rows = parse_reserve(name, sc.get("reserve"))
        placed = 0
        for spec in sc.get("units", ()):
            num += 1
            unit = make_unit(spec, name, num)
            if unit.id in state.units:
                raise BadOrder(f"duplicate unit id {unit.id!r}", rule="N-START-1")
            state.units[unit.id] = unit
            state.by_num[num] = unit.id
            if placed < state.limit(name) or not unit.type.in_field_limit:
                deploy(state, unit, spec, edge, bool(config.get("deployment_zones", True)), depth)
                placed += unit.type.in_field_limit
            else:
                unit.status = RESERVE
                unit.group = group
        extra = [u.id for u in state.units.values() if u.side == name and u.status == RESERVE]
        if extra:
            state.reinforcements.append(Reinforcement(group, name, 0, edge, tuple(extra), "coming", rows))
        for rc in sc.get("reinforcements", ()):
            ids = []
            for spec in rc.get("units", ()):
                num += 1
                unit = make_unit({**spec, "formation": spec.get("formation") or _march(spec)}, name, num)
                if unit.id in state.units:
                    raise BadOrder(f"duplicate unit id {unit.id!r}", rule="N-START-1")
                unit.status = RESERVE
                unit.group = str(rc["group"])
                state.units[unit.id] = unit
                state.by_num[num] = unit.id
                ids.append(unit.id)
            redge = str(rc.get("edge", edge))
            if redge not in EDGES:
                raise BadOrder(f"edge must be one of {EDGES}", rule="D-N-12")
            state.reinforcements.append(
                Reinforcement(str(rc["group"]), name, max(1, int(rc.get("distance", 1))), redge, tuple(ids)))
    attacker = next(s.name for s in state.sides.values() if s.attacker)
    state.order = (attacker, state.enemy_of(attacker))
    for u in state.units.values():
        u.points = float(u.type.speed)
    return state


def _march(spec: Mapping[str, Any]) -> str:
    """D-N-12: reinforcements arrive in march column (artillery limbered)."""
    t = UNIT_TYPES.get(str(spec.get("type", "")))
    if t is None:
        return ""
    return "limbered" if "limbered" in t.formations else "march_column" if "march_column" in t.formations else ""
