"""Projections of the battle per viewer class (DESIGN: hidden information is a projection).

Moderator and spectators see everything. Without hidden information every viewer does too. With it (the campaign
plays hidden), a side sees its own units in full and, of the enemy, only units in line of sight of one of its own
(D-N-7: woods, settlements and higher ground between block sight; units do not hide units from view); a "public"
viewer (a player in the secret module) sees the field and the turn but no units.
"""

from __future__ import annotations

from dataclasses import fields
from functools import cache
from typing import Any

from server.core.engine import MODERATOR, SPECTATOR

from .footprint import Cell, line_between
from .formation import effective_morale
from .movement import ABOUT_FACE_COST
from .state import ON_FIELD, BattleState, Unit
from .terrain import TERRAIN
from .units import (
    CANISTER_RANGE,
    CHARGE_RUN,
    CLOSE_RANGE,
    FORMATIONS,
    HILL_RANGE_BONUS,
    HIT_TABLES,
    UNIT_TYPES,
    change_cost,
)


def unit_view(state: BattleState, u: Unit, full: bool) -> dict[str, Any]:
    """A unit as a viewer sees it; `full` (own units, or everything) adds its values and this turn's state:
    `move_ended` is the rule that ended its move this turn (N-SIEGE-12 ditch, N-SIEGE-13 ladders), else null."""
    out: dict[str, Any] = {"id": u.id, "side": u.side, "type": u.kind, "status": u.status, "x": u.x, "y": u.y,
                           "facing": u.facing, "formation": u.formation,
                           "cells": [list(c) for c in u.cells] if u.status == ON_FIELD else []}
    if full:
        out.update(morale=effective_morale(u) if u.arm != "artillery" else None, base_morale=u.morale,
                   loss_tolerance=u.loss_tolerance, guns=u.guns, accuracy=u.accuracy, points=u.points,
                   busy=u.busy, targets=[list(t) for t in u.targets], barrage_turns=u.barrage_turns,
                   losses=u.losses, move_ended=u.halted or None,
                   fire_ruling={"targets": dict(u.fire_shares), "turns": u.fire_shares_turns} if u.fire_shares
                   else None)
    return out


def sees(state: BattleState, eyes: list[Unit], target: Unit) -> bool:
    m = state.map
    cover, elev, w = m.cover, m.elevation, m.width
    marks: list[Cell] = [target.cells[0], target.cells[len(target.cells) // 2]]
    for own in eyes:
        for src in (own.cells[0], own.cells[len(own.cells) // 2]):
            for dst in marks:
                top = max(elev[src[1] * w + src[0]], elev[dst[1] * w + dst[0]])
                blocked = False
                for dx, dy in line_between(dst[0] - src[0], dst[1] - src[1]):
                    i = (src[1] + dy) * w + src[0] + dx
                    if TERRAIN[cover[i]].blocks_sight or elev[i] > top:
                        blocked = True
                        break
                if not blocked:
                    return True
    return False


@cache
def characteristics(kinds: frozenset[str]) -> dict[str, Any]:
    """What a player needs to know of the units on this field (issue 14), from the rules' own tables: per unit
    type its base values (N-INF-1, N-CAV-2, N-ART-2: firepower, range, melee, charge, speed, morale, loss
    tolerance, guns, accuracy, formations), per formation of their arms its footprint and effects (N-INF-2 … 5,
    N-CAV-4/5, N-ART-4/5: bonuses, whether it moves, fires, turns — wheel costs of 45° and 90° — or about-faces),
    the costs of a formation change (N-INF-6, N-CAV-3, N-ART-3) and the ranges of the fire rules."""
    types = {k: UNIT_TYPES[k] for k in sorted(kinds)}
    arms = {t.arm for t in types.values()}
    return {
        "unit_types": {k: {f.name: _plain(getattr(t, f.name)) for f in fields(t) if f.name != "name"}
                       for k, t in types.items()},
        "formations": [{f.name: _plain(getattr(form, f.name)) for f in fields(form)}
                       for form in FORMATIONS.values() if form.arm in arms],
        "formation_change_cost": {arm: {f"{a}>{b}": change_cost(arm, a, b) for (x, a) in FORMATIONS
                                        for (y, b) in FORMATIONS if x == y == arm and a != b} for arm in sorted(arms)},
        "about_face_cost": ABOUT_FACE_COST, "canister_range": CANISTER_RANGE, "close_range": CLOSE_RANGE,
        "charge_run": CHARGE_RUN, "hill_range_bonus": dict(HILL_RANGE_BONUS),
        "hit_tables": {name: {"bands": list(t.bands), "sixths": {str(a): list(v) for a, v in t.sixths.items()}}
                       for name, t in HIT_TABLES.items()},
    }


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def view_of(state: BattleState, viewer: str) -> dict[str, Any]:
    everything = viewer in (MODERATOR, SPECTATOR) or not state.hidden
    team = viewer[5:] if viewer.startswith("team:") else None
    base: dict[str, Any] = {
        "kind": "battle", "map": state.map.dump(), "turn": state.turn, "turn_limit": state.turn_limit,
        "order": list(state.order), "phase": state.phase, "active": state.active_side,
        "sides": [s.dump() for s in state.sides.values()], "result": state.result, "hidden": state.hidden,
        # a side of a hidden battle is told every type's values, not which types the field holds: those of the
        # enemy units it cannot see would give them away (D-N-7; the AI's fairness test, tests/rooms/test_ai_seats.py)
        "characteristics": characteristics(frozenset(u.kind for u in state.units.values()) if everything
                                           else frozenset(UNIT_TYPES)),
    }
    if everything:
        base["units"] = [unit_view(state, u, True) for u in state.units.values()]
        base["melees"] = [m.dump() for m in state.melees.values()]
        base["reinforcements"] = [r.dump() for r in state.reinforcements]
        return base
    if team is None or team not in state.sides:
        base["units"], base["melees"], base["reinforcements"] = [], [], []
        return base
    eyes = list(state.field_units(team))
    units = [unit_view(state, u, True) for u in state.units.values() if u.side == team]
    visible = {u.id for u in state.field_units() if u.side != team and sees(state, eyes, u)}
    units += [unit_view(state, u, False) for u in state.units.values() if u.id in visible]
    base["units"] = units
    base["melees"] = [m.dump() for m in state.melees.values()
                      if state.units[m.a].side == team or state.units[m.b].side == team]
    base["reinforcements"] = [r.dump() for r in state.reinforcements if r.side == team]
    return base
