"""Projections of the skirmish per viewer class (DESIGN: hidden information is a projection).

Everyone sees the table, the terrain, the turn, whose order it is and how many orders each side has left (those
dice are public, D-GEN-1). The moderator and spectators see every figure, held-back ambushes too. A side sees its
own figures and units in full (with cohesion and orders taken), and of the enemy only the figures it sees now
(D-S-7) — none before both sides have deployed (D-S-3), never a held-back ambush, not even their number
(D-S-13) — plus where it last saw the others. A "public" viewer (a player in the secret module) sees no figures.
"""

from __future__ import annotations

from typing import Any

from server.core.engine import MODERATOR, SPECTATOR

from .command import in_cohesion
from .deployment import ambush_places
from .options import active, reach_cells
from .rules import terrain_kinds
from .sight import seen_by
from .state import AMBUSH, IN_ACTION, ORDERS, Figure, SkirmishState, Unit


def figure_view(f: Figure, full: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"id": f.id, "side": f.side, "unit": f.unit, "role": f.role, "weapon": f.weapon,
                           "model": f.model, "vehicle": f.vehicle, "x": f.x, "y": f.y, "facing": f.facing,
                           "cells": [list(c) for c in f.cells()], "status": f.status}
    if full:
        out.update(ordered=f.ordered, contact=f.contact, group=f.group or None, no_fire_at=list(f.no_fire_at))
    return out


def unit_view(s: SkirmishState, u: Unit) -> dict[str, Any]:
    return {"id": u.id, "name": u.name, "kind": u.kind, "parent": u.parent, "commander": u.commander,
            "members": list(u.members), "children": list(u.children), "start": u.start,
            "lost": sum(1 for i in u.members if s.figures[i].status == "out"), "demoralised": u.demoralised,
            "ordered": u.ordered, "in_cohesion": in_cohesion(s, u.id)}


def view_of(s: SkirmishState, viewer: str) -> dict[str, Any]:
    team = viewer[5:] if viewer.startswith("team:") else None
    everything = viewer in (MODERATOR, SPECTATOR)
    base: dict[str, Any] = {
        "kind": "skirmish", "scenario": s.scenario, "table": s.table.dump(), "objective": s.objective,
        "stage": s.stage, "turn": s.turn, "turns": s.settings.turns, "initiative": s.initiative,
        "active": sorted(active(s)),
        "next": s.next_side, "terrain_left": s.terrain_left, "terrain_next": s.terrain_next,
        "sides": [side.public() for side in s.sides.values()], "result": s.result, "fog": s.settings.fog,
        "settings": {k: v for k, v in s.settings.dump().items() if k != "weapons"},
        "weapons": {n: w.dump() for n, w in sorted(s.settings.weapons.items())},
        "hits_pending": ({"owner": s.decision.owner, "count": s.decision.count, "tier": s.decision.tier}
                         if s.decision else None),
        "terrain": {k.name: {"cover": k.cover, "blocks": k.blocks, "infantry_cost": k.infantry_cost,
                             "tank_cost": k.tank_cost, "obstacle": k.obstacle}
                    for k in terrain_kinds(s.settings).values()},
    }
    if everything:
        base["figures"] = [figure_view(f, True) for f in s.figures.values()]
        base["units"] = [unit_view(s, u) for u in s.units.values()]
        base["groups"] = [g.dump() for g in s.groups.values()]
        base["decision"] = s.decision.dump() if s.decision else None
        base["dropped"] = [d.dump() for d in s.dropped]
        base["last_seen"] = {}
        base["reach"] = None
        base["ambushes"] = None
        return base
    if team is None or team not in s.sides:
        base.update(figures=[], units=[], groups=[], decision=None, dropped=[], last_seen={}, reach=None,
                    ambushes=None)
        return base
    seen = seen_by(s, team)
    figures = [figure_view(f, True) for f in s.figures.values() if f.side == team]
    figures += [figure_view(f, False) for f in s.figures.values() if f.id in seen]
    base["figures"] = figures
    base["units"] = [unit_view(s, u) for u in s.units.values() if u.side == team]
    base["groups"] = [g.dump() for g in s.groups.values() if s.figures[g.commander].side == team]
    base["decision"] = s.decision.dump() if s.decision and s.decision.owner == team else None
    base["dropped"] = [d.dump() for d in s.dropped if s.units[d.unit].side == team]
    base["last_seen"] = {fid: {"x": v[0], "y": v[1], "turn": v[2]}
                         for fid, v in sorted(s.last_seen.get(team, {}).items()) if fid not in seen
                         and s.figures[fid].status != "out"}
    base["reach"] = reach_of(s, team, seen)
    base["ambushes"] = ambushes_of(s, team) if base["reach"] is not None else None
    return base


def ambushes_of(s: SkirmishState, team: str) -> dict[str, dict[str, list[int]]]:
    """The defender's units still held back that could spring now, each with a legal place for its figures
    (deployment.ambush_places: the first group of ambush cells large enough, S-9.4, D-S-13): the client's ambush
    order. Empty for the attacker."""
    if s.sides[team].attacker:
        return {}
    out: dict[str, dict[str, list[int]]] = {}
    for unit in s.units.values():
        if unit.side == team and unit.members and all(s.figures[i].status == AMBUSH for i in unit.members):
            spots = ambush_places(s, team, unit.id)
            if spots is not None:
                out[unit.id] = {fid: [spot[0], spot[1]] for fid, spot in spots.items()}
    return out


def reach_of(s: SkirmishState, team: str, seen: set[str]) -> dict[str, dict[str, list[list[int]]]] | None:
    """The side to give the next order sees where each of its figures free to act could move (`full`) and move
    before firing (`half`), planned as the engine plans a `to` on what the side sees (options.reach_cells, D-S-6):
    the client's move-range preview. None for a side not to order now."""
    if s.stage != ORDERS or s.decision is not None or team not in active(s):
        return None
    known = seen if s.settings.fog == "sight" else None
    out: dict[str, dict[str, list[list[int]]]] = {}
    for f in s.side_figures(team):
        if f.status == IN_ACTION and not f.ordered and f.on_table:
            full, half = reach_cells(s, f.id, known)
            out[f.id] = {"full": full, "half": half}
    return out


def update_last_seen(s: SkirmishState) -> None:
    """After each command: where each side last saw each enemy figure it sees now."""
    if not s.revealed:
        return
    for team in s.sides:
        marks = s.last_seen.setdefault(team, {})
        for fid in seen_by(s, team):
            f = s.figures[fid]
            marks[fid] = (f.x, f.y, s.turn)
