"""The battle state: the field, the units of both sides, melees, the dice, and whose phase it is.

A state is worked on as a private copy: `BattleEngine.apply` copies it (`BattleState.copy`, cheap: slotted units,
an occupancy array), changes the copy and returns it, so the state the room holds is never touched and an order
that turns out illegal half-way leaves nothing behind. The occupancy grid maps every cell to the number of the
unit standing on it (0: free), which makes overlap checks (D-N-4) one array read per cell.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from server.core.dice import Dice
from server.core.errors import IllegalOrder

from .footprint import Cell, footprint, footprint_offsets, front_rank
from .terrain import BattleMap
from .units import ARTILLERY, UNIT_TYPES, Formation, UnitType, formation_of

FIELD_LIMIT = 25
"""N-START-1, N-START-6: units a side may have on the field at once, unless the setup says otherwise (N-SIEGE-5)."""
ON_FIELD = "field"
RESERVE = "reserve"  # off the map: a reinforcement not yet arrived or waiting for a place (N-START-6)
DISPERSED = "dispersed"
SURRENDERED = "surrendered"
DESTROYED = "destroyed"
MARCHED_OFF = "marched_off"  # left the field with its army after a retreat order (D-N-2)
STATUSES = (ON_FIELD, RESERVE, DISPERSED, SURRENDERED, DESTROYED, MARCHED_OFF)


@dataclass(slots=True)
class Unit:
    """One regiment or company. `morale` is the permanent track (N-MORALE-1 … -4); the formation's bonus is
    added by `effective_morale` with the timing of N-INF-7 (D-N-9). `formations_this_turn` lists the formations
    held since the turn began (first: the one it began in) — the bonus timing of N-INF-7 reads it."""

    id: str
    side: str
    kind: str
    num: int
    x: int = 0
    y: int = 0
    facing: int = 0
    formation: str = ""
    status: str = ON_FIELD
    morale: int = 0
    loss_tolerance: int = 0
    guns: int = 0
    accuracy: int = 0
    points: float = 0.0
    formations_this_turn: tuple[str, ...] = ()
    busy: dict[str, Any] | None = None
    morale_mark: int = 0
    loss_streak: int = 0
    inflict_streak: int = 0
    lost_this_turn: bool = False
    inflicted_this_turn: bool = False
    half_flag: bool = False
    one_flag: bool = False
    melee_turns: int = 0
    entered_melee_turn: int = 0
    targets: tuple[tuple[str, int], ...] = ()
    fire_shares: tuple[tuple[str, int], ...] = ()  # N-FIRE-4: the moderator's split of its musket fire
    fire_shares_turns: int = 0  # resolutions the split still applies to
    barrage_turns: int = 0
    barrage_used: bool = False
    fractions: dict[str, float] = field(default_factory=dict)
    attacked_from: frozenset[str] = frozenset()  # D-N-5, D-N-9: the sectors it has been in contact from this turn
    march_extra_paid: bool = False  # D-N-9: a march column's extra −2 is paid once a turn
    road_used: bool = False
    halted: str = ""  # the rule that ended its move this turn (N-SIEGE-12, N-SIEGE-13); no more moves until next turn
    losses: int = 0
    group: str = ""

    @property
    def type(self) -> UnitType:
        return UNIT_TYPES[self.kind]

    @property
    def arm(self) -> str:
        return UNIT_TYPES[self.kind].arm

    @property
    def form(self) -> Formation:
        return formation_of(UNIT_TYPES[self.kind].arm, self.formation)

    @property
    def anchor(self) -> Cell:
        return self.x, self.y

    @property
    def cells(self) -> tuple[Cell, ...]:
        f = self.form
        return footprint((self.x, self.y), f.width, f.depth, self.facing)

    @property
    def front(self) -> tuple[Cell, ...]:
        return front_rank((self.x, self.y), self.form.width, self.facing)

    @property
    def on_field(self) -> bool:
        return self.status == ON_FIELD

    def copy(self) -> Unit:
        u = Unit.__new__(Unit)
        for name in _UNIT_FIELDS:
            setattr(u, name, getattr(self, name))
        u.fractions = dict(self.fractions)
        if self.busy is not None:
            u.busy = dict(self.busy)
        return u

    def dump(self) -> dict[str, Any]:
        out = {name: getattr(self, name) for name in _UNIT_FIELDS}
        out["formations_this_turn"] = list(self.formations_this_turn)
        out["targets"] = [list(t) for t in self.targets]
        out["fire_shares"] = [list(t) for t in self.fire_shares]
        out["attacked_from"] = sorted(self.attacked_from)
        out["fractions"] = dict(sorted(self.fractions.items()))
        return out

    @classmethod
    def load(cls, data: Mapping[str, Any]) -> Unit:
        u = cls(id=str(data["id"]), side=str(data["side"]), kind=str(data["kind"]), num=int(data["num"]))
        for name in _UNIT_FIELDS:
            if name in data:
                setattr(u, name, data[name])
        u.formations_this_turn = tuple(data.get("formations_this_turn", ()))
        u.targets = tuple((str(t), int(g)) for t, g in data.get("targets", ()))
        u.fire_shares = tuple((str(t), int(w)) for t, w in data.get("fire_shares", ()))
        u.attacked_from = frozenset(data.get("attacked_from", ()))
        u.fractions = {str(k): float(v) for k, v in dict(data.get("fractions", {})).items()}
        u.points = float(u.points)
        u.busy = dict(data["busy"]) if data.get("busy") else None
        return u


_UNIT_FIELDS = tuple(Unit.__dataclass_fields__)


@dataclass(slots=True)
class Reinforcement:
    """An army of the same side coming up from a neighbouring campaign cell (N-START-4, N-START-5, D-N-12), or
    (distance 0, "coming" from the start) the side's own units held off the field by its limit (N-START-6).
    `rows`: the rows, counted from `edge`, in which its units come on, scanned first to last (the siege's town
    reserve comes up behind the wall); None: from the edge inwards."""

    group: str
    side: str
    distance: int
    edge: str
    units: tuple[str, ...]
    status: str = "waiting"  # waiting → coming (rolled a success) → arrived
    rows: tuple[int, int] | None = None

    @property
    def held_back(self) -> bool:
        """The side's own units beyond its field limit, not an army marching up (N-START-6)."""
        return self.distance == 0

    def copy(self) -> Reinforcement:
        return Reinforcement(self.group, self.side, self.distance, self.edge, self.units, self.status, self.rows)

    def dump(self) -> dict[str, Any]:
        return {"group": self.group, "side": self.side, "distance": self.distance, "edge": self.edge,
                "units": list(self.units), "status": self.status,
                "rows": list(self.rows) if self.rows is not None else None}

    @classmethod
    def load(cls, d: Mapping[str, Any]) -> Reinforcement:
        rows = d.get("rows")
        return cls(str(d["group"]), str(d["side"]), int(d["distance"]), str(d["edge"]), tuple(d["units"]),
                   str(d["status"]), (int(rows[0]), int(rows[1])) if rows else None)


