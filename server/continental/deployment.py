"""Planning and deployment (C-5.*, C-6.*): placing counters, armies of 4–10 divisions, covering troops,
movement regulations, mobilization points and reserves (C-6.4, C-T5), the mediator's deployment report (C-6.2)."""

from __future__ import annotations

from typing import Any

from server.continental.context import Ctx
from server.continental.events import for_team, public
from server.continental.forces import Unit, is_division, new_division
from server.continental.grid import ORTHOGONAL, Cell, chebyshev, label, line_from
from server.continental.movement import blocking, nearest_free, stack_allowed
from server.continental.orders import Army, ArmyGroup, Cover, Deploy, Formation, MobilizationPoints, Posture, Regulation
from server.continental.scenario import GameMap
from server.continental.state import PLANNING, CampaignState
from server.core.errors import IllegalOrder

EPS = 1e-9


def setup_fortresses(state: CampaignState) -> None:
    """C-3.6 [L2]: the fortresses on the map start to function, each with its garrison and stationary artillery."""
    if state.level < 2:
        return
    owners = set(state.player_teams) | set(state.neutrals)
    for place in state.map.places.values():
        if place.kind != "fortress" or place.state not in owners:
            continue
        spec: dict[str, Any] = {"id": f"fort-{place.name.lower().replace(' ', '-')}", "name": place.name, "arm": "FORT",
                "cell": list(place.cell), "facing": "N"}
        state.units[spec["id"]] = new_division(state.scen, state.level, spec, place.state,
                                               neutral=place.state in state.neutrals)


def setup_headquarters(state: CampaignState) -> None:
    """C-T1: army and corps HQs are nominal at levels 1-2 (the army and corps are labels). From the level the
    tables name, each army and corps of the scenario gets an HQ counter of its T1 troops, standing on the nearest
    free cell of its own country to the formation's first division at least 20 km behind the border (our
    decision: the HQ stands behind its troops)."""
    hq = state.tables["headquarters"]
    if hq is None or state.level < int(hq["counters_from_level"]):
        return
    for team in [*state.player_teams, *state.neutrals]:
        border = border_cells(state, team)
        rear = sorted(c for c, holder in state.map.states.items() if holder == team and state.map.is_land(c)
                      and all(chebyshev(c, b) >= 2 for b in border))
        divisions = sorted((u for u in state.alive_units(team) if is_division(state.tables, u)), key=lambda u: u.id)
        formations: dict[tuple[str, str], Unit] = {}
        for u in divisions:
            for kind, name in (("army", u.army), ("corps", u.corps)):
                if name:
                    formations.setdefault((kind, name), u)
        for (kind, name), first in sorted(formations.items()):
            spec = {"id": f"{team[0]}HQ-{name}", "name": f"{name} HQ", "arm": hq[kind], "cell": list(first.cell),
                    "facing": first.facing, "army": first.army, "corps": name if kind == "corps" else None}
            unit = new_division(state.scen, state.level, spec, team, neutral=team in state.neutrals)
            speeds = state.tables["speeds_km"]
            cells = [c for c in rear if not blocking(state, unit, c)
                     and isinstance(speeds[state.map.terrain[c]][unit.arm], (int, float))]
            if cells:
                unit.cell = min(cells, key=lambda c: (chebyshev(c, first.cell), c))
                state.units[unit.id] = unit


def _planning_unit(ctx: Ctx, team: str, unit_id: str) -> Unit:
    unit = ctx.own_unit(team, unit_id)
    if ctx.state.phase != PLANNING:
        raise IllegalOrder("deployment happens before the war's first turn", rule="C-6.1")
    return unit


