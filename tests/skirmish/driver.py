"""A scripted commander for property tests and the golden replay: it gives orders built from the engine's own list
of legal orders (server.skirmish.options), chosen with a seeded `random.Random` and a bias to close with the
enemy. It is not the skirmish AI: it has no plan beyond advancing, firing when it can and springing the ambush."""

from __future__ import annotations

import random
from typing import Any

from server.core.engine import Actor
from server.core.errors import RuleError
from server.core.replay import Recorder
from server.skirmish.engine import SkirmishEngine
from server.skirmish.options import reach_cells
from server.skirmish.state import SkirmishState, footprint
from server.skirmish.table import distance

ENGINE = SkirmishEngine()


def _goal(s: SkirmishState, team: str) -> tuple[int, int]:
    side = s.sides[team]
    e = s.table.element(s.objective) if s.objective else None
    if side.attacker and e is not None:
        return e.x + e.w // 2, e.y + e.h // 2
    enemies = [f for f in s.on_table(s.enemy(team))]
    if enemies:
        return enemies[0].x, enemies[0].y
    return s.table.width // 2, s.table.height // 2


def _moves(s: SkirmishState, entry: dict[str, Any], key: str, goal: tuple[int, int], rng: random.Random,
           share: float) -> list[dict[str, Any]]:
    """Moves towards `goal` to distinct cells, vehicles first (their blocks are the hardest to fit; the infantry then
    keeps off the cells they will stand on)."""
    taken: set[tuple[int, int]] = set()
    out = []
    for fid in sorted(entry["figures"], key=lambda i: s.figures[i].vehicle is None):
        f = s.figures[fid]
        cells = [(int(c[0]), int(c[1])) for c in entry.get(key, {}).get(fid) or []]
        cells = [c for c in cells if not set(footprint(f.vehicle, c[0], c[1], f.facing)) & taken]
        if not cells or rng.random() > share:
            continue
        cells.sort(key=lambda c: (distance(c, goal), c))
        pick = cells[min(len(cells) - 1, int(rng.random() ** 8 * len(cells)))]
        taken.update(footprint(f.vehicle, pick[0], pick[1], f.facing))
        out.append({"figure": fid, "to": list(pick)})
    return out


def choose(s: SkirmishState, team: str, rng: random.Random) -> dict[str, Any] | None:
    """One order (or decision) for `team`; None: end its turn (pass the rest, or let the default decide). A move
    of several figures is tried on the (immutable) state first: where one figure's move is refused because an
    earlier one of the same order now stands in its way, that figure stays (the refusal names it)."""
    o = _choose(s, team, rng)
    if o is None or o["type"] != "move" or len(o["moves"]) < 2:
        return o
    for _ in range(len(o["moves"])):
        try:
            ENGINE.apply(s, Actor(f"p-{team}", team), o)
            return o
        except RuleError as exc:
            stuck = exc.details.get("figure")
            moves = [m for m in o["moves"] if m["figure"] != stuck]
            if stuck is None or len(moves) == len(o["moves"]):
                raise
            if not moves:
                return {"type": "pass"}
            o = {**o, "moves": moves}
    return o


def _choose(s: SkirmishState, team: str, rng: random.Random) -> dict[str, Any] | None:
    if s.stage == "terrain":
        return {"type": "auto_terrain"}
    if s.stage == "deploy":
        return {"type": "deploy"}
    if s.decision is not None:
        d = s.decision
        return {"type": "hits", "figures": rng.sample(list(d.candidates), d.count)} if rng.random() < 0.6 else None
    roll = rng.random()
    if roll < 0.02:
        return None
    if roll < 0.06:
        return {"type": "pass"}
    options = ENGINE.legal_orders(s, team)["orders"]
    ambushes = [o for o in options if o.get("type") == "ambush"]
    if ambushes and rng.random() < 0.4:
        a = ambushes[0]
        return {"type": "ambush", "unit": a["unit"], "figures": a["figures"]}
    takes = [o for o in options if o.get("type") == "take_up"]
    if takes:
        return {"type": "take_up", "figure": takes[0]["figure"]}
    bodies = [o for o in options if "body" in o and o["kind"] != "army"]
    army = [o for o in options if o.get("kind") == "army"]
    far = all(distance(f.cell, _goal(s, team)) > 12 for f in s.on_table(team) if not f.vehicle)
    if army and rng.random() < (0.7 if s.sides[team].attacker and far else 0.03):
        bodies = [{**army[0], "reach": {i: reach_cells(s, i)[0] for i in army[0]["figures"]}}]
    if not bodies:
        return {"type": "pass"}
    weights = [3.0 if o["kind"] in ("unit", "group") else 1.0 for o in bodies]
    entry = rng.choices(bodies, weights)[0]
    goal = _goal(s, team)
    if entry["actions"] == ["fall_back"]:
        return {"type": "fall_back", "body": entry["body"]}
    attacker = s.sides[team].attacker
    targets = entry.get("targets") or []
    near = [t for t in targets if min(distance(s.figures[t].cell, s.figures[i].cell) for i in entry["figures"]) <= 10]
    if targets and rng.random() < ((0.8 if near else 0.15) if attacker else 0.85):
        target = rng.choice(targets[:3])
        if rng.random() < 0.25 and entry["kind"] != "army":
            moves = _moves(s, entry, "half_reach", goal, rng, 0.8)
            if moves:
                return {"type": "move_fire", "body": entry["body"], "moves": moves, "target": target,
                        "group": rng.random() < 0.8}
        return {"type": "fire", "body": entry["body"], "target": target, "group": rng.random() < 0.8}
    moves = _moves(s, entry, "reach", goal, rng, 0.9 if attacker else 0.4)
    if not moves:
        return {"type": "pass"}
    order: dict[str, Any] = {"type": "move", "body": entry["body"], "moves": moves}
    return order


def play(rec: Recorder[SkirmishState], rng: random.Random, *, limit: int = 4000) -> dict[str, int]:
    """Play `rec`'s game to its end. Returns counts: commands, refused orders by type (only a move-and-fire may be
    refused: after its move the target can be out of sight or range)."""
    counts = {"commands": 0, "refused": 0}
    while not ENGINE.is_over(rec.state):
        counts["commands"] += 1
        assert counts["commands"] < limit, "the game does not end"
        team = sorted(ENGINE.active_teams(rec.state))[0]
        o = choose(rec.state, team, rng)
        if o is None:
            rec.end_turn(team, flagged=rng.random() < 0.5)
            continue
        try:
            rec.order(Actor(f"p-{team}", team), o)
        except RuleError as exc:
            assert o["type"] == "move_fire", (o, exc.rule, exc.message)
            counts["refused"] += 1
            rec.order(Actor(f"p-{team}", team), {"type": "pass"})
    return counts
