"""Artillery orders: round-shot targets and barrage fire (N-ART-7, N-BARRAGE-1; D-N-7).

Fire itself is resolved with the infantry's in fire.py (one zone geometry, one line of sight).
"""

from __future__ import annotations

from server.core.errors import BadOrder, IllegalOrder

from .fire import round_shot_distance
from .log import Log
from .losses import apply_losses
from .state import BattleState, Unit
from .units import ARTILLERY

BARRAGE_TURNS = 2
BARRAGE_GUNS_LOST = 2
"""N-BARRAGE-1: round-shot damage doubled for 2 turns; afterwards 2 guns out of action for the rest of the battle."""
MAX_TARGETS = 2
"""N-ART-7: each company may designate two targets (D-N-7: splitting its guns between them)."""


def designate(state: BattleState, log: Log, unit: Unit, targets: tuple[tuple[str, int], ...]) -> None:
    if unit.arm != ARTILLERY:
        raise IllegalOrder("only artillery designates round-shot targets", rule="N-ART-7", details={"unit": unit.id})
    if len(targets) > MAX_TARGETS or len({t for t, _ in targets}) != len(targets):
        raise BadOrder("at most two different targets", rule="N-ART-7", details={"unit": unit.id})
    if any(g < 1 for _, g in targets) or sum(g for _, g in targets) > unit.guns:
        raise IllegalOrder("guns aimed must be at least 1 each and no more than the guns in action",
                           rule="D-N-7", details={"unit": unit.id, "guns": unit.guns})
    for tid, _ in targets:
        target = state.units.get(tid)
        if target is None or target.side == unit.side or not target.on_field:
            raise IllegalOrder(f"{tid!r} is not an enemy unit on the field", rule="N-ART-7",
                               details={"unit": unit.id, "target": tid})
        if unit.form.fires and round_shot_distance(state, unit, target) is None:
            raise IllegalOrder("the target is not in the company's zone at round-shot range, or out of sight",
                               rule="N-ART-7", details={"unit": unit.id, "target": tid})
    unit.targets = targets
    log.emit("targets", unit=unit.id, targets=[[t, g] for t, g in targets], rule="N-ART-7")


def barrage(state: BattleState, log: Log, unit: Unit) -> None:
    if unit.arm != ARTILLERY:
        raise IllegalOrder("only artillery fires a barrage", rule="N-BARRAGE-1", details={"unit": unit.id})
    if unit.barrage_used:
        raise IllegalOrder("this company has fired its barrage", rule="N-BARRAGE-1", details={"unit": unit.id})
    unit.barrage_used = True
    unit.barrage_turns = BARRAGE_TURNS
    log.emit("barrage", unit=unit.id, turns=BARRAGE_TURNS, rule="N-BARRAGE-1")


def barrage_countdown(state: BattleState, log: Log) -> None:
    """After each resolution: a barrage runs out after two turns, costing two guns (N-BARRAGE-1)."""
    for unit in list(state.field_units()):
        if unit.barrage_turns > 0:
            unit.barrage_turns -= 1
            if unit.barrage_turns == 0:
                log.emit("barrage_over", unit=unit.id, guns_lost=BARRAGE_GUNS_LOST, rule="N-BARRAGE-1")
                apply_losses(state, log, unit, BARRAGE_GUNS_LOST, "barrage", None, "N-BARRAGE-1")
