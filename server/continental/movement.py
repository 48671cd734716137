"""Movement (C-4.*): Table 4 speeds (D-C-2), turning, withdrawal, river crossings, strategic transfer, frontage,
defiles, march, splitting and merging, transfer of subordination, non-overlap and stacking (C-4.12).

Time is counted in fractions of a turn (one turn = one day, D-C-1): a step of `km` over terrain of speed `v` km
per turn uses km/v of the turn (D-GEN-2: 10 km orthogonal, 15 km diagonal). A unit has one turn a turn; an action
that alone takes more than a turn (a 2-turn river crossing, a turn about in a swamp) may begin only as the unit's
first action of the turn, and the rest is carried into the next turns as `debt`.
"""

from __future__ import annotations

from collections import deque

from server.continental.context import Ctx, Dropped
from server.continental.events import for_team, for_teams, public
from server.continental.forces import MARCH, READY, REGROUPING, RESTORING, TRANSFER, Unit, is_division
from server.continental.grid import (
    ORTHOGONAL,
    Cell,
    direction,
    is_adjacent,
    label,
    neighbours,
    right_of,
    shift,
    step_km,
    turn_angle,
)
from server.continental.losses import hit
from server.continental.orders import Corps, Frontage, March, Merge, Move, Reassign, Split, Transfer, Turn
from server.continental.state import CampaignState
from server.continental.war import cross_border
from server.core.errors import IllegalOrder, RuleError

EPS = 1e-9
DEFILE_TERRAIN = {"forest", "mountains", "swamp"}


def step_speed(state: CampaignState, unit: Unit, a: Cell, b: Cell) -> tuple[float | None, str]:
    """C-4.3, C-T4 (D-C-2): km per turn for a step a→b and the kind of way used; None = impassable."""
    gm = state.map
    speeds = state.tables["speeds_km"]
    arm = unit.arm
    if not gm.is_land(b):
        return None, "sea"
    road_open = not _closed(state, a, "movement") and not _closed(state, b, "movement")
    if gm.on_road(a, b) and road_open:
        return float(speeds["road"][arm]) if speeds["road"][arm] is not None else None, "road"
    terrain = gm.terrain[b]
    if gm.on_track(a, b) and terrain in DEFILE_TERRAIN:
        v = speeds[f"track_{terrain}"][arm]
        return (float(v) if isinstance(v, (int, float)) else None), "track"
    v = speeds[terrain][arm] if terrain in speeds else None
    if isinstance(v, (int, float)):
        return float(v), terrain
    return None, terrain


def _closed(state: CampaignState, cell: Cell, what: str) -> bool:
    """C-9.7c, C-9.4: a road or bridge closed by artillery or by the moderator (weather)."""
    entry = state.closures.get(label(cell))
    return entry is not None and entry.get(what, 0) >= state.turn


def step_cost(state: CampaignState, unit: Unit, a: Cell, b: Cell) -> tuple[float | None, str]:
    """Fraction of a turn a step takes, or None when impossible. River cells entered off a bridge take the
    crossing time of C-T4 (D-C-2); a bridge closed by artillery is no bridge (C-9.7c)."""
    gm = state.map
    speed, way = step_speed(state, unit, a, b)
    if b in gm.rivers and not (way == "road" and gm.is_bridge(b)):
        crossing = state.tables["river_crossing_turns"][unit.arm]
        if crossing is None:
            return None, "river"
        return float(crossing), "river"
    if speed is None or speed <= 0:
        return None, way
    km = step_km(a, b)
    if state.level >= 3 and turn_angle(unit.facing, direction(a, b)) > 90:
        speed *= float(state.tables["movement"]["withdrawal_speed_l3"])  # C-4.4 [L3]
    return km / speed, way


def blocking(state: CampaignState, unit: Unit, cell: Cell) -> list[Unit]:
    return [u for u in state.units_at(cell) if u.id != unit.id and u.status != TRANSFER]


def stack_allowed(state: CampaignState, units: list[Unit]) -> bool:
    """C-4.12: division counters never share a cell; [L2] regiments may, up to five a cell. A fortress garrison
    is part of its fortress, not a counter in the field: its own side's troops may stand in it (our decision)."""
    units = [u for u in units if u.arm != "FORT"] if len({u.team for u in units}) == 1 else units
    if len(units) <= 1:
        return True
    if state.level < 2 or not all(u.is_regiment for u in units):
        return False
    return sum(u.regiment_count() for u in units) <= int(state.tables["movement"]["max_regiments_per_cell"])