@dataclass(slots=True)
class Side:
    name: str
    edge: str  # the map edge behind this side: "north" | "south" | "east" | "west"
    attacker: bool = False
    retreat_turn: int | None = None  # N-VICTORY-2: the turn the retreat order was given
    retreat_free_turns: int = 0  # D-N-13: "retreat with battle" — no morale cost during the first turns
    general: str = ""

    @property
    def with_battle(self) -> bool:
        """D-N-13: the side had to accept battle and retreats with battle."""
        return self.retreat_free_turns > 0

    def copy(self) -> Side:
        return Side(self.name, self.edge, self.attacker, self.retreat_turn, self.retreat_free_turns, self.general)

    def dump(self) -> dict[str, Any]:
        return {"name": self.name, "edge": self.edge, "attacker": self.attacker, "retreat_turn": self.retreat_turn,
                "retreat_free_turns": self.retreat_free_turns, "general": self.general}

    @classmethod
    def load(cls, d: Mapping[str, Any]) -> Side:
        return cls(str(d["name"]), str(d["edge"]), bool(d["attacker"]), d.get("retreat_turn"),
                   int(d.get("retreat_free_turns", 0)), str(d.get("general", "")))


@dataclass(slots=True)
class Melee:
    """One touching pair (D-N-6). `charge` holds a charger's bonus for the first round (N-CHARGE-1); `struck` is the
    unit that was attacked (the other moved into touch) and `sector` where it was struck (D-N-5) — a melee still
    going on is a contact in that sector in every turn it lasts (D-N-9's "two or more sectors")."""

    a: str
    b: str
    since: int
    rounds: int = 0
    charge: dict[str, int] = field(default_factory=dict)
    struck: str = ""
    sector: str = ""

    def copy(self) -> Melee:
        return Melee(self.a, self.b, self.since, self.rounds, dict(self.charge), self.struck, self.sector)

    def other(self, uid: str) -> str:
        return self.b if uid == self.a else self.a

    def dump(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "since": self.since, "rounds": self.rounds, "charge": dict(self.charge),
                "struck": self.struck, "sector": self.sector}

    @classmethod
    def load(cls, d: Mapping[str, Any]) -> Melee:
        return cls(str(d["a"]), str(d["b"]), int(d["since"]), int(d["rounds"]), dict(d.get("charge", {})),
                   str(d.get("struck", "")), str(d.get("sector", "")))


