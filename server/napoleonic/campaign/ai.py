"""The Napoleonic campaign's AI commander (issue 18): a power's orders from the view its players receive (its own
armies in full, enemy armies only within sight, D-NAP sight range; battles, sieges and control are public) and the
scenario's map (public, static: `load_scenario(view["scenario"])`).

What it decides, in this order:
- a defender in contact (N-START-3) fights when its units are at least `FIGHT_ODDS` of the attacker's, or when it
  has already declined battle `DECLINE_LIMIT` times (the pursuer keeps up), else it withdraws (the engine finds
  the way, or refuses and the battle is accepted — D-NAP-4);
- a beaten army (N-VICTORY-4) retreats along the way the engine suggests, towards its base (D-NAP-3);
- in its turn, each ready army with points left, largest first: it attacks a seen enemy army it can reach when its
  own units, with a friendly army's in the same cell, are at least `ATTACK_ODDS` of the enemy's; an army that is
  the weaker against an enemy it sees falls back towards the nearest friendly army or fortress (concentration,
  defence of fortresses); otherwise it marches on the nearest place the enemy controls where none of its armies
  stands (control changes only by a siege, N-SIEGE-4: standing there takes nothing), the smaller armies closing
  on the largest first (concentration of force); with no enemy in sight and no such place, its armies search,
  each towards a different place where none of its armies stands (the enemy is not left to hide);
- armies standing in a fortress with an enemy in sight set themselves to intercept (N-START-2);
- a siege it laid that has lasted its turn is stormed at once, with half its besieging army's field companies
  (rounded up, D-N-15) turned into howitzers (N-SIEGE-9).
Paths are planned on the scenario's map with the movement table of the view (D-NAP-1), within the army's points;
the engine validates every order again. Deterministic: no randomness is needed (ties by army id and cell).
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from server.continental.grid import Cell, neighbours
from server.continental.scenario import GameMap, load_scenario

from .movement import cells_apart

FIGHT_ODDS = 0.7
ATTACK_ODDS = 1.25
DANGER_CELLS = 6
DECLINE_LIMIT = 2
FIELD_GUNS = frozenset({"foot_artillery", "horse_artillery"})
"""The companies that may become howitzers for a storm (N-SIEGE-9: server.napoleonic.siege.rules.HOWITZER_OF)."""
"""An army that has declined battle this many times and is caught again fights: the pursuer keeps up with it,
and withdrawing for ever would only hand the enemy the campaign's time (N-START-3)."""


@cache
def _map(scenario: str) -> GameMap:
    return load_scenario(scenario).full_map


def _cell(v: Any) -> Cell:
    return int(v[0]), int(v[1])


def _size(army: Mapping[str, Any]) -> int:
    units = army.get("units")
    return len(units) if isinstance(units, list) else int(units or 0)


def command(view: Mapping[str, Any], team: str, rng_seed: int) -> list[dict[str, Any]]:
    """The room asks when `team` is to act: in its turn (`view["active"]`, the turn order) or with a decision due
    (a contact to answer, a beaten army to lead away) — then only the decisions."""
    armies = list(view.get("armies") or ())
    mine = [a for a in armies if a["team"] == team and a["status"] not in ("destroyed", "captured")]
    enemies = [a for a in armies if a["team"] != team and a["status"] not in ("destroyed", "captured")]
    out: list[dict[str, Any]] = []
    by_id = {a["id"]: a for a in armies}
    for b in view.get("battles") or ():
        if b["status"] == "contact" and b["defender"] == team:
            sides = b["armies"] if isinstance(b["armies"], Mapping) else {"": b["armies"]}  # {team: [army ids]}
            ids = [i for group in sides.values() for i in group if i in by_id]
            ours = sum(_size(by_id[i]) for i in ids if by_id[i]["team"] == team)
            theirs = sum(_size(by_id[i]) for i in ids if by_id[i]["team"] != team)
            caught = max((_declined(view, i) for i in ids if by_id[i]["team"] == team), default=0)
            choice = "accept" if ours >= FIGHT_ODDS * max(1, theirs) or caught >= DECLINE_LIMIT else "withdraw"
            out.append({"type": "answer", "battle": b["id"], "choice": choice})
    for a in mine:
        retreat = a.get("retreat")
        if a["status"] == "retreating" and isinstance(retreat, Mapping) and retreat.get("suggested"):
            out.append({"type": "retreat", "army": a["id"], "path": retreat["suggested"]})
    if view.get("scenario") is None or team not in (view.get("active") or ()):
        return out
    out += _storms(view, team, mine)
    gm = _map(str(view["scenario"]))
    table = (view.get("tables") or {}).get("movement") or {}
    fortresses = {_cell(p["cell"]) for p in view["map"]["places"] if p.get("kind") in ("fortress", "capital")}
    fortresses |= {_cell(p["cell"]) for p in view["map"]["places"] if p["name"] in (view.get("fortresses_built") or ())}
    own_cells = {_cell(a["cell"]) for a in mine}
    enemy_places = [c for c in (_cell(p["cell"]) for p in view["map"]["places"]
                                if (view.get("control") or {}).get(p["name"]) not in (None, team))
                    if c not in own_cells]  # control changes only by a siege (N-SIEGE-4): standing there is no aim
    ready = sorted((a for a in mine if a["status"] == "ready" and float(a.get("points", 0)) > 0),
                   key=lambda a: (-_size(a), a["id"]))
    biggest = ready[0] if ready else None
    places = sorted(_cell(p["cell"]) for p in view["map"]["places"])
    claimed: set[Cell] = set()
    for a in ready:
        here = _cell(a["cell"])
        reach = _reach(gm, table, here, float(a["points"]), {_cell(e["cell"]) for e in enemies})
        friends = sum(_size(f) for f in mine if _cell(f["cell"]) == here)
        near = sorted(((cells_apart(here, _cell(e["cell"])), e["id"], e) for e in enemies
                       if e["status"] == "ready"), key=lambda t: t[:2])
        target = next((e for _, _, e in near if _cell(e["cell"]) in reach
                       and friends >= ATTACK_ODDS * _enemy_force(enemies, _cell(e["cell"]))), None)
        if target is not None:
            out.append({"type": "move", "army": a["id"], "path": reach[_cell(target["cell"])],
                        "attack": target["team"]})
            continue
        danger = [e for d, _, e in near if d <= DANGER_CELLS and _enemy_force(enemies, _cell(e["cell"])) > friends]
        if danger:
            if here in fortresses:
                if not a.get("intercept"):
                    out.append({"type": "posture", "army": a["id"], "intercept": True})
                continue
            shelters = [_cell(f["cell"]) for f in mine if f["id"] != a["id"]] + sorted(fortresses)
            goal = min(shelters, key=lambda c: (cells_apart(here, c), c)) if shelters else None
        elif biggest is not None and a is not biggest and cells_apart(here, _cell(biggest["cell"])) > 2:
            goal = _cell(biggest["cell"])
        elif enemy_places:
            goal = min(enemy_places, key=lambda c: (cells_apart(here, c), c))
        elif near:
            goal = _cell(near[0][2]["cell"])
        else:  # no enemy in sight and no place of its: search, each army towards a different place
            unsearched = [c for c in places if c not in claimed and c not in own_cells]
            goal = min(unsearched, key=lambda c: (cells_apart(here, c), c)) if unsearched else None
            if goal is not None:
                claimed.add(goal)
        if goal is None or goal == here:
            continue
        best = min(reach, key=lambda c: (cells_apart(c, goal), len(reach[c]), c))
        if best != here and cells_apart(best, goal) < cells_apart(here, goal) and reach[best]:
            out.append({"type": "move", "army": a["id"], "path": reach[best]})
    return out


