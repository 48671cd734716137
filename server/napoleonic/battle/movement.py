"""Orders that move a unit: move along a path, charge, wheel, about-face, change formation, leave melee
(N-INF-2 … N-INF-10, N-CAV-3 … N-CAV-5, N-ART-3 … N-ART-5, N-TERRAIN-2 … N-TERRAIN-6, N-CHARGE-1, N-MELEE-3;
D-GEN-2, D-N-4, D-N-6, D-N-10, D-N-11).

Each function validates and executes at once on the working copy of the state (D-N-1) and raises a typed rule error
otherwise. Movement is counted from the anchor, the left end of the front rank (N-INF-9). A step costs 1, a diagonal
1.5 (D-GEN-2), scaled by the slowest ground the formation stands on after the step: a terrain that reduces a unit's
speed from S to T makes each step cost S/T (N-TERRAIN-2/3/5: "infantry speed reduced to 2" — two cells a turn).

Ground that ends a move (`TerrainKind.ends_move`, the siege's ditch, N-SIEGE-12) ends it when an order brings the
unit onto it from ground with none of it — a step of a move, or a wheel, about-face or formation change that swings
part of the formation onto it. The unit is then `halted`: no more moves this turn; its remaining points still pay
for orders that do not move it along a path. A unit already on such ground moves along it or out of it as on any
other ground.
"""

from __future__ import annotations

from typing import Any

from server.core.errors import BadOrder, IllegalOrder

from .fire import Entered, crossing_amount, fire_on_the_move, in_melee, watch_distance, zone_watchers
from .footprint import DIRECTIONS, Cell, anchor_for_pivot, pivot_cell, step_cost
from .formation import speed
from .log import Log
from .melee import make_contact, touching_enemies
from .morale import change_morale
from .state import BattleState, Unit
from .terrain import TERRAIN, TerrainKind
from .units import ARTILLERY, CAVALRY, CHARGE_RUN, change_cost, formation_of

EPS = 1e-9
HILL_STEP = 1
"""N-TERRAIN-4 with D-N-10: −1 speed once per move that climbs, +1 once per move that descends."""
ROAD_BONUS = 2
"""N-TERRAIN-6: +2 speed in march column (artillery limbered) when the whole move is along the road (D-N-10)."""
ROAD_FORMATIONS = ("march_column", "limbered")
ABOUT_FACE_COST = 1
"""N-INF-10."""


def _rule_for(unit: Unit) -> str:
    return {"infantry": "N-INF-6", "cavalry": "N-CAV-3", "artillery": "N-ART-3"}[unit.arm]


def terrain_factors(state: BattleState, unit: Unit) -> list[float]:
    """Cost multiplier of a step per terrain code for this unit now (N-TERRAIN-2/3/5)."""
    s = speed(state, unit)
    out = []
    for kind in TERRAIN:
        cap = kind.speed_cap.get(unit.kind, kind.speed_cap.get(unit.arm))
        t = s + kind.speed_delta.get(unit.kind, kind.speed_delta.get("*", 0))
        if cap is not None:
            t = min(t, cap)
        out.append(s / t if t > 0 and s > 0 else float("inf"))
    return out


def front_top(state: BattleState, unit: Unit, x: int, y: int) -> int:
    m = state.map
    lx, ly = DIRECTIONS[(unit.facing + 2) % 8]
    return max(m.height_at(x + i * lx, y + i * ly) for i in range(unit.form.width))


def entered_halting_ground(state: BattleState, before: tuple[Cell, ...] | set[Cell],
                           after: tuple[Cell, ...]) -> TerrainKind | None:
    """The ground that ends a move (N-SIEGE-12) which `after` stands on and `before` did not, if any."""
    cover, w = state.map.cover, state.map.width
    had = {cover[y * w + x] for x, y in before if TERRAIN[cover[y * w + x]].ends_move}
    for x, y in after:
        code = cover[y * w + x]
        if code not in had and TERRAIN[code].ends_move:
            return TERRAIN[code]
    return None


def end_move(log: Log, unit: Unit, rule: str, **why: Any) -> None:
    """The unit's move is over for this turn (N-SIEGE-12 entering the ditch, N-SIEGE-13 reaching the wall)."""
    unit.halted = rule
    log.emit("move_ended", unit=unit.id, **why, rule=rule)


def on_road(state: BattleState, unit: Unit, x: int, y: int) -> bool:
    m = state.map
    lx, ly = DIRECTIONS[(unit.facing + 2) % 8]
    return any(m.kind(x + i * lx, y + i * ly).is_road for i in range(unit.form.width))


