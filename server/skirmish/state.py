"""The skirmish state: the table, both sides, their units and figures, the dice, the stage of the game.

A state is worked on as a private copy (`SkirmishState.copy`): the engine copies the state it is given, changes the
copy and returns it, so an order refused half-way leaves nothing behind.

Figure statuses: `reserve` (not yet deployed), `ambush` (held back by the defender, off the table: S-9.2, D-S-13),
`in_action`, `down` (hit, until the survival test: D-S-9), `out` (out of action).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Protocol

from server.core.dice import Dice

from .rules import VEHICLES, Settings, VehicleType
from .table import Cell, Table

RESERVE, AMBUSH, IN_ACTION, DOWN, OUT = "reserve", "ambush", "in_action", "down", "out"
ON_TABLE = frozenset({IN_ACTION, DOWN})
ATTACKER, DEFENDER = "attacker", "defender"
TERRAIN, DEPLOY, ORDERS, RANDOM_FIRE, OVER = "terrain", "deploy", "orders", "random_fire", "over"


class Roller(Protocol):
    """The dice an engine state carries (server.core.dice.Dice; tests may load scripted faces)."""

    @property
    def state(self) -> int: ...

    def roll(self, faces: int = 6) -> tuple[int, Roller]: ...


@dataclass(slots=True)
class Figure:
    """One figure (a soldier) or one vehicle (D-S-1: a vehicle fills a 2 × 3 block, anchored at its north-west
    cell; `facing` n/e/s/w: facing north or south it is 2 wide and 3 long). `unit`: the unit it belongs to;
    `group`: the improvised group it is in (S-8.7), if any. `index`: its place in the order of battle."""

    id: str
    side: str
    unit: str
    role: str
    weapon: str | None
    model: str = ""
    vehicle: str | None = None
    x: int = 0
    y: int = 0
    facing: str = "n"
    status: str = RESERVE
    ordered: bool = False
    contact: bool = False
    group: str = ""
    no_fire_at: tuple[str, ...] = ()
    index: int = 0

    @property
    def cell(self) -> Cell:
        return self.x, self.y

    @property
    def vtype(self) -> VehicleType | None:
        return VEHICLES[self.vehicle] if self.vehicle else None

    @property
    def on_table(self) -> bool:
        return self.status in ON_TABLE

    @property
    def in_action(self) -> bool:
        return self.status == IN_ACTION

    def cells(self) -> tuple[Cell, ...]:
        return footprint(self.vehicle, self.x, self.y, self.facing)

    def copy(self) -> Figure:
        f = Figure.__new__(Figure)
        for name in _FIGURE_FIELDS:
            setattr(f, name, getattr(self, name))
        return f

    def dump(self) -> dict[str, Any]:
        out = {name: getattr(self, name) for name in _FIGURE_FIELDS}
        out["no_fire_at"] = list(self.no_fire_at)
        return out

    @classmethod
    def load(cls, d: Mapping[str, Any]) -> Figure:
        f = cls(str(d["id"]), str(d["side"]), str(d["unit"]), str(d["role"]), d.get("weapon"))
        for name in _FIGURE_FIELDS:
            if name in d:
                setattr(f, name, d[name])
        f.no_fire_at = tuple(d.get("no_fire_at", ()))
        return f


_FIGURE_FIELDS = tuple(f.name for f in fields(Figure))


def footprint(vehicle: str | None, x: int, y: int, facing: str) -> tuple[Cell, ...]:
    if vehicle is None:
        return ((x, y),)
    vt = VEHICLES[vehicle]
    w, h = (vt.width, vt.length) if facing in ("n", "s") else (vt.length, vt.width)
    return tuple((x + i, y + j) for j in range(h) for i in range(w))


@dataclass(slots=True)
class Unit:
    """A unit (S-7.1): a squad, a crew, a tank, or a platoon/company whose `children` are units. `members`: its
    own figures (a platoon's are its headquarters); `commander`: the figure that takes its orders (S-6.1), if
    any. `start`: its members at the start, for the demoralisation test (D-S-12)."""

    id: str
    side: str
    name: str
    kind: str
    parent: str | None
    commander: str | None
    members: tuple[str, ...]
    children: tuple[str, ...] = ()
    start: int = 0
    demoralised: bool = False
    ordered: bool = False

    def copy(self) -> Unit:
        return Unit(self.id, self.side, self.name, self.kind, self.parent, self.commander, self.members,
                    self.children, self.start, self.demoralised, self.ordered)

    def dump(self) -> dict[str, Any]:
        return {"id": self.id, "side": self.side, "name": self.name, "kind": self.kind, "parent": self.parent,
                "commander": self.commander, "members": list(self.members), "children": list(self.children),
                "start": self.start, "demoralised": self.demoralised, "ordered": self.ordered}

    @classmethod
    def load(cls, d: Mapping[str, Any]) -> Unit:
        return cls(str(d["id"]), str(d["side"]), str(d["name"]), str(d["kind"]), d.get("parent"),
                   d.get("commander"), tuple(d["members"]), tuple(d.get("children", ())), int(d.get("start", 0)),
                   bool(d.get("demoralised", False)), bool(d.get("ordered", False)))


@dataclass(slots=True)
class Group:
    """An improvised group (S-8.7): figures of different squads under a platoon (company) commander."""

    id: str
    commander: str
    members: tuple[str, ...]

    def dump(self) -> dict[str, Any]:
        return {"id": self.id, "commander": self.commander, "members": list(self.members)}


@dataclass(slots=True)
class Side:
    """One side: the team (colour) that plays it, its role, the table edge behind it, its orders this turn."""

    team: str
    name: str
    nation: str
    role: str
    edge: str
    orders_rolled: int = 0
    orders_left: int = 0
    orders_given: int = 0
    army_order: bool = False
    deployed: bool = False
    points: int = 0
    default_deployment: Mapping[str, Any] = field(default_factory=dict)

    @property
    def attacker(self) -> bool:
        return self.role == ATTACKER

    def copy(self) -> Side:
        return Side(self.team, self.name, self.nation, self.role, self.edge, self.orders_rolled, self.orders_left,
                    self.orders_given, self.army_order, self.deployed, self.points, self.default_deployment)

    def dump(self) -> dict[str, Any]:
        return {"team": self.team, "name": self.name, "nation": self.nation, "role": self.role, "edge": self.edge,
                "orders_rolled": self.orders_rolled, "orders_left": self.orders_left,
                "orders_given": self.orders_given, "army_order": self.army_order, "deployed": self.deployed,
                "points": self.points, "default_deployment": dict(self.default_deployment)}

    @classmethod
    def load(cls, d: Mapping[str, Any]) -> Side:
        return cls(str(d["team"]), str(d["name"]), str(d["nation"]), str(d["role"]), str(d["edge"]),
                   int(d["orders_rolled"]), int(d["orders_left"]), int(d["orders_given"]), bool(d["army_order"]),
                   bool(d["deployed"]), int(d["points"]), dict(d.get("default_deployment") or {}))

    def public(self) -> dict[str, Any]:
        return {"team": self.team, "name": self.name, "nation": self.nation, "role": self.role, "edge": self.edge,
                "orders_rolled": self.orders_rolled, "orders_left": self.orders_left,
                "orders_given": self.orders_given, "deployed": self.deployed, "points": self.points}


@dataclass(slots=True)
class HitBatch:
    """Hits waiting to be spread over a target group (D-S-9). `ambush`: the ambushing unit whose fire it was,
    so that the figures fired on have no random fire against it this turn (D-S-13)."""

    owner: str
    figures: tuple[str, ...]
    hits: int
    cause: str
    shooter: str

    def dump(self) -> dict[str, Any]:
        return {"owner": self.owner, "figures": list(self.figures), "hits": self.hits, "cause": self.cause,
                "shooter": self.shooter}

    @classmethod
    def load(cls, d: Mapping[str, Any]) -> HitBatch:
        return cls(str(d["owner"]), tuple(d["figures"]), int(d["hits"]), str(d["cause"]), str(d["shooter"]))


@dataclass(slots=True)
class Decision:
    """A choice the owner of hit figures makes (D-S-9): which `count` of `candidates` take the hits that put them
    `down` (or `out`, a second hit). Resolved by default when the owner's clock runs out or he passes."""

    owner: str
    candidates: tuple[str, ...]
    count: int
    tier: str
    cause: str

    def dump(self) -> dict[str, Any]:
        return {"owner": self.owner, "candidates": list(self.candidates), "count": self.count, "tier": self.tier,
                "cause": self.cause}

    @classmethod
    def load(cls, d: Mapping[str, Any]) -> Decision:
        return cls(str(d["owner"]), tuple(d["candidates"]), int(d["count"]), str(d["tier"]), str(d["cause"]))


@dataclass(slots=True)
class Dropped:
    """A crew-served weapon whose bearer fell (S-8.5): it lies in `cell` until the end of turn `until`."""

    weapon: str
    unit: str
    cell: Cell
    until: int

    def dump(self) -> dict[str, Any]:
        return {"weapon": self.weapon, "unit": self.unit, "cell": list(self.cell), "until": self.until}

    @classmethod
    def load(cls, d: Mapping[str, Any]) -> Dropped:
        return cls(str(d["weapon"]), str(d["unit"]), (int(d["cell"][0]), int(d["cell"][1])), int(d["until"]))


@dataclass(slots=True)
class SkirmishState:
    settings: Settings
    table: Table
    sides: dict[str, Side]
    units: dict[str, Unit]
    figures: dict[str, Figure]
    dice: Roller
    scenario: str = ""
    objective: str | None = None
    stage: str = TERRAIN
    turn: int = 0
    terrain_left: int = 0
    terrain_next: str | None = None
    next_side: str | None = None
    initiative: str | None = None
    groups: dict[str, Group] = field(default_factory=dict)
    queue: list[HitBatch] = field(default_factory=list)
    decision: Decision | None = None
    dropped: list[Dropped] = field(default_factory=list)
    last_seen: dict[str, dict[str, tuple[int, int, int]]] = field(default_factory=dict)
    revealed: bool = False
    result: dict[str, Any] | None = None

    @property
    def over(self) -> bool:
        return self.result is not None

    @property
    def attacker(self) -> Side:
        return next(s for s in self.sides.values() if s.attacker)

    @property
    def defender(self) -> Side:
        return next(s for s in self.sides.values() if not s.attacker)

    def enemy(self, team: str) -> str:
        return next(t for t in self.sides if t != team)

    def side_figures(self, team: str) -> Iterator[Figure]:
        return (f for f in self.figures.values() if f.side == team)

    def on_table(self, team: str | None = None) -> Iterator[Figure]:
        return (f for f in self.figures.values() if f.on_table and (team is None or f.side == team))

    def occupant(self, c: Cell) -> Figure | None:
        for f in self.figures.values():
            if f.on_table and c in f.cells():
                return f
        return None

    def occupancy(self) -> dict[Cell, Figure]:
        out: dict[Cell, Figure] = {}
        for f in self.figures.values():
            if f.on_table:
                for c in f.cells():
                    out[c] = f
        return out

    def copy(self) -> SkirmishState:
        return SkirmishState(
            settings=self.settings, table=self.table, sides={k: s.copy() for k, s in self.sides.items()},
            units={k: u.copy() for k, u in self.units.items()},
            figures={k: f.copy() for k, f in self.figures.items()}, dice=self.dice, scenario=self.scenario,
            objective=self.objective, stage=self.stage, turn=self.turn, terrain_left=self.terrain_left,
            terrain_next=self.terrain_next, next_side=self.next_side, initiative=self.initiative,
            groups={k: Group(g.id, g.commander, g.members) for k, g in self.groups.items()},
            queue=[HitBatch(b.owner, b.figures, b.hits, b.cause, b.shooter) for b in self.queue],
            decision=self.decision, dropped=[Dropped(d.weapon, d.unit, d.cell, d.until) for d in self.dropped],
            last_seen={k: dict(v) for k, v in self.last_seen.items()}, revealed=self.revealed, result=self.result,
        )

    def dump(self) -> dict[str, Any]:
        return {
            "settings": self.settings.dump(), "table": self.table.dump(),
            "sides": [s.dump() for s in self.sides.values()], "units": [u.dump() for u in self.units.values()],
            "figures": [f.dump() for f in self.figures.values()], "dice": self.dice.state,
            "scenario": self.scenario, "objective": self.objective, "stage": self.stage, "turn": self.turn,
            "terrain_left": self.terrain_left, "terrain_next": self.terrain_next, "next_side": self.next_side,
            "initiative": self.initiative, "groups": [g.dump() for g in self.groups.values()],
            "queue": [b.dump() for b in self.queue], "decision": self.decision.dump() if self.decision else None,
            "dropped": [d.dump() for d in self.dropped],
            "last_seen": {t: {f: list(v) for f, v in sorted(seen.items())} for t, seen in self.last_seen.items()},
            "revealed": self.revealed, "result": self.result,
        }

    @classmethod
    def load(cls, d: Mapping[str, Any]) -> SkirmishState:
        settings = _load_settings(d["settings"])
        return cls(
            settings=settings, table=Table.load(d["table"]),
            sides={s.team: s for s in (Side.load(x) for x in d["sides"])},
            units={u.id: u for u in (Unit.load(x) for x in d["units"])},
            figures={f.id: f for f in (Figure.load(x) for x in d["figures"])}, dice=Dice(int(d["dice"])),
            scenario=str(d.get("scenario", "")), objective=d.get("objective"), stage=str(d["stage"]),
            turn=int(d["turn"]), terrain_left=int(d["terrain_left"]), terrain_next=d.get("terrain_next"),
            next_side=d.get("next_side"), initiative=d.get("initiative"),
            groups={g["id"]: Group(str(g["id"]), str(g["commander"]), tuple(g["members"])) for g in d["groups"]},
            queue=[HitBatch.load(b) for b in d["queue"]],
            decision=Decision.load(d["decision"]) if d.get("decision") else None,
            dropped=[Dropped.load(x) for x in d["dropped"]],
            last_seen={str(t): {str(f): (int(v[0]), int(v[1]), int(v[2])) for f, v in seen.items()}
                       for t, seen in d["last_seen"].items()},
            revealed=bool(d["revealed"]), result=d.get("result"),
        )


def _load_settings(d: Mapping[str, Any]) -> Settings:
    """A dumped Settings back (its weapons carry their names)."""
    data = dict(d)
    data["weapons"] = {name: {k: v for k, v in w.items() if k != "name"} for name, w in d["weapons"].items()}
    return Settings.load(data)
