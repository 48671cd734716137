"""A unit's values as its formation makes them, with the timing of N-INF-7 (D-N-9, D-N-10).

N-INF-7: a bonus that a formation change loses is lost on this turn; one it gains arrives on the next turn; a faster
formation's speed counts at once and a slower one's speed loss waits until next turn. So, within a turn, a unit has
the *lowest* firepower, melee and morale bonus of the formations it has held since the turn began, and can fire only
if every one of them could fire (N-INF-8 example 2) — except guns, which fire on the turn they unlimber (N-ART-4).
"""

from __future__ import annotations

from .state import BattleState, Unit
from .units import ARTILLERY, UNIT_TYPES, formation_of

RETREAT_SPEED = 2
"""N-VICTORY-2: a retreat order gives every unit of the army +2 speed."""


def _held(unit: Unit) -> list[tuple[int, int, int, bool]]:
    arm = UNIT_TYPES[unit.kind].arm
    out = []
    for name in unit.formations_this_turn or (unit.formation,):
        f = formation_of(arm, name)
        out.append((f.firepower, f.melee, f.morale, f.fires))
    return out


def firepower(unit: Unit) -> int:
    """N-INF-1 base + the formation's firepower bonus (N-INF-2), lost at once, gained next turn (N-INF-7 c, d)."""
    return unit.type.firepower + min(h[0] for h in _held(unit))


def melee_value(unit: Unit) -> int:
    return unit.type.melee + min(h[1] for h in _held(unit))


def morale_bonus(unit: Unit) -> int:
    """D-N-9: the attack column's +2 and the square's +1 belong to the formation, with the timing of N-INF-7."""
    if unit.arm == ARTILLERY:
        return 0
    return min(h[2] for h in _held(unit))


def effective_morale(unit: Unit) -> int:
    return unit.morale + morale_bonus(unit)


def can_fire(unit: Unit) -> bool:
    """N-FIRE-1, N-INF-5, N-ART-4/5; N-INF-8 example 2: a march column that forms line fires only next turn."""
    form = unit.form
    if not form.fires:
        return False
    if form.fires_same_turn:
        return True
    return all(h[3] for h in _held(unit))


def speed(state: BattleState, unit: Unit, formation: str | None = None) -> int:
    """Base speed + the formation's speed bonus (N-INF-3/5, N-CAV-5) + the retreat order's +2 (N-VICTORY-2).
    A formation that cannot move still has its points for wheels and formation changes."""
    f = formation_of(unit.arm, formation or unit.formation)
    side = state.sides[unit.side]
    return unit.type.speed + f.speed + (RETREAT_SPEED if side.retreat_turn is not None else 0)