def melee_key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


@dataclass(slots=True)
class BattleState:
    map: BattleMap
    units: dict[str, Unit]
    sides: dict[str, Side]
    dice: Dice
    occ: array  # type: ignore[type-arg]
    by_num: dict[int, str]
    turn: int = 1
    order: tuple[str, ...] = ()  # D-N-1: the sides in phase order this turn
    phase: int = 0  # index into `order`; len(order) once both phases are done
    melees: dict[tuple[str, str], Melee] = field(default_factory=dict)
    reinforcements: list[Reinforcement] = field(default_factory=list)
    turn_limit: int = 40
    hidden: bool = False
    result: dict[str, Any] | None = None
    field_limit: dict[str, int] = field(default_factory=dict)
    """Per side (N-START-1, N-START-6; N-SIEGE-5: 30 attacker, 25 defender in a storm). Set at setup, then only read."""

    @property
    def over(self) -> bool:
        return self.result is not None

    @property
    def active_side(self) -> str | None:
        if self.result is not None or self.phase >= len(self.order):
            return None
        return self.order[self.phase]

    def copy(self) -> BattleState:
        return BattleState(
            map=self.map, units={k: u.copy() for k, u in self.units.items()},
            sides={k: s.copy() for k, s in self.sides.items()}, dice=self.dice, occ=array("H", self.occ),
            by_num=self.by_num, turn=self.turn, order=self.order, phase=self.phase,
            melees={k: m.copy() for k, m in self.melees.items()},
            reinforcements=[r.copy() for r in self.reinforcements], turn_limit=self.turn_limit, hidden=self.hidden,
            result=self.result, field_limit=self.field_limit,
        )

    def limit(self, side: str) -> int:
        return self.field_limit.get(side, FIELD_LIMIT)

    def counted(self, side: str) -> int:
        """The side's units on the field that count against its limit (N-START-6)."""
        return sum(1 for u in self.field_units(side) if u.type.in_field_limit)

    def enemy_of(self, side: str) -> str:
        for name in self.sides:
            if name != side:
                return name
        raise KeyError(side)

    def field_units(self, side: str | None = None) -> Iterator[Unit]:
        for u in self.units.values():
            if u.status == ON_FIELD and (side is None or u.side == side):
                yield u

    def unit_at(self, x: int, y: int) -> Unit | None:
        n = self.occ[y * self.map.width + x]
        return self.units[self.by_num[n]] if n else None

    # --- occupancy (D-N-4) -------------------------------------------------------------------------------------
    def lift(self, unit: Unit) -> None:
        w = self.map.width
        for x, y in unit.cells:
            self.occ[y * w + x] = 0

    def put(self, unit: Unit) -> None:
        w = self.map.width
        for x, y in unit.cells:
            self.occ[y * w + x] = unit.num

    def place_check(self, unit: Unit, x: int, y: int, facing: int, formation: str) -> tuple[Cell, ...]:
        """Raise IllegalOrder unless `unit` may stand at anchor (x, y) with `facing` and `formation`: on the map
        (N-START-1), on ground its arm may enter (N-TERRAIN-1/2/3), in a formation the ground allows
        (N-TERRAIN-5), overlapping no other unit (D-N-4). Returns the footprint."""
        form = formation_of(unit.arm, formation)
        m, occ, w = self.map, self.occ, self.map.width
        cells = []
        for dx, dy in footprint_offsets(form.width, form.depth, facing):
            cx, cy = x + dx, y + dy
            if not (0 <= cx < m.width and 0 <= cy < m.height):
                raise IllegalOrder("the formation would leave the map", rule="N-START-1",
                                   details={"unit": unit.id, "cell": [cx, cy]})
            kind = m.kind(cx, cy)
            if unit.arm not in kind.passable:
                raise IllegalOrder(f"{unit.arm} cannot enter {kind.name}", rule=_IMPASSABLE_RULE.get(kind.name,
                                   "N-TERRAIN-1"), details={"unit": unit.id, "cell": [cx, cy]})
            if formation in kind.forbids:
                raise IllegalOrder(f"no {formation} in {kind.name}", rule="N-TERRAIN-5",
                                   details={"unit": unit.id, "cell": [cx, cy]})
            n = occ[cy * w + cx]
            if n and n != unit.num:
                raise IllegalOrder("units may not overlap or pass through each other", rule="D-N-4",
                                   details={"unit": unit.id, "cell": [cx, cy], "other": self.by_num[n]})
            cells.append((cx, cy))
        return tuple(cells)

    # --- snapshots -----------------------------------------------------------------------------------------------
    def dump(self) -> dict[str, Any]:
        return {
            "map": self.map.dump(), "units": [u.dump() for u in self.units.values()],
            "sides": [s.dump() for s in self.sides.values()], "dice": self.dice.state, "turn": self.turn,
            "order": list(self.order), "phase": self.phase, "melees": [m.dump() for m in self.melees.values()],
            "reinforcements": [r.dump() for r in self.reinforcements], "turn_limit": self.turn_limit,
            "hidden": self.hidden, "result": self.result, "field_limit": dict(self.field_limit),
        }

    @classmethod
    def load(cls, d: Mapping[str, Any]) -> BattleState:
        bmap = BattleMap.load(d["map"])
        units = {u.id: u for u in (Unit.load(x) for x in d["units"])}
        sides = {s.name: s for s in (Side.load(x) for x in d["sides"])}
        limit = d.get("field_limit", FIELD_LIMIT)
        limits = {str(k): int(v) for k, v in limit.items()} if isinstance(limit, Mapping) else dict.fromkeys(
            sides, int(limit))
        state = cls(
            map=bmap, units=units, sides=sides,
            dice=Dice(int(d["dice"])), occ=array("H", bytes(2 * bmap.width * bmap.height)),
            by_num={u.num: u.id for u in units.values()}, turn=int(d["turn"]), order=tuple(d["order"]),
            phase=int(d["phase"]), melees={melee_key(m.a, m.b): m for m in (Melee.load(x) for x in d["melees"])},
            reinforcements=[Reinforcement.load(x) for x in d["reinforcements"]], turn_limit=int(d["turn_limit"]),
            hidden=bool(d["hidden"]), result=d.get("result"), field_limit=limits,
        )
        for u in units.values():
            if u.on_field:
                state.put(u)
        return state


_IMPASSABLE_RULE = {"light_forest": "N-TERRAIN-2", "dense_forest": "N-TERRAIN-3", "river": "N-TERRAIN-1"}


def new_unit(uid: str, side: str, kind: str, num: int, *, morale: int | None = None,
             loss_tolerance: int | None = None, guns: int | None = None, accuracy: int | None = None,
             formation: str | None = None) -> Unit:
    """A unit with the base values of its type (N-INF-1, N-CAV-2, N-ART-2), or the values it brings from the
    campaign (N-MORALE-1: morale as changed during the campaign)."""
    t = UNIT_TYPES[kind]
    form = formation or t.default_formation
    m = t.morale if morale is None else morale
    return Unit(
        id=uid, side=side, kind=kind, num=num, formation=form, morale=m,
        loss_tolerance=t.loss_tolerance if loss_tolerance is None else loss_tolerance,
        guns=t.guns if guns is None else guns, accuracy=t.accuracy if accuracy is None else accuracy,
        formations_this_turn=(form,), morale_mark=m,
    )


def is_artillery(unit: Unit) -> bool:
    return unit.arm == ARTILLERY
