"""Orders from the wire (plain dicts) parsed into typed commands; malformed ones raise BadOrder."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from server.campaign.grid import FACINGS, Cell
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
    if isinstance(value, str) and "-" in value:
        parts: Any = value.split("-", 1)
    else:
        parts = value
    try:
        if len(parts) != 2:
            raise ValueError
        x, y = int(parts[0]), int(parts[1])
    except (TypeError, ValueError) as exc:
        raise BadOrder(f"'{name}' must be a cell [longitude, latitude]", details={"field": name}) from exc
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


@dataclass(frozen=True)
class Move:
    unit: str
    path: tuple[Cell, ...]


@dataclass(frozen=True)
class Turn:
    unit: str
    facing: str


@dataclass(frozen=True)
class Frontage:
    unit: str
    wide: bool


@dataclass(frozen=True)
class March:
    unit: str
    path: tuple[Cell, ...]


@dataclass(frozen=True)
class Transfer:
    unit: str
    to: str


@dataclass(frozen=True)
class Split:
    unit: str


@dataclass(frozen=True)
class Merge:
    units: tuple[str, ...]


@dataclass(frozen=True)
class Corps:
    name: str
    units: tuple[str, ...]


@dataclass(frozen=True)
class Reassign:
    regiment: str
    to: str


@dataclass(frozen=True)
class Formation:
    unit: str
    formation: str
    orientation: str


@dataclass(frozen=True)
class Attack:
    target: Cell
    echelons: tuple[tuple[str, ...], ...]
    support: tuple[str, ...]
    advance: bool


@dataclass(frozen=True)
class Strike:
    unit: str
    target: Cell
    mode: str
    confirm: bool


@dataclass(frozen=True)
class Posture:
    unit: str | None
    on_attack: str


@dataclass(frozen=True)
class Deploy:
    unit: str
    cell: Cell
    facing: str


@dataclass(frozen=True)
class Army:
    name: str
    units: tuple[str, ...]
    zone: tuple[Cell, Cell] | None = None


@dataclass(frozen=True)
class Cover:
    unit: str
    cover: bool


@dataclass(frozen=True)
class MobilizationPoints:
    cities: tuple[str, ...]


@dataclass(frozen=True)
class Regulation:
    name: str
    text: str


@dataclass(frozen=True)
class Question:
    kind: str
    cell: Cell | None
    unit_name: str | None
    feature: str | None


@dataclass(frozen=True)
class ProposePeace:
    to: str
    kind: str
    border: tuple[tuple[Cell, str], ...]


@dataclass(frozen=True)
class AnswerPeace:
    proposal: int
    accept: bool


@dataclass(frozen=True)
class Capitulate:
    pass


Command = (Move | Turn | Frontage | March | Transfer | Split | Merge | Corps | Reassign | Formation | Attack | Strike
           | Posture | Deploy | Army | Cover | MobilizationPoints | Regulation | Question | ProposePeace
           | AnswerPeace | Capitulate)

QUESTION_KINDS = ("presence", "count", "arm", "locate", "feature", "mobilization")


def parse(order: Mapping[str, Any]) -> Command:
    """Turn a wire order into a typed command. Raises BadOrder / UnknownOrder."""
    if not isinstance(order, Mapping):
        raise BadOrder("an order is an object with a 'type'")
    kind = order.get("type")
    if kind == "move":
        return Move(_str(order, "unit"), tuple(_cells(order, "path")))
    if kind == "turn":
        return Turn(_str(order, "unit"), _choice(order, "facing", FACINGS))
    if kind == "frontage":
        width = _get(order, "width")
        if width not in (1, 2):
            raise BadOrder("'width' is 1 or 2 cells", details={"field": "width"})
        return Frontage(_str(order, "unit"), width == 2)
    if kind == "march":
        return March(_str(order, "unit"), tuple(_cells(order, "path")))
    if kind == "transfer":
        return Transfer(_str(order, "unit"), _str(order, "to"))
    if kind == "split":
        return Split(_str(order, "unit"))
    if kind == "merge":
        return Merge(tuple(_ids(order, "units")))
    if kind == "corps":
        return Corps(_str(order, "name"), tuple(_ids(order, "units")))
    if kind == "reassign":
        return Reassign(_str(order, "regiment"), _str(order, "to"))
    if kind == "formation":
        return Formation(_str(order, "unit"), _choice(order, "formation", ("line", "support"), "line"),
                         _choice(order, "orientation", ("enemy", "front_line"), "enemy"))
    if kind == "attack":
        raw = _get(order, "echelons")
        if not isinstance(raw, list) or not raw or len(raw) > 5:
            raise BadOrder("'echelons' must be a list of lists of unit ids", details={"field": "echelons"})
        echelons = tuple(tuple(_ids({"e": e}, "e")) for e in raw)
        return Attack(_cell(_get(order, "target"), "target"), echelons,
                      tuple(_ids(order, "support", required=False)), bool(order.get("advance", True)))
    if kind == "strike":
        return Strike(_str(order, "unit"), _cell(_get(order, "target"), "target"),
                      _choice(order, "mode", ("destroy", "cutoff", "road", "bridge"), "destroy"),
                      bool(order.get("confirm", False)))
    if kind == "posture":
        unit = order.get("unit")
        if unit is not None and not isinstance(unit, str):
            raise BadOrder("'unit' must be a unit id", details={"field": "unit"})
        return Posture(unit, _choice(order, "on_attack", ("accept", "withdraw", "retreat")))
    if kind == "deploy":
        return Deploy(_str(order, "unit"), _cell(_get(order, "cell"), "cell"), _choice(order, "facing", FACINGS, "N"))
    if kind == "army":
        zone = None
        if order.get("zone") is not None:
            corners = _cells(order, "zone", max_len=2)
            if len(corners) != 2:
                raise BadOrder("'zone' is two opposite corners", details={"field": "zone"})
            zone = (corners[0], corners[1])
        return Army(_str(order, "name"), tuple(_ids(order, "units")), zone)
    if kind == "cover":
        return Cover(_str(order, "unit"), bool(order.get("cover", True)))
    if kind == "mobilization_points":
        cities = _get(order, "cities")
        if not isinstance(cities, list) or not cities or not all(isinstance(c, str) for c in cities):
            raise BadOrder("'cities' must be a list of city names", details={"field": "cities"})
        return MobilizationPoints(tuple(cities))
    if kind == "regulation":
        return Regulation(_str(order, "name"), _str(order, "text"))
    if kind == "question":
        q = _choice(order, "kind", QUESTION_KINDS)
        cell = _cell(order["cell"], "cell") if "cell" in order else None
        if q in ("presence", "count", "arm") and cell is None:
            raise BadOrder(f"a '{q}' question names a 'cell'", details={"field": "cell"})
        name = _str(order, "unit") if q == "locate" else None
        feature = _str(order, "feature") if q == "feature" else None
        return Question(q, cell, name, feature)
    if kind == "propose_peace":
        border_raw = order.get("border", [])
        if not isinstance(border_raw, list) or len(border_raw) > 2000:
            raise BadOrder("'border' must be a list of [cell, team]", details={"field": "border"})
        border: list[tuple[Cell, str]] = []
        for item in border_raw:
            if not isinstance(item, list) or len(item) != 2 or not isinstance(item[1], str):
                raise BadOrder("'border' must be a list of [cell, team]", details={"field": "border"})
            border.append((_cell(item[0], "border"), item[1]))
        return ProposePeace(_str(order, "to"), _choice(order, "kind", ("current", "compromise"), "current"),
                            tuple(border))
    if kind == "answer_peace":
        proposal = _get(order, "proposal")
        if not isinstance(proposal, int) or isinstance(proposal, bool):
            raise BadOrder("'proposal' is a proposal number", details={"field": "proposal"})
        return AnswerPeace(proposal, bool(_get(order, "accept")))
    if kind == "capitulate":
        return Capitulate()
    raise UnknownOrder(f"unknown order type {kind!r}")
