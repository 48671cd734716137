"""Walls, ladders, the ditch and the fortress guns during the storm (N-SIEGE-10 … N-SIEGE-13, D-N-15).

- Wall (and fort) cells are entered only by the climb (D-N-15): a move, wheel or formation change may not bring a
  unit onto wall cells unless it stood wholly on the wall before (walking along the wall, or stepping down from it).
- The climb (N-SIEGE-10): 3 speed points; the formation goes straight ahead onto the wall, as far as it stands wholly
  on free wall cells (so a garrison regiment climbing from inside ends on the parapet facing out, a stormer from the
  ditch ends as far in as it can get). Only infantry climbs; it must have the wall right before its front rank.
- Ladders (N-SIEGE-13, D-N-15): a besieging infantry unit whose order brings its front rank against the wall stops
  there, sets up its ladders and ends its move for the turn; it climbs on a later turn; the turn it climbs it can do
  nothing more, and it moves on from the turn after. A unit already at the wall's foot may move along it; it sets its
  ladders up again where it stops (climbing the turn after). The garrison climbs by its own stairs, with no ladder
  turn.
- The ditch (N-SIEGE-12) is the `ditch` terrain, whose `ends_move` the battle engine obeys: entering the ditch ends
  the unit's move for the turn; a unit already in it moves along it or out of it freely.
- Fortress guns (N-SIEGE-11) fire only while a friendly unit (any arm, the gun positions apart) stands on their wall
  section; otherwise they are `silent` for the resolution.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from server.core.errors import IllegalOrder
from server.napoleonic.battle.footprint import DIRECTIONS, Cell, footprint, front_rank
from server.napoleonic.battle.log import Log
from server.napoleonic.battle.melee import make_contact
from server.napoleonic.battle.movement import complete_carried
from server.napoleonic.battle.state import BattleState, Unit
from server.napoleonic.battle.units import INFANTRY, formation_of

from .rules import CLIMB_COST
from .siege_map import SiegeField

MAX_CLIMB = 8


def cells_at(unit: Unit, anchor: Cell, facing: int | None = None, formation: str | None = None) -> tuple[Cell, ...]:
    form = formation_of(unit.arm, formation or unit.formation)
    return footprint(anchor, form.width, form.depth, unit.facing if facing is None else facing)


def wholly_on_wall(field: SiegeField, cells: Iterable[Cell]) -> bool:
    return all(field.is_wall(x, y) for x, y in cells)


def at_wall(field: SiegeField, unit: Unit, anchor: Cell | None = None, facing: int | None = None) -> bool:
    """The wall is right before the whole front rank, and the unit is not on it (N-SIEGE-13: "reaching the walls")."""
    f = unit.facing if facing is None else facing
    a = unit.anchor if anchor is None else anchor
    if any(field.is_wall(x, y) for x, y in cells_at(unit, a, f)):
        return False
    dx, dy = DIRECTIONS[f]
    return all(field.is_wall(x + dx, y + dy) for x, y in front_rank(a, unit.form.width, f))


def check_steps(field: SiegeField, unit: Unit, footprints: Iterable[tuple[Cell, ...]]) -> None:
    """D-N-15: a step may bring a unit onto wall cells only if it stood wholly on the wall before the step."""
    before = unit.cells
    for after in footprints:
        if not wholly_on_wall(field, before):
            new = [c for c in after if field.is_wall(*c) and c not in before]
            if new:
                raise IllegalOrder("the wall is entered only by climbing it (3 points, at a ladder for the "
                                   "besieger)", rule="N-SIEGE-10", details={"unit": unit.id, "cell": list(new[0])})
        before = after


def eventual_cells(state: BattleState, uid: str) -> tuple[Cell, ...]:
    """Where a unit will stand once its order is done — also an order carried into the next turn (D-N-10), tried
    out on a copy so that a wheel onto the wall is refused now, not silently carried out next turn."""
    unit = state.units[uid]
    if unit.busy is None:
        return unit.cells
    trial = state.copy()
    carried = trial.units[uid]
    carried.points = float("inf")
    complete_carried(trial, Log(trial), carried)
    return carried.cells


def path_footprints(unit: Unit, path: Iterable[Cell]) -> list[tuple[Cell, ...]]:
    return [cells_at(unit, c) for c in path]


def stop_at_wall(field: SiegeField, unit: Unit, path: tuple[Cell, ...]) -> tuple[Cell, ...]:
    """N-SIEGE-13: a besieging infantry unit's move ends where its front rank reaches the wall — a step from a place
    not at the wall to one at it; a unit already at the wall's foot moves along it (and sets its ladders up again
    where it stops)."""
    was = at_wall(field, unit)
    for i, anchor in enumerate(path):
        now = at_wall(field, unit, anchor)
        if now and not was:
            return path[: i + 1]
        was = now
    return path


def climb_target(state: BattleState, field: SiegeField, unit: Unit) -> Cell | None:
    """The farthest anchor straight ahead at which the formation stands wholly on free wall cells (N-SIEGE-10).
    Climbing troops make their way past guns and comrades on the wall, so only the place they end on must be free."""
    dx, dy = DIRECTIONS[unit.facing]
    best: Cell | None = None
    for k in range(1, MAX_CLIMB + 1):
        anchor = (unit.x + k * dx, unit.y + k * dy)
        cells = cells_at(unit, anchor)
        if not wholly_on_wall(field, cells):
            if best is not None or not any(field.is_wall(x, y) for x, y in cells):
                break
            continue
        try:
            state.place_check(unit, anchor[0], anchor[1], unit.facing, unit.formation)
        except IllegalOrder:
            continue
        best = anchor
    return best


def climb(state: BattleState, field: SiegeField, log: Log, unit: Unit, *, besieger: bool,
          ladders: Mapping[str, int]) -> None:
    """N-SIEGE-10, N-SIEGE-13: climb onto the wall for 3 points; a besieger needs ladders set up on an earlier turn
    and can do nothing more this turn."""
    if unit.arm != INFANTRY:
        raise IllegalOrder("only infantry climbs the walls", rule="N-SIEGE-10", details={"unit": unit.id})
    if any(unit.id in k for k in state.melees):
        raise IllegalOrder("a unit in melee cannot climb", rule="N-MELEE-3", details={"unit": unit.id})
    if not at_wall(field, unit):
        raise IllegalOrder("the wall must be right before the unit's front rank", rule="N-SIEGE-10",
                           details={"unit": unit.id})
    if besieger:
        set_on = ladders.get(unit.id)
        if set_on is None or set_on >= state.turn:
            raise IllegalOrder("ladders are set up on the turn the unit reaches the wall; it climbs on a later turn",
                               rule="N-SIEGE-13", details={"unit": unit.id, "ladders": set_on, "turn": state.turn})
    if unit.points + 1e-9 < CLIMB_COST:
        raise IllegalOrder("climbing onto the wall costs 3 speed points", rule="N-SIEGE-10",
                           details={"unit": unit.id, "points": unit.points})
    target = climb_target(state, field, unit)
    if target is None:
        raise IllegalOrder("the formation finds no free stretch of wall to stand on", rule="N-SIEGE-10",
                           details={"unit": unit.id, "formation": unit.formation})
    state.lift(unit)
    unit.x, unit.y = target
    state.put(unit)
    unit.points = 0.0 if besieger else unit.points - CLIMB_COST
    log.emit("climbed", unit=unit.id, to=[unit.x, unit.y], cost=CLIMB_COST, points=unit.points,
             section=field.section_at(unit.cells[0]), rule="N-SIEGE-13" if besieger else "N-SIEGE-10")
    make_contact(state, log, unit)


def man_the_guns(state: BattleState, field: SiegeField, guns: Mapping[str, str], log: Log) -> None:
    """N-SIEGE-11: a fortress gun may fire only while a friendly unit — of any arm; the gun positions themselves do
    not count — stands on its wall section."""
    held: dict[str, set[str]] = {}
    for u in state.field_units():
        if u.id in guns:
            continue
        for c in u.cells:
            section = field.section_at(c)
            if section is not None:
                held.setdefault(section, set()).add(u.side)
    for gid, section in guns.items():
        gun = state.units[gid]
        if not gun.on_field:
            continue
        formation = "deployed" if gun.side in held.get(section, set()) else "silent"
        if gun.formation != formation:
            gun.formation = formation
            gun.formations_this_turn = (formation,)
            log.emit("fortress_gun", unit=gid, section=section, manned=formation == "deployed", rule="N-SIEGE-11")
