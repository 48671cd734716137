"""Contact and melee (N-MELEE-1 … N-MELEE-3, N-ART-1, N-CHARGE-1, N-MORALE-2/3; D-N-5, D-N-6).

D-N-6: units are in melee contact when their footprints touch (diagonally too) after one of them moved into touch;
each touching pair fights its own melee. Artillery touched by enemy infantry or cavalry is destroyed at once, its
guns taken (N-ART-1).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from .footprint import NEIGHBOURS, Cell, contact_sector
from .formation import melee_value
from .log import Log
from .losses import apply_losses, fall
from .morale import attacked, change_morale
from .state import DESTROYED, BattleState, Melee, Unit, melee_key
from .units import ARTILLERY

MELEE_TABLE = {0: (1, 1), 1: (1, 2), 2: (1, 3)}
"""N-MELEE-1: value difference (capped at 2) → (losses of the higher side, losses of the other side)."""
MORALE_EVERY = 2
"""N-MELEE-2: −1 morale for every two turns in melee."""


def _enemies_beside(state: BattleState, unit: Unit, cells: Iterable[Cell]) -> Iterator[Unit]:
    """Enemy units on the cells around `cells` (repeats included), as the occupancy grid shows them (D-N-6)."""
    m, occ, w, units, by_num = state.map, state.occ, state.map.width, state.units, state.by_num
    for x, y in cells:
        for dx, dy in NEIGHBOURS:
            nx, ny = x + dx, y + dy
            if 0 <= nx < m.width and 0 <= ny < m.height:
                n = occ[ny * w + nx]
                if n and n != unit.num:
                    other = units[by_num[n]]
                    if other.side != unit.side:
                        yield other


def touching_enemies(state: BattleState, unit: Unit) -> list[Unit]:
    """D-N-6: the enemies touching the unit, in unit-number order."""
    seen = {e.num: e for e in _enemies_beside(state, unit, unit.cells)}
    return [seen[n] for n in sorted(seen)]


def touching_at(state: BattleState, unit: Unit, cells: Iterable[Cell]) -> list[str]:
    """D-N-6: the enemies the unit would touch standing on `cells`, in unit-number order (for planning a path)."""
    seen = {e.num: e.id for e in _enemies_beside(state, unit, cells)}
    return [seen[n] for n in sorted(seen)]


def would_touch_enemy(state: BattleState, unit: Unit, cells: Iterable[Cell]) -> bool:
    """Whether the unit standing on `cells` would touch an enemy (for planning a path)."""
    return any(True for _ in _enemies_beside(state, unit, cells))


def make_contact(state: BattleState, log: Log, mover: Unit, charge: int = 0) -> list[Unit]:
    """`mover` has come into touch: overrun guns (N-ART-1), open a melee with every other enemy it touches, and
    apply the flank/rear/cavalry morale factors of the moment of attack (N-MORALE-2/3), the sector read from the
    enemy's cells the mover touches (D-N-5)."""
    engaged: list[Unit] = []
    for enemy in touching_enemies(state, mover):
        if enemy.arm == ARTILLERY or mover.arm == ARTILLERY:
            if enemy.arm == ARTILLERY and mover.arm != ARTILLERY:
                log.emit("overrun", unit=enemy.id, by=mover.id, guns=enemy.guns, rule="N-ART-1")
                fall(state, log, enemy, DESTROYED, [mover], rule="N-ART-1", taken_by=mover.side)
            elif mover.arm == ARTILLERY and enemy.arm != ARTILLERY:
                log.emit("overrun", unit=mover.id, by=enemy.id, guns=mover.guns, rule="N-ART-1")
                fall(state, log, mover, DESTROYED, [enemy], rule="N-ART-1", taken_by=enemy.side)
                return engaged
            continue
        key = melee_key(mover.id, enemy.id)
        if key in state.melees:
            continue
        form = enemy.form
        where = contact_sector(enemy.anchor, form.width, form.depth, enemy.facing, mover.cells)
        state.melees[key] = Melee(key[0], key[1], state.turn, charge={mover.id: charge} if charge else {},
                                  struck=enemy.id, sector=where)
        log.emit("contact", unit=mover.id, enemy=enemy.id, sector=where, charge=charge, rule="D-N-6")
        attacked(log, enemy, mover, where)
        engaged.append(enemy)
    return engaged


def resolve_melee(state: BattleState, log: Log) -> None:
    """Step 2 of the resolution (D-N-1): every melee pair fights one round by N-MELEE-1; losses land together;
    then −1 morale for every two turns a unit has been fighting (N-MELEE-2)."""
    hits: list[tuple[Unit, int, Unit]] = []
    engaged: dict[str, Unit] = {}
    for key, m in list(state.melees.items()):
        a, b = state.units[m.a], state.units[m.b]
        if not (a.on_field and b.on_field):
            del state.melees[key]
            continue
        va = melee_value(a) + (m.charge.get(a.id, 0) if m.rounds == 0 else 0)
        vb = melee_value(b) + (m.charge.get(b.id, 0) if m.rounds == 0 else 0)
        high, low = MELEE_TABLE[min(abs(va - vb), 2)]
        la, lb = (high, low) if va >= vb else (low, high)
        m.rounds += 1
        log.emit("melee", a=a.id, b=b.id, values=[va, vb], losses=[la, lb], round=m.rounds, rule="N-MELEE-1")
        hits.append((a, la, b))
        hits.append((b, lb, a))
        engaged[a.id], engaged[b.id] = a, b
    for unit, amount, by in hits:
        apply_losses(state, log, unit, amount, "melee", by, "N-MELEE-1")
    for unit in state.units.values():
        if unit.id in engaged and unit.on_field:
            unit.melee_turns += 1
            if unit.melee_turns % MORALE_EVERY == 0:
                change_morale(log, unit, -1, "two more turns in melee", "N-MELEE-2")
        elif unit.id not in engaged:
            unit.melee_turns = 0
