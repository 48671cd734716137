"""The Continental War's AI commander (issue 18), levels 1–3: a team's orders from the view its players receive
(its own units in full, the enemy units it has found, C-1.3; the map, tables, proposals and its reconnaissance
quota are in it too).

What it decides:
- planning (C-5/C-6): the scenario's deployment stands; it only ends the turn;
- peace (C-10): it accepts a proposal made to it when its strength (the ratings of its units, C-9) is under
  `PEACE_ODDS` of the proposer's as far as it knows it; from turn `PEACE_AFTER` of a war, unless it is winning
  (`WINNING_ODDS`), it offers peace in the current position every `PEACE_EVERY` turns and accepts one (C-10.2), so
  a war whose fronts have settled ends; a side that is winning fights on for the decisive end (C-10.1);
- reconnaissance (C-8.3, level 3): while its quota allows, it asks whether the cells in front of its units that
  it sees nothing in hold an enemy (`presence`), nearest first;
- operations (C-4, C-9): every unit that may strike (not artillery, anti-tank, fortresses or headquarters: C-9.8)
  next to an enemy it knows of, facing it or able to turn to with time left to strike (C-4.3bis), takes part in
  an attack on that cell when their ratings are at least `ATTACK_ODDS` of the defender's; a unit next to the
  enemy that cannot strike this turn turns to face it; the others advance one cell a turn towards the nearest
  enemy (or the enemy's nearest place), over ground their arm may cross.
Each order is planned against the team's earlier orders of the turn (ai_plan.py: cells held, time used, facings),
so none is refused for them. The engine validates every order; a refused one is dropped (and, where the rules fine
it, fined like a person's).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from server.continental.ai_plan import EPS, NOT_FIGHTING, TurnPlan
from server.continental.grid import FACINGS, ORTHOGONAL, Cell, direction, neighbours, turn_angle

ATTACK_ODDS = 1.5
PEACE_ODDS = 0.6
"""It accepts any peace when its strength is under this share of the proposer's."""
PEACE_AFTER = 20
"""From this turn of a war, a side that is not winning offers peace in the current position (C-10.2) and accepts
one: the fronts of two equal sides settle, and only a peace ends such a war (C-10.1 needs a whole country taken
or a whole army gone)."""
WINNING_ODDS = 2.0
"""A side this many times the enemy's strength (as far as it knows it) is winning: it neither offers nor accepts
peace, but fights on for the decisive end — until turn `PEACE_ANYWAY`."""
PEACE_ANYWAY = 50
"""From this turn it accepts any peace: a winning side that has not won by then (C-10.4 gives the side that
refused peace 30 turns for a decisive success) takes the front line as the border."""
PEACE_EVERY = 5
"""Turns between its proposals to the same enemy (C-10.4: the one who refuses must then win within 30 turns)."""


def _cell(v: Any) -> Cell:
    return int(v[0]), int(v[1])


def _key(c: Cell) -> str:
    return f"{c[0]}-{c[1]}"


def _dist(a: Cell, b: Cell) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def _rating(units: Sequence[Mapping[str, Any]]) -> float:
    return sum(float(u.get("rating") or 0.0) for u in units)


def command(view: Mapping[str, Any], team: str, rng_seed: int) -> list[dict[str, Any]]:
    if team not in (view.get("active") or ()) or view.get("result"):
        return []
    mine = [u for u in view.get("units") or () if u.get("team") == team and u.get("cell") is not None]
    enemies = [u for u in view.get("enemy_units") or () if u.get("cell") is not None and not u.get("neutral")]
    out = _peace(view, team, mine, enemies)
    if view.get("phase") != "operations":
        return out
    terrain = (view.get("map") or {}).get("terrain") or {}
    enemy_at: dict[Cell, list[Mapping[str, Any]]] = {}
    for u in enemies:
        enemy_at.setdefault(_cell(u["cell"]), []).append(u)
    out += _questions(view, team, mine, enemy_at, terrain)
    plan = TurnPlan(view, team)
    out += _attacks(view, mine, enemy_at, plan)
    goals = list(enemy_at) or [_cell(p["cell"]) for p in (view.get("map") or {}).get("places") or ()
                               if (view.get("control") or {}).get(p.get("name")) not in (None, team)]
    for u in sorted(mine, key=lambda u: u["id"]):
        here = _cell(u["cell"])
        if not goals or any(_dist(here, c) == 1 for c in enemy_at):
            continue
        goal = min(goals, key=lambda c: (_dist(here, c), c))
        steps = [c for c in sorted(neighbours(here)) if plan.may_move(u, c)]
        step = min(steps, key=lambda c: (_dist(c, goal), c in plan.rivers, c), default=None)  # rivers: a last resort
        if step is not None and _dist(step, goal) < _dist(here, goal):
            out.append({"type": "move", "unit": u["id"], "path": [list(step)]})
            plan.move(u, step)
    return out


