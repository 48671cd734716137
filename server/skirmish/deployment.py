"""Deployment and ambushes (S-3.2, S-3.3, S-7.2, S-9; D-S-3, D-S-13).

The defender deploys first within 8 cells of its edge; the units it holds back are ambushes, off the table and
hidden from the attacker (not even their number). Then the attacker deploys within 4 cells of its own edge and no
closer than 18 cells to any deployed defender. A unit's figures are placed in cohesion (S-7.2: each linked to its
commander by neighbours). Each side sees the other's deployed figures once both have deployed.

An ambush comes on by an order, one unit an order (S-9.3): into broken ground — bushes, a wood, a house, or the
cell behind a house (the house between it and the attacker) — within 6 cells of the defender's edge and at least
4 cells from every attacker figure (D-S-13, S-9.4), in cohesion; it may fire at once with the same order (S-9.5).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from server.core.engine import team_viewer
from server.core.errors import BadOrder, IllegalOrder

from .command import chain
from .forces import descendants
from .log import Log
from .orders import Placement, placement_of
from .rules import terrain_kinds
from .sight import seen_by
from .state import AMBUSH, IN_ACTION, Figure, SkirmishState, footprint
from .table import OPPOSITE, TOWARDS, Cell, cells_distance, edge_distance

Spot = tuple[int, int, str]
LINE = {"n": (0, -1), "e": (1, 0), "s": (0, 1), "w": (-1, 0)}


def expand(s: SkirmishState, p: Placement) -> dict[str, Spot]:
    """Each figure's cell (and facing): units in a line from their cell, then single figures; in the order of
    battle, whatever the order of the wire's objects (a replay file sorts their keys)."""
    out: dict[str, Spot] = {}
    for uid, (x, y), direction in p.units:
        unit = s.units.get(uid)
        if unit is None:
            raise BadOrder(f"no unit {uid!r}", rule="D-S-3", details={"unit": uid})
        dx, dy = LINE[direction]
        i = 0
        for fid in unit.members:
            f = s.figures[fid]
            out[fid] = (x + dx * i, y + dy * i, f.facing)
            i += 3 if f.vehicle else 1
    for fid, (x, y), facing in p.figures:
        if fid not in s.figures:
            raise BadOrder(f"no figure {fid!r}", rule="D-S-3", details={"figure": fid})
        out[fid] = (x, y, facing or s.figures[fid].facing)
    return {fid: out[fid] for fid in sorted(out, key=lambda i: s.figures[i].index)}


def _check_spots(s: SkirmishState, team: str, spots: Mapping[str, Spot], zone: int, rule: str) -> None:
    """On the table, on ground the figure may stand on, within `zone` cells of the side's edge, no two figures
    in one cell, none on a figure already there."""
    edge = s.sides[team].edge
    kinds = terrain_kinds(s.settings)
    taken = {c: f.id for f in s.figures.values() if f.on_table and f.id not in spots for c in f.cells()}
    for fid, (x, y, facing) in spots.items():
        f = s.figures[fid]
        if f.side != team:
            raise BadOrder(f"{fid} is not {team}'s", rule=rule, details={"figure": fid})
        for c in footprint(f.vehicle, x, y, facing):
            if not s.table.on_table(c):
                raise IllegalOrder(f"{fid} would stand off the table", rule="D-S-1", details={"figure": fid})
            if edge_distance(c, edge, s.table.width, s.table.height) > zone:
                raise IllegalOrder(f"{fid} must stand within {zone} cells of the {edge} edge", rule=rule,
                                   details={"figure": fid, "cell": list(c), "zone": zone})
            k = kinds[s.table.kind(c)]
            if f.vehicle and k.tank_cost is None:
                raise IllegalOrder(f"a vehicle cannot stand in a {k.name}", rule="D-S-6", details={"figure": fid})
            if c in taken:
                raise IllegalOrder("two figures may not share a cell", rule="D-S-1",
                                   details={"figure": fid, "cell": list(c)})
            taken[c] = fid


