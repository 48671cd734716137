"""Setting up the storm (N-SIEGE-5, N-SIEGE-6, N-SIEGE-9, N-SIEGE-10, N-SIEGE-11, N-START-7; D-N-15).

Setup format (docs/siege.md):

    {"fortress": {"city": "Dresden", "port": false, "gun_positions": null, "town_depth": 8} | "Dresden",
     "map_seed": 7,                                   optional; else drawn one-way from the room seed (D-GEN-4)
     "turn_limit": 40, "hidden": false,
     "besieger": {"name": "blue", "general": "Davout", "units": [...], "howitzers": ["b-art1"]},
     "garrison": {"name": "red", "general": "Kleist", "units": [...]}}

Units as in a battle setup ({"id", "type", "x", "y", "facing", "formation", "morale", …}). The battle engine's
per-side field limit does the rest (N-SIEGE-5, N-START-6): the besieger's first 30 take the field and the rest wait
off it; the garrison's first 25 take the field and the rest wait in the town (the reserve group `town`), coming up
behind the wall — rows 28 back to 12 — at the start of a turn as places on the field free up. Fortress gun positions
are the fortress's, not the army's, and count against neither limit (`in_field_limit` of their unit type).

Positions must lie in the side's siege zone (siege_map); only garrison infantry may stand on the walls at the start
(N-SIEGE-10: "the defender may place infantry units on the walls"). Units without a position are placed by the
engine: the garrison behind the wall, the besieger's guns in the parallels, its other units behind them.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from server.core.errors import BadOrder, IllegalOrder
from server.napoleonic.battle.deployment import make_unit, parse_facing, setup_state
from server.napoleonic.battle.state import BattleState, new_unit
from server.napoleonic.battle.units import ARTILLERY, INFANTRY, UNIT_TYPES

from .fortress import NAMED_FORTRESSES, Fortress
from .rules import HOWITZER_OF
from .sequence import BESIEGER, GARRISON, STORM_LIMITS
from .siege_map import BESIEGER_ROWS, GUN_FACING, PARALLEL_ROWS, WALL_Y, SiegeField

TOWN = "town"
"""The group of the garrison's units waiting in the town (beyond the 25 on the field)."""
TOWN_ROWS = (WALL_Y - 2, 12)
"""Where the town's reserve comes up: from just behind the wall back towards the town (rows from the north edge)."""
EDGE = {GARRISON: "north", BESIEGER: "south"}
FACING = {GARRISON: 4, BESIEGER: 0}


def parse_fortress(raw: Any) -> Fortress:
    if isinstance(raw, str):
        if raw not in NAMED_FORTRESSES:
            raise BadOrder(f"unknown fortress {raw!r}", rule="N-SIEGE-1")
        return NAMED_FORTRESSES[raw]
    if not isinstance(raw, Mapping) or "city" not in raw:
        raise BadOrder("the storm needs its fortress", rule="N-SIEGE-1")
    try:
        return Fortress.load(raw)
    except (TypeError, ValueError) as exc:
        raise BadOrder(f"bad fortress data: {exc}", rule="N-SIEGE-1") from None


def howitzer_limit(companies: int) -> int:
    """D-N-15: up to half the besieger's artillery companies (rounded up) may become howitzers."""
    return math.ceil(companies / 2)


def convert_howitzers(units: Sequence[Mapping[str, Any]], chosen: Sequence[Any]) -> tuple[list[dict[str, Any]],
                                                                                          dict[str, str]]:
    """N-SIEGE-9: the chosen companies become howitzers for the storm (accuracy and speed their own)."""
    companies = [u for u in units if UNIT_TYPES.get(str(u.get("type"))) is not None
                 and UNIT_TYPES[str(u["type"])].arm == ARTILLERY]
    ids = [str(c) for c in chosen]
    if len(set(ids)) != len(ids):
        raise BadOrder("a company is named twice", rule="N-SIEGE-9")
    if len(ids) > howitzer_limit(len(companies)):
        raise IllegalOrder(f"at most {howitzer_limit(len(companies))} of {len(companies)} companies may become "
                           "howitzers", rule="N-SIEGE-9", details={"decision": "D-N-15", "asked": len(ids)})
    convertible = {str(u["id"]): str(u["type"]) for u in companies if str(u["type"]) in HOWITZER_OF}
    out, original = [], {}
    for u in units:
        spec = dict(u)
        uid = str(spec.get("id"))
        if uid in ids:
            if uid not in convertible:
                raise IllegalOrder(f"{uid!r} is not one of the besieger's field artillery companies",
                                   rule="N-SIEGE-9", details={"unit": uid})
            original[uid] = convertible[uid]
            spec["type"] = HOWITZER_OF[convertible[uid]]
        out.append(spec)
    missing = set(ids) - {str(u.get("id")) for u in units}
    if missing:
        raise IllegalOrder(f"no company {sorted(missing)[0]!r}", rule="N-SIEGE-9")
    return out, original


def _side(config: Mapping[str, Any], role: str) -> Mapping[str, Any]:
    sc = config.get(role)
    if not isinstance(sc, Mapping) or not isinstance(sc.get("name"), str) or not sc["name"]:
        raise BadOrder(f"the storm needs the {role} side with a name", rule="N-SIEGE-5")
    if not isinstance(sc.get("units", []), (list, tuple)):
        raise BadOrder(f"the {role}'s units are a list", rule="N-SIEGE-5")
    return sc


