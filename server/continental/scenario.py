"""Scenario data (maps, forces, tables) of shared/scenarios/<name>/, read at the edge (server/scenarios.py), handed
in with `provide` and checked once.

Everything a rule needs as a number lives in the scenario's JSON files, so the Napoleonic campaign can reuse the
mechanics with its own data. The relief and infrastructure a level shows follow C-2.U1, C-2.U2 and D-C-2: level 1
keeps plain and mountains, coast, rivers, roads, borders, capitals and cities; level 2 adds forest, swamp, hills,
fortresses, railways and tracks (bridges and passes are the road cells on rivers and in mountains).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from server.continental.grid import Cell, is_adjacent

LEVEL1_TERRAIN = {"plain", "mountains", "sea"}
LEVEL2_PLACES = {"fortress"}


class ScenarioError(ValueError):
    """The scenario data is inconsistent (a bug in the data, reported with its location)."""


@dataclass(frozen=True)
class Place:
    name: str
    cell: Cell
    kind: str
    state: str


@dataclass(frozen=True)
class GameMap:
    """The game map (mediator's map, C-1.6) as a level shows it."""

    origin: Cell
    size: Cell
    terrain: Mapping[Cell, str]
    states: Mapping[Cell, str | None]
    rivers: frozenset[Cell]
    roads: Mapping[Cell, frozenset[Cell]]
    railways: Mapping[Cell, frozenset[Cell]]
    tracks: Mapping[Cell, frozenset[Cell]]
    places: Mapping[str, Place]
    place_at: Mapping[Cell, Place] = field(default_factory=dict)

    def contains(self, cell: Cell) -> bool:
        return (self.origin[0] <= cell[0] < self.origin[0] + self.size[0]
                and self.origin[1] <= cell[1] < self.origin[1] + self.size[1])

    def cells(self) -> list[Cell]:
        return sorted(self.terrain)

    def is_land(self, cell: Cell) -> bool:
        return self.contains(cell) and self.terrain[cell] != "sea"

    def on_road(self, a: Cell, b: Cell) -> bool:
        return b in self.roads.get(a, frozenset())

    def on_track(self, a: Cell, b: Cell) -> bool:
        return b in self.tracks.get(a, frozenset())

    def is_bridge(self, cell: Cell) -> bool:
        return cell in self.rivers and cell in self.roads

    def is_pass(self, cell: Cell) -> bool:
        return self.terrain.get(cell) == "mountains" and cell in self.roads

    def is_transport_node(self, cell: Cell, *, rail: bool) -> bool:
        """C-4.5: a point where more than three roads (railways at level 2) meet."""
        net = self.railways if rail else self.roads
        return len(net.get(cell, frozenset())) > 3

    def is_border(self, cell: Cell) -> bool:
        own = self.states.get(cell)
        return own is not None and any(
            self.states.get((cell[0] + dx, cell[1] + dy)) not in (None, own)
            for dx in (-1, 0, 1) for dy in (-1, 0, 1)
        )

    def defender_features(self, cell: Cell) -> list[str]:
        """The features of a cell that multiply a defender (C-9.8b, D-C-4) or set artillery losses (C-9.7a)."""
        feats = [self.terrain[cell]]
        if cell in self.rivers:
            feats.append("river")
        place = self.place_at.get(cell)
        if place is not None:
            feats.append(place.kind)
        return feats


@dataclass(frozen=True)
class Scenario:
    name: str
    title: str
    raw: Mapping[str, Any]
    tables: Mapping[str, Any]
    full_map: GameMap

    @property
    def states(self) -> Mapping[str, Any]:
        return dict(self.raw["states"])

    def map_for(self, level: int) -> GameMap:
        return _map_for_level(self.name, level)

    def forces_for(self, state: str, level: int) -> list[Mapping[str, Any]]:
        """A state's counters at `level`: a plain list, or lists by the level from which they take part."""
        spec = self.raw["forces"].get(state, [])
        if isinstance(spec, Mapping):
            return [u for lv, group in sorted(spec.items()) if lv.isdigit() and int(lv) <= level for u in group]
        return list(spec)


def _network(lines: list[list[list[int]]], where: str) -> dict[Cell, frozenset[Cell]]:
    adj: dict[Cell, set[Cell]] = {}
    for n, line in enumerate(lines):
        cells = [(int(c[0]), int(c[1])) for c in line]
        for a, b in itertools.pairwise(cells):
            if not is_adjacent(a, b):
                raise ScenarioError(f"{where}[{n}]: {a} and {b} are not neighbours")
            adj.setdefault(a, set()).add(b)
            adj.setdefault(b, set()).add(a)
    return {c: frozenset(s) for c, s in adj.items()}


def _parse_map(data: Mapping[str, Any]) -> GameMap:
    ox, oy = data["origin"]
    w, h = data["size"]
    legend_t = data["legend"]["terrain"]
    legend_s = data["legend"]["states"]
    if len(data["terrain"]) != h or len(data["states"]) != h:
        raise ScenarioError("map: terrain and states need one row per latitude")
    terrain: dict[Cell, str] = {}
    states: dict[Cell, str | None] = {}
    for r in range(h):
        y = oy + h - 1 - r
        trow, srow = data["terrain"][r], data["states"][r]
        if len(trow) != w or len(srow) != w:
            raise ScenarioError(f"map: row {r} must have {w} cells")
        for i in range(w):
            if trow[i] not in legend_t or srow[i] not in legend_s:
                raise ScenarioError(f"map: unknown symbol at row {r} column {i}")
            terrain[(ox + i, y)] = legend_t[trow[i]]
            states[(ox + i, y)] = legend_s[srow[i]]
    places: dict[str, Place] = {}
    for p in data["places"]:
        cell = (int(p["cell"][0]), int(p["cell"][1]))
        if cell not in terrain:
            raise ScenarioError(f"place {p['name']} lies off the map")
        places[p["name"]] = Place(p["name"], cell, p["kind"], p["state"])
    rivers = frozenset((int(c[0]), int(c[1])) for line in data["rivers"] for c in line)
    gm = GameMap(
        origin=(ox, oy), size=(w, h), terrain=terrain, states=states, rivers=rivers,
        roads=_network(data["roads"], "roads"), railways=_network(data.get("railways", []), "railways"),
        tracks=_network(data.get("tracks", []), "tracks"), places=places,
        place_at={p.cell: p for p in places.values()},
    )
    for net in (gm.roads, gm.railways, gm.tracks, {c: frozenset() for c in rivers}):
        for c in net:
            if c not in terrain:
                raise ScenarioError(f"map: {c} lies off the map")
    return gm


#: Tables a scenario may leave out: fortresses are its only non-divisions, artillery (anti-tank included) and
#: fortresses do not make the regular strike (C-9.8), no HQ counters (C-T1).
OPTIONAL_TABLES: dict[str, Any] = {"non_divisions": ["FORT"], "no_regular_strike": ["AD", "ATD", "FORT"],
                                   "headquarters": None}


_PROVIDED: dict[str, tuple[Mapping[str, Any], Mapping[str, Any]]] = {}


def provide(name: str, raw: Mapping[str, Any], tables: Mapping[str, Any]) -> None:
    """The data of scenario `name`: its scenario.json and its tables (server/scenarios.py reads them)."""
    _PROVIDED[name] = (raw, tables)
    load_scenario.cache_clear()
    _map_for_level.cache_clear()


@lru_cache(maxsize=8)
def load_scenario(name: str) -> Scenario:
    """Check a provided scenario. Raises ScenarioError for a malformed one, KeyError for an unknown name."""
    if name not in _PROVIDED:
        raise KeyError(name)
    raw, table_data = _PROVIDED[name]
    tables = {**OPTIONAL_TABLES, **table_data}
    gm = _parse_map(raw["map"])
    scen = Scenario(name=name, title=raw.get("title", name), raw=raw, tables=tables, full_map=gm)
    _check_forces(scen)
    return scen


def _check_forces(scen: Scenario) -> None:
    arms = set(scen.tables["arms"])
    seen: set[str] = set()
    for state in scen.raw["states"]:
        for u in scen.forces_for(state, 3):
            if u["arm"] not in arms:
                raise ScenarioError(f"unit {u['id']}: unknown arm {u['arm']}")
            if u["id"] in seen:
                raise ScenarioError(f"unit {u['id']} appears twice")
            seen.add(u["id"])
            if not scen.full_map.is_land((u["cell"][0], u["cell"][1])):
                raise ScenarioError(f"unit {u['id']} stands off the land")


@lru_cache(maxsize=32)
def _map_for_level(name: str, level: int) -> GameMap:
    full = load_scenario(name).full_map
    if level >= 2:
        return full
    terrain = {c: (t if t in LEVEL1_TERRAIN else "plain") for c, t in full.terrain.items()}
    places = {n: p for n, p in full.places.items() if p.kind not in LEVEL2_PLACES}
    return GameMap(
        origin=full.origin, size=full.size, terrain=terrain, states=full.states, rivers=full.rivers,
        roads=full.roads, railways={}, tracks={}, places=places, place_at={p.cell: p for p in places.values()},
    )