def check_movable(state: BattleState, unit: Unit, *, leaving: bool = False, charge: bool = False) -> None:
    """Whether the unit may move along a path now at all (before its path is judged): a formation that moves
    (N-ART-4, N-INF-4), a move not ended this turn (N-SIEGE-12/13), not in melee unless leaving it (N-MELEE-3), a
    charge only by cavalry (N-CHARGE-1). Raises the refusal."""
    if not unit.form.moves or not unit.type.can_move:
        rule = "N-ART-4" if unit.arm == "artillery" else "N-INF-4"
        raise IllegalOrder(CANNOT_MOVE.get(unit.formation, "this unit cannot move") if unit.type.can_move
                           else "a fortress gun cannot move", rule=rule,
                           details={"unit": unit.id, "formation": unit.formation})
    if unit.halted:
        raise IllegalOrder("the unit's move has ended for this turn", rule=unit.halted, details={"unit": unit.id})
    if not leaving and in_melee(state, unit):
        raise IllegalOrder("a unit in melee moves only by leaving it", rule="N-MELEE-3", details={"unit": unit.id})
    if charge and unit.arm != CAVALRY:
        raise IllegalOrder("only cavalry charges", rule="N-CHARGE-1", details={"unit": unit.id})


Slope = tuple[int, bool, bool]
"""The front rank's height before a step, and whether this move has climbed and descended yet (N-TERRAIN-4)."""


def step_price(state: BattleState, unit: Unit, factors: list[float], before: set[Cell] | tuple[Cell, ...],
               cells: tuple[Cell, ...], to: Cell, step: Cell, slope: Slope) -> tuple[float, int, bool, bool]:
    """The points one step of a move costs (D-GEN-2 scaled by the slowest ground, N-TERRAIN-2/3/5; the cost of
    entering ground, N-SIEGE; a hill once per move, N-TERRAIN-4) from footprint `before` to `cells` (anchor `to`),
    and the slope after it. The one price of a step: `move` pays it, the options (options.py) plan with it."""
    cover, w = state.map.cover, state.map.width
    top, climbed, descended = slope
    cost = step_cost(*step) * max(factors[cover[py * w + px]] for px, py in cells)
    cost += max((TERRAIN[cover[py * w + px]].enter_cost for px, py in cells if (px, py) not in before),
                default=0.0)
    new_top = front_top(state, unit, *to)
    if new_top > top and not climbed:
        cost += HILL_STEP
        climbed = True
    elif new_top < top and not descended:
        cost -= HILL_STEP
        descended = True
    return cost, new_top, climbed, descended


def road_move(state: BattleState, unit: Unit, path: tuple[Cell, ...]) -> bool:
    """N-TERRAIN-6: the move earns the road's +2 (march column or limbered, once a turn, the whole move along the
    road from where it starts)."""
    return (unit.form.name in ROAD_FORMATIONS and not unit.road_used and on_road(state, unit, unit.x, unit.y)
            and all(state.map.on_map(cx, cy) and on_road(state, unit, cx, cy) for cx, cy in path))


CANNOT_MOVE = {"deployed": "a deployed battery cannot move: limber it first",
               "square": "a square cannot move: form line or column first"}
"""Why a formation that does not move refuses a move (N-ART-4, N-INF-4), said as a player would."""


