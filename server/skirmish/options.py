"""A side's legal orders now, as plain data: for the AI, the client's previews and the options query.

`legal_orders(state, team)` lists what the side may do: place terrain, deploy, choose hits, or — in the orders
phase — for every body it may order (unit, group, figure, the army) the actions it may take, the figures that
would act, the cells each could reach (full and half move, planned on what the side sees) and the enemy figures
it could fire at, with the ambushes it could spring and the weapons it could take up. Every order built from it
is legal when given at once (tests/skirmish/test_properties.py).
"""

from __future__ import annotations

from typing import Any

from server.core.errors import BadOrder, IllegalOrder, NotYourUnit

from .command import ARMY, body_of, orderable
from .deployment import ambush_places
from .fire import shots
from .movement import allowance, reach
from .sight import seen_by
from .state import AMBUSH, DEPLOY, IN_ACTION, ORDERS, TERRAIN, SkirmishState
from .table import touching


def active(s: SkirmishState) -> frozenset[str]:
    """The sides to act now (their clocks run): the chooser of hits, else the placer, the deployer or the side
    to give the next order."""
    if s.over:
        return frozenset()
    if s.decision is not None:
        return frozenset({s.decision.owner})
    if s.stage == TERRAIN:
        return frozenset({s.terrain_next}) if s.terrain_next else frozenset()
    if s.stage == DEPLOY:
        return frozenset({s.defender.team if not s.defender.deployed else s.attacker.team})
    if s.stage == ORDERS and s.next_side:
        return frozenset({s.next_side})
    return frozenset()


def reach_cells(s: SkirmishState, fid: str, known: set[str] | None = None) -> tuple[list[list[int]], list[list[int]]]:
    """The cells a figure could move to with its full move and with half of it (anchor cells for a vehicle),
    planned on what its side sees (`known`, computed when not given)."""
    f = s.figures[fid]
    if known is None and s.settings.fog == "sight":
        known = seen_by(s, f.side)
    half = allowance(s, f, half=True)
    tree = reach(s, f, allowance(s, f), known)
    full_cells = sorted({(p[0], p[1]) for p in tree if (p[0], p[1]) != f.cell})
    half_cells = sorted({(p[0], p[1]) for p, v in tree.items() if (p[0], p[1]) != f.cell and v[0] <= half})
    return [list(c) for c in full_cells], [list(c) for c in half_cells]


def targets(s: SkirmishState, team: str, figures: list[str], seen: set[str] | None = None) -> list[str]:
    """The enemy figures the side sees that one of `figures` could hit now."""
    shooters = [s.figures[i] for i in figures if s.figures[i].status == IN_ACTION]
    if seen is None:
        seen = seen_by(s, team)
    return [t for t in sorted(seen, key=lambda i: s.figures[i].index)
            if shots(s, shooters, s.figures[t], group=False, penalty=0)]


def legal_orders(s: SkirmishState, team: str, *, with_reach: bool = True, only: str | None = None) -> dict[str, Any]:
    """`only`: one body's entries (a unit, a figure, `group:<commander>`, `army`), the others not computed — the
    options query for one unit need not plan every figure's reach (0.5 s for a whole platoon)."""
    if team not in active(s):
        return {"side": team, "stage": s.stage, "active": False, "orders": []}
    if s.decision is not None:
        d = s.decision
        return {"side": team, "stage": s.stage, "active": True,
                "orders": [{"type": "hits", "choose": d.count, "of": list(d.candidates), "tier": d.tier}]}
    if s.stage == TERRAIN:
        return {"side": team, "stage": s.stage, "active": True,
                "orders": [{"type": "terrain"}, {"type": "auto_terrain"}]}
    if s.stage == DEPLOY:
        hold = [] if s.sides[team].attacker else [u.id for u in s.units.values() if u.side == team]
        return {"side": team, "stage": s.stage, "active": True,
                "orders": [{"type": "deploy", "may_hold": hold}]}
    out: list[dict[str, Any]] = [{"type": "pass"}]
    if s.stage != ORDERS:
        return {"side": team, "stage": s.stage, "active": False, "orders": []}
    known = seen_by(s, team) if s.settings.fog == "sight" else None
    for body_id in orderable(s, team):
        if only is not None and body_id != only:
            continue
        unit = s.units.get(body_id)
        if unit is not None and unit.members and all(s.figures[i].status == AMBUSH for i in unit.members):
            spots = ambush_places(s, team, body_id)
            if spots is not None:
                out.append({"type": "ambush", "unit": body_id,
                            "figures": {k: [v[0], v[1]] for k, v in spots.items()}})
            continue
        try:
            body = body_of(s, team, body_id)
        except (IllegalOrder, BadOrder, NotYourUnit):
            continue
        entry: dict[str, Any] = {"body": body.id, "kind": body.kind, "figures": list(body.figures)}
        if body.demoralised:
            entry["actions"] = ["fall_back"]
        else:
            entry["actions"] = ["move", "fire", "move_fire"]
            entry["targets"] = targets(s, team, list(body.figures), seen_by(s, team) if known is None else known)
            if not entry["targets"]:
                entry["actions"] = ["move"]
        if with_reach:
            cells = {i: reach_cells(s, i, known) for i in body.figures}
            entry["reach"] = {i: c[0] for i, c in cells.items()}
            entry["half_reach"] = {i: c[1] for i, c in cells.items()}
        out.append(entry)
    if not s.sides[team].orders_given and only in (None, ARMY):
        try:
            army = body_of(s, team, ARMY)
            aims = targets(s, team, list(army.figures), seen_by(s, team) if known is None else known)
            out.append({"body": ARMY, "kind": ARMY, "figures": list(army.figures),
                        "actions": ["move", "fire"] if aims else ["move"], "targets": aims})
        except IllegalOrder:
            pass
    for lying in s.dropped:
        for f in s.side_figures(team):
            if (f.unit == lying.unit and f.status == IN_ACTION and not f.ordered and f.role in ("assistant", "crew")
                    and not s.units[f.unit].demoralised and (f.cell == lying.cell or touching(f.cell, lying.cell))):
                out.append({"type": "take_up", "figure": f.id, "weapon": lying.weapon})
    return {"side": team, "stage": s.stage, "active": True, "orders": out, "orders_left": s.sides[team].orders_left}