def deploy(ctx: Ctx, team: str, cmd: Deploy) -> None:
    """C-6.1: on mobilization day every formation stands where the commander's map shows it — in its own
    country, on passable ground, one division counter a cell (C-4.12)."""
    state = ctx.state
    unit = _planning_unit(ctx, team, cmd.unit)
    if unit.arm == "FORT":
        raise IllegalOrder("fortresses do not move", rule="C-3.6")
    gm = state.map
    if not gm.is_land(cmd.cell) or state.controller(cmd.cell) != team:
        raise IllegalOrder(f"{label(cmd.cell)} is not in your country", rule="C-6.1")
    terrain_speed = state.tables["speeds_km"][gm.terrain[cmd.cell]][unit.arm]
    if terrain_speed is None or (terrain_speed == "tracks" and cmd.cell not in gm.tracks and cmd.cell not in gm.roads):
        raise IllegalOrder(f"{unit.name} cannot stand on {gm.terrain[cmd.cell]} there", rule="C-4.3")
    if state.level < 2 and cmd.facing not in ORTHOGONAL:
        raise IllegalOrder("at level 1 counters face north, east, south or west", rule="C-4.3bis")
    others = blocking(state, unit, cmd.cell)
    if others and not stack_allowed(state, [*others, unit]):
        raise IllegalOrder(f"{label(cmd.cell)} is occupied", rule="C-4.12")
    unit.cell, unit.facing, unit.second, unit.wide = cmd.cell, cmd.facing, None, False
    ctx.emit(for_team(team, "deployed", unit=unit.id, cell=list(cmd.cell), facing=cmd.facing))


def army(ctx: Ctx, team: str, cmd: Army) -> None:
    """C-5.6: an army is 4 to 10 divisions; a division belongs to one army. Its operational zone (band), if
    given, is written in the team's plan (a rectangle of two corners), seen by the team and the moderator."""
    state = ctx.state
    dep = state.tables["deployment"]
    units = [_planning_unit(ctx, team, u) for u in dict.fromkeys(cmd.units)]
    if not int(dep["army_min"]) <= len(units) <= int(dep["army_max"]):
        raise IllegalOrder(f"an army has {dep['army_min']} to {dep['army_max']} divisions", rule="C-5.6")
    if not all(is_division(state.tables, u) for u in units):
        raise IllegalOrder("armies are made of divisions", rule="C-5.6")
    armies = state.armies.setdefault(team, {})
    for name in list(armies):
        armies[name] = [u for u in armies[name] if u not in cmd.units]
        if not armies[name] and name != cmd.name:
            del armies[name]
    armies[cmd.name] = [u.id for u in units]
    for u in units:
        u.army = cmd.name
    zones = state.regulations.setdefault(team, {}).setdefault("zones", {})
    if cmd.zone is not None:
        (x0, y0), (x1, y1) = cmd.zone
        zones[cmd.name] = [[min(x0, x1), min(y0, y1)], [max(x0, x1), max(y0, y1)]]
    ctx.emit(for_team(team, "army_formed", name=cmd.name, units=[u.id for u in units], rule="C-5.6"))
    if cmd.zone is not None:
        ctx.emit(for_team(team, "zone", spectators=False, army=cmd.name, zone=zones[cmd.name], rule="C-5.6"))


def army_group(ctx: Ctx, team: str, cmd: ArmyGroup) -> None:
    """C-5.7: armies may be grouped into an army group (front) — convenient, not required. Kept in the team's
    plan beside the zones (seen by the team and the moderator); an army belongs to one group at most."""
    state = ctx.state
    armies = state.armies.get(team, {})
    unknown = [a for a in cmd.armies if a not in armies]
    if unknown:
        raise IllegalOrder(f"no army {unknown[0]!r} to group", rule="C-5.7")
    groups = state.regulations.setdefault(team, {}).setdefault("groups", {})
    for name in list(groups):
        groups[name] = [a for a in groups[name] if a not in cmd.armies]
        if not groups[name]:
            del groups[name]
    groups[cmd.name] = list(dict.fromkeys(cmd.armies))
    ctx.emit(for_team(team, "army_group", spectators=False, name=cmd.name, armies=groups[cmd.name], rule="C-5.7"))


def cover(ctx: Ctx, team: str, cmd: Cover) -> None:
    """C-5.8: covering troops along the border (their positions are told to the enemy, C-6.2, C-8.1)."""
    unit = _planning_unit(ctx, team, cmd.unit)
    unit.cover = cmd.cover
    ctx.emit(for_team(team, "cover_set", unit=unit.id, cover=cmd.cover, rule="C-5.8"))


def mobilization_points(ctx: Ctx, team: str, cmd: MobilizationPoints) -> None:
    """C-6.4 [L2]: reserve divisions appear in cities the player declares by mobilization day."""
    state = ctx.state
    if state.level < 2:
        raise IllegalOrder("mobilization is a level-2 rule", rule="C-6.4")
    if state.phase != PLANNING:
        raise IllegalOrder("mobilization points are declared by mobilization day", rule="C-6.4")
    for name in cmd.cities:
        place = state.map.places.get(name)
        if place is None or place.kind not in ("city", "capital") or place.state != team:
            raise IllegalOrder(f"{name!r} is not one of your cities", rule="C-6.4")
    state.mobilization[team] = list(dict.fromkeys(cmd.cities))
    ctx.emit(for_team(team, "mobilization_points", cities=state.mobilization[team], spectators=False, rule="C-6.4"))