def move(state: BattleState, log: Log, unit: Unit, path: tuple[Cell, ...], *, charge: bool = False,
         leaving: tuple[Unit, ...] = ()) -> None:
    """Move the formation (facing unchanged) along `path`, paying speed points; stop at the first contact. Enemy
    zones the move enters fire on it at once (D-N-17: `fire.zone_watchers`), before the contact it ends in."""
    check_movable(state, unit, leaving=bool(leaving), charge=charge)
    x, y = unit.x, unit.y
    for cx, cy in path:
        if max(abs(cx - x), abs(cy - y)) != 1:
            raise BadOrder("each path cell must neighbour the one before", rule="D-GEN-2",
                           details={"unit": unit.id, "cell": [cx, cy]})
        x, y = cx, cy
    road = road_move(state, unit, path)
    available = unit.points + (ROAD_BONUS if road else 0)
    factors = terrain_factors(state, unit)
    watchers = zone_watchers(state, unit, path)
    entries: list[Entered] = []
    spent = 0.0
    climbed = descended = False
    top = front_top(state, unit, unit.x, unit.y)
    facing_step = DIRECTIONS[unit.facing]
    run = 0
    x, y = unit.x, unit.y
    taken = 0
    spent_by_step: list[float] = []
    contact = False
    halt: TerrainKind | None = None
    for cx, cy in path:
        before = set(unit.cells)
        cells = state.place_check(unit, cx, cy, unit.facing, unit.formation)
        dx, dy = cx - x, cy - y
        cost, top, climbed, descended = step_price(state, unit, factors, before, cells, (cx, cy), (dx, dy),
                                                   (top, climbed, descended))
        spent += cost
        if spent > available + EPS:
            raise IllegalOrder("not enough speed points for this path", rule="D-GEN-2",
                               details={"unit": unit.id, "needed": spent, "available": available})
        state.lift(unit)
        unit.x, unit.y = x, y = cx, cy
        state.put(unit)
        taken += 1
        spent_by_step.append(spent)
        run = run + 1 if (dx, dy) == facing_step else 0
        for shooter in list(watchers):
            dist = watch_distance(state, shooter, unit)
            if dist is not None:
                watchers.remove(shooter)
                entries.append(Entered(taken, (cx, cy), shooter, dist))
        halt = entered_halting_ground(state, before, cells)
        if touching_enemies(state, unit):
            contact = True
            break
        if halt is not None:
            break
    if leaving:
        near = {e.id for e in touching_enemies(state, unit)}
        left = [p for p in leaving if p.id in near]
        if left:
            raise IllegalOrder("leaving a melee means moving at least one cell away", rule="D-N-6",
                               details={"unit": unit.id, "enemy": left[0].id})
    attacked = {e.id for e in touching_enemies(state, unit)} if contact else set()
    entries = [e for e in entries if e.shooter.arm == ARTILLERY or e.shooter.id in attacked]  # N-CHARGE-2
    entries, fatal = _until_destroyed(unit, entries)
    if fatal is not None and fatal.step < taken:  # D-N-17: destroyed where it entered the zone, short of the rest
        state.lift(unit)
        unit.x, unit.y = fatal.at
        state.put(unit)
        taken, spent, contact, halt = fatal.step, spent_by_step[fatal.step - 1], False, None
    unit.points = max(0.0, min(unit.points, available - spent))
    if road:
        unit.road_used = True
    stopped = "fire" if fatal is not None else "contact" if contact and taken < len(path) else None
    log.emit("moved", unit=unit.id, to=[unit.x, unit.y], steps=taken, spent=spent, points=unit.points, road=road,
             stopped=stopped)
    if halt is not None and fatal is None:
        end_move(log, unit, halt.rule, terrain=halt.name)
    fire_on_the_move(state, log, unit, entries)
    if not unit.on_field:
        return
    if leaving:
        _left_melee(state, log, unit, leaving)
    bonus = 0
    if charge:
        if not contact:
            raise IllegalOrder("a charge must end in contact with the enemy", rule="N-CHARGE-1",
                               details={"unit": unit.id})
        bonus = charge_bonus(state, log, unit, run)
    make_contact(state, log, unit, bonus)


def _until_destroyed(unit: Unit, entries: list[Entered]) -> tuple[list[Entered], Entered | None]:
    """The zone entries that fire, in path order, up to the one whose losses destroy the mover (returned second):
    the zones beyond it are never reached."""
    left = unit.guns if unit.arm == ARTILLERY else unit.loss_tolerance
    out = []
    for entry in sorted(entries, key=lambda e: (e.step, e.shooter.num)):
        out.append(entry)
        left -= crossing_amount(entry.shooter)[0]
        if left <= 0:
            return out, entry
    return out, None


def charge_bonus(state: BattleState, log: Log, unit: Unit, run: int) -> int:
    """N-CHARGE-1, D-N-11: +charge on the first melee turn after ≥4 cells straight ahead ending in contact; none in
    march column (N-CAV-5) or in a settlement (N-TERRAIN-5)."""
    m = state.map
    if unit.form.no_charge:
        reason, rule = "no charge in march column", "N-CAV-5"
    elif any(m.kind(x, y).no_charge for x, y in unit.cells):
        reason, rule = "no charge in a settlement", "N-TERRAIN-5"
    elif run < CHARGE_RUN:
        reason, rule = f"only {run} cells straight ahead", "N-CHARGE-1"
    else:
        log.emit("charge", unit=unit.id, bonus=unit.type.charge, run=run, rule="N-CHARGE-1")
        return unit.type.charge
    log.emit("charge", unit=unit.id, bonus=0, run=run, reason=reason, rule=rule)
    return 0