def _candidates(field: SiegeField, role: str, arm: str) -> Iterator[tuple[int, int]]:
    w = field.map.width
    xs = sorted(range(w), key=lambda x: (abs(x - w // 2), x))
    if role == GARRISON:
        rows: list[int] = list(range(WALL_Y - 2, 11, -1))
    else:
        rest = list(range(BESIEGER_ROWS[0], BESIEGER_ROWS[1] + 1))
        rows = [*PARALLEL_ROWS, *[r for r in rest if r not in PARALLEL_ROWS]] if arm == ARTILLERY else \
            [r for r in rest if r not in PARALLEL_ROWS]
    for y in rows:
        for x in xs:
            yield x, y


def _place(scratch: BattleState, field: SiegeField, role: str, side: str, spec: dict[str, Any], num: int) -> None:
    unit = make_unit(spec, side, num)
    unit.facing = parse_facing(spec.get("facing", FACING[role]))
    if "x" in spec and "y" in spec:
        cells = scratch.place_check(unit, int(spec["x"]), int(spec["y"]), unit.facing, unit.formation)
        if not all(field.in_zone(role, x, y) for x, y in cells):
            raise IllegalOrder("units deploy inside their side's siege zone", rule="N-START-7",
                               details={"unit": unit.id, "decision": "D-N-15"})
        if any(field.is_wall(x, y) for x, y in cells) and (role != GARRISON or unit.arm != INFANTRY):
            raise IllegalOrder("only the garrison's infantry may be placed on the walls", rule="N-SIEGE-10",
                               details={"unit": unit.id})
        unit.x, unit.y = int(spec["x"]), int(spec["y"])
    else:
        for x, y in _candidates(field, role, unit.arm):
            try:
                cells = scratch.place_check(unit, x, y, unit.facing, unit.formation)
            except IllegalOrder:
                continue
            if all(field.in_zone(role, cx, cy) and not field.is_wall(cx, cy) for cx, cy in cells):
                unit.x, unit.y = x, y
                break
        else:
            raise IllegalOrder("no room left in the siege zone", rule="N-START-7", details={"unit": unit.id})
    scratch.put(unit)
    scratch.units[unit.id] = unit
    scratch.by_num[num] = unit.id
    spec.update(x=unit.x, y=unit.y, facing=unit.facing)


def storm_battle_config(config: Mapping[str, Any], field: SiegeField, seed: int) -> tuple[dict[str, Any],
                                                                                        dict[str, str]]:
    """The battle setup for the storm: positions checked against the siege zones, howitzers converted, the 30/25
    limits and the town reserve handed to the battle engine (N-SIEGE-5). Returns (battle config, howitzers'
    original types)."""
    bes, gar = _side(config, BESIEGER), _side(config, GARRISON)
    if bes["name"] == gar["name"]:
        raise BadOrder("besieger and garrison are different sides", rule="N-SIEGE-2")
    b_units, original = convert_howitzers(list(bes.get("units", [])), list(bes.get("howitzers", [])))
    g_units = [dict(u) for u in gar.get("units", [])]
    scratch = setup_state({"map": field.map.dump(), "deployment_zones": False, "sides": [
        {"name": gar["name"], "edge": EDGE[GARRISON]}, {"name": bes["name"], "edge": EDGE[BESIEGER], "attacker": True},
    ]}, seed)
    add_fortress_guns(scratch, field, str(gar["name"]))
    num = len(field.guns)
    seen = set(scratch.units)
    for role, side, units in ((GARRISON, gar, g_units), (BESIEGER, bes, b_units)):
        for i, spec in enumerate(units):
            uid = str(spec.get("id", ""))
            if not uid or uid in seen:
                raise BadOrder(f"missing or duplicate unit id {uid!r}", rule="N-START-1")
            seen.add(uid)
            if i < STORM_LIMITS[role]:
                num += 1
                _place(scratch, field, role, str(side["name"]), spec, num)
    sides = [
        {"name": gar["name"], "edge": EDGE[GARRISON], "general": str(gar.get("general", "")), "units": g_units,
         "field_limit": STORM_LIMITS[GARRISON], "reserve": {"group": TOWN, "rows": list(TOWN_ROWS)}},
        {"name": bes["name"], "edge": EDGE[BESIEGER], "attacker": True, "general": str(bes.get("general", "")),
         "units": b_units, "reinforcements": list(bes.get("reinforcements", [])),
         "field_limit": STORM_LIMITS[BESIEGER]},
    ]
    battle = {"map": field.map.dump(), "sides": sides, "deployment_zones": False,
              "turn_limit": int(config.get("turn_limit", 40)), "hidden": bool(config.get("hidden", False))}
    return battle, original


def add_fortress_guns(state: BattleState, field: SiegeField, garrison: str) -> dict[str, str]:
    """N-SIEGE-11: the fortress's fixed gun positions join the garrison (4 guns each, D-N-15). Returns gun → section."""
    num = max(state.by_num, default=0)
    out = {}
    for g in field.guns:
        num += 1
        if g.id in state.units:
            raise BadOrder(f"unit id {g.id!r} is the fortress's gun position", rule="N-START-1")
        gun = new_unit(g.id, garrison, "fortress_artillery", num)
        gun.x, gun.y, gun.facing = g.anchor[0], g.anchor[1], GUN_FACING
        state.place_check(gun, gun.x, gun.y, gun.facing, gun.formation)
        state.units[gun.id] = gun
        state.by_num[num] = gun.id
        state.put(gun)
        out[gun.id] = g.section
    return out