def enforce_stacking(ctx: Ctx, cells: list[Cell]) -> None:
    """C-4.12: counters that end up together where the rules forbid it lose the next turn regrouping and are not
    combat-capable meanwhile."""
    state = ctx.state
    for cell in dict.fromkeys(cells):
        here = [u for u in state.units_at(cell) if u.status != TRANSFER]
        if not stack_allowed(state, here):
            for u in here:
                u.status, u.status_until = REGROUPING, state.turn + (0 if ctx.silent else 1)
            ctx.emit(for_teams(sorted({u.team for u in here}), "regrouping", cell=list(cell),
                               units=[u.id for u in here], rule="C-4.12"))


def enter_cell(ctx: Ctx, unit: Unit, cell: Cell) -> None:
    """A unit enters a cell: the start of war (C-9.1), aggressor and neutrality penalties (C-10.5), occupation of
    enemy territory, and cut-off fire waiting there (C-9.7d)."""
    state = ctx.state
    owner = state.controller(cell)
    if owner is not None and owner != unit.team:
        cross_border(ctx, unit, cell, owner)
        if state.war and state.enemies(unit.team, owner):
            state.control[label(cell)] = unit.team
    trigger_interdiction(ctx, unit, cell)


def trigger_interdiction(ctx: Ctx, unit: Unit, cell: Cell) -> None:
    """C-9.7d, D-C-5: the first enemy force entering a square under cut-off fire takes the strike; a transfer
    hit on the way ends there (C-4.5)."""
    state = ctx.state
    for marker in list(state.interdictions):
        if tuple(marker["cell"]) != cell or not state.enemies(marker["team"], unit.team):
            continue
        state.interdictions.remove(marker)
        ctx.emit(for_team(marker["team"], "cutoff_fired", cell=list(cell), rule="C-9.7d"))
        hit(ctx, [unit], float(marker["fraction"]), cause="cutoff", cell=cell)
        if unit.alive and unit.status == TRANSFER:
            arrive(ctx, unit)
        return


def _check_common(ctx: Ctx, unit: Unit, *, pursuing: bool = False) -> None:
    if ctx.state.phase != "operations":
        ctx.fail(IllegalOrder("troops move only in combat operations; deploy them while planning", rule="C-1.5"))
    if unit.arm == "FORT":
        ctx.fail(IllegalOrder(f"{unit.name} is a fortress and does not move", rule="C-3.6"))
    if unit.status == REGROUPING:
        ctx.fail(IllegalOrder(f"{unit.name} is regrouping this turn", rule="C-4.12"))
    if unit.status in (TRANSFER, MARCH):
        ctx.fail(IllegalOrder(f"{unit.name} is on a {unit.status} and cannot take other orders", rule="C-4.5"))
    if unit.used >= 1 - EPS and not pursuing:
        ctx.fail(IllegalOrder(f"{unit.name} has no time left this turn", rule="C-4.3"))


def _acting_unit(ctx: Ctx, team: str, unit_id: str, *, level: int = 1, what: str = "", rule: str = "C-0.2") -> Unit:
    """The team's own counter, able to take an order now; `level` gates rules above level 1 (C-0.2)."""
    unit = ctx.own_unit(team, unit_id)
    if ctx.state.level < level:
        ctx.fail(IllegalOrder(f"{what} is a level-{level} rule", rule=rule))
    _check_common(ctx, unit)
    return unit


