"""The Continental War's orders (issue 14): one typed wire model per order (pydantic; `ContinentalOrder`, their
discriminated union, is in the protocol's schema), validated once by `parse` — BadOrder naming the order's rule and
the field at fault (UnknownOrder for an unknown type) — and turned into the command the engine runs (the frozen
dataclasses below). `wire_form` writes a command back: the order as the engine read it, nothing else of what the
client sent, and `parse(cmd.wire_form()) == cmd` (the level-3 recorded orders replay from it, C-1.7).

Cells are [x, y] (or "x-y"), x the longitude growing east, y the latitude growing north (C-2.1); facings are the
compass points N, NE, … NW.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainValidator,
    Strict,
    TypeAdapter,
    ValidationError,
    WithJsonSchema,
    model_validator,
)

from server.continental.grid import FACINGS, Cell, whole_cell
from server.core.errors import BadOrder, UnknownOrder


def _cell(value: Any, name: str) -> Cell:
    try:
        x, y = whole_cell(value)
    except ValueError as exc:
        raise BadOrder(f"'{name}' must be a cell [longitude, latitude] of whole numbers",
                       details={"field": name}) from exc
    if abs(x) > 10_000 or abs(y) > 10_000:
        raise BadOrder(f"'{name}' is off any map", details={"field": name})
    return (x, y)


def _plain(value: Any) -> Any:
    """Tuples (cells, id lists) as the lists the wire carries."""
    return [_plain(v) for v in value] if isinstance(value, tuple) else value


# --- the commands the engine runs -----------------------------------------------------------------------------------

class _Order:
    """A typed command. `wire_form` writes it as the order it was read from (its fields by name)."""

    def wire_form(self) -> dict[str, Any]:
        named = fields(self)  # type: ignore[arg-type]
        return {"type": KIND_NAMES[type(self)], **{f.name: _plain(getattr(self, f.name)) for f in named}}


@dataclass(frozen=True)
class _PathOrder(_Order):
    unit: str
    path: tuple[Cell, ...]


@dataclass(frozen=True)
class Move(_PathOrder):
    """C-4.3: a move along a path of neighbouring cells."""


@dataclass(frozen=True)
class March(_PathOrder):
    """C-4.8: the same wire shape as a move, along roads."""


@dataclass(frozen=True)
class Turn(_Order):
    unit: str
    facing: str


@dataclass(frozen=True)
class Frontage(_Order):
    unit: str
    wide: bool

    def wire_form(self) -> dict[str, Any]:
        return {"type": "frontage", "unit": self.unit, "width": 2 if self.wide else 1}


@dataclass(frozen=True)
class Transfer(_Order):
    unit: str
    to: str


@dataclass(frozen=True)
class Split(_Order):
    unit: str


@dataclass(frozen=True)
class Merge(_Order):
    units: tuple[str, ...]


@dataclass(frozen=True)
class Corps(_Order):
    name: str
    units: tuple[str, ...]


@dataclass(frozen=True)
class Reassign(_Order):
    regiment: str
    to: str


@dataclass(frozen=True)
class Formation(_Order):
    unit: str
    formation: str
    orientation: str


@dataclass(frozen=True)
class Attack(_Order):
    """C-9.8: `advance` — if the square is emptied (or the defender withdraws) the first attacker that can moves in;
    `pursue` — C-9.8a: after a withdrawal these first-echelon units advance along their paths (up to 2/3 of a
    turn's move, as far as they can)."""

    target: Cell
    echelons: tuple[tuple[str, ...], ...]
    support: tuple[str, ...]
    advance: bool
    pursue: tuple[tuple[str, tuple[Cell, ...]], ...] = ()

    def wire_form(self) -> dict[str, Any]:
        out = super().wire_form()
        out["pursue"] = {uid: _plain(path) for uid, path in self.pursue}
        return out


@dataclass(frozen=True)
class Strike(_Order):
    unit: str
    target: Cell
    mode: str
    confirm: bool


@dataclass(frozen=True)
class Posture(_Order):
    unit: str | None
    on_attack: str


@dataclass(frozen=True)
class Deploy(_Order):
    unit: str
    cell: Cell
    facing: str


@dataclass(frozen=True)
class Army(_Order):
    name: str
    units: tuple[str, ...]
    zone: tuple[Cell, Cell] | None = None


@dataclass(frozen=True)
class ArmyGroup(_Order):
    """C-5.7: armies grouped into an army group (front), optional."""
    name: str
    armies: tuple[str, ...]


@dataclass(frozen=True)
class Cover(_Order):
    unit: str
    cover: bool


@dataclass(frozen=True)
class MobilizationPoints(_Order):
    cities: tuple[str, ...]


@dataclass(frozen=True)
class Regulation(_Order):
    name: str
    text: str


QUESTION_KINDS = ("presence", "count", "arm", "locate", "feature", "mobilization")


@dataclass(frozen=True)
class Question(_Order):
    kind: str
    cell: Cell | None
    unit_name: str | None
    feature: str | None

    def wire_form(self) -> dict[str, Any]:
        given = {"cell": _plain(self.cell), "unit": self.unit_name, "feature": self.feature}
        return {"type": "question", "kind": self.kind, **{k: v for k, v in given.items() if v is not None}}


@dataclass(frozen=True)
class ProposePeace(_Order):
    to: str
    kind: str
    border: tuple[tuple[Cell, str], ...]


@dataclass(frozen=True)
class AnswerPeace(_Order):
    proposal: int
    accept: bool


@dataclass(frozen=True)
class Capitulate(_Order):
    pass


@dataclass(frozen=True)
class WithdrawOrder(_Order):
    """C-1.7 [L3]: take back an order recorded this turn, before the mediator carries the orders out."""

    number: int


@dataclass(frozen=True)
class AmendOrder(_Order):
    """C-1.7 [L3]: replace an order recorded this turn (it keeps its number) before the mediator carries them out."""

    number: int
    order: Any

    def wire_form(self) -> dict[str, Any]:
        return {"type": "amend_order", "number": self.number, "order": self.order.wire_form()}


Command = (Move | Turn | Frontage | March | Transfer | Split | Merge | Corps | Reassign | Formation | Attack | Strike
           | Posture | Deploy | Army | ArmyGroup | Cover | MobilizationPoints | Regulation | Question | ProposePeace
           | AnswerPeace | Capitulate | WithdrawOrder | AmendOrder)

KINDS: dict[str, type[_Order]] = {
    "move": Move, "turn": Turn, "frontage": Frontage, "march": March, "transfer": Transfer, "split": Split,
    "merge": Merge, "corps": Corps, "reassign": Reassign, "formation": Formation, "attack": Attack,
    "strike": Strike, "posture": Posture, "deploy": Deploy, "army": Army, "army_group": ArmyGroup, "cover": Cover,
    "mobilization_points": MobilizationPoints, "regulation": Regulation, "question": Question,
    "propose_peace": ProposePeace, "answer_peace": AnswerPeace, "capitulate": Capitulate,
    "withdraw_order": WithdrawOrder, "amend_order": AmendOrder,
}
KIND_NAMES: dict[type[_Order], str] = {command: kind for kind, command in KINDS.items()}


# --- the orders on the wire ----------------------------------------------------------------------------------------

def _wire_cell(value: Any) -> Cell:
    try:
        x, y = whole_cell(value)
    except ValueError:
        raise ValueError("a cell is [longitude, latitude] of whole numbers (or \"x-y\")") from None
    if abs(x) > 10_000 or abs(y) > 10_000:
        raise ValueError("the cell is off any map")
    return (x, y)


def _width(value: Any) -> int:
    if value not in (1, 2):
        raise ValueError("'width' is 1 or 2 cells")
    return int(value)


def _border_item(value: Any) -> tuple[Cell, str]:
    if not isinstance(value, list) or len(value) != 2 or not isinstance(value[1], str):
        raise ValueError("a border entry is [cell, team]")
    return (_wire_cell(value[0]), value[1])


def _inner_order(value: Any) -> Mapping[str, Any]:
    if not isinstance(value, Mapping) or value.get("type") in ("amend_order", "withdraw_order"):
        raise ValueError("'order' is the new order in place of the one recorded")
    return value


Str = Annotated[str, Strict()]
Name = Annotated[str, Strict(), Field(min_length=1, max_length=200)]
WireCell = Annotated[Cell, PlainValidator(_wire_cell), WithJsonSchema({
    "type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2,
    "description": "[x, y]: x the longitude (east), y the latitude (north); \"x-y\" is read too"})]
Path = Annotated[list[WireCell], Strict(), Field(min_length=1, max_length=200,
                                                 description="cells, each a neighbour of the one before")]
Ids = Annotated[list[Str], Strict(), Field(min_length=1, max_length=50, description="unit ids")]
Facing = Literal["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
Truthy = Annotated[bool, BeforeValidator(bool)]
"""A flag read as its truth value (1 is true)."""
Number = Annotated[int, Strict(), Field(gt=0, lt=10**9, description="the number order_recorded gave the order")]
assert FACINGS == ("N", "NE", "E", "SE", "S", "SW", "W", "NW")


class _Wire(BaseModel):
    """An order on the wire; other fields are ignored (and not kept: C-9.3)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    def command(self) -> Command:
        raise NotImplementedError


class ContinentalMove(_Wire):
    """C-4.3 (move), C-4.8 (march: along roads)."""

    type: Literal["move", "march"]
    unit: Name
    path: Path

    def command(self) -> Command:
        return (Move if self.type == "move" else March)(self.unit, tuple(self.path))


class ContinentalTurn(_Wire):
    """C-4.3bis: face another way."""

    type: Literal["turn"]
    unit: Name
    facing: Facing

    def command(self) -> Command:
        return Turn(self.unit, self.facing)


class ContinentalFrontage(_Wire):
    """C-4.6 [L2]: a division's frontage, 1 or 2 cells."""

    type: Literal["frontage"]
    unit: Name
    width: Annotated[int, PlainValidator(_width), WithJsonSchema({"enum": [1, 2]})]

    def command(self) -> Command:
        return Frontage(self.unit, self.width == 2)


class ContinentalTransfer(_Wire):
    """C-4.5: strategic transfer to a city."""

    type: Literal["transfer"]
    unit: Name
    to: Name

    def command(self) -> Command:
        return Transfer(self.unit, self.to)


class ContinentalSplit(_Wire):
    """C-4.9 [L2]: a division breaks up into regiments."""

    type: Literal["split"]
    unit: Name

    def command(self) -> Command:
        return Split(self.unit)


class ContinentalMerge(_Wire):
    """C-4.10 [L2]: regiments combine."""

    type: Literal["merge"]
    units: Ids

    def command(self) -> Command:
        return Merge(tuple(self.units))


class ContinentalCorps(_Wire):
    """C-5.3, C-4.10: divisions side by side form a corps."""

    type: Literal["corps"]
    name: Name
    units: Ids

    def command(self) -> Command:
        return Corps(self.name, tuple(self.units))


class ContinentalReassign(_Wire):
    """C-4.11 [L3]: a regiment changes its division."""

    type: Literal["reassign"]
    regiment: Name
    to: Name

    def command(self) -> Command:
        return Reassign(self.regiment, self.to)


class ContinentalFormation(_Wire):
    """C-5.3: a corps' tactical form."""

    type: Literal["formation"]
    unit: Name
    formation: Literal["line", "support"] = "line"
    orientation: Literal["enemy", "front_line"] = "enemy"

    def command(self) -> Command:
        return Formation(self.unit, self.formation, self.orientation)


class ContinentalAttack(_Wire):
    """C-9.8, C-9.8c: attack a cell with echelons and support; `advance` into it if emptied, `pursue` (C-9.8a):
    {unit: path} for first-echelon units after a withdrawal."""

    type: Literal["attack"]
    target: WireCell
    echelons: Annotated[list[Ids], Strict(), Field(min_length=1, max_length=5)]
    support: Annotated[list[Str], Strict(), Field(max_length=50)] = []
    advance: Truthy = True
    pursue: Annotated[dict[Name, Annotated[list[WireCell], Strict(), Field(min_length=1, max_length=20)]],
                      Strict(), Field(max_length=50)] = {}

    def command(self) -> Command:
        return Attack(self.target, tuple(tuple(e) for e in self.echelons), tuple(self.support), self.advance,
                      tuple((uid, tuple(path)) for uid, path in sorted(self.pursue.items())))


class ContinentalStrike(_Wire):
    """C-9.7a, C-9.7c, C-9.7d: an artillery strike; `confirm` a strike that may hit own units."""

    type: Literal["strike"]
    unit: Name
    target: WireCell
    mode: Literal["destroy", "cutoff", "road", "bridge"] = "destroy"
    confirm: Truthy = False

    def command(self) -> Command:
        return Strike(self.unit, self.target, self.mode, self.confirm)


class ContinentalPosture(_Wire):
    """C-9.8a: what a unit (or, without one, the team) does when attacked."""

    type: Literal["posture"]
    unit: Str | None = None
    on_attack: Literal["accept", "withdraw", "retreat"]

    def command(self) -> Command:
        return Posture(self.unit, self.on_attack)


class ContinentalDeploy(_Wire):
    """C-6.1: place a counter while planning."""

    type: Literal["deploy"]
    unit: Name
    cell: WireCell
    facing: Facing = "N"

    def command(self) -> Command:
        return Deploy(self.unit, self.cell, self.facing)


class ContinentalArmy(_Wire):
    """C-5.6: an army of units, with its zone (two opposite corners)."""

    type: Literal["army"]
    name: Name
    units: Ids
    zone: Annotated[list[WireCell], Strict(), Field(min_length=2, max_length=2)] | None = None

    def command(self) -> Command:
        return Army(self.name, tuple(self.units), None if self.zone is None else (self.zone[0], self.zone[1]))


class ContinentalArmyGroup(_Wire):
    """C-5.7: armies grouped into an army group (front)."""

    type: Literal["army_group"]
    name: Name
    armies: Ids

    def command(self) -> Command:
        return ArmyGroup(self.name, tuple(self.armies))


class ContinentalCover(_Wire):
    """C-5.8: border cover."""

    type: Literal["cover"]
    unit: Name
    cover: Truthy = True

    def command(self) -> Command:
        return Cover(self.unit, self.cover)


class ContinentalMobilizationPoints(_Wire):
    """C-6.4 [L2]: the cities where mobilized forces appear."""

    type: Literal["mobilization_points"]
    cities: Annotated[list[Str], Strict(), Field(min_length=1)]

    def command(self) -> Command:
        return MobilizationPoints(tuple(self.cities))


class ContinentalRegulation(_Wire):
    """C-5.9: a movement regulation."""

    type: Literal["regulation"]
    name: Name
    text: Name

    def command(self) -> Command:
        return Regulation(self.name, self.text)


class ContinentalQuestion(_Wire):
    """C-8.3: a reconnaissance question; presence, count and arm name a `cell`, locate a `unit`, feature a
    `feature`."""

    type: Literal["question"]
    kind: Literal["presence", "count", "arm", "locate", "feature", "mobilization"]
    cell: Annotated[Cell | None, PlainValidator(_wire_cell), WithJsonSchema(
        {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2})] = None
    unit: Annotated[Any, WithJsonSchema({"type": "string", "description": "the unit's name (locate)"})] = None
    feature: Annotated[Any, WithJsonSchema({"type": "string", "description": "the feature (feature)"})] = None

    @model_validator(mode="after")
    def _named(self) -> ContinentalQuestion:
        if self.kind in ("presence", "count", "arm") and self.cell is None:
            raise ValueError(f"a '{self.kind}' question names a 'cell'")
        for name, kind in (("unit", "locate"), ("feature", "feature")):
            value = getattr(self, name)
            if self.kind == kind and not (isinstance(value, str) and 0 < len(value) <= 200):
                raise ValueError(f"a '{kind}' question names a '{name}' (a non-empty string)")
        return self

    def command(self) -> Command:
        return Question(self.kind, self.cell, self.unit if self.kind == "locate" else None,
                        self.feature if self.kind == "feature" else None)


class ContinentalProposePeace(_Wire):
    """C-10.2 (peace in the current position), C-10.3 (compromise: a `border` of [cell, team])."""

    type: Literal["propose_peace"]
    to: Name
    kind: Literal["current", "compromise"] = "current"
    border: Annotated[list[Annotated[tuple[Cell, str], PlainValidator(_border_item), WithJsonSchema(
        {"type": "array", "prefixItems": [{"type": "array", "items": {"type": "integer"}}, {"type": "string"}]})]],
        Strict(), Field(max_length=2000)] = []

    def command(self) -> Command:
        return ProposePeace(self.to, self.kind, tuple(self.border))


class ContinentalAnswerPeace(_Wire):
    """C-10.4: accept or reject a proposal."""

    type: Literal["answer_peace"]
    proposal: Annotated[int, Strict()]
    accept: Truthy

    def command(self) -> Command:
        return AnswerPeace(self.proposal, self.accept)


class ContinentalCapitulate(_Wire):
    """C-10.1."""

    type: Literal["capitulate"]

    def command(self) -> Command:
        return Capitulate()


class ContinentalWithdrawOrder(_Wire):
    """C-1.7 [L3]: withdraw an order recorded this turn."""

    type: Literal["withdraw_order"]
    number: Number

    def command(self) -> Command:
        return WithdrawOrder(self.number)


class ContinentalAmendOrder(_Wire):
    """C-1.7 [L3]: replace an order recorded this turn by `order` (any order of combat operations)."""

    type: Literal["amend_order"]
    number: Number
    order: Annotated[Mapping[str, Any], PlainValidator(_inner_order), WithJsonSchema(
        {"type": "object", "description": "the new order (a ContinentalOrder other than amend/withdraw)"})]

    def command(self) -> Command:
        return AmendOrder(self.number, parse(self.order))


ContinentalOrder = Annotated[
    ContinentalMove | ContinentalTurn | ContinentalFrontage | ContinentalTransfer | ContinentalSplit
    | ContinentalMerge | ContinentalCorps | ContinentalReassign | ContinentalFormation | ContinentalAttack
    | ContinentalStrike | ContinentalPosture | ContinentalDeploy | ContinentalArmy | ContinentalArmyGroup
    | ContinentalCover | ContinentalMobilizationPoints | ContinentalRegulation | ContinentalQuestion
    | ContinentalProposePeace | ContinentalAnswerPeace | ContinentalCapitulate | ContinentalWithdrawOrder
    | ContinentalAmendOrder, Field(discriminator="type")]
"""Every order of a Continental War campaign room on the wire."""
ORDER: TypeAdapter[Any] = TypeAdapter(ContinentalOrder)

KIND_RULES = {
    "move": "C-4.3", "march": "C-4.8", "turn": "C-4.3bis", "frontage": "C-4.6", "transfer": "C-4.5",
    "split": "C-4.9", "merge": "C-4.10", "corps": "C-5.3", "reassign": "C-4.11", "formation": "C-5.3",
    "attack": "C-9.8c", "strike": "C-9.7a", "posture": "C-9.8a", "deploy": "C-6.1", "army": "C-5.6",
    "army_group": "C-5.7", "cover": "C-5.8", "mobilization_points": "C-6.4", "regulation": "C-5.9",
    "question": "C-8.3", "propose_peace": "C-10.2", "answer_peace": "C-10.4", "capitulate": "C-10.1",
    "withdraw_order": "C-1.7", "amend_order": "C-1.7",
}
"""The rule a malformed order of each kind breaks."""


def parse(order: Mapping[str, Any]) -> Command:
    """Turn a wire order into a typed command. Raises BadOrder / UnknownOrder."""
    if not isinstance(order, Mapping):
        raise BadOrder("an order is an object with a 'type'", rule="C-9.3")
    try:
        wire: _Wire = ORDER.validate_python(dict(order))
    except ValidationError as exc:
        first = exc.errors()[0]
        kind = order.get("type")
        if first["type"] in ("union_tag_invalid", "union_tag_not_found"):
            raise UnknownOrder(f"unknown order type {kind!r}", rule="C-9.3", details={"type": str(kind)}) from None
        where = [str(p) for p in first["loc"][1:]]
        name = where[0] if where else "order"
        message = first["msg"].removeprefix("Value error, ")
        raise BadOrder(f"{kind} {'.'.join(where) or 'order'}: {message}", rule=KIND_RULES.get(str(kind)),
                       details={"field": name}) from None
    return wire.command()