def _attacks(view: Mapping[str, Any], mine: Sequence[Mapping[str, Any]],
             enemy_at: Mapping[Cell, Sequence[Mapping[str, Any]]], plan: TurnPlan) -> list[dict[str, Any]]:
    """C-9.8: strikes on the weakest cells first, by the units next to them that face them or can turn to
    (C-4.3bis) and still have time to strike; a unit next to the enemy that cannot strike this turn turns to face
    it, so it can the next."""
    out: list[dict[str, Any]] = []
    no_strike = set((view.get("tables") or {}).get("no_regular_strike") or ("AD", "ATD", "FORT", "AHQ", "CHQ"))
    striking: set[str] = set()
    for target in sorted(enemy_at, key=lambda c: (_rating(enemy_at[c]), c)):
        near: list[tuple[Mapping[str, Any], str]] = []
        for u in mine:
            if _dist(_cell(u["cell"]), target) == 1 and u["id"] not in striking and u.get("arm") not in no_strike:
                facing = _strike_facing(plan, u, target)
                if facing is not None:
                    near.append((u, facing))
        if near and _rating([u for u, _ in near]) >= ATTACK_ODDS * _rating(enemy_at[target]):
            first = sorted(near, key=lambda n: (-float(n[0].get("rating") or 0), n[0]["id"]))
            for u, facing in first:
                if facing != plan.facing[u["id"]]:
                    out.append({"type": "turn", "unit": u["id"], "facing": facing})
                    plan.turn(u, facing)
                plan.strike(u)
                striking.add(u["id"])
            out.append({"type": "attack", "target": list(target), "echelons": [[u["id"] for u, _ in first]],
                        "support": [], "advance": True})
    for u in mine:  # C-4.3bis: face the enemy it stands next to, for the next turn's strike
        here = _cell(u["cell"])
        fronts = [c for c in sorted(enemy_at) if _dist(here, c) == 1]
        if u["id"] in striking or u.get("arm") in no_strike or not fronts or plan.left(u["id"]) <= 0 or any(
                turn_angle(plan.facing[u["id"]], direction(here, c)) <= 45 for c in fronts):
            continue
        facing = next((f for f in _front_facings(plan, here, fronts[0]) if plan.may_turn(u, f)), None)
        if facing is not None:
            out.append({"type": "turn", "unit": u["id"], "facing": facing})
            plan.turn(u, facing)
    return out


def _front_facings(plan: TurnPlan, here: Cell, target: Cell) -> list[str]:
    """C-9.8: the facings from which a unit strikes `target` (its front within 45° of it; at level 1 only N, E,
    S or W, C-4.3bis), the straightest first."""
    towards = direction(here, target)
    return sorted((f for f in FACINGS if turn_angle(f, towards) <= 45 and (plan.level >= 2 or f in ORTHOGONAL)),
                  key=lambda f: (turn_angle(f, towards), f))


def _strike_facing(plan: TurnPlan, u: Mapping[str, Any], target: Cell) -> str | None:
    """The facing from which `u` strikes `target` this turn — its own, or the one it turns to soonest with time
    left to strike (C-4.3bis, C-9.8) — or None."""
    if plan.may_strike(u, target):
        return plan.facing[u["id"]]
    if u.get("status") in NOT_FIGHTING:
        return None
    options = []
    for f in _front_facings(plan, _cell(u["cell"]), target):
        cost = plan.turn_cost(u, f)
        if cost is not None and plan.used.get(u["id"], 1.0) + cost < 1 - EPS:
            options.append((cost, f))
    return min(options)[1] if options else None


def _peace(view: Mapping[str, Any], team: str, mine: Sequence[Mapping[str, Any]],
           enemies: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """C-10.2: answers to the peace proposals made to it, and its own proposals of peace in the current position.
    Strength is the ratings of the units (C-9) as far as it knows the enemy's."""
    out: list[dict[str, Any]] = []
    turn = int(view.get("turn") or 0)
    long_war = bool(view.get("war")) and turn >= PEACE_AFTER
    proposals = list(view.get("proposals") or ())
    for p in proposals:
        if p.get("to") == team and p.get("status", "open") == "open" and "number" in p:
            theirs = max(_rating([u for u in enemies if u["team"] == p.get("from")]), 0.1)
            accept = _rating(mine) < PEACE_ODDS * theirs or turn >= PEACE_ANYWAY or (
                long_war and _rating(mine) < WINNING_ODDS * theirs)
            out.append({"type": "answer_peace", "proposal": p["number"], "accept": accept})
    if not long_war:
        return out
    for other in sorted({str(u["team"]) for u in enemies}):
        if sorted([team, other]) in [sorted(pair) for pair in view.get("peace_pairs") or ()]:
            continue
        recent = [p for p in proposals if {p.get("from"), p.get("to")} == {team, other}
                  and (p.get("status", "open") == "open" or turn - int(p.get("turn") or 0) < PEACE_EVERY)]
        theirs = _rating([u for u in enemies if u["team"] == other])
        if not recent and _rating(mine) < WINNING_ODDS * max(theirs, 0.1):
            out.append({"type": "propose_peace", "to": other, "kind": "current"})
    return out


def _questions(view: Mapping[str, Any], team: str, mine: Sequence[Mapping[str, Any]],
               enemy_at: Mapping[Cell, Any], terrain: Mapping[str, Any]) -> list[dict[str, Any]]:
    """C-8.3: presence questions on the cells two ahead of its units that it sees nothing in, within its quota."""
    recon = view.get("recon") or {}
    costs = ((view.get("tables") or {}).get("recon") or {}).get("costs") or {}
    left = float(recon.get("quota") or 0) - float(recon.get("spent") or 0)
    cost = float(costs.get("presence") or 0)
    if not view.get("war") or cost <= 0 or left < cost:
        return []
    cells = sorted({(x + dx, y + dy) for u in mine for x, y in [_cell(u["cell"])] for dx in (-2, 0, 2)
                    for dy in (-2, 0, 2) if (dx, dy) != (0, 0)} - set(enemy_at) - {_cell(u["cell"]) for u in mine})
    cells = [c for c in cells if terrain.get(_key(c)) not in (None, "sea")]
    return [{"type": "question", "kind": "presence", "cell": list(c)} for c in cells[: int(left // cost)][:3]]