def move(ctx: Ctx, team: str, cmd: Move) -> None:
    """C-4.3, C-4.4, C-4.7, C-4.12: move along a path of neighbouring cells. A unit whose enemy withdrew before its
    strike this turn moves on its pursuit allowance (C-9.8a), forward only."""
    state = ctx.state
    unit = ctx.own_unit(team, cmd.unit)
    pursuing = unit.pursuit > EPS
    _check_common(ctx, unit, pursuing=pursuing)
    pos = unit.cell
    taken: list[Cell] = []
    used = 1 - unit.pursuit if pursuing else unit.used
    reason: IllegalOrder | None = None
    for nxt in cmd.path:
        if not is_adjacent(pos, nxt):
            reason = IllegalOrder(f"{label(nxt)} is not next to {label(pos)}", rule="C-4.3")
            break
        if pursuing and turn_angle(unit.facing, direction(pos, nxt)) > 90:
            reason = IllegalOrder(f"{unit.name} pursues the enemy: it advances, it does not withdraw",
                                  rule="C-9.8a", details={"max_reached": label(pos)})
            break
        cost, way = step_cost(state, unit, pos, nxt)
        if cost is None:
            reason = IllegalOrder(f"{unit.name} cannot enter {label(nxt)} ({way})", rule="C-4.3")
            break
        if used + cost > 1 + EPS and not (cost > 1 - EPS and used < EPS):
            reason = IllegalOrder(f"{unit.name} cannot reach {label(nxt)} this turn", rule="C-4.3",
                                  details={"max_reached": label(pos)})
            break
        if any(state.enemies(unit.team, u.team) for u in blocking(state, unit, nxt)):
            reason = IllegalOrder(f"{label(nxt)} is held by the enemy: attack it (C-9.8)", rule="C-4.12")
            break
        second = _second_after(state, unit, pos, nxt)
        if second is False:
            reason = IllegalOrder(f"{unit.name}'s wide front has no room at {label(nxt)}", rule="C-4.6")
            break
        used += cost
        taken.append(nxt)
        pos = nxt
    if reason is None and taken:
        others = [o for o in blocking(state, unit, taken[-1]) if o is not corps_tail(state, unit, taken[-1])]
        if others and not stack_allowed(state, [*others, unit]) and not ctx.silent:
            reason = IllegalOrder(f"{label(taken[-1])} is occupied: counters may not overlap", rule="C-4.12")
            taken = []
    if reason is not None:
        if not taken:
            ctx.fail(reason)
        ctx.adjusted(reason, unit=unit.id, ordered=[list(c) for c in cmd.path], done=[list(c) for c in taken])
    _walk(ctx, unit, taken, used)
    if pursuing and taken:
        unit.pursuit, unit.used = max(0.0, 1 - unit.used), 1.0


def pursuit_move(ctx: Ctx, team: str, unit: Unit, path: tuple[Cell, ...]) -> bool:
    """C-9.8a: a pursuit move carried out as far as it goes (the strike's order is not refused for it: a defender's
    withdrawal is no fault of the attacker's). True when the unit moved."""
    for end in range(len(path), 0, -1):
        try:
            move(ctx, team, Move(unit.id, path[:end]))
        except (RuleError, Dropped):
            continue
        return True
    return False


def _second_after(state: CampaignState, unit: Unit, pos: Cell, nxt: Cell) -> Cell | bool | None:
    if not unit.wide:
        return None
    cell = shift(nxt, right_of(unit.facing))
    if not state.map.is_land(cell) or any(state.enemies(unit.team, u.team) for u in blocking(state, unit, cell)):
        return False
    return cell


def _walk(ctx: Ctx, unit: Unit, path: list[Cell], used: float) -> None:
    state = ctx.state
    if not path:
        return
    start = unit.cell
    prev = unit.cell
    for nxt in path:
        second = _second_after(state, unit, prev, nxt)
        unit.cell = nxt
        unit.second = second if isinstance(second, tuple) else None
        enter_cell(ctx, unit, nxt)
        if not unit.alive:
            break
        prev = nxt
    if used > 1:
        unit.debt += used - 1
        used = 1.0
    unit.used = used
    leader = corps_tail(state, unit, path[-1])
    if leader is not None:  # C-4.7: the corps' column closes up on its card, the tail passes to the newcomer
        leader.second = None
        ctx.emit(for_team(unit.team, "corps_column", unit=unit.id, behind=leader.id, corps=unit.corps, rule="C-4.7"))
    if state.level >= 2 and not unit.wide and (leader is not None or _is_defile(state, path[-1])):
        back = path[-2] if len(path) >= 2 else start
        if not blocking(state, unit, back):
            unit.second = back  # C-4.7: stretched along its line of movement
    ctx.emit(for_team(unit.team, "moved", unit=unit.id, path=[list(c) for c in path], used=round(unit.used, 3)))
    enforce_stacking(ctx, unit.cells())


def corps_tail(state: CampaignState, unit: Unit, cell: Cell) -> Unit | None:
    """C-4.7 [L2]: a corps in a defile stretches into one 1×2, 1×3 or 1×4 card for its 1, 2 or 3 divisions, not a
    1×2 card per division. So a division of a corps whose card is laid (C-4.9) may march into the stretched tail
    of a division of its corps standing in a defile: the one ahead closes up on its head square and the newcomer
    takes the tail behind it (`_walk`), and so on down the column. This returns that division ahead, if `cell` is
    its tail."""
    if state.level < 2 or not unit.corps or f"{unit.team}:{unit.corps}" not in state.corps_cards:
        return None
    for other in state.units_at(cell):
        if (other is not unit and other.team == unit.team and other.corps == unit.corps and other.second == cell
                and not other.wide and other.status != MARCH):  # stretched along its line in the defile's column
            return other
    return None


