"""Orders as they arrive from the wire (plain dicts), parsed once into typed commands (BadOrder when malformed).

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
from typing import Any

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
    formation: str


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


def _unit(order: Mapping[str, Any]) -> str:
    uid = order.get("unit")
    if not isinstance(uid, str) or not uid:
        raise BadOrder("the order names no unit", rule="D-N-1", details={"field": "unit"})
    return uid


def _int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadOrder(f"{name} must be an integer", rule="D-N-1", details={"field": name})
    return value


def _path(order: Mapping[str, Any]) -> tuple[Cell, ...]:
    raw = order.get("path")
    if not isinstance(raw, (list, tuple)) or not raw:
        raise BadOrder("a move needs a non-empty path of cells", rule="D-GEN-2", details={"field": "path"})
    if len(raw) > MAX_PATH:
        raise BadOrder(f"a path has at most {MAX_PATH} cells", rule="D-GEN-2", details={"field": "path"})
    cells = []
    for c in raw:
        if not isinstance(c, (list, tuple)) or len(c) != 2:
            raise BadOrder("a path cell is [x, y]", rule="D-GEN-2", details={"field": "path"})
        cells.append((_int(c[0], "path"), _int(c[1], "path")))
    return tuple(cells)


def parse(order: Mapping[str, Any]) -> Command:
    if not isinstance(order, Mapping):
        raise BadOrder("an order is an object", rule="D-N-1")
    kind = order.get("type")
    if kind in ("move", "charge"):
        return Move(_unit(order), _path(order), charge=kind == "charge")
    if kind == "wheel":
        deg = _int(order.get("degrees"), "degrees")
        if deg not in (45, 90, -45, -90):
            raise BadOrder("a wheel turns 45° or 90° either way", rule="N-INF-10", details={"degrees": deg})
        return Wheel(_unit(order), deg // 45)
    if kind == "about_face":
        return AboutFace(_unit(order))
    if kind == "formation":
        f = order.get("formation")
        if not isinstance(f, str):
            raise BadOrder("formation must be a name", rule="N-INF-6", details={"field": "formation"})
        return ChangeFormation(_unit(order), f)
    if kind in ("limber", "unlimber"):
        return ChangeFormation(_unit(order), "limbered" if kind == "limber" else "deployed")
    if kind == "targets":
        raw = order.get("targets")
        if not isinstance(raw, (list, tuple)):
            raise BadOrder("targets is a list", rule="N-ART-7", details={"field": "targets"})
        if len(raw) > 2:
            raise BadOrder("a company designates at most two targets", rule="N-ART-7")
        out = []
        for t in raw:
            if not isinstance(t, Mapping) or not isinstance(t.get("unit"), str):
                raise BadOrder("a target is {unit, guns}", rule="N-ART-7")
            out.append((str(t["unit"]), _int(t.get("guns"), "guns")))
        return Targets(_unit(order), tuple(out))
    if kind == "barrage":
        return Barrage(_unit(order))
    if kind == "leave_melee":
        return LeaveMelee(_unit(order), _path(order))
    if kind == "retreat":
        return Retreat()
    raise UnknownOrder(f"unknown battle order {kind!r}", rule="D-N-1", details={"type": kind})
