"""Orders from the wire (plain dicts) parsed into typed commands; malformed ones raise BadOrder."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from server.continental.grid import FACINGS, Cell, whole_cell
from server.core.errors import BadOrder, UnknownOrder


def _get(order: Mapping[str, Any], name: str) -> Any:
    if name not in order:
        raise BadOrder(f"order '{order.get('type')}' needs '{name}'", details={"field": name})
    return order[name]


def _str(order: Mapping[str, Any], name: str, default: str | None = None) -> str:
    value = order.get(name, default) if default is not None else _get(order, name)
    if not isinstance(value, str) or not value or len(value) > 200:
        raise BadOrder(f"'{name}' must be a non-empty string", details={"field": name})
    return value


def _choice(order: Mapping[str, Any], name: str, options: tuple[str, ...], default: str | None = None) -> str:
    value = _str(order, name, default)
    if value not in options:
        raise BadOrder(f"'{name}' must be one of {', '.join(options)}", details={"field": name})
    return value


def _cell(value: Any, name: str) -> Cell:
    try:
        x, y = whole_cell(value)
    except ValueError as exc:
        raise BadOrder(f"'{name}' must be a cell [longitude, latitude] of whole numbers",
                       details={"field": name}) from exc
    if abs(x) > 10_000 or abs(y) > 10_000:
        raise BadOrder(f"'{name}' is off any map", details={"field": name})
    return (x, y)


def _cells(order: Mapping[str, Any], name: str, *, max_len: int = 200) -> list[Cell]:
    value = _get(order, name)
    if not isinstance(value, list) or not value or len(value) > max_len:
        raise BadOrder(f"'{name}' must be a non-empty list of cells", details={"field": name})
    return [_cell(v, name) for v in value]


def _ids(order: Mapping[str, Any], name: str, *, required: bool = True) -> list[str]:
    value = order.get(name, [] if not required else None)
    if value is None or not isinstance(value, list) or len(value) > 50 or (required and not value):
        raise BadOrder(f"'{name}' must be a list of unit ids", details={"field": name})
    if not all(isinstance(v, str) for v in value):
        raise BadOrder(f"'{name}' must be a list of unit ids", details={"field": name})
    return list(value)


def _ids_tuple(order: Mapping[str, Any], name: str) -> tuple[str, ...]:
    return tuple(_ids(order, name))


def _cells_tuple(order: Mapping[str, Any], name: str) -> tuple[Cell, ...]:
    return tuple(_cells(order, name))


def _facing(order: Mapping[str, Any], name: str) -> str:
    return _choice(order, name, FACINGS)


READERS: dict[str, Callable[[Mapping[str, Any], str], Any]] = {
    "unit": _str, "to": _str, "regiment": _str, "name": _str, "text": _str,
    "units": _ids_tuple, "path": _cells_tuple, "facing": _facing,
}


def _plain(value: Any) -> Any:
    """Tuples (cells, id lists) as the lists the wire carries."""
    return [_plain(v) for v in value] if isinstance(value, tuple) else value


class _Order:
    """A typed command; `wire` reads it from a wire dict, each field by the reader of its name (BadOrder for
    malformed fields); commands with other fields read themselves. `wire_form` writes it back: the order as the
    engine read it, nothing else of what the client sent, and `parse(cmd.wire_form()) == cmd`."""

    @classmethod
    def wire(cls, order: Mapping[str, Any]) -> Any:
        return cls(*(READERS[f.name](order, f.name) for f in fields(cls)))  # type: ignore[arg-type]

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

    @classmethod
    def wire(cls, order: Mapping[str, Any]) -> Frontage:
        width = _get(order, "width")
        if width not in (1, 2):
            raise BadOrder("'width' is 1 or 2 cells", details={"field": "width"})
        return cls(_str(order, "unit"), width == 2)

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

    @classmethod
    def wire(cls, order: Mapping[str, Any]) -> Formation:
        return cls(_str(order, "unit"), _choice(order, "formation", ("line", "support"), "line"),
                   _choice(order, "orientation", ("enemy", "front_line"), "enemy"))


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

    @classmethod
    def wire(cls, order: Mapping[str, Any]) -> Attack:
        raw = _get(order, "echelons")
        if not isinstance(raw, list) or not raw or len(raw) > 5:
            raise BadOrder("'echelons' must be a list of lists of unit ids", details={"field": "echelons"})
        echelons = tuple(tuple(_ids({"e": e}, "e")) for e in raw)
        pursue_raw = order.get("pursue", {})
        if not isinstance(pursue_raw, Mapping) or len(pursue_raw) > 50:
            raise BadOrder("'pursue' is {unit id: path}", details={"field": "pursue"})
        pursue = tuple((_str({"unit": uid}, "unit"), tuple(_cells({"path": path}, "path", max_len=20)))
                       for uid, path in sorted(pursue_raw.items()))
        return cls(_cell(_get(order, "target"), "target"), echelons,
                   tuple(_ids(order, "support", required=False)), bool(order.get("advance", True)), pursue)

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

    @classmethod
    def wire(cls, order: Mapping[str, Any]) -> Strike:
        return cls(_str(order, "unit"), _cell(_get(order, "target"), "target"),
                   _choice(order, "mode", ("destroy", "cutoff", "road", "bridge"), "destroy"),
                   bool(order.get("confirm", False)))


@dataclass(frozen=True)
class Posture(_Order):
    unit: str | None
    on_attack: str

    @classmethod
    def wire(cls, order: Mapping[str, Any]) -> Posture:
        unit = order.get("unit")
        if unit is not None and not isinstance(unit, str):
            raise BadOrder("'unit' must be a unit id", details={"field": "unit"})
        return cls(unit, _choice(order, "on_attack", ("accept", "withdraw", "retreat")))


@dataclass(frozen=True)
class Deploy(_Order):
    unit: str
    cell: Cell
    facing: str

    @classmethod
    def wire(cls, order: Mapping[str, Any]) -> Deploy:
        return cls(_str(order, "unit"), _cell(_get(order, "cell"), "cell"), _choice(order, "facing", FACINGS, "N"))


@dataclass(frozen=True)
class Army(_Order):
    name: str
    units: tuple[str, ...]
    zone: tuple[Cell, Cell] | None = None

    @classmethod
    def wire(cls, order: Mapping[str, Any]) -> Army:
        zone = None
        if order.get("zone") is not None:
            corners = _cells(order, "zone", max_len=2)
            if len(corners) != 2:
                raise BadOrder("'zone' is two opposite corners", details={"field": "zone"})
            zone = (corners[0], corners[1])
        return cls(_str(order, "name"), tuple(_ids(order, "units")), zone)


@dataclass(frozen=True)
class ArmyGroup(_Order):
    """C-5.7: armies grouped into an army group (front), optional."""
    name: str
    armies: tuple[str, ...]

    @classmethod
    def wire(cls, order: Mapping[str, Any]) -> ArmyGroup:
        return cls(_str(order, "name"), _ids_tuple(order, "armies"))


@dataclass(frozen=True)
class Cover(_Order):
    unit: str
    cover: bool

    @classmethod
    def wire(cls, order: Mapping[str, Any]) -> Cover:
        return cls(_str(order, "unit"), bool(order.get("cover", True)))


@dataclass(frozen=True)
class MobilizationPoints(_Order):
    cities: tuple[str, ...]

    @classmethod
    def wire(cls, order: Mapping[str, Any]) -> MobilizationPoints:
        cities = _get(order, "cities")
        if not isinstance(cities, list) or not cities or not all(isinstance(c, str) for c in cities):
            raise BadOrder("'cities' must be a list of city names", details={"field": "cities"})
        return cls(tuple(cities))


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

    @classmethod
    def wire(cls, order: Mapping[str, Any]) -> Question:
        q = _choice(order, "kind", QUESTION_KINDS)
        cell = _cell(order["cell"], "cell") if "cell" in order else None
        if q in ("presence", "count", "arm") and cell is None:
            raise BadOrder(f"a '{q}' question names a 'cell'", details={"field": "cell"})
        name = _str(order, "unit") if q == "locate" else None
        feature = _str(order, "feature") if q == "feature" else None
        return cls(q, cell, name, feature)

    def wire_form(self) -> dict[str, Any]:
        given = {"cell": _plain(self.cell), "unit": self.unit_name, "feature": self.feature}
        return {"type": "question", "kind": self.kind, **{k: v for k, v in given.items() if v is not None}}


@dataclass(frozen=True)
class ProposePeace(_Order):
    to: str
    kind: str
    border: tuple[tuple[Cell, str], ...]

    @classmethod
    def wire(cls, order: Mapping[str, Any]) -> ProposePeace:
        border_raw = order.get("border", [])
        if not isinstance(border_raw, list) or len(border_raw) > 2000:
            raise BadOrder("'border' must be a list of [cell, team]", details={"field": "border"})
        border: list[tuple[Cell, str]] = []
        for item in border_raw:
            if not isinstance(item, list) or len(item) != 2 or not isinstance(item[1], str):
                raise BadOrder("'border' must be a list of [cell, team]", details={"field": "border"})
            border.append((_cell(item[0], "border"), item[1]))
        return cls(_str(order, "to"), _choice(order, "kind", ("current", "compromise"), "current"), tuple(border))


@dataclass(frozen=True)
class AnswerPeace(_Order):
    proposal: int
    accept: bool

    @classmethod
    def wire(cls, order: Mapping[str, Any]) -> AnswerPeace:
        proposal = _get(order, "proposal")
        if not isinstance(proposal, int) or isinstance(proposal, bool):
            raise BadOrder("'proposal' is a proposal number", details={"field": "proposal"})
        return cls(proposal, bool(_get(order, "accept")))


@dataclass(frozen=True)
class Capitulate(_Order):
    @classmethod
    def wire(cls, order: Mapping[str, Any]) -> Capitulate:
        return cls()


def _number(order: Mapping[str, Any]) -> int:
    value = _get(order, "number")
    if not isinstance(value, int) or isinstance(value, bool) or not 0 < value < 10**9:
        raise BadOrder("'number' is the number of an order waiting (order_recorded's)", details={"field": "number"})
    return value


@dataclass(frozen=True)
class WithdrawOrder(_Order):
    """C-1.7 [L3]: take back an order recorded this turn, before the mediator carries the orders out."""

    number: int

    @classmethod
    def wire(cls, order: Mapping[str, Any]) -> WithdrawOrder:
        return cls(_number(order))


@dataclass(frozen=True)
class AmendOrder(_Order):
    """C-1.7 [L3]: replace an order recorded this turn (it keeps its number) before the mediator carries them out."""

    number: int
    order: Any

    @classmethod
    def wire(cls, order: Mapping[str, Any]) -> AmendOrder:
        inner = _get(order, "order")
        if not isinstance(inner, Mapping) or inner.get("type") in ("amend_order", "withdraw_order"):
            raise BadOrder("'order' is the new order in place of the one recorded", details={"field": "order"})
        return cls(_number(order), parse(inner))

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


def parse(order: Mapping[str, Any]) -> Command:
    """Turn a wire order into a typed command. Raises BadOrder / UnknownOrder."""
    if not isinstance(order, Mapping):
        raise BadOrder("an order is an object with a 'type'")
    kind = order.get("type")
    command = KINDS.get(kind) if isinstance(kind, str) else None
    if command is None:
        raise UnknownOrder(f"unknown order type {kind!r}")
    cmd: Command = command.wire(order)
    return cmd
