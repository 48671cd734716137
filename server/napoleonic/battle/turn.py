"""The turn sequence of D-N-1 and reinforcements (N-START-4 … N-START-6, D-N-12).

A turn: the first side's order phase, the other side's, then the resolution, simultaneous for both sides:
(1) musket, canister and round-shot fire; (2) melee; (3) morale factors of the turn, then dispersal rolls;
(4) dispersed units leave the field — or surrender when in contact (N-MORALE-6, N-MORALE-8); (5) reinforcement
rolls; (6) victory check. Turn 1: the attacker acts first; from turn 2 both roll a d6, higher first, ties reroll.
"""

from __future__ import annotations

from .artillery import barrage_countdown
from .deployment import FACING_TOWARDS_ENEMY, find_place
from .fire import able_to_fire, reach, resolve_fire, zone_touches
from .formation import effective_morale, speed
from .log import Log
from .losses import fall, melee_partners
from .melee import resolve_melee
from .morale import dispersal_check, streaks
from .movement import complete_carried
from .state import DISPERSED, ON_FIELD, RESERVE, SURRENDERED, BattleState, Reinforcement, Unit
from .units import ARTILLERY, INFANTRY
from .victory import check_end

REINFORCEMENT_FROM_TURN = 4
REINFORCEMENT_CHANCE = {4: 1, 5: 2}
"""N-START-5: on turn 4 a 1/6 chance, on turn 5 1/3, from turn 6 1/2 (D-N-12: one turn later per extra cell)."""
REINFORCEMENT_LATER = 3
ENTRY_ROWS = 12
"""Our reading of D-N-12 "from the edge": arriving units come on within the first 12 rows from it."""


def begin_turn(state: BattleState, log: Log) -> None:
    for u in state.field_units():
        _refresh(state, u)
    for m in state.melees.values():  # D-N-9: a melee going on is a contact in its sector this turn too
        if m.struck in state.units and m.sector:
            struck = state.units[m.struck]
            struck.attacked_from = struck.attacked_from | {m.sector}
    for u in list(state.field_units()):
        if u.busy is not None:
            complete_carried(state, log, u)
    arrivals(state, log)
    if state.turn == 1:
        attacker = next(s.name for s in state.sides.values() if s.attacker)
        state.order = (attacker, state.enemy_of(attacker))
    else:
        a, b = sorted(state.sides)
        while True:
            ra = log.die("initiative", side=a, rule="D-N-1")
            rb = log.die("initiative", side=b, rule="D-N-1")
            if ra != rb:
                break
        state.order = (a, b) if ra > rb else (b, a)
    state.phase = 0
    log.emit("battle_turn", turn=state.turn, order=list(state.order), rule="D-N-1")


def _refresh(state: BattleState, u: Unit) -> None:
    u.formations_this_turn = (u.formation,)
    u.points = float(speed(state, u))
    u.attacked_from = frozenset()
    u.march_extra_paid = False
    u.road_used = False
    u.halted = ""
    u.lost_this_turn = False
    u.inflicted_this_turn = False


def arrivals(state: BattleState, log: Log) -> None:
    """D-N-12: a reinforcement that rolled its arrival comes on in march column from the edge facing its campaign
    cell, as far as places are free under the side's limit (N-START-6); the rest wait. Units held back by the limit
    come on the same way, in their own formation (in the group's rows, if it names them)."""
    for group in state.reinforcements:
        if group.status != "coming" or state.sides[group.side].retreat_turn is not None:
            continue
        on_field, limit = state.counted(group.side), state.limit(group.side)
        for uid in group.units:
            u = state.units[uid]
            if u.status != RESERVE or (on_field >= limit and u.type.in_field_limit):
                continue
            facing = FACING_TOWARDS_ENEMY[group.edge]
            place = find_place(state, u, group.edge, facing, _entry_rows(group, u), zone=False)
            if place is None:
                continue
            u.facing = facing
            u.x, u.y = place
            u.status = ON_FIELD
            state.put(u)
            _refresh(state, u)
            u.morale_mark = effective_morale(u)
            on_field += u.type.in_field_limit
            log.emit("arrived", unit=uid, group=group.group, at=[u.x, u.y], facing=facing,
                     rule="N-START-6" if group.held_back else "N-START-4")
        if all(state.units[uid].status != RESERVE for uid in group.units):
            group.status = "arrived"


def _entry_rows(group: Reinforcement, unit: Unit) -> range:
    if group.rows is None:
        return range(unit.form.depth - 1, ENTRY_ROWS)
    first, last = group.rows
    step = 1 if last >= first else -1
    return range(first, last + step, step)


def reinforcement_rolls(state: BattleState, log: Log) -> None:
    """N-START-5: from turn 4 each waiting army rolls; a success brings it on next turn."""
    for group in state.reinforcements:
        if group.status != "waiting" or state.sides[group.side].retreat_turn is not None:
            continue
        turn = state.turn - (group.distance - 1)
        if turn < REINFORCEMENT_FROM_TURN:
            continue
        need = REINFORCEMENT_CHANCE.get(turn, REINFORCEMENT_LATER)
        ok, _ = log.roll("reinforcement", need, None, side=group.side, group=group.group, rule="N-START-5")
        if ok:
            group.status = "coming"


def in_contact(state: BattleState, unit: Unit) -> list[Unit]:
    """N-MORALE-8: melee partners, and enemy infantry that have the unit inside their fire zone — regiments able to
    fire at it (not in march column, not in melee, N-INF-7 timing), as for fire itself."""
    out = melee_partners(state, unit)
    cells = set(unit.cells)
    for e in state.field_units():
        if e.side != unit.side and e.arm == INFANTRY and able_to_fire(state, e) \
                and zone_touches(state, e, cells, reach(state, e)):
            out.append(e)
    return out


def resolve(state: BattleState, log: Log) -> None:
    log.emit("resolution", turn=state.turn, rule="D-N-1")
    resolve_fire(state, log)
    resolve_melee(state, log)
    broken = []
    for u in list(state.field_units()):
        if u.arm == ARTILLERY:
            continue
        streaks(log, u)
        if dispersal_check(log, u):
            broken.append(u)
    for u in broken:
        contact = in_contact(state, u)
        if contact:
            fall(state, log, u, SURRENDERED, contact, rule="N-MORALE-6", taken_by=state.enemy_of(u.side))
        else:
            fall(state, log, u, DISPERSED, [], rule="N-MORALE-5")
    barrage_countdown(state, log)
    reinforcement_rolls(state, log)
    check_end(state, log)
    if state.result is None:
        state.turn += 1
        begin_turn(state, log)