def regulation(ctx: Ctx, team: str, cmd: Regulation) -> None:
    """C-5.9: a movement regulation, written down and assumed by default afterwards."""
    ctx.state.regulations.setdefault(team, {}).setdefault("texts", {})[cmd.name] = cmd.text
    ctx.emit(for_team(team, "regulation", name=cmd.name, text=cmd.text, spectators=False, rule="C-5.9"))


def posture(ctx: Ctx, team: str, cmd: Posture) -> None:
    """C-9.8a: the defender's standing answer to an attack — accept battle or withdraw — for one unit or, with no
    unit, for all (a movement regulation, C-5.9; the server applies it when the attack comes)."""
    if cmd.unit is not None:
        ctx.own_unit(team, cmd.unit)
    ctx.state.regulations.setdefault(team, {}).setdefault("on_attack", {})[cmd.unit or "*"] = cmd.on_attack
    ctx.emit(for_team(team, "posture", unit=cmd.unit, on_attack=cmd.on_attack, spectators=False, rule="C-9.8a"))


def posture_of(state: CampaignState, unit: Unit) -> str:
    rules = state.regulations.get(unit.team, {}).get("on_attack", {})
    return str(rules.get(unit.id, rules.get("*", "accept")))


def formation(ctx: Ctx, team: str, cmd: Formation) -> None:
    """C-9.6 [L2], C-T9/C-T10: line (three regiments in front) or support formation (two in front, one behind),
    regiments oriented to the enemy or to the front line. Regrouping the regiments takes a quarter turn, as a 45°
    turn does (C-4.3bis [L2]); free while planning."""
    state = ctx.state
    unit = ctx.own_unit(team, cmd.unit)
    if state.level < 2:
        ctx.fail(IllegalOrder("formations are a level-2 rule", rule="C-9.6"))
    if state.phase != PLANNING:
        cost = float(state.tables["turning_turns"]["45"]["default"])
        if unit.used + cost > 1 + EPS:
            ctx.fail(IllegalOrder(f"{unit.name} has not the time left to regroup", rule="C-4.3bis"))
        unit.used += cost
    unit.formation, unit.orientation = cmd.formation, cmd.orientation
    ctx.emit(for_team(team, "formation", unit=unit.id, formation=cmd.formation, orientation=cmd.orientation))


def border_cells(state: CampaignState, team: str) -> list[Cell]:
    """The land cells `team` holds next to land another state holds (its border or front line)."""
    return border_of(state.map, state.control_grid(), team)


def border_of(gm: GameMap, grid: dict[Cell, str | None], team: str, facing: str | None = None) -> list[Cell]:
    """The border cells of `team`; with `facing`, only those next to cells that side holds."""
    terrain = gm.terrain
    out = []
    for cell, holder in sorted(grid.items()):
        if holder != team or terrain[cell] == "sea":
            continue
        x, y = cell
        for n in ((x - 1, y - 1), (x - 1, y), (x - 1, y + 1), (x, y - 1), (x, y + 1), (x + 1, y - 1), (x + 1, y),
                  (x + 1, y + 1)):
            other = grid.get(n)
            if other is not None and other != team and terrain[n] != "sea" and facing in (None, other):
                out.append(cell)
                break
    return out


def first_echelon(state: CampaignState, team: str) -> dict[str, list[str]]:
    """C-6.2: first-echelon armies stand no further than 60 km from the border (every division of the army) and
    are not screened by forest, mountains or other armies: an army is screened when each of its divisions is."""
    depth = float(state.tables["deployment"]["first_echelon_km"]) / 10
    border = border_cells(state, team)
    out: dict[str, list[str]] = {}
    for name, ids in sorted(state.armies.get(team, {}).items()):
        units = [state.units[i] for i in ids if i in state.units and state.units[i].alive]
        if units and border and all(min(chebyshev(u.cell, b) for b in border) <= depth for u in units) and not all(
                screened(state, u, border, depth) for u in units):
            out[name] = [u.id for u in units]
    return out