def _check_cohesion(s: SkirmishState, spots: Mapping[str, Spot], rule: str = "S-7.2") -> None:
    """S-7.2, D-S-1: each unit's infantry placed now is linked to its commander (or its first figure) by
    neighbours."""
    saved = {fid: (s.figures[fid].x, s.figures[fid].y, s.figures[fid].facing, s.figures[fid].status)
             for fid in spots}
    try:
        for fid, (x, y, facing) in spots.items():
            f = s.figures[fid]
            f.x, f.y, f.facing, f.status = x, y, facing, IN_ACTION
        for unit in s.units.values():
            placed = [i for i in unit.members if i in spots and not s.figures[i].vehicle]
            if len(placed) < 2:
                continue
            head = unit.commander if unit.commander in placed else placed[0]
            linked = set(chain(s, s.figures[head], placed))
            if linked != set(placed):
                raise IllegalOrder(f"{unit.id}'s figures must be placed within 5 cm of each other", rule=rule,
                                   details={"unit": unit.id, "apart": sorted(set(placed) - linked)})
    finally:
        for fid, (x, y, facing, status) in saved.items():
            f = s.figures[fid]
            f.x, f.y, f.facing, f.status = x, y, facing, status


def deploy(s: SkirmishState, log: Log, team: str, placement: Placement | None, hold: tuple[str, ...]) -> None:
    """D-S-3: one side's whole deployment; without a placement, the scenario's (or, failing that, one made by
    the server)."""
    side = s.sides[team]
    if placement is None:
        placement, hold = default_placement(s, team, hold)
    if hold and side.attacker:
        raise IllegalOrder("only the defender holds units back in ambush", rule="S-9.1")
    held: set[str] = set()
    for uid in hold:
        unit = s.units.get(uid)
        if unit is None or unit.side != team:
            raise BadOrder(f"no unit {uid!r} of {team}", rule="S-9.2", details={"unit": uid})
        held |= {i for u in descendants(s.units, uid) for i in s.units[u].members}
    spots = expand(s, placement)
    if held & set(spots):
        raise BadOrder("a figure is both placed and held back", rule="S-9.2",
                       details={"figures": sorted(held & set(spots))})
    missing = sorted(f.id for f in s.side_figures(team) if f.id not in spots and f.id not in held)
    if missing:
        rule = "S-3.2" if side.attacker else "S-9.2"
        raise IllegalOrder("every figure is placed (the defender may hold units back as ambushes)", rule=rule,
                           details={"missing": missing[:20]})
    zone = s.settings.attacker_zone if side.attacker else s.settings.defender_zone
    _check_spots(s, team, spots, zone, "D-S-3")
    if side.attacker:
        defenders = [f for f in s.on_table(s.enemy(team))]
        for fid, (x, y, facing) in spots.items():
            cells = footprint(s.figures[fid].vehicle, x, y, facing)
            if any(cells_distance(cells, d.cells()) < s.settings.deploy_distance for d in defenders):
                raise IllegalOrder(f"the attacker deploys no closer than {s.settings.deploy_distance} cells to the "
                                   "defender", rule="S-3.3", details={"figure": fid})
    _check_cohesion(s, spots)
    for fid, (x, y, facing) in spots.items():
        f = s.figures[fid]
        f.x, f.y, f.facing, f.status = x, y, facing, IN_ACTION
    for fid in held:
        s.figures[fid].status = AMBUSH
    side.deployed = True
    log.emit("deployed", log.own(team), side=team, figures=[_spot(s.figures[i]) for i in spots],
             held=sorted(hold), rule="D-S-3")
    log.emit("side_deployed", None, side=team, rule="D-S-3")


def _spot(f: Figure) -> dict[str, object]:
    return {"id": f.id, "x": f.x, "y": f.y, "facing": f.facing}