def _is_defile(state: CampaignState, cell: Cell) -> bool:
    """C-4.7: bridges, passes and tracks in forest, mountains or swamps."""
    gm = state.map
    return gm.is_bridge(cell) or gm.is_pass(cell) or (cell in gm.tracks and gm.terrain[cell] in DEFILE_TERRAIN)


def turn_cost(state: CampaignState, unit: Unit, facing: str) -> float | None:
    """C-4.3bis: the time a facing change takes; None where turning is impossible."""
    angle = turn_angle(unit.facing, facing)
    if angle == 0:
        return 0.0
    table = state.tables["turning_turns"]
    if angle % 90 and state.level < int(table["min_level_45"]):
        return None
    gm = state.map
    if unit.cell in gm.rivers or _is_defile(state, unit.cell):
        return None
    row = table[str(angle)]
    return float(row.get(gm.terrain[unit.cell], row["default"]))


def turn(ctx: Ctx, team: str, cmd: Turn) -> None:
    """C-4.3bis: 180° = 1 turn (hills 1.5, swamp 2); 90° = half (swamp 1); [L2] 45° = a quarter."""
    state = ctx.state
    unit = _acting_unit(ctx, team, cmd.unit)
    if state.level < 2 and cmd.facing not in ORTHOGONAL:
        ctx.fail(IllegalOrder("at level 1 counters face north, east, south or west", rule="C-4.3bis"))
    cost = turn_cost(state, unit, cmd.facing)
    if cost is None:
        ctx.fail(IllegalOrder(f"{unit.name} cannot turn here", rule="C-4.3bis"))
        return
    if unit.used + cost > 1 + EPS and not (cost > 1 - EPS and unit.used < EPS):
        ctx.fail(IllegalOrder(f"{unit.name} has not the time left to turn", rule="C-4.3bis"))
    unit.used += cost
    if unit.used > 1:
        unit.debt += unit.used - 1
        unit.used = 1.0
    unit.facing = cmd.facing
    if unit.wide:
        unit.second = shift(unit.cell, right_of(cmd.facing))
        if not state.map.is_land(unit.second) or blocking(state, unit, unit.second):
            unit.wide, unit.second = False, None
    ctx.emit(for_team(team, "turned", unit=unit.id, facing=unit.facing, used=round(unit.used, 3)))


def frontage(ctx: Ctx, team: str, cmd: Frontage) -> None:
    """C-4.6 [L2]: a division widens to a 1×2 card (or closes up) at 10 km a turn: one whole turn."""
    state = ctx.state
    unit = _acting_unit(ctx, team, cmd.unit, level=2, what="changing frontage", rule="C-4.6")
    if unit.used > EPS:
        ctx.fail(IllegalOrder(f"{unit.name} needs a whole turn to change its frontage", rule="C-4.6"))
    if cmd.wide:
        cell = shift(unit.cell, right_of(unit.facing))
        if not state.map.is_land(cell) or blocking(state, unit, cell):
            ctx.fail(IllegalOrder(f"no room at {label(cell)} to widen the front", rule="C-4.6"))
        cost, _ = step_cost(state, unit, unit.cell, cell)
        if cost is None:
            ctx.fail(IllegalOrder(f"{label(cell)} is impassable", rule="C-4.6"))
        unit.second, unit.wide = cell, True
    else:
        unit.second, unit.wide = None, False
    unit.used = float(state.tables["movement"]["frontage_turns"])
    ctx.emit(for_team(team, "frontage", unit=unit.id, width=2 if cmd.wide else 1))


def march(ctx: Ctx, team: str, cmd: March) -> None:
    """C-4.8 [L2]: a march along roads in space free of the enemy at 1.5× road speed, reckoned over the whole
    march; 0.5 turn to prepare, a 1×2 footprint, half rating in defence, no attacks, 0.5 day to recover."""
    state = ctx.state
    unit = _acting_unit(ctx, team, cmd.unit, level=2, what="the march", rule="C-4.8")
    if unit.used > EPS:
        ctx.fail(IllegalOrder(f"{unit.name} must begin a march at the start of its turn", rule="C-4.8"))
    gm = state.map
    pos = unit.cell
    for nxt in cmd.path:
        if not gm.on_road(pos, nxt) or _closed(state, nxt, "movement"):
            ctx.fail(IllegalOrder(f"{label(pos)}→{label(nxt)} is not an open road", rule="C-4.8"))
        if _enemy_near(state, unit.team, nxt):
            ctx.fail(IllegalOrder(f"the enemy is near {label(nxt)}: no march there", rule="C-4.8"))
        pos = nxt
    unit.status = MARCH
    unit.route = [list(c) for c in cmd.path]
    unit.used = float(state.tables["movement"]["march_prepare_turns"])
    ctx.emit(for_team(team, "march_ordered", unit=unit.id, path=[list(c) for c in cmd.path]))
    advance_march(ctx, unit)


