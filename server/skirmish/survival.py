"""The survival test and demoralisation (S-4 phase 4, S-7.3, D-S-12).

Each figure down rolls a d6: 1–3 out of action, 4–6 back in the fight. Then each unit that has lost half or more
of its starting figures rolls a d6, +1 if its commander is in action: 4 or more it holds (a demoralised unit that
holds has rallied); otherwise it is demoralised: it takes no order but to fall back a full move towards its own
edge, and fires only in random fire. Vehicles and units still held back in ambush take no test.
"""

from __future__ import annotations

from .hits import put_out
from .log import Log
from .state import DOWN, IN_ACTION, OUT, SkirmishState


def survival_test(s: SkirmishState, log: Log) -> None:
    st = s.settings
    down = sorted((f for f in s.figures.values() if f.status == DOWN), key=lambda f: f.index)
    log.emit("survival_test", None, turn=s.turn, down=len(down), rule="D-S-12")
    for f in down:
        aud = log.audience([f.id])
        face = log.die("survival", side=f.side, figure=f.id, unit=f.unit, audience=aud, need=st.survive_on)
        if face >= st.survive_on:
            f.status = IN_ACTION
            log.emit("figure_rallied", aud, figure=f.id, side=f.side, rule="D-S-12")
        else:
            put_out(s, log, f, "survival test", "D-S-12")
    num, den = st.morale_losses
    for unit in s.units.values():
        figures = [s.figures[i] for i in unit.members]
        if not figures or any(f.vehicle for f in figures) or not any(f.on_table for f in figures):
            continue
        lost = sum(1 for f in figures if f.status == OUT)
        if lost * den < unit.start * num:
            continue
        cmd = s.figures[unit.commander] if unit.commander else None
        bonus = st.morale_commander if cmd is not None and cmd.status == IN_ACTION else 0
        aud = log.audience([f.id for f in figures if f.on_table])
        face = log.die("morale", side=unit.side, unit=unit.id, audience=aud, need=st.morale_hold, bonus=bonus,
                       lost=lost, start=unit.start)
        holds = face + bonus >= st.morale_hold
        was = unit.demoralised
        unit.demoralised = not holds
        outcome = ("rallied" if was else "holds") if holds else ("still demoralised" if was else "demoralised")
        log.emit("morale", aud, unit=unit.id, side=unit.side, outcome=outcome, demoralised=unit.demoralised,
                 rule="D-S-12")
