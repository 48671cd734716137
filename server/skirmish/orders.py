"""Orders as they arrive from the wire (plain dicts), parsed once into typed commands (BadOrder when malformed).

Set-up (D-S-2, D-S-3):
    {"type": "terrain", "kind": "house", "x": 12, "y": 9, "w": 3, "h": 2}   place one element (alternately)
    {"type": "auto_terrain"}                       the server places the rest from the room seed (either side)
    {"type": "deploy", "units": {"g1": {"at": [x, y], "dir": "e"}}, "figures": {"g1.1": [x, y], "gt.1": [x, y, "n"]},
     "hold": ["s3"]}                               the whole side at once; nothing given: the scenario's deployment
Orders (one a time, D-S-4, D-S-5); `body` is a unit id (its commander and those in cohesion with him), a figure id
(an individual order), "group:<commander>" (an improvised group, S-8.7) or "army" (the army-wide order, S-6.4):
    {"type": "move", "body": "g1", "moves": [{"figure": "g1.1", "path": [[x, y], ...]},
                                             {"figure": "g1.2", "to": [x, y]}]}
    {"type": "fire", "body": "g1", "target": "s1.4", "group": true, "mg_target": "s2.1"}
    {"type": "move_fire", "body": "g1", "moves": [...], "target": "s1.4", "group": true}
    {"type": "fall_back", "body": "g1"}           the only order of a demoralised unit (D-S-12)
    {"type": "ambush", "unit": "s3", "figures": {"s3.1": [x, y], ...} | "units": {...}, "target": ..., "group": ...}
    {"type": "take_up", "figure": "g1.3"}          the assistant takes up the fallen gunner's weapon (S-8.5)
    {"type": "pass"}                               give up this one order
Any of move/fire/move_fire to a platoon commander's unit may carry "form_group": [figure ids] (S-8.7).
A vehicle's path may hold facings ("n", "e", "s", "w") between cells: a turn in place (D-S-6).
Decisions:
    {"type": "hits", "figures": ["s1.4", "s1.7"]}   which figures take the hits (D-S-9); "side" for the moderator
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from server.core.errors import BadOrder, UnknownOrder

from .rules import FACINGS
from .table import Cell

MAX_PATH = 40
MAX_ITEMS = 400

Step = Cell | str


@dataclass(frozen=True, slots=True)
class FigureMove:
    figure: str
    path: tuple[Step, ...] | None = None
    to: Cell | None = None


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a side puts its figures: each figure's cell (and a vehicle's facing), or a unit in a line from a
    cell in a direction (every figure next to the last: in cohesion, S-7.2)."""

    figures: tuple[tuple[str, Cell, str | None], ...] = ()
    units: tuple[tuple[str, Cell, str], ...] = ()


@dataclass(frozen=True, slots=True)
class PlaceTerrain:
    kind: str
    x: int
    y: int
    w: int
    h: int


@dataclass(frozen=True, slots=True)
class AutoTerrain:
    pass


@dataclass(frozen=True, slots=True)
class Deploy:
    placement: Placement | None
    hold: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Move:
    body: str
    moves: tuple[FigureMove, ...]
    form_group: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class Fire:
    body: str
    target: str
    group: bool = False
    mg_target: str | None = None
    form_group: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class MoveFire:
    body: str
    moves: tuple[FigureMove, ...]
    target: str
    group: bool = False
    mg_target: str | None = None
    form_group: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class FallBack:
    body: str


@dataclass(frozen=True, slots=True)
class Ambush:
    unit: str
    placement: Placement
    target: str | None = None
    group: bool = False


@dataclass(frozen=True, slots=True)
class TakeUp:
    figure: str


@dataclass(frozen=True, slots=True)
class Pass:
    pass


@dataclass(frozen=True, slots=True)
class Hits:
    figures: tuple[str, ...]
    side: str | None = None


Command = (PlaceTerrain | AutoTerrain | Deploy | Move | Fire | MoveFire | FallBack | Ambush | TakeUp | Pass | Hits)
ORDER_TYPES = (Move, Fire, MoveFire, FallBack, Ambush, TakeUp, Pass)
"""The commands that use one of the side's orders (D-S-4)."""


def _str(order: Mapping[str, Any], name: str, rule: str) -> str:
    v = order.get(name)
    if not isinstance(v, str) or not v or len(v) > 64:
        raise BadOrder(f"the order needs '{name}' (a name)", rule=rule, details={"field": name})
    return v