def leave_melee(state: BattleState, log: Log, unit: Unit, path: tuple[Cell, ...]) -> None:
    """N-MELEE-3: a unit may leave a melee from the turn after it began, moving at least a cell away (D-N-6)."""
    mine = [m for k, m in state.melees.items() if unit.id in k]
    if not mine:
        raise IllegalOrder("the unit is not in melee", rule="N-MELEE-3", details={"unit": unit.id})
    if any(m.since >= state.turn for m in mine):
        raise IllegalOrder("a unit that entered melee can leave it only on the next turn", rule="N-MELEE-3",
                           details={"unit": unit.id})
    move(state, log, unit, path, leaving=tuple(state.units[m.other(unit.id)] for m in mine))


def _left_melee(state: BattleState, log: Log, unit: Unit, partners: tuple[Unit, ...]) -> None:
    """N-MELEE-2: the side that first leaves a melee loses 1 morale, the opponent gains 1."""
    for p in partners:
        state.melees.pop((unit.id, p.id) if unit.id < p.id else (p.id, unit.id), None)
        log.emit("left_melee", unit=unit.id, enemy=p.id, rule="N-MELEE-2")
        change_morale(log, unit, -1, "first to leave the melee", "N-MELEE-2")
        change_morale(log, p, 1, "the enemy left the melee first", "N-MELEE-2")


def pay(log: Log, unit: Unit, cost: float, order: dict[str, Any]) -> bool:
    """Spend `cost` points now, or (D-N-10) carry an order that costs more than the points left into the next
    turn, the unit doing nothing else. True when the order is to be executed now."""
    if cost <= unit.points + EPS:
        unit.points -= cost
        return True
    unit.busy = {"order": order, "owed": cost - unit.points}
    log.emit("order_carried", unit=unit.id, order=order, owed=cost - unit.points, rule="D-N-10")
    unit.points = 0.0
    return False


def _reposition(state: BattleState, log: Log, unit: Unit, x: int, y: int, facing: int, formation: str) -> None:
    cells = state.place_check(unit, x, y, facing, formation)
    halt = entered_halting_ground(state, unit.cells, cells)
    state.lift(unit)
    unit.x, unit.y, unit.facing, unit.formation = x, y, facing, formation
    state.put(unit)
    if halt is not None:
        end_move(log, unit, halt.rule, terrain=halt.name)
    make_contact(state, log, unit)


def wheel_target(unit: Unit, eighths: int) -> tuple[int, int, int]:
    """Anchor and facing after a wheel: it turns about the middle cell of the front rank (footprint.pivot_cell)."""
    width = unit.form.width
    facing = (unit.facing + eighths) % 8
    x, y = anchor_for_pivot(pivot_cell(unit.anchor, width, unit.facing), width, facing)
    return x, y, facing


def formation_target(unit: Unit, formation: str) -> tuple[int, int]:
    """Anchor after a formation change: the middle cell of the front rank stays where it is."""
    new = formation_of(unit.arm, formation)
    return anchor_for_pivot(pivot_cell(unit.anchor, unit.form.width, unit.facing), new.width, unit.facing)


def about_face_target(unit: Unit) -> tuple[int, int, int]:
    """Anchor and facing after an about-face: the rear rank becomes the front rank (N-INF-10)."""
    form = unit.form
    lx, ly = DIRECTIONS[(unit.facing + 2) % 8]
    fx, fy = DIRECTIONS[unit.facing]
    x = unit.x + (form.width - 1) * lx - (form.depth - 1) * fx
    y = unit.y + (form.width - 1) * ly - (form.depth - 1) * fy
    return x, y, (unit.facing + 4) % 8


_STATES = frozenset({"deployed", "limbered"})
"""Formations that are a gun's state, said as one ("a deployed unit"), not as a place ("a unit in square")."""


def _a_unit_in(formation: str) -> str:
    """A refusal's subject in plain words: "a deployed unit", "a unit in march column"."""
    return f"a {formation} unit" if formation in _STATES else f"a unit in {formation.replace('_', ' ')}"