def screened(state: CampaignState, unit: Unit, border: list[Cell], depth: float) -> bool:
    """C-6.2: no straight line from a border cell within 60 km reaches the division without crossing screening
    terrain of the level's map (forest, mountains — tables.deployment.screening_terrain) or a division of another
    of its side's armies; the border cell itself counts, the division's own cell does not."""
    terrain = state.map.terrain
    screens = set(state.tables["deployment"].get("screening_terrain", []))
    others = {c for u in state.alive_units(unit.team) if u.army and u.army != unit.army for c in u.cells()}
    for b in border:
        if chebyshev(b, unit.cell) > depth:
            continue
        if b == unit.cell or not any(terrain.get(c) in screens or c in others for c in line_from(b, unit.cell)):
            return False
    return True


def standing_information(state: CampaignState, about: str, *, deployment: bool = False) -> dict[str, Any]:
    """What every side is told about `about`. At deployment (C-6.2): the covering troops' grouping, the zones of
    the first-echelon armies and the number of corps in each (not their composition), the names of the other
    armies. Throughout the war (C-8.1): the covering troops' positions, the first-echelon armies' composition
    without arms (how many divisions), the names of the other armies."""
    first = first_echelon(state, about)
    armies = state.armies.get(about, {})
    info: dict[str, Any] = {"covering_troops": [], "first_echelon": [], "other_armies": []}
    for u in sorted(state.alive_units(about), key=lambda u: u.id):
        if u.cover:
            info["covering_troops"].append(list(u.cell))
    for name, ids in first.items():
        units = [state.units[i] for i in ids]
        if deployment:
            xs, ys = [u.cell[0] for u in units], [u.cell[1] for u in units]
            info["first_echelon"].append({"army": name, "zone": [[min(xs), min(ys)], [max(xs), max(ys)]],
                                          "corps": len({u.corps for u in units if u.corps})})
        else:
            info["first_echelon"].append({"army": name, "divisions": len(units)})
    info["other_armies"] = sorted(n for n in armies if n not in first and armies[n])
    return info


def finish_planning(ctx: Ctx) -> None:
    """C-6.2: the mediator places both sides' cards and tells each side about the others."""
    state = ctx.state
    for team in state.player_teams:
        report = {other: standing_information(state, other, deployment=True)
                  for other in [*state.player_teams, *state.neutrals] if other != team}
        state.reports[team] = report
        ctx.emit(for_team(team, "deployment_report", spectators=False, report=report, rule="C-6.2"))


def mobilize(ctx: Ctx) -> None:
    """C-6.4 [L2], C-T5: reserve divisions appear on day M (the first turn), M+5, M+10 and M+15 in the declared
    cities (the capital when none was declared), at most two at one point at a time; the rest wait a turn."""
    state = ctx.state
    if state.level < 2:
        return
    table = state.scen.raw.get("mobilization", {})
    days = [int(d) for d in table.get("days", [])]
    per_city = int(table.get("per_city", 2))
    for team in [*state.player_teams, *state.neutrals]:
        queue = state.reserves.setdefault(team, [])
        if state.turn - 1 in days:
            i = days.index(state.turn - 1)
            for arm, counts in sorted(table.get(team, {}).items()):
                for _ in range(int(counts[i])):
                    queue.append([arm, state.turn])
        if not queue:
            continue
        capital = state.scen.raw["states"][team].get("capital")
        cities = [c for c in state.mobilization.get(team, [capital] if capital else [])
                  if c in state.map.places and state.controller(state.map.places[c].cell) == team]
        placed = 0
        for city in cities:
            for _ in range(per_city):
                if not queue:
                    break
                arm, _day = queue[0]
                uid = state.next_id(f"{team[0]}M-{arm}")
                spec = {"id": uid, "name": f"{uid.split('#')[1]} {arm} (reserve)", "arm": arm,
                        "cell": list(state.map.places[city].cell), "facing": "N"}
                unit = new_division(state.scen, state.level, spec, team, neutral=team in state.neutrals)
                cell = nearest_free(state, team, unit.cell, unit)
                if cell is None:
                    break
                unit.cell = cell
                state.units[uid] = unit
                queue.pop(0)
                placed += 1
                ctx.emit(for_team(team, "mobilized", unit=uid, arm=arm, cell=list(cell), city=city, rule="C-6.4"))
        if placed:
            ctx.emit(public("mobilization", team=team, turn=state.turn, rule="C-6.4"))
