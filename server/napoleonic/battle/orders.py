"""Orders as they arrive from the wire (plain dicts), validated once against their typed wire models (pydantic:
`BattleOrder`, in the protocol's schema) and turned into the commands the engine runs — BadOrder (UnknownOrder for
an unknown type) with the rule of the field at fault when malformed.

    {"type": "move", "unit": "r1", "path": [[x, y], ...]}        anchor cells, each a neighbour of the last
    {"type": "charge", "unit": "r1", "path": [[x, y], ...]}      a cavalry move ending in contact (N-CHARGE-1)
    {"type": "wheel", "unit": "r1", "degrees": 45 | 90 | -45 | -90}   positive: clockwise (to the right)
    {"type": "about_face", "unit": "r1"}
    {"type": "formation", "unit": "r1", "formation": "attack_column"}  also "square", "limbered", "deployed"
    {"type": "limber" | "unlimber", "unit": "a1"}
    {"type": "targets", "unit": "a1", "targets": [{"unit": "b3", "guns": 2}, ...]}   at most two (N-ART-7)
    {"type": "barrage", "unit": "a1"}
    {"type": "leave_melee", "unit": "r1", "path": [[x, y], ...]}
    {"type": "retreat"}                                          the army's retreat order (N-VICTORY-2)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, Strict, TypeAdapter, ValidationError

from server.core.errors import BadOrder, UnknownOrder

from .footprint import Cell

MAX_PATH = 64


@dataclass(frozen=True, slots=True)
class Move:
    unit: str
    path: tuple[Cell, ...]
    charge: bool = False


@dataclass(frozen=True, slots=True)
class Wheel:
    unit: str
    eighths: int


@dataclass(frozen=True, slots=True)
class AboutFace:
    unit: str


@dataclass(frozen=True, slots=True)
class ChangeFormation:
    unit: str
    formation: Annotated[str, Strict()]


@dataclass(frozen=True, slots=True)
class Targets:
    unit: str
    targets: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class Barrage:
    unit: str


@dataclass(frozen=True, slots=True)
class LeaveMelee:
    unit: str
    path: tuple[Cell, ...]


@dataclass(frozen=True, slots=True)
class Retreat:
    pass


Command = Move | Wheel | AboutFace | ChangeFormation | Targets | Barrage | LeaveMelee | Retreat


class _Wire(BaseModel):
    """An order on the wire: numbers and names of their own type (an integer is no boolean, float or string),
    lists as lists or tuples (orders the server builds itself), other fields ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)


Int = Annotated[int, Strict()]
UnitId = Annotated[str, Strict(), Field(min_length=1, description="a unit of the side giving the order")]
WireCell = Annotated[list[Int], Field(min_length=2, max_length=2, description="[x, y], y growing south")]
Path = Annotated[list[WireCell], Field(min_length=1, max_length=MAX_PATH,
                                       description="anchor cells, each a neighbour of the one before")]


class MoveOrder(_Wire):
    """Move along `path` (N-INF-9, D-GEN-2); "charge": a cavalry move ending in contact (N-CHARGE-1)."""

    type: Literal["move", "charge"]
    unit: UnitId
    path: Path


def _quarter_turn(degrees: int) -> int:
    if degrees not in (45, 90, -45, -90):
        raise ValueError("a wheel turns 45° or 90° either way")
    return degrees


class WheelOrder(_Wire):
    """Turn 45° or 90°, positive clockwise (N-INF-10)."""

    type: Literal["wheel"]
    unit: UnitId
    degrees: Annotated[Int, AfterValidator(_quarter_turn), Field(description="45, 90, -45 or -90")]


class AboutFaceOrder(_Wire):
    type: Literal["about_face"]
    unit: UnitId


class FormationOrder(_Wire):
    """Take another formation (N-INF-6, N-CAV-3, N-ART-3): line, attack_column, square, march_column, limbered,
    deployed."""

    type: Literal["formation"]
    unit: UnitId
    formation: Annotated[str, Strict()]


class LimberOrder(_Wire):
    """A battery limbers or unlimbers (N-ART-3): the formation order for guns."""

    type: Literal["limber", "unlimber"]
    unit: UnitId


class TargetWire(_Wire):
    unit: Annotated[str, Strict()]
    guns: Int


class TargetsOrder(_Wire):
    """Round-shot targets, at most two, guns split between them (N-ART-7, D-N-7)."""

    type: Literal["targets"]
    unit: UnitId
    targets: Annotated[list[TargetWire], Field(max_length=2)]


class BarrageOrder(_Wire):
    type: Literal["barrage"]
    unit: UnitId


class LeaveMeleeOrder(_Wire):
    type: Literal["leave_melee"]
    unit: UnitId
    path: Path


class RetreatOrder(_Wire):
    """The army's retreat (N-VICTORY-2)."""

    type: Literal["retreat"]


BattleOrder = Annotated[MoveOrder | WheelOrder | AboutFaceOrder | FormationOrder | LimberOrder | TargetsOrder
                        | BarrageOrder | LeaveMeleeOrder | RetreatOrder, Field(discriminator="type")]
"""Every order of a battle (and storm) room on the wire."""
ORDER = TypeAdapter(BattleOrder)

FIELD_RULES = {"unit": "D-N-1", "path": "D-GEN-2", "degrees": "N-INF-10", "formation": "N-INF-6",
               "targets": "N-ART-7"}
"""The rule a malformed field breaks."""


def parse(order: Mapping[str, Any]) -> Command:
    if not isinstance(order, Mapping):
        raise BadOrder("an order is an object", rule="D-N-1")
    try:
        wire = ORDER.validate_python(dict(order))
    except ValidationError as exc:
        first = exc.errors()[0]
        if first["type"] in ("union_tag_invalid", "union_tag_not_found"):
            kind = order.get("type")
            raise UnknownOrder(f"unknown battle order {kind!r}", rule="D-N-1", details={"type": str(kind)}) from None
        where = [str(p) for p in first["loc"][1:]]
        name = where[0] if where else "order"
        raise BadOrder(f"{'.'.join(where) or 'the order'}: {first['msg']}", rule=FIELD_RULES.get(name, "D-N-1"),
                       details={"field": name}) from None
    return command(wire)


def command(wire: _Wire) -> Command:
    """The engine's command for a validated order."""
    if isinstance(wire, MoveOrder):
        return Move(wire.unit, tuple((c[0], c[1]) for c in wire.path), charge=wire.type == "charge")
    if isinstance(wire, WheelOrder):
        return Wheel(wire.unit, wire.degrees // 45)
    if isinstance(wire, AboutFaceOrder):
        return AboutFace(wire.unit)
    if isinstance(wire, FormationOrder):
        return ChangeFormation(wire.unit, wire.formation)
    if isinstance(wire, LimberOrder):
        return ChangeFormation(wire.unit, "limbered" if wire.type == "limber" else "deployed")
    if isinstance(wire, TargetsOrder):
        return Targets(wire.unit, tuple((t.unit, t.guns) for t in wire.targets))
    if isinstance(wire, BarrageOrder):
        return Barrage(wire.unit)
    if isinstance(wire, LeaveMeleeOrder):
        return LeaveMelee(wire.unit, tuple((c[0], c[1]) for c in wire.path))
    return Retreat()