def wheel(state: BattleState, log: Log, unit: Unit, eighths: int, *, paid: bool = False) -> None:
    """N-INF-2/3/5, N-CAV-4/5, N-ART-4/5: a wheel of 45° or 90° at the formation's cost; none in square
    (N-INF-4) or in melee (N-MELEE-3)."""
    form = unit.form
    if form.wheel is None:
        raise IllegalOrder(f"{_a_unit_in(unit.formation)} cannot turn", rule="N-INF-4", details={"unit": unit.id})
    if in_melee(state, unit):
        raise IllegalOrder("a unit in melee cannot turn", rule="N-MELEE-3", details={"unit": unit.id})
    x, y, facing = wheel_target(unit, eighths)
    state.place_check(unit, x, y, facing, unit.formation)
    cost = form.wheel[abs(eighths) - 1]
    if not paid and not pay(log, unit, cost, {"type": "wheel", "unit": unit.id, "degrees": 45 * eighths}):
        return
    log.emit("wheeled", unit=unit.id, degrees=45 * eighths, facing=facing, points=unit.points, rule="N-INF-10")
    _reposition(state, log, unit, x, y, facing, unit.formation)


def about_face(state: BattleState, log: Log, unit: Unit, *, paid: bool = False) -> None:
    """N-INF-10: reverse the front for 1 point, also in melee (N-MELEE-3); not deployed guns (N-ART-4). The rear
    rank becomes the front rank."""
    form = unit.form
    if not form.about_face:
        rule = "N-ART-4" if unit.arm == "artillery" else "N-INF-4"
        raise IllegalOrder(f"{_a_unit_in(unit.formation)} cannot about-face", rule=rule, details={"unit": unit.id})
    x, y, facing = about_face_target(unit)
    state.place_check(unit, x, y, facing, unit.formation)
    if not paid and not pay(log, unit, ABOUT_FACE_COST, {"type": "about_face", "unit": unit.id}):
        return
    log.emit("about_face", unit=unit.id, facing=facing, points=unit.points, rule="N-INF-10")
    _reposition(state, log, unit, x, y, facing, unit.formation)


def change_formation(state: BattleState, log: Log, unit: Unit, new: str, *, paid: bool = False) -> None:
    """N-INF-6 (2 to or from attack column, else 3), N-CAV-3 (2), N-ART-3 (2); bonus timing N-INF-7 (all arms,
    D-N-10); forming square loses the remaining points (N-INF-9). The middle of the front rank stays in place."""
    if new == unit.formation:
        raise BadOrder(f"the unit is already in {new}", rule=_rule_for(unit), details={"unit": unit.id})
    if new not in unit.type.formations:
        raise IllegalOrder(f"{unit.kind} has no formation {new!r}", rule=_rule_for(unit), details={"unit": unit.id})
    if in_melee(state, unit):
        raise IllegalOrder("a unit in melee cannot change formation", rule="N-MELEE-3", details={"unit": unit.id})
    old, nf = unit.form, formation_of(unit.arm, new)
    x, y = formation_target(unit, new)
    state.place_check(unit, x, y, unit.facing, new)
    cost = change_cost(unit.arm, unit.formation, new)
    if not paid and not pay(log, unit, cost, {"type": "formation", "unit": unit.id, "formation": new}):
        return
    unit.points += max(0, nf.speed - old.speed)
    if nf.loses_points:
        unit.points = 0.0
    unit.formations_this_turn = (*unit.formations_this_turn, new)
    log.emit("formation", unit=unit.id, formation=new, cost=0 if paid else cost, points=unit.points,
             rule=_rule_for(unit))
    _reposition(state, log, unit, x, y, unit.facing, new)


def complete_carried(state: BattleState, log: Log, unit: Unit) -> None:
    """D-N-10: at the start of a turn a carried order is paid off first and, once paid, executed."""
    busy = unit.busy
    if busy is None:
        return
    owed = float(busy["owed"])
    if owed > unit.points + EPS:
        busy["owed"] = owed - unit.points
        unit.points = 0.0
        log.emit("order_carried", unit=unit.id, order=busy["order"], owed=busy["owed"], rule="D-N-10")
        return
    unit.points -= owed
    unit.busy = None
    order = busy["order"]
    try:
        if order["type"] == "wheel":
            wheel(state, log, unit, int(order["degrees"]) // 45, paid=True)
        elif order["type"] == "formation":
            change_formation(state, log, unit, str(order["formation"]), paid=True)
        elif order["type"] == "about_face":
            about_face(state, log, unit, paid=True)
    except (IllegalOrder, BadOrder) as err:
        log.emit("order_failed", unit=unit.id, order=order, reason=err.message, rule=err.rule)