def reveal(s: SkirmishState, log: Log) -> None:
    """D-S-3: both have deployed; each side is shown the other's deployed figures."""
    s.revealed = True
    for team in s.sides:
        enemy = [f for f in s.on_table(s.enemy(team))]
        seen = s.last_seen.setdefault(team, {})
        for f in enemy:
            seen[f.id] = (f.x, f.y, s.turn)
        log.emit("deployment_revealed", frozenset({team_viewer(team)}), side=s.enemy(team),
                 figures=[{**_spot(f), "unit": f.unit, "role": f.role, "weapon": f.weapon, "vehicle": f.vehicle}
                          for f in enemy], rule="D-S-3")


def default_placement(s: SkirmishState, team: str, hold: tuple[str, ...]) -> tuple[Placement, tuple[str, ...]]:
    """The scenario's deployment for the side, else one the server makes (every unit in a line, from the
    middle of the side's zone outwards)."""
    data = s.sides[team].default_deployment
    if data:
        placement = placement_of(data, "D-S-3")
        return placement, hold or tuple(data.get("hold") or ())
    return auto_placement(s, team, hold), hold


def auto_placement(s: SkirmishState, team: str, hold: tuple[str, ...] = ()) -> Placement:
    side = s.sides[team]
    held = {u for h in hold if h in s.units for u in descendants(s.units, h)}
    zone = s.settings.attacker_zone if side.attacker else s.settings.defender_zone
    kinds = terrain_kinds(s.settings)
    w, h = s.table.width, s.table.height
    taken = {c for f in s.on_table() for c in f.cells()}
    enemies = [f for f in s.on_table(s.enemy(team))]
    far_enough = s.settings.deploy_distance if side.attacker else 0

    def ok(fig: Figure, x: int, y: int) -> bool:
        cells = footprint(fig.vehicle, x, y, fig.facing)
        for c in cells:
            if not s.table.on_table(c) or c in taken or edge_distance(c, side.edge, w, h) > zone:
                return False
            if fig.vehicle and kinds[s.table.kind(c)].tank_cost is None:
                return False
        return all(cells_distance(cells, e.cells()) >= far_enough for e in enemies)

    rows = sorted((c for c in _cells(w, h) if edge_distance(c, side.edge, w, h) <= zone),
                  key=lambda c: (edge_distance(c, side.edge, w, h), abs(2 * c[0] - w) if side.edge in
                                 ("north", "south") else abs(2 * c[1] - h), c))
    facing = {"north": "s", "south": "n", "east": "w", "west": "e"}[side.edge]
    figures: list[tuple[str, Cell, str | None]] = []
    for unit in s.units.values():
        if unit.side != team or unit.id in held:
            continue
        members = [s.figures[i] for i in unit.members]
        line = [f for f in members if not f.vehicle]
        step = TOWARDS["east"] if side.edge in ("north", "south") else TOWARDS["south"]
        for x, y in rows:
            spots = [(x + step[0] * i, y + step[1] * i) for i in range(len(line))]
            if all(ok(f, *c) for f, c in zip(line, spots, strict=True)):
                for f, c in zip(line, spots, strict=True):
                    figures.append((f.id, c, None))
                    taken.add(c)
                break
        for f in members:
            if not f.vehicle:
                continue
            f.facing = facing
            for x, y in rows:
                if ok(f, x, y):
                    figures.append((f.id, (x, y), facing))
                    taken.update(footprint(f.vehicle, x, y, facing))
                    break
    return Placement(tuple(figures), ())


def _cells(w: int, h: int) -> Iterable[Cell]:
    for y in range(h):
        for x in range(w):
            yield x, y


