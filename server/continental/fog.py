"""Fog of war: what each viewer may know (C-1.3: the server is the mediator who hides what a side may not see).

- "moderator": everything, including the truth behind false answers and level-3 orders waiting.
- "spectator": the whole map and every unit (the room may delay it), but no team's questions, answers, orders
  waiting or regulations (docs/campaign.md).
- "team:<colour>": its own forces in full; of the others: covering troops' positions (C-8.1), units in sectors open
  to observation (C-8.2), units next to its own troops (contact), the deployment report (C-6.2) and the standing
  information (C-8.1), and the answers to its own questions (C-8.3).
- "public": the game's frame only — teams, turn, phase, the border and front line, closures, penalties, result.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from server.continental.context import Ctx
from server.continental.deployment import border_of, standing_information
from server.continental.events import for_team
from server.continental.forces import TRANSFER, Unit
from server.continental.grid import Cell, chebyshev, label, neighbours
from server.continental.scenario import load_scenario
from server.continental.state import CampaignState, cell_of
from server.core.engine import MODERATOR, PUBLIC, SPECTATOR

FULL = "full"
POSITION = "position"


def open_sectors(state: CampaignState, team: str, observer: str) -> frozenset[Cell]:
    """C-8.2: where `team` has no covering troops along its border with `observer`, a zone 60 km deep and as wide
    as the open sector plus a quarter of its width on each flank is open to `observer`'s observation. A cover
    division covers its own border cell and one on each side (1/3 division per 10 km, C-5.8). Only the side
    across an open sector observes it (our reading: a border with a third state opens nothing to us).

    The exception of C-8.2: troops of `team` behind the border act as cover — each covers its cell and one cell
    around it, so that a continuous front of them (a division every third cell or closer) closes the ground behind
    it; the front itself stays in view. A gap in the front lets observation through."""
    cover = tuple(sorted(u.cell for u in state.alive_units(team) if u.cover))
    troops = tuple(sorted({c for u in state.alive_units(team) if u.status != TRANSFER for c in u.cells()}))
    return _open_sectors(state.scenario, state.level, team, observer, cover, troops,
                         tuple(sorted(state.control.items())))


@lru_cache(maxsize=512)
def _open_sectors(scenario: str, level: int, team: str, observer: str, cover: tuple[Cell, ...],
                  troops: tuple[Cell, ...], control: tuple[tuple[str, str], ...]) -> frozenset[Cell]:
    """Memoized: the zone depends only on the map, the side's troops' cells and who holds which cell."""
    scen = load_scenario(scenario)
    gm = scen.map_for(level)
    grid: dict[Cell, str | None] = dict(gm.states)
    for key, occupier in control:
        grid[cell_of(key)] = occupier
    border = border_of(gm, grid, team, observer)
    open_cells = {b for b in border if not any(chebyshev(b, c) <= 1 for c in cover)}
    if not open_cells:
        return frozenset()
    border_set = set(border)
    widened: set[Cell] = set()
    seen: set[Cell] = set()
    for start in sorted(open_cells):
        if start in seen:
            continue
        run, stack = {start}, [start]
        while stack:
            cur = stack.pop()
            for n in neighbours(cur):
                if n in open_cells and n not in run:
                    run.add(n)
                    stack.append(n)
        seen |= run
        extra = math.ceil(len(run) / 4)
        frontier, grown = set(run), set(run)
        for _ in range(extra):
            frontier = {n for c in frontier for n in neighbours(c) if n in border_set and n not in grown}
            grown |= frontier
        widened |= grown
    depth = int(float(scen.tables["recon"]["observed_depth_km"]) / 10)
    held = set(troops)
    screen = {n for c in troops for n in (c, *neighbours(c))}
    # observation spreads from the widened sector one cell a step (Chebyshev distance on open ground); from a
    # cell the side's troops cover it reaches only the troops themselves, not the ground beyond them
    reached = set(widened)
    frontier_cells = sorted(widened)
    for _ in range(depth):
        nxt = []
        for c in frontier_cells:
            for n in neighbours(c):
                if n in grid and n not in reached and (c not in screen or n in held):
                    reached.add(n)
                    nxt.append(n)
        frontier_cells = nxt
    return frozenset(c for c in reached if grid.get(c) == team)


def visible_units(state: CampaignState, team: str) -> dict[str, str]:
    """Other sides' units `team` sees now, with how much it sees of each."""
    own_cells = {c for u in state.alive_units(team) for c in u.cells()}
    near = {n for c in own_cells for n in neighbours(c)} | own_cells
    sectors: dict[str, frozenset[Cell]] = {}
    seen: dict[str, str] = {}
    for u in sorted(state.alive_units(), key=lambda u: u.id):
        if u.team == team:
            continue
        if u.team not in sectors:
            sectors[u.team] = open_sectors(state, u.team, team) if state.phase != "planning" else frozenset()
        if any(c in near or c in sectors[u.team] for c in u.cells()):
            seen[u.id] = FULL
        elif u.cover and state.phase != "planning":
            seen[u.id] = POSITION
    return seen


def unit_view(u: Unit, detail: str = FULL) -> dict[str, Any]:
    if detail == POSITION:
        return {"id": u.id, "team": u.team, "cell": list(u.cell), "cover": True}
    d = u.dump()
    if detail != "own":
        for secret in ("route", "used", "debt", "pursuit", "carry", "army", "corps", "status_until", "parent"):
            d.pop(secret, None)
    return d


