"""An army's legal options on the Napoleonic campaign map now (issue 14): the answer to the `options` request for a
campaign room, for the client's march previews, a bot's menu and the AI.

Without an army: the team's armies it may order now and the orders it may give. With an army: the cells it can
march to this turn by their cheapest path, priced by the code that prices the order (`movement.step_cost`, the
points the army has, D-NAP-1), ending where it meets an enemy army (N-START-1: a battle, or a siege at an enemy's
fortress, N-SIEGE-2) — so that every march offered is accepted when ordered at once
(tests/napoleonic/campaign/test_options.py). The enemy armies are those the team's view shows (C-1.3): an army
out of sight is not named, and a march may still meet one — the fog of war.
"""

from __future__ import annotations

import heapq
from typing import Any

from server.continental.grid import Cell, neighbours
from server.core.errors import IllegalOrder, NotYourTurn, NotYourUnit, RuleError

from . import sieges
from .movement import step_cost
from .records import Army
from .state import FROZEN, GONE, READY, NapoleonicState, cell_of
from .view import view_of

EPS = 1e-9
ARMY_ORDERS = ("move", "posture", "fortify", "appoint")
"""The turn orders an army takes (the engine's TURN_ORDERS but the interception, which only a chance offers)."""


def refusal(order: str, err: RuleError) -> dict[str, Any]:
    return {"order": order, "code": err.code, "rule": err.rule, "message": err.message}


def options(state: NapoleonicState, viewer: str, army_id: str | None, turn: RuleError | None) -> dict[str, Any]:
    """`turn`: why the team gives no turn orders now (the engine's own check), else None."""
    team = viewer[5:] if viewer.startswith("team:") else None
    out: dict[str, Any] = {"unit": army_id, "side": team or "", "active": False, "refused": [], "armies": [],
                           "points": None, "marches": [], "orders": []}
    if team is None or team not in state.player_teams:
        out["refused"].append(refusal("*", NotYourTurn("only a power's players give orders", rule="C-1.2")))
        return out
    if army_id is None:
        out["armies"] = [a.id for a in state.alive_armies(team) if a.status == READY]
        if turn is not None:
            out["refused"].append(refusal("*", turn))
        else:
            out["active"] = True
            out["orders"] = list(ARMY_ORDERS)
        return out
    army = state.armies.get(army_id)
    if army is None or army.team != team or army.status in GONE:
        out["refused"].append(refusal("*", NotYourUnit(f"no army {army_id!r} of {team}", details={"army": army_id})))
        return out
    if turn is not None:
        out["refused"].append(refusal("*", turn))
        return out
    out["active"] = True
    out["points"] = float(army.points)
    out["orders"] = ["posture", "appoint"]
    if army.status in FROZEN:
        out["refused"].append(refusal("move", IllegalOrder(f"{army.id} is {army.status}: frozen until it ends",
                                                           rule="D-L-1")))
        return out
    out["orders"] = list(ARMY_ORDERS)
    out["marches"] = marches(state, army, known_enemies(state, team))
    if not out["marches"]:
        out["refused"].append(refusal("move", IllegalOrder("no cell in reach with the points left", rule="D-NAP-1")))
    return out


def known_enemies(state: NapoleonicState, team: str) -> dict[Cell, list[str]]:
    """The cells of the enemy armies the team's view shows (C-1.3), with their statuses."""
    out: dict[Cell, list[str]] = {}
    for a in view_of(state, f"team:{team}")["armies"]:
        if a["team"] != team and a["status"] not in GONE:
            out.setdefault(cell_of(a["cell"]), []).append(str(a["status"]))
    return out


def marches(state: NapoleonicState, army: Army, enemies: dict[Cell, list[str]]) -> list[dict[str, Any]]:
    """D-NAP-1: every cell within the army's points by its cheapest path; a cell with an enemy army ends the
    march (N-START-1) and is offered only when those armies are free to fight (D-L-1)."""
    start = cell_of(army.cell)
    budget = float(army.points)
    best: dict[Cell, float] = {start: 0.0}
    came: dict[Cell, Cell] = {}
    heap: list[tuple[float, Cell]] = [(0.0, start)]
    while heap:
        cost, here = heapq.heappop(heap)
        if cost > best.get(here, float("inf")) + EPS or (here != start and here in enemies):
            continue
        for nxt in sorted(neighbours(here)):
            step = step_cost(state, here, nxt)
            if step is None:
                continue
            total = cost + step
            if total <= budget + EPS and total < best.get(nxt, float("inf")) - EPS:
                best[nxt], came[nxt] = total, here
                heapq.heappush(heap, (total, nxt))
    out = []
    for cell in sorted(best, key=lambda c: (c[1], c[0])):
        if cell == start or any(s != READY for s in enemies.get(cell, ())):
            continue
        path = [cell]
        while (back := came[path[-1]]) != start:
            path.append(back)
        note = None
        if cell in enemies:
            note = "siege" if sieges.fortress_at(state, cell) is not None else "battle"
        out.append({"to": list(cell), "path": [list(c) for c in reversed(path)], "cost": round(best[cell], 2),
                    "note": note})
    return out