def _enemy_near(state: CampaignState, team: str, cell: Cell) -> bool:
    return any(
        state.enemies(team, u.team) for c in [cell, *neighbours(cell)] for u in state.units_at(c)
    )


def advance_march(ctx: Ctx, unit: Unit) -> None:
    state = ctx.state
    speed = state.tables["speeds_km"]["road"][unit.arm] * float(state.tables["movement"]["march_factor"])
    budget_km = speed * (1 - unit.used)
    done: list[Cell] = []
    prev = unit.cell
    while unit.route and budget_km + EPS >= step_km(unit.cell, tuple(unit.route[0])):  # type: ignore[arg-type]
        nxt: Cell = (int(unit.route[0][0]), int(unit.route[0][1]))
        if blocking(state, unit, nxt) or _enemy_near(state, unit.team, nxt) or _closed(state, nxt, "movement"):
            unit.route = []
            ctx.emit(for_team(unit.team, "march_halted", unit=unit.id, at=list(unit.cell), rule="C-4.8"))
            break
        budget_km -= step_km(unit.cell, nxt)
        prev = unit.cell
        unit.cell = nxt
        unit.route.pop(0)
        done.append(nxt)
        enter_cell(ctx, unit, nxt)
        if not unit.alive:
            return
    unit.second = prev if done and not blocking(state, unit, prev) else unit.second
    unit.used = 1.0
    if done:
        ctx.emit(for_team(unit.team, "moved", unit=unit.id, path=[list(c) for c in done], march=True))
    if not unit.route:
        unit.status, unit.second = READY, None
        unit.debt += float(state.tables["movement"]["march_restore_turns"])
        ctx.emit(for_team(unit.team, "march_ended", unit=unit.id, at=list(unit.cell)))
    enforce_stacking(ctx, unit.cells())


def transfer(ctx: Ctx, team: str, cmd: Transfer) -> None:
    """C-4.5: transfer between cities — 2 turns plus 1 per transport node on the way, by road at level 1 and by
    rail from level 2; not combat-capable on the way, one turn to recover on arrival."""
    state = ctx.state
    unit = _acting_unit(ctx, team, cmd.unit)
    gm = state.map
    here = gm.place_at.get(unit.cell)
    dest = gm.places.get(cmd.to)
    cities = ("city", "capital")
    if here is None or here.kind not in cities:
        ctx.fail(IllegalOrder(f"{unit.name} is not in a city", rule="C-4.5"))
        return
    if dest is None or dest.kind not in cities or state.controller(dest.cell) != team:
        ctx.fail(IllegalOrder(f"{cmd.to!r} is not a city you hold", rule="C-4.5"))
        return
    if unit.used > EPS:
        ctx.fail(IllegalOrder(f"{unit.name} must begin a transfer at the start of its turn", rule="C-4.5"))
    rail = state.level >= 2
    route = _network_route(state, team, unit.cell, dest.cell, rail=rail)
    if route is None:
        ctx.fail(IllegalOrder(f"no open {'railway' if rail else 'road'} from {here.name} to {dest.name}",
                              rule="C-4.5"))
        return
    nodes = [c for c in route[1:-1] if gm.is_transport_node(c, rail=rail)]
    waypoints = [unit.cell, *nodes, dest.cell]
    unit.status = TRANSFER
    unit.route = [list(c) for c in waypoints[1:]]
    unit.used = 1.0
    unit.wide, unit.second = False, None
    turns = int(state.tables["movement"]["transfer_base_turns"]) + len(nodes)
    ctx.emit(for_team(team, "transfer_begun", unit=unit.id, to=dest.name, turns=turns, nodes=[list(c) for c in nodes]))


