"""A counter's legal options in the Continental War now (issue 14): the answer to the `options` request for a
campaign room of this ruleset.

Without a unit: the team's counters that may move now. With one: the cells it can reach this turn by the
quickest path, in fractions of the turn (D-C-1), judged step by step by the code the move order runs — the same
preconditions (`movement._check_common`: combat operations, not a fortress, not regrouping, not on a transfer or
march, time left, C-1.5, C-3.6, C-4.12, C-4.5, C-4.3), the same price (`movement.step_cost`: Table 4, rivers,
withdrawal at level 3, C-4.3, C-4.4, C-T4), the pursuit's forward-only rule (C-9.8a), a cell held by the enemy
(C-4.12: attack it, C-9.8), a wide front's room (C-4.6) and the stacking at the end (C-4.12) — so every march
offered is carried out in full when ordered at once (tests/continental/test_options.py). The enemy counters are
those the team sees (C-1.3); one out of sight may still stop a march.
"""

from __future__ import annotations

import heapq
from typing import Any

from server.core.errors import IllegalOrder, NotYourTurn, RuleError

from .context import Ctx, Dropped
from .fog import visible_units
from .forces import Unit
from .grid import Cell, direction, label, neighbours, right_of, shift, turn_angle
from .movement import EPS, _check_common, blocking, corps_tail, stack_allowed, step_cost
from .state import OPERATIONS, CampaignState


def refusal(order: str, err: RuleError) -> dict[str, Any]:
    return {"order": order, "code": err.code, "rule": err.rule, "message": err.message}


def options(state: CampaignState, viewer: str, unit_id: str | None) -> dict[str, Any]:
    team = viewer[5:] if viewer.startswith("team:") else None
    out: dict[str, Any] = {"unit": unit_id, "side": team or "", "active": False, "refused": [], "armies": [],
                           "points": None, "marches": [], "orders": []}
    why: RuleError | None = None
    if team is None or team not in state.player_teams:
        why = NotYourTurn("only a team's players give orders", rule="C-1.2")
    elif team in state.defeated:
        why = NotYourTurn(f"{team} is out of the war", rule="C-10.1")
    elif state.phase != OPERATIONS:
        why = IllegalOrder("troops move only in combat operations; deploy them while planning", rule="C-1.5")
    elif team not in state.order.active:
        why = NotYourTurn(f"it is {', '.join(sorted(state.order.active))}'s turn", rule="C-1.7")
    if why is not None or team is None:
        out["refused"].append(refusal("*", why or NotYourTurn("no team", rule="C-1.2")))
        return out
    ctx = Ctx(state.copy(), silent=False)
    if unit_id is None:
        out["active"] = True
        out["armies"] = [u.id for u in sorted(state.alive_units(team), key=lambda u: u.id) if _may_move(ctx, u)]
        out["orders"] = ["move"]
        return out
    try:
        unit = ctx.own_unit(team, unit_id)
        _check_common(ctx, unit, pursuing=unit.pursuit > EPS)
    except (RuleError, Dropped) as err:
        out["refused"].append(refusal("*", err if isinstance(err, RuleError) else IllegalOrder(str(err))))
        return out
    out["active"] = True
    out["orders"] = ["move"]
    pursuing = unit.pursuit > EPS
    out["points"] = round(1 - unit.pursuit if pursuing else 1 - unit.used, 3)
    enemies = {state.units[i].cell for i in visible_units(state, team) if state.enemies(team, state.units[i].team)}
    out["marches"] = marches(state, unit, enemies)
    if not out["marches"]:
        out["refused"].append(refusal("move", IllegalOrder(f"{unit.name} can reach no cell this turn",
                                                           rule="C-4.3")))
    return out


def _may_move(ctx: Ctx, unit: Unit) -> bool:
    try:
        _check_common(ctx, unit, pursuing=unit.pursuit > EPS)
    except (RuleError, Dropped):
        return False
    return True


def marches(state: CampaignState, unit: Unit, enemies: set[Cell]) -> list[dict[str, Any]]:
    """Every cell the unit reaches in full this turn, by the path using the least of the turn; `enemies` the
    cells of the enemy counters the team sees (the others are not known to stop it)."""
    seen = set(visible_units(state, unit.team))
    hidden = {u.cell for u in state.units.values() if u.alive and u.team != unit.team and u.id not in seen}
    pursuing = unit.pursuit > EPS
    used0 = 1 - unit.pursuit if pursuing else unit.used
    start = unit.cell
    best: dict[Cell, float] = {start: used0}
    came: dict[Cell, Cell] = {}
    ways: dict[Cell, str] = {}
    heap: list[tuple[float, Cell]] = [(used0, start)]
    while heap:
        used, here = heapq.heappop(heap)
        if used > best.get(here, float("inf")) + EPS:
            continue
        for nxt in sorted(neighbours(here)):
            if pursuing and turn_angle(unit.facing, direction(here, nxt)) > 90:
                continue
            cost, way = step_cost(state, unit, here, nxt)
            if cost is None:
                continue
            if used + cost > 1 + EPS and not (cost > 1 - EPS and used < EPS):
                continue
            if nxt in enemies or not _room_for_front(state, unit, nxt, enemies):
                continue
            total = used + cost
            if total < best.get(nxt, float("inf")) - EPS:
                best[nxt], came[nxt], ways[nxt] = total, here, way
                heapq.heappush(heap, (total, nxt))
    out = []
    for cell in sorted(best, key=lambda c: (c[1], c[0])):
        if cell == start:
            continue
        others = [o for o in blocking(state, unit, cell) if o is not corps_tail(state, unit, cell)
                  and (o.team == unit.team or o.cell not in hidden)]
        if others and not stack_allowed(state, [*others, unit]):
            continue  # C-4.12: it may pass, not stop there
        path = [cell]
        while (back := came[path[-1]]) != start:
            path.append(back)
        out.append({"to": list(cell), "path": [list(c) for c in reversed(path)],
                    "cost": round(best[cell] - used0, 3), "note": f"{label(cell)} · {ways[cell]}"})
    return out


def _room_for_front(state: CampaignState, unit: Unit, nxt: Cell, enemies: set[Cell]) -> bool:
    """C-4.6 (`movement._second_after`): a wide front's second cell, right of its facing, is land and holds no
    enemy the team sees."""
    if not unit.wide:
        return True
    cell = shift(nxt, right_of(unit.facing))
    return state.map.is_land(cell) and cell not in enemies
