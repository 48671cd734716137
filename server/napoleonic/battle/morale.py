"""Morale: the factors of N-MORALE-2/3 as they happen, and the dispersal rolls of N-MORALE-5 (D-N-9).

Artillery has no morale (D-N-11). Factors change the permanent track `unit.morale`; the formation bonus is added on
top (formation.effective_morale). Dispersal is rolled in step 3 of the resolution (D-N-1) against the lowest
effective morale reached since the last check: a roll when it first comes down to 2 (1/3) and when it comes down
to 1 (1/2), skipping past a threshold rolls only the lowest reached, 0 disperses; coming back above a threshold
and falling again rolls again.
"""

from __future__ import annotations

from .formation import effective_morale
from .log import Log
from .state import Unit
from .units import ARTILLERY, CAVALRY, INFANTRY

DISPERSAL = ((1, 3), (2, 2))
"""N-MORALE-5: (morale reached, chance in sixths): at 1 a 1/2 chance, at 2 a 1/3 chance; checked lowest first."""
STREAK = 3
"""N-MORALE-2/3: losses or inflicted losses three turns in a row (D-N-9: on the 3rd, 6th, … turn)."""


def change_morale(log: Log, unit: Unit, delta: int, reason: str, rule: str) -> None:
    if unit.arm == ARTILLERY or delta == 0:
        return
    unit.morale += delta
    log.emit("morale", unit=unit.id, delta=delta, morale=unit.morale, reason=reason, rule=rule)


def attacked(log: Log, target: Unit, attacker: Unit, where: str) -> None:
    """N-MORALE-2/3 at the moment of contact: flank or rear −1, the attacker +1; infantry attacked by cavalry −1.
    A march column (N-INF-5, N-CAV-5, D-N-9) pays 2 more — once a turn — only when attacked from the rear, or when
    this contact makes two or more sectors it is in contact from this turn (D-N-5); a single flank attack costs the
    ordinary −1. A square has no flanks and ignores all of it (D-N-9)."""
    tform = target.form
    if tform.all_round:
        return
    if where in ("flank", "rear"):
        change_morale(log, target, -1, f"attacked in the {where}", "N-MORALE-2")
        change_morale(log, attacker, 1, f"attacks the enemy's {where}", "N-MORALE-3")
    target.attacked_from = target.attacked_from | {where}
    if tform.flank_penalty_extra and not target.march_extra_paid and (
            where == "rear" or len(target.attacked_from) >= 2):
        target.march_extra_paid = True
        why = "from the rear" if where == "rear" else f"from {len(target.attacked_from)} sides"
        change_morale(log, target, -tform.flank_penalty_extra, f"march column attacked {why}",
                      "N-CAV-5" if target.arm == CAVALRY else "N-INF-5")
    if target.arm == INFANTRY and attacker.arm == CAVALRY:
        change_morale(log, target, -1, "infantry attacked by cavalry", "N-MORALE-2")


def loss_factors(log: Log, unit: Unit) -> None:
    """N-MORALE-2: half its loss tolerance left (rounded down) −1 once; 1 left −2 once more (D-N-9)."""
    if unit.arm == ARTILLERY:
        return
    full = unit.type.loss_tolerance
    if not unit.half_flag and unit.loss_tolerance <= full // 2:
        unit.half_flag = True
        change_morale(log, unit, -1, "half its loss tolerance left", "N-MORALE-2")
    if not unit.one_flag and unit.loss_tolerance == 1:
        unit.one_flag = True
        change_morale(log, unit, -2, "one point of loss tolerance left", "N-MORALE-2")


def streaks(log: Log, unit: Unit) -> None:
    """N-MORALE-2/3: losses (−1) or inflicted losses (+1) three turns in a row, on every 3rd consecutive turn."""
    unit.loss_streak = unit.loss_streak + 1 if unit.lost_this_turn else 0
    unit.inflict_streak = unit.inflict_streak + 1 if unit.inflicted_this_turn else 0
    if unit.loss_streak and unit.loss_streak % STREAK == 0:
        change_morale(log, unit, -1, "losses three turns in a row", "N-MORALE-2")
    if unit.inflict_streak and unit.inflict_streak % STREAK == 0:
        change_morale(log, unit, 1, "inflicted losses three turns in a row", "N-MORALE-3")


def dispersal_check(log: Log, unit: Unit) -> bool:
    """N-MORALE-5 with D-N-9. Returns True when the unit disperses."""
    if unit.arm == ARTILLERY:
        return False
    now, before = effective_morale(unit), unit.morale_mark
    unit.morale_mark = now
    if now <= 0:
        log.emit("dispersal", unit=unit.id, morale=now, rule="N-MORALE-5")
        return True
    for level, need in DISPERSAL:
        if now <= level < before:
            ok, _ = log.roll("dispersal", need, unit.id, morale=now, rule="N-MORALE-5")
            if ok:
                log.emit("dispersal", unit=unit.id, morale=now, rule="N-MORALE-5")
            return ok
    return False