def _network_route(state: CampaignState, team: str, a: Cell, b: Cell, *, rail: bool) -> list[Cell] | None:
    gm = state.map
    net = gm.railways if rail else gm.roads
    prev: dict[Cell, Cell | None] = {a: None}
    queue = deque([a])
    while queue:
        cur = queue.popleft()
        if cur == b:
            path = [cur]
            while prev[path[-1]] is not None:
                path.append(prev[path[-1]])  # type: ignore[arg-type]
            return path[::-1]
        for nxt in sorted(net.get(cur, frozenset())):
            if nxt in prev or _closed(state, nxt, "transfer") or state.controller(nxt) != team:
                continue
            prev[nxt] = cur
            queue.append(nxt)
    return None


def advance_transfer(ctx: Ctx, unit: Unit) -> None:
    """C-4.5: at the end of each of its turns a transfer moves on to its next node."""
    if not unit.route:
        return
    nxt: Cell = (int(unit.route[0][0]), int(unit.route[0][1]))
    unit.route.pop(0)
    unit.cell = nxt
    ctx.emit(for_team(unit.team, "transfer_moved", unit=unit.id, at=list(nxt)))
    if not unit.route:
        arrive(ctx, unit)
    else:
        trigger_interdiction(ctx, unit, nxt)


def arrive(ctx: Ctx, unit: Unit) -> None:
    state = ctx.state
    unit.route = []
    unit.status = RESTORING
    unit.status_until = state.turn + int(state.tables["movement"]["transfer_restore_turns"]) - 1
    ctx.emit(for_team(unit.team, "transfer_ended", unit=unit.id, at=list(unit.cell), rule="C-4.5"))
    enforce_stacking(ctx, [unit.cell])


def split(ctx: Ctx, team: str, cmd: Split) -> None:
    """C-4.9/C-4.10 [L2]: a division breaks up into regiment counters in its cell (at most five a cell)."""
    state = ctx.state
    unit = _acting_unit(ctx, team, cmd.unit, level=2, what="splitting into regiments", rule="C-4.10")
    if unit.is_regiment or len(unit.regiments) < 2:
        ctx.fail(IllegalOrder(f"{unit.name} has no regiments to split", rule="C-4.10"))
    cells = unit.cells()
    parts = [r for r in unit.regiments if not state.tables["regiments"].get(r[0], {}).get("element")]
    extra = [r for r in unit.regiments if r not in parts]
    per_cell = int(state.tables["movement"]["max_regiments_per_cell"])
    if len(parts) > per_cell * len(cells):
        ctx.fail(IllegalOrder("too many regiments for the cells the division holds", rule="C-4.12"))
    made = []
    for i, reg in enumerate(parts):
        regs = [reg, *(extra if i == 0 else [])]
        rid = state.next_id(unit.id)
        value = round(sum(float(v) for _, v in regs) * (1 - unit.carry / max(unit.full_rating, EPS)), 3)
        state.units[rid] = Unit(
            id=rid, name=f"{unit.name}/{i + 1} {reg[0]}", team=team,
            arm=str(state.tables["regiment_arms"][reg[0]]), cell=cells[i % len(cells)], facing=unit.facing,
            regiments=[list(r) for r in regs], rating=value, full_rating=value, army=unit.army, corps=unit.corps,
            cover=unit.cover, used=unit.used, parent=unit.id,
        )
        made.append(rid)
    del state.units[unit.id]
    ctx.emit(for_team(team, "split", unit=cmd.unit, regiments=made, rule="C-4.10"))