def ambush_cell(s: SkirmishState, team: str, c: Cell) -> bool:
    """D-S-13: broken ground, or the cell behind a house (the house between it and the attacker)."""
    kinds = terrain_kinds(s.settings)
    if kinds[s.table.kind(c)].broken:
        return True
    dx, dy = TOWARDS[OPPOSITE[s.sides[team].edge]]
    nxt = (c[0] + dx, c[1] + dy)
    return s.table.on_table(nxt) and s.table.kind(nxt) == "house"


def check_ambush(s: SkirmishState, team: str, uid: str, spots: Mapping[str, Spot]) -> None:
    st = s.settings
    unit = s.units[uid]
    if set(spots) != set(unit.members):
        raise IllegalOrder(f"an ambush order places all of {uid} and only it", rule="S-9.3",
                           details={"unit": uid})
    _check_spots(s, team, spots, st.ambush_zone, "S-9.4")
    attackers = [f for f in s.on_table(s.enemy(team))]
    for fid, (x, y, facing) in spots.items():
        cells = footprint(s.figures[fid].vehicle, x, y, facing)
        if not all(ambush_cell(s, team, c) for c in cells):
            raise IllegalOrder("an ambush is placed in bushes, a wood, a house or behind a house", rule="S-9.4",
                               details={"figure": fid})
        if any(cells_distance(cells, a.cells()) < st.ambush_distance for a in attackers):
            raise IllegalOrder(f"an ambush may not be placed within {st.ambush_distance} cells of the enemy",
                               rule="S-9.4", details={"figure": fid})
    _check_cohesion(s, spots, "S-7.2")


def ambush_places(s: SkirmishState, team: str, uid: str) -> dict[str, Spot] | None:
    """A legal place for a held-back infantry unit (for the AI and the options query): the first group of
    neighbouring ambush cells large enough, filled outwards from its first cell."""
    st = s.settings
    unit = s.units[uid]
    members = [s.figures[i] for i in unit.members]
    if any(f.vehicle for f in members) or any(f.status != AMBUSH for f in members):
        return None
    w, h = s.table.width, s.table.height
    edge = s.sides[team].edge
    taken = {c for f in s.on_table() for c in f.cells()}
    attackers = [f for f in s.on_table(s.enemy(team))]
    good = {c for c in _cells(w, h) if c not in taken and edge_distance(c, edge, w, h) <= st.ambush_zone
            and ambush_cell(s, team, c)
            and all(cells_distance([c], a.cells()) >= st.ambush_distance for a in attackers)}
    seen: set[Cell] = set()
    order = [m.id for m in members]
    if unit.commander in order:
        order.remove(unit.commander)
        order.insert(0, unit.commander)
    for start in sorted(good, key=lambda c: (c[1], c[0])):
        if start in seen:
            continue
        comp = [start]
        seen.add(start)
        i = 0
        while i < len(comp):
            cx, cy = comp[i]
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    n = (cx + dx, cy + dy)
                    if n in good and n not in seen:
                        seen.add(n)
                        comp.append(n)
            i += 1
        if len(comp) >= len(order):
            return {fid: (c[0], c[1], "n") for fid, c in zip(order, comp, strict=False)}
    return None


def place_ambush(s: SkirmishState, log: Log, team: str, uid: str, spots: Mapping[str, Spot]) -> list[Figure]:
    check_ambush(s, team, uid, spots)
    placed = []
    for fid, (x, y, facing) in spots.items():
        f = s.figures[fid]
        f.x, f.y, f.facing, f.status = x, y, facing, IN_ACTION
        placed.append(f)
    log.emit("ambush_sprung", log.own(team), side=team, unit=uid, figures=[_spot(f) for f in placed],
             rule="S-9.3")
    enemy = s.enemy(team)
    seen = seen_by(s, enemy)
    visible = [f for f in placed if f.id in seen]
    if visible:
        log.emit("enemy_appeared", frozenset({team_viewer(enemy)}), side=team,
                 figures=[{**_spot(f), "unit": f.unit, "role": f.role, "weapon": f.weapon} for f in visible],
                 rule="D-S-13")
    return placed