def _storms(view: Mapping[str, Any], team: str, mine: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """N-SIEGE-5, N-SIEGE-9: a siege it lays has lasted its turn: it storms, with as many of the besieging army's
    field companies as D-N-15 allows (half, rounded up) turned into howitzers, which fire over the wall and the
    stormers' heads at double round shot. (Left alone, the storm would come at the turn's end without them.)"""
    out: list[dict[str, Any]] = []
    turn = int(view.get("turn") or 0)
    for siege in view.get("sieges") or ():
        ready = siege.get("phase") == "invested" and turn >= int(siege.get("storm_from") or 0)
        if siege.get("besieger") != team or not ready:
            continue
        companies = sorted(str(u["id"]) for a in mine if a["status"] == "besieging" and a["cell"] == siege["cell"]
                           for u in a.get("units") or () if isinstance(u, Mapping) and u.get("type") in FIELD_GUNS)
        out.append({"type": "siege", "fortress": siege["fortress"], "action": "storm",
                    "howitzers": companies[: (len(companies) + 1) // 2]})
    return out


def _declined(view: Mapping[str, Any], army: str) -> int:
    """How many battles this army has declined (N-START-3), as the view's public battle list tells."""
    return sum(1 for b in view.get("battles") or () if b["status"] == "declined"
               and any(army in group for group in (b["armies"].values() if isinstance(b["armies"], Mapping)
                                                  else [b["armies"]])))


def _enemy_force(enemies: Sequence[Mapping[str, Any]], cell: Cell) -> int:
    return sum(_size(e) for e in enemies if _cell(e["cell"]) == cell)


def _step(gm: GameMap, table: Mapping[str, Any], a: Cell, b: Cell) -> float | None:
    """D-NAP-1, as server.napoleonic.campaign.movement.step_cost, from the map and the view's table."""
    if not gm.contains(b):
        return None
    base = (table.get("terrain") or {}).get(gm.terrain[b])
    if base is None:
        return None
    if gm.on_road(a, b):
        cost = float(table["road_step"])
    else:
        cost = float(base) + (float(table.get("river_extra", 0)) if b in gm.rivers and not gm.is_bridge(b) else 0.0)
    return cost * 1.5 if a[0] != b[0] and a[1] != b[1] else cost


def _reach(gm: GameMap, table: Mapping[str, Any], start: Cell, points: float,
           stops: set[Cell]) -> dict[Cell, list[list[int]]]:
    """Every cell the army can reach with its points, with the cheapest path there (a cell with an enemy army ends
    the move, N-START-1)."""
    best: dict[Cell, float] = {start: 0.0}
    paths: dict[Cell, list[list[int]]] = {start: []}
    queue: list[tuple[float, Cell]] = [(0.0, start)]
    while queue:
        cost, cell = heapq.heappop(queue)
        if cost > best.get(cell, float("inf")) or (cell in stops and cell != start):
            continue
        for nxt in sorted(neighbours(cell)):
            step = _step(gm, table, cell, nxt)
            if step is None or cost + step > points + 1e-9:
                continue
            if cost + step < best.get(nxt, float("inf")):
                best[nxt] = cost + step
                paths[nxt] = [*paths[cell], [nxt[0], nxt[1]]]
                heapq.heappush(queue, (cost + step, nxt))
    return paths