def merge(ctx: Ctx, team: str, cmd: Merge) -> None:
    """C-4.10 [L2]: regiments within a 1×2 rectangle form a division in 2 turns; two or more weakened divisions
    whose strength together is 1 to 1.5 divisions merge into one in 3 turns."""
    state = ctx.state
    if state.level < 2:
        ctx.fail(IllegalOrder("combining is a level-2 rule", rule="C-4.10"))
    units = [ctx.own_unit(team, u) for u in dict.fromkeys(cmd.units)]
    if len(units) < 2:
        ctx.fail(IllegalOrder("name at least two counters to combine", rule="C-4.10"))
    for u in units:
        _check_common(ctx, u)
    cells = sorted({c for u in units for c in u.cells()})
    if len(cells) > 2 or (len(cells) == 2 and abs(cells[0][0] - cells[1][0]) + abs(cells[0][1] - cells[1][1]) != 1):
        ctx.fail(IllegalOrder("the counters must lie within one 1×2 rectangle", rule="C-4.10"))
    mv = state.tables["movement"]
    first = units[0]
    if all(u.is_regiment for u in units):
        arm = state.units[first.parent].arm if first.parent in state.units else _main_arm(state, units)
        turns = int(mv["combine_regiments_turns"])
    elif not any(u.is_regiment for u in units) and len({u.arm for u in units}) == 1:
        total = sum(u.rating for u in units)
        full = first.full_rating
        if not (full - EPS <= total <= 1.5 * full + EPS):
            ctx.fail(IllegalOrder("merged divisions must make one to one and a half divisions", rule="C-4.10"))
        arm = first.arm
        turns = int(mv["combine_divisions_turns"])
    else:
        ctx.fail(IllegalOrder("combine regiments, or divisions of one arm", rule="C-4.10"))
        return
    regs = [r for u in units for r in u.regiments]
    rating = round(sum(u.rating for u in units), 2)
    nid = state.next_id(f"{team[0]}-{arm}")
    division = Unit(
        id=nid, name=f"{first.name.split('/')[0]} (combined)", team=team, arm=arm, cell=first.cell,
        facing=first.facing, regiments=regs, rating=rating,
        full_rating=max(rating, round(sum(float(v) for _, v in regs), 2)), army=first.army, corps=first.corps,
        cover=first.cover, used=1.0, debt=float(turns - 1),
    )
    for u in units:
        del state.units[u.id]
    state.units[nid] = division
    ctx.emit(for_team(team, "merged", units=[u.id for u in units], into=nid, turns=turns, rule="C-4.10"))


def _main_arm(state: CampaignState, units: list[Unit]) -> str:
    counts: dict[str, int] = {}
    for u in units:
        counts[u.arm] = counts.get(u.arm, 0) + 1
    return max(sorted(counts), key=lambda a: counts[a])


def side_by_side(units: list[Unit], first: Unit) -> list[Unit]:
    """The units of `units` linked to `first` through neighbouring cells (one corps card, C-4.7/C-4.10)."""
    linked = [first]
    while True:
        more = [u for u in units if u not in linked and any(is_adjacent(u.cell, v.cell) for v in linked)]
        if not more:
            return linked
        linked += more


def break_up_corps(ctx: Ctx, team: str) -> None:
    """C-4.9 [L2], at the start of the team's turn: a corps whose divisions stand side by side has its card laid
    (C-4.7); afterwards divisions that can no longer be placed on it (not side by side with the corps' main body —
    the largest linked group, the first by id on a tie) lose corps subordination. A corps drawn up in planning
    over a wider front (C-5.3) is a label until its card is first laid (our decision)."""
    state = ctx.state
    if state.level < 2:
        return
    by_corps: dict[str, list[Unit]] = {}
    for u in sorted(state.alive_units(team), key=lambda u: u.id):
        if u.corps and is_division(state.tables, u) and u.status != TRANSFER:
            by_corps.setdefault(u.corps, []).append(u)
    for name, members in sorted(by_corps.items()):
        body = max((side_by_side(members, m) for m in members), key=len)
        key = f"{team}:{name}"
        if len(body) == len(members):
            if key not in state.corps_cards:
                state.corps_cards.append(key)
            continue
        if key not in state.corps_cards:
            continue
        for u in members:
            if u not in body:
                u.corps = None
                ctx.emit(for_team(team, "corps_left", unit=u.id, corps=name, rule="C-4.9"))


def corps(ctx: Ctx, team: str, cmd: Corps) -> None:
    """C-5.3 while planning, C-4.10 [L2] in operations: divisions side by side form a corps (a corps card holds
    up to three, C-4.7); in operations it takes 3 turns."""
    state = ctx.state
    planning = state.phase == "planning"
    if not planning and state.level < 2:
        ctx.fail(IllegalOrder("combining divisions into a corps during the war is a level-2 rule", rule="C-4.10"))
    units = [ctx.own_unit(team, u) for u in dict.fromkeys(cmd.units)]
    if not 1 <= len(units) <= 3 or not all(is_division(state.tables, u) for u in units):
        ctx.fail(IllegalOrder("a corps is one to three divisions", rule="C-4.7"))
    if not planning:
        for u in units:
            _check_common(ctx, u)
        if len(side_by_side(units, units[0])) != len(units):
            ctx.fail(IllegalOrder("the divisions of a corps must stand side by side", rule="C-4.10"))
    turns = int(state.tables["movement"]["combine_divisions_turns"])
    for u in units:
        u.corps = cmd.name
        if not planning:
            u.used, u.debt = 1.0, u.debt + turns - 1
    ctx.emit(for_team(team, "corps_formed", name=cmd.name, units=[u.id for u in units],
                      turns=0 if planning else turns, rule="C-4.10" if not planning else "C-5.3"))