def _map_view(state: CampaignState) -> dict[str, Any]:
    gm = state.map
    return {
        "origin": list(gm.origin), "size": list(gm.size),
        "terrain": {label(c): t for c, t in sorted(gm.terrain.items()) if t != "plain"},
        "states": state.scen.raw["map"]["states"],
        "legend": {"states": state.scen.raw["map"]["legend"]["states"]},
        "rivers": sorted(list(c) for c in gm.rivers),
        "roads": sorted(list(c) for c in gm.roads), "railways": sorted(list(c) for c in gm.railways),
        "tracks": sorted(list(c) for c in gm.tracks),
        "places": [{"name": p.name, "cell": list(p.cell), "kind": p.kind, "state": p.state}
                   for p in gm.places.values()],
    }


def movement_tables(state: CampaignState) -> dict[str, Any]:
    """C-4.3, C-T4 (D-C-2): km per turn by ground (and `road`, `track_<ground>`) and arm, and river crossing turns
    by arm, so that a client prices a planned path in the engine's own unit (fractions of the turn, D-C-1); the
    time a facing change takes (C-4.3bis), the withdrawal's share of the speed at level 3 (C-4.4) and the arms
    that make no regular strike (C-9.8), so that a plan of the turn is priced from the view too (issue 18)."""
    return {"speeds_km": state.tables["speeds_km"], "river_crossing_turns": state.tables["river_crossing_turns"],
            "turning_turns": state.tables["turning_turns"],
            "withdrawal_speed_l3": state.tables["movement"]["withdrawal_speed_l3"],
            "no_regular_strike": state.tables["no_regular_strike"], "rule": "C-T4"}


def clock_settings(state: CampaignState) -> dict[str, Any] | None:
    """C-1.9, C-5.2: the thinking time the room's clocks give (planning, then per turn), from the tables."""
    clocks = state.tables.get("clocks", {})
    per_turn = clocks.get(str(state.level))
    if state.phase == "planning":
        return {"per_turn": clocks.get("planning"), "accumulate": False, "rule": "C-5.2"}
    return None if per_turn is None else {**per_turn, "rule": "C-1.9"}


def view(state: CampaignState, viewer: str) -> dict[str, Any]:
    base: dict[str, Any] = {
        "scenario": state.scenario, "title": state.scen.title, "level": state.level, "phase": state.phase,
        "turn": state.turn, "active": sorted(state.order.active) if state.phase != "over" else [],
        "teams": state.teams, "neutrals": state.neutrals, "house_rules": state.house_rules,
        "mediator": state.mediator, "refused_order_fine": state.penalise_refused,
        "recon_deception": state.recon_deception, "war": state.war, "aggressor": state.aggressor,
        "violators": state.violators, "control": dict(sorted(state.control.items())),
        "closures": {k: v for k, v in sorted(state.closures.items()) if max(v.values()) >= state.turn},
        "penalties": state.penalties, "peace_pairs": state.peace_pairs, "result": state.result,
        "map": _map_view(state), "prisoners": state.prisoners, "defeated": state.defeated,
        "clock": clock_settings(state), "tables": movement_tables(state),
    }
    if viewer in (MODERATOR, SPECTATOR):
        base["units"] = [unit_view(u) for u in sorted(state.units.values(), key=lambda u: u.id)]
        base["armies"] = state.armies
        base["interdictions"] = state.interdictions
        base["proposals"] = state.proposals
        if viewer == MODERATOR:
            base["units"] = [unit_view(u, "own") for u in sorted(state.units.values(), key=lambda u: u.id)]
            base["answers"] = state.answers
            base["pending"] = state.pending
            base["regulations"] = state.regulations
            base["recon"] = state.recon
            base["reserves"] = state.reserves
            base["mobilization"] = state.mobilization
            base["interventions"] = {"turns": state.interventions, "limited": state.interventions_limited}
        return base
    if viewer == PUBLIC or not viewer.startswith("team:"):
        return base
    team = viewer.split(":", 1)[1]
    if team not in state.player_teams:
        return base
    seen = visible_units(state, team)
    base["units"] = [unit_view(u, "own") for u in sorted(state.alive_units(team), key=lambda u: u.id)]
    base["enemy_units"] = [unit_view(state.units[i], d) for i, d in sorted(seen.items())]
    base["armies"] = {team: state.armies.get(team, {})}
    base["interdictions"] = [m for m in state.interdictions if m["team"] == team]
    base["proposals"] = [p for p in state.proposals if team in (p["from"], p["to"])]
    base["answers"] = [{k: v for k, v in a.items() if k not in ("false", "truth")}
                       for a in state.answers if a["team"] == team]
    base["recon"] = state.recon.get(team, {})
    base["pending"] = state.pending.get(team, [])
    base["regulations"] = state.regulations.get(team, {})
    base["mobilization"] = state.mobilization.get(team, [])
    base["deployment_report"] = state.reports.get(team, {})
    if state.war:
        base["standing_information"] = {o: standing_information(state, o)
                                        for o in [*state.player_teams, *state.neutrals] if o != team}
    return base


def sightings(before: CampaignState, ctx: Ctx) -> None:
    """After every command: tell each team which other units came into or went out of its sight, so events
    carry to a team only what its view would show."""
    after = ctx.state
    for team in after.player_teams:
        old = visible_units(before, team)
        new = visible_units(after, team)
        shown = {i: unit_view(after.units[i], d) for i, d in new.items()}
        was = {i: unit_view(before.units[i], d) for i, d in old.items() if i in before.units}
        changed = [v for i, v in sorted(shown.items()) if was.get(i) != v]
        lost = sorted(i for i in old if i not in new)
        if changed or lost:
            ctx.emit(for_team(team, "sighting", spectators=False, units=changed, lost=lost))
