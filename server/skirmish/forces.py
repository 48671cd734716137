"""The order of battle of a scenario (S-2, S-7.1): sides, their units (squads, crews, tanks, platoons with their
sub-units) and each figure's role and weapon, read from the scenario data that `setup` is given.

    {"id": "g1", "name": "1st squad", "kind": "squad",
     "figures": [{"role": "commander", "weapon": "submachine_gun", "model": "MP-40"},
                 {"role": "rifleman", "weapon": "rifle", "model": "Mauser 98k", "count": 7}],
     "units": [...sub-units...]}

A unit's commander is its first figure with the role "commander" (a tank unit's: its first tank). Figure ids are
`<unit>.<n>`, numbered from 1 in the order listed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from server.core.errors import BadOrder

from .rules import EDGES, ROLES, VEHICLES, Settings
from .state import ATTACKER, DEFENDER, Figure, Side, Unit

MAX_FIGURES = 400


def build_sides(specs: Any, teams: Sequence[str], settings: Settings
                ) -> tuple[dict[str, Side], dict[str, Unit], dict[str, Figure]]:
    """The two sides of a scenario, played by `teams` (in the scenario's order of sides)."""
    if not isinstance(specs, list) or len(specs) != 2:
        raise BadOrder("a skirmish has two sides", rule="S-3.2")
    roles = sorted(str(s.get("role")) for s in specs if isinstance(s, Mapping))
    if roles != [ATTACKER, DEFENDER]:
        raise BadOrder("one side attacks and the other defends", rule="S-3.2")
    sides: dict[str, Side] = {}
    units: dict[str, Unit] = {}
    figures: dict[str, Figure] = {}
    for team, spec in zip(teams, specs, strict=True):
        edge = spec.get("edge", "south" if spec["role"] == ATTACKER else "north")
        if edge not in EDGES:
            raise BadOrder(f"a side's edge is one of {', '.join(EDGES)}", rule="D-S-3")
        deployment = spec.get("deployment") or {}
        if not isinstance(deployment, Mapping):
            raise BadOrder("a side's deployment is an object", rule="D-S-3")
        sides[team] = Side(team=team, name=str(spec.get("id") or team), nation=str(spec.get("nation", "")),
                           role=str(spec["role"]), edge=str(edge), default_deployment=dict(deployment))
        raw_units = spec.get("units")
        if not isinstance(raw_units, list) or not raw_units:
            raise BadOrder("a side needs units", rule="S-2")
        for u in raw_units:
            _unit(u, team, None, units, figures)
    edges = {s.edge for s in sides.values()}
    if len(edges) != 2:
        raise BadOrder("the sides deploy from different edges", rule="D-S-3")
    if len(figures) > MAX_FIGURES:
        raise BadOrder(f"at most {MAX_FIGURES} figures", rule="S-3.1")
    for f in figures.values():
        if f.weapon is not None and f.weapon not in settings.weapons:
            raise BadOrder(f"no weapon {f.weapon!r} in the small-arms table", rule="D-S-8",
                           details={"figure": f.id})
    return sides, units, figures


def _unit(spec: Any, team: str, parent: str | None, units: dict[str, Unit], figures: dict[str, Figure]) -> str:
    if not isinstance(spec, Mapping) or not isinstance(spec.get("id"), str) or not spec["id"]:
        raise BadOrder("a unit is an object with an id", rule="S-7.1")
    uid = str(spec["id"])
    if uid in units or uid == "army" or "." in uid or uid.startswith("group:"):
        raise BadOrder(f"unit id {uid!r} is taken or not allowed", rule="S-7.1")
    members: list[str] = []
    commander: str | None = None
    n = 0
    for fs in spec.get("figures") or []:
        if not isinstance(fs, Mapping):
            raise BadOrder("a figure is an object", rule="S-2")
        role = str(fs.get("role", "rifleman"))
        if role not in ROLES:
            raise BadOrder(f"no role {role!r}; known: {', '.join(ROLES)}", rule="S-2", details={"unit": uid})
        vehicle = fs.get("vehicle")
        if vehicle is not None and vehicle not in VEHICLES:
            raise BadOrder(f"no vehicle {vehicle!r}", rule="D-S-14", details={"unit": uid})
        count = fs.get("count", 1)
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 50:
            raise BadOrder("a figure's count is 1 to 50", rule="S-2", details={"unit": uid})
        for _ in range(count):
            n += 1
            fid = f"{uid}.{n}"
            figures[fid] = Figure(fid, team, uid, role, None if vehicle else fs.get("weapon"),
                                  model=str(fs.get("model", "")), vehicle=vehicle, index=len(figures))
            members.append(fid)
            if commander is None and (role == "commander" or (vehicle and role == "tank")):
                commander = fid
    units[uid] = Unit(uid, team, str(spec.get("name") or uid), str(spec.get("kind", "squad")), parent, commander,
                      tuple(members), start=len(members))
    children = tuple(_unit(c, team, uid, units, figures) for c in spec.get("units") or [])
    units[uid].children = children
    if not members and not children:
        raise BadOrder(f"unit {uid} has no figures", rule="S-7.1")
    return uid


def descendants(units: Mapping[str, Unit], uid: str) -> list[str]:
    """`uid` and every unit under it, parents first."""
    out = [uid]
    for c in units[uid].children:
        out += descendants(units, c)
    return out


def ancestors(units: Mapping[str, Unit], uid: str) -> list[str]:
    out: list[str] = []
    parent = units[uid].parent
    while parent is not None:
        out.append(parent)
        parent = units[parent].parent
    return out