def reassign(ctx: Ctx, team: str, cmd: Reassign) -> None:
    """C-4.11 [L3]: a regiment passes to another division: 1 turn out of the old subordination, then 1 turn to
    be incorporated (the march between them is an ordinary march or move)."""
    state = ctx.state
    if state.level < 3:
        ctx.fail(IllegalOrder("transfer of subordination is a level-3 rule", rule="C-4.11"))
    reg = ctx.own_unit(team, cmd.regiment)
    div = ctx.own_unit(team, cmd.to)
    _check_common(ctx, reg)
    if not reg.is_regiment or div.is_regiment:
        ctx.fail(IllegalOrder("hand a regiment to a division", rule="C-4.11"))
    if not any(c == d or is_adjacent(c, d) for c in reg.cells() for d in div.cells()):
        ctx.fail(IllegalOrder(f"{reg.name} must first reach {div.name}", rule="C-4.11"))
    div.regiments.extend(reg.regiments)
    div.rating = round(div.rating + reg.rating, 2)
    div.full_rating = round(div.full_rating + reg.full_rating, 2)
    div.debt += float(state.tables["movement"]["subordination_turns"]) * 2 - 1
    div.used = 1.0
    del state.units[reg.id]
    ctx.emit(for_team(team, "reassigned", regiment=cmd.regiment, to=div.id, rule="C-4.11"))


def begin_turn(ctx: Ctx, team: str) -> None:
    """A team's new turn: time debts come due, regrouping and recovery end, transfers and marches move on."""
    state = ctx.state
    for unit in sorted(state.alive_units(team), key=lambda u: u.id):
        unit.fought = unit.struck = False
        unit.pursuit = 0.0
        if unit.status in (REGROUPING, RESTORING) and state.turn > unit.status_until:
            if unit.status == REGROUPING and not _sort_out(ctx, unit):
                unit.status_until = state.turn
            else:
                unit.status = READY
        unit.used = min(1.0, unit.debt)
        unit.debt = max(0.0, unit.debt - 1.0)
        if unit.status == REGROUPING:
            unit.used = 1.0
        if unit.status == TRANSFER:
            advance_transfer(ctx, unit)
        elif unit.status == MARCH:
            advance_march(ctx, unit)
    break_up_corps(ctx, team)
    ctx.emit(public("turn_begun", team=team, turn=state.turn))


def _sort_out(ctx: Ctx, unit: Unit) -> bool:
    """C-4.12: regrouping over, counters still sharing a cell where the rules forbid it are sorted out: this one
    goes to the nearest free cell it can stand on (our decision). False if there is none (it regroups on)."""
    state = ctx.state
    clashes = [c for c in unit.cells()
               if blocking(state, unit, c) and not stack_allowed(state, [*blocking(state, unit, c), unit])]
    if not clashes:
        return True
    others = [o for c in clashes for o in blocking(state, unit, c)]
    if all(o.status == REGROUPING for o in others) and min(o.id for o in others) > unit.id:
        return True  # the first of them stays; the others move off
    if clashes == [unit.second]:
        unit.second, unit.wide = None, False  # only its wide front overlaps: it closes up
        ctx.emit(for_team(unit.team, "sorted_out", unit=unit.id, at=list(unit.cell), rule="C-4.12"))
        return True
    cell = nearest_free(state, unit.team, unit.cell, unit, own_only=False)
    if cell is None:
        return False
    unit.cell, unit.second, unit.wide = cell, None, False
    ctx.emit(for_team(unit.team, "sorted_out", unit=unit.id, at=list(cell), rule="C-4.12"))
    return True


def nearest_free(state: CampaignState, team: str, cell: Cell, unit: Unit, *, own_only: bool = True) -> Cell | None:
    """The nearest land cell (held by `team`, with `own_only`) where `unit` may stand free of other counters and
    of the enemy's territory (used for arrivals, mobilization and sorting out)."""
    speeds = state.tables["speeds_km"]
    seen = {cell}
    queue = deque([cell])
    while queue:
        cur = queue.popleft()
        holder = state.controller(cur)
        if (state.map.is_land(cur) and not blocking(state, unit, cur)
                and (holder == team if own_only else not (holder and state.enemies(team, holder)))
                and isinstance(speeds[state.map.terrain[cur]][unit.arm], (int, float))):
            return cur
        for nxt in neighbours(cur):
            if nxt not in seen and state.map.contains(nxt) and len(seen) < 400:
                seen.add(nxt)
                queue.append(nxt)
    return None