def _int(v: Any, name: str, rule: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not -10_000 <= v <= 10_000:
        raise BadOrder(f"{name} must be an integer", rule=rule, details={"field": name})
    return v


def _cell(v: Any, name: str, rule: str) -> Cell:
    if not isinstance(v, list | tuple) or len(v) != 2:
        raise BadOrder(f"{name} is a cell [x, y]", rule=rule, details={"field": name})
    return _int(v[0], name, rule), _int(v[1], name, rule)


def _ids(v: Any, name: str, rule: str) -> tuple[str, ...]:
    if not isinstance(v, list | tuple) or len(v) > MAX_ITEMS or not all(isinstance(i, str) and i for i in v):
        raise BadOrder(f"{name} is a list of ids", rule=rule, details={"field": name})
    if len(set(v)) != len(v):
        raise BadOrder(f"{name} names a figure twice", rule=rule, details={"field": name})
    return tuple(v)


def _bool(order: Mapping[str, Any], name: str, rule: str) -> bool:
    v = order.get(name, False)
    if not isinstance(v, bool):
        raise BadOrder(f"{name} is true or false", rule=rule, details={"field": name})
    return v


def _moves(order: Mapping[str, Any]) -> tuple[FigureMove, ...]:
    raw = order.get("moves")
    if not isinstance(raw, list | tuple) or not raw or len(raw) > MAX_ITEMS:
        raise BadOrder("a move needs 'moves': [{figure, path | to}, ...]", rule="D-S-6", details={"field": "moves"})
    out: list[FigureMove] = []
    for m in raw:
        if not isinstance(m, Mapping):
            raise BadOrder("a figure's move is {figure, path | to}", rule="D-S-6")
        fid = _str(m, "figure", "D-S-6")
        if "to" in m:
            out.append(FigureMove(fid, to=_cell(m["to"], "to", "D-S-6")))
            continue
        path = m.get("path")
        if not isinstance(path, list | tuple) or not path or len(path) > MAX_PATH:
            raise BadOrder(f"a path is 1 to {MAX_PATH} steps", rule="D-S-6", details={"figure": fid})
        steps: list[Step] = []
        for step in path:
            if isinstance(step, str):
                if step not in FACINGS:
                    raise BadOrder("a turn in a path is n, e, s or w", rule="D-S-6", details={"figure": fid})
                steps.append(step)
            else:
                steps.append(_cell(step, "path", "D-S-6"))
        out.append(FigureMove(fid, path=tuple(steps)))
    if len({m.figure for m in out}) != len(out):
        raise BadOrder("a figure moves once in an order", rule="D-S-5")
    return tuple(out)


def placement_of(order: Mapping[str, Any], rule: str) -> Placement:
    figures: list[tuple[str, Cell, str | None]] = []
    units: list[tuple[str, Cell, str]] = []
    raw_f = order.get("figures") or {}
    raw_u = order.get("units") or {}
    if not isinstance(raw_f, Mapping) or not isinstance(raw_u, Mapping) or len(raw_f) + len(raw_u) > MAX_ITEMS:
        raise BadOrder("figures and units are objects of id to place", rule=rule)
    for fid, v in raw_f.items():
        if not isinstance(v, list | tuple) or len(v) not in (2, 3):
            raise BadOrder("a figure's place is [x, y] or [x, y, facing]", rule=rule, details={"figure": fid})
        facing = v[2] if len(v) == 3 else None
        if facing is not None and facing not in FACINGS:
            raise BadOrder("a facing is n, e, s or w", rule=rule, details={"figure": fid})
        figures.append((str(fid), _cell(v[:2], "figures", rule), facing))
    for uid, v in raw_u.items():
        if not isinstance(v, Mapping):
            raise BadOrder("a unit's place is {at: [x, y], dir}", rule=rule, details={"unit": uid})
        direction = v.get("dir", "e")
        if direction not in FACINGS:
            raise BadOrder("a unit's line runs n, e, s or w", rule=rule, details={"unit": uid})
        units.append((str(uid), _cell(v.get("at"), "at", rule), str(direction)))
    return Placement(tuple(figures), tuple(units))


def _form_group(order: Mapping[str, Any]) -> tuple[str, ...] | None:
    return _ids(order["form_group"], "form_group", "S-8.7") if "form_group" in order else None


def parse(order: Mapping[str, Any]) -> Command:
    if not isinstance(order, Mapping):
        raise BadOrder("an order is an object", rule="D-S-5")
    kind = order.get("type")
    if kind == "terrain":
        return PlaceTerrain(_str(order, "kind", "D-S-2"), _int(order.get("x"), "x", "D-S-2"),
                            _int(order.get("y"), "y", "D-S-2"), _int(order.get("w", 1), "w", "D-S-2"),
                            _int(order.get("h", 1), "h", "D-S-2"))
    if kind == "auto_terrain":
        return AutoTerrain()
    if kind == "deploy":
        hold = _ids(order.get("hold", []), "hold", "S-9.2")
        given = "figures" in order or "units" in order
        return Deploy(placement_of(order, "D-S-3") if given else None, hold)
    if kind == "move":
        return Move(_str(order, "body", "D-S-5"), _moves(order), _form_group(order))
    if kind == "fire":
        return Fire(_str(order, "body", "D-S-5"), _str(order, "target", "S-7.6"), _bool(order, "group", "S-7.6"),
                    _str(order, "mg_target", "D-S-14") if "mg_target" in order else None, _form_group(order))
    if kind == "move_fire":
        return MoveFire(_str(order, "body", "D-S-5"), _moves(order), _str(order, "target", "S-7.6"),
                        _bool(order, "group", "S-7.6"),
                        _str(order, "mg_target", "D-S-14") if "mg_target" in order else None, _form_group(order))
    if kind == "fall_back":
        return FallBack(_str(order, "body", "D-S-12"))
    if kind == "ambush":
        target = _str(order, "target", "S-9.5") if "target" in order else None
        return Ambush(_str(order, "unit", "S-9.3"), placement_of(order, "D-S-13"), target,
                      _bool(order, "group", "S-7.6"))
    if kind == "take_up":
        return TakeUp(_str(order, "figure", "S-8.5"))
    if kind == "pass":
        return Pass()
    if kind == "hits":
        side = _str(order, "side", "D-S-9") if "side" in order else None
        return Hits(_ids(order.get("figures"), "figures", "D-S-9"), side)
    raise UnknownOrder(f"unknown skirmish order {kind!r}", rule="D-S-5", details={"type": str(kind)})
