"""Losses and the fall of units (N-LOSSES-1, N-LOSSES-2, N-ART-8, N-MORALE-3, N-MORALE-6).

A loss unit takes one point of loss tolerance from infantry and cavalry (destroyed at 0) and one gun from a
company (destroyed when no gun is left). When a unit falls — destroyed, dispersed or surrendered — every enemy in
contact with it gains +1 morale (N-MORALE-3); its melees end.
"""

from __future__ import annotations

from collections.abc import Iterable

from .log import Log
from .morale import change_morale, loss_factors
from .state import DESTROYED, BattleState, Unit
from .units import ARTILLERY


def apply_losses(state: BattleState, log: Log, unit: Unit, amount: int, cause: str, by: Unit | None,
                 rule: str) -> None:
    if amount <= 0 or not unit.on_field:
        return
    if unit.arm == ARTILLERY:
        taken = min(amount, unit.guns)
        unit.guns -= taken
        left = unit.guns
    else:
        taken = min(amount, unit.loss_tolerance)
        unit.loss_tolerance -= taken
        left = unit.loss_tolerance
    unit.losses += taken
    unit.lost_this_turn = True
    if by is not None:
        by.inflicted_this_turn = True
    log.emit("losses", unit=unit.id, amount=taken, cause=cause, by=by.id if by else None, left=left, rule=rule)
    if left <= 0:
        fall(state, log, unit, DESTROYED, [by] if by is not None else [],
             rule="N-LOSSES-2" if unit.arm == ARTILLERY else "N-LOSSES-1")
    else:
        loss_factors(log, unit)


def melee_partners(state: BattleState, unit: Unit) -> list[Unit]:
    return [state.units[m.other(unit.id)] for k, m in state.melees.items() if unit.id in k]


def fall(state: BattleState, log: Log, unit: Unit, status: str, contacts: Iterable[Unit], rule: str,
         taken_by: str | None = None) -> None:
    """Take `unit` off the field as destroyed, dispersed or surrendered; enemies in contact gain +1 morale."""
    if not unit.on_field:
        return
    partners = {u.id: u for u in melee_partners(state, unit)}
    partners.update({u.id: u for u in contacts if u.side != unit.side})
    state.lift(unit)
    unit.status = status
    for key in [k for k in state.melees if unit.id in k]:
        del state.melees[key]
    log.emit("fallen", unit=unit.id, status=status, rule=rule, taken_by=taken_by)
    for p in partners.values():
        if p.on_field:
            change_morale(log, p, 1, f"enemy in contact {status}", "N-MORALE-3")
