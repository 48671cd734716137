"""The skirmish's AI commander (issue 21 item 5, issue 18): one side's next order from what that side is shown —
its view (its own figures in full, the enemy figures it sees now and where it last saw the others, D-S-7) and the
options query's answer (`view["options"]`: server.skirmish.options, planned on what the side sees).

It returns its orders best first and `pass` last: the room gives them in turn and the first the engine accepts is
the side's order (D-S-4: one order, then the other side's). What it prefers:
- set-up: the server places the terrain and deploys the side (D-S-2, D-S-3);
- hits to choose (D-S-9): riflemen before the machine gun, the leader last;
- an ambush (S-9.3, D-S-13) is sprung when an enemy it sees is within `AMBUSH_RANGE` of the hidden unit;
- a weapon lying next to a crewman is taken up (S-8.5);
- a body that sees a target within `FIRE_RANGE` fires at the nearest, as a group (S-7.6) — the attacker of a
  scenario with an objective only within `CLOSE_RANGE`, further off it closes in first (without an objective only
  the defenders' rout wins, D-S-15, so it fires at every range); a demoralised body falls back (D-S-12);
- otherwise the attacker closes on the objective (or the nearest enemy seen, or last seen) by its full move, the
  defender holds until an enemy is seen and fires; units before groups before the whole army.
The seed breaks ties between equal choices, so the decision is a function of (view, side, seed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from server.core.dice import Dice

from .state import footprint
from .table import distance

Cell = tuple[int, int]
FIRE_RANGE = 24
CLOSE_RANGE = 8
AMBUSH_RANGE = 10
ROLE_ORDER = {"rifleman": 0, "assistant": 1, "crew": 2, "gunner": 3, "mg": 3, "leader": 9, "commander": 9}


def command(view: Mapping[str, Any], team: str, rng_seed: int) -> list[dict[str, Any]]:
    if team not in (view.get("active") or ()):
        return []
    stage = view.get("stage")
    if stage == "terrain":
        return [{"type": "auto_terrain"}]
    if stage == "deploy":
        return [{"type": "deploy"}]
    decision = view.get("decision")
    if decision and decision.get("owner") == team:
        return [_hits(view, decision)]
    options = list((view.get("options") or {}).get("orders") or ())
    figures = {f["id"]: f for f in view.get("figures") or ()}
    enemies = [f for f in figures.values() if f["side"] != team and f["status"] != "out"]
    attacker = any(s.get("role") == "attacker" for s in view.get("sides") or () if s.get("team") == team)
    goal = _goal(view, team, enemies, attacker)
    out: list[dict[str, Any]] = []
    for o in options:
        if o.get("type") == "ambush" and enemies:
            spots = [tuple(c) for c in o["figures"].values()]
            if min(distance(_cell(e), s) for e in enemies for s in spots) <= AMBUSH_RANGE:
                out.append({"type": "ambush", "unit": o["unit"], "figures": o["figures"]})
    out += [{"type": "take_up", "figure": o["figure"]} for o in options if o.get("type") == "take_up"]
    bodies = [o for o in options if "body" in o]
    dice, ties = Dice.from_seed(rng_seed), {}
    for o in bodies:
        ties[o["body"]], dice = dice.next_u64()
    bodies.sort(key=lambda o: ({"unit": 0, "group": 1}.get(o["kind"], 2), ties[o["body"]]))
    fires, moves = [], []
    for entry in bodies:
        if entry["actions"] == ["fall_back"]:
            out.append({"type": "fall_back", "body": entry["body"]})
            continue
        shooters = [figures[i] for i in entry["figures"] if i in figures]
        aims = [(min(distance(_cell(figures[t]), _cell(s)) for s in shooters), t)
                for t in entry.get("targets") or () if t in figures and shooters]
        aims = [a for a in sorted(aims) if a[0] <= FIRE_RANGE]
        if aims and entry["kind"] != "army":
            fires.append((aims[0][0], {"type": "fire", "body": entry["body"], "target": aims[0][1], "group": True}))
        if entry["kind"] == "army" and not attacker:
            continue
        if attacker or (enemies and not aims) or (not enemies and int(view.get("turn") or 0) > 2):
            step = _moves(entry, figures, goal)
            if step:
                moves.append((sum(distance(_cell(figures[m["figure"]]), goal) for m in step) / len(step),
                              {"type": "move", "body": entry["body"], "moves": step}))
    advance: list[dict[str, Any]] = []
    for _, o in sorted(moves, key=lambda t: -t[0]):  # the body furthest from the goal first
        advance.append(o)
        if len(o["moves"]) > 1:
            advance.append({**o, "moves": o["moves"][:1]})
    close = CLOSE_RANGE if view.get("objective") else FIRE_RANGE  # no objective: only the defenders' rout wins
    shoot = [o for d, o in sorted(fires, key=lambda t: t[0]) if not attacker or d <= close]
    rest = [o for d, o in sorted(fires, key=lambda t: t[0]) if attacker and d > close]
    out += [*shoot, *advance, *rest]  # the attacker closes in before it trades fire at long range
    return [*out[:12], {"type": "pass"}]


def _cell(f: Mapping[str, Any]) -> Cell:
    return int(f["x"]), int(f["y"])


def _hits(view: Mapping[str, Any], decision: Mapping[str, Any]) -> dict[str, Any]:
    """D-S-9: the owner chooses which figures take the hits: riflemen first, leaders last."""
    figures = {f["id"]: f for f in view.get("figures") or ()}
    ranked = sorted(decision["candidates"], key=lambda i: (ROLE_ORDER.get(str(figures.get(i, {}).get("role")), 5), i))
    return {"type": "hits", "figures": ranked[: int(decision["count"])]}


def _goal(view: Mapping[str, Any], team: str, enemies: Sequence[Mapping[str, Any]], attacker: bool) -> Cell:
    table = view.get("table") or {}
    objective = next((e for e in table.get("elements") or () if e.get("id") == view.get("objective")), None)
    if attacker and objective is not None:
        return int(objective["x"]) + int(objective["w"]) // 2, int(objective["y"]) + int(objective["h"]) // 2
    if enemies:
        return _cell(enemies[0])
    seen = sorted((v["turn"], v["x"], v["y"]) for v in (view.get("last_seen") or {}).values())
    if seen:
        return seen[-1][1], seen[-1][2]
    if objective is not None:
        return int(objective["x"]) + int(objective["w"]) // 2, int(objective["y"]) + int(objective["h"]) // 2
    return int(table.get("width", 40)) // 2, int(table.get("height", 30)) // 2


def _moves(entry: Mapping[str, Any], figures: Mapping[str, Mapping[str, Any]], goal: Cell) -> list[dict[str, Any]]:
    """Each figure of the body to the cell of its reach nearest the goal, vehicles first, on distinct cells."""
    taken: set[Cell] = set()
    out = []
    for fid in sorted(entry["figures"], key=lambda i: (figures.get(i, {}).get("vehicle") is None, i)):
        f = figures.get(fid)
        if f is None:
            continue
        here = _cell(f)
        cells = [(int(c[0]), int(c[1])) for c in (entry.get("reach") or {}).get(fid) or ()]
        cells = [c for c in cells if not set(footprint(f.get("vehicle"), c[0], c[1], f["facing"])) & taken]
        if not cells:
            continue
        pick = min(cells, key=lambda c: (distance(c, goal), c))
        if distance(pick, goal) >= distance(here, goal):
            continue
        taken.update(footprint(f.get("vehicle"), pick[0], pick[1], f["facing"]))
        out.append({"figure": fid, "to": list(pick)})
    return out
