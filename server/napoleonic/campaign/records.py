"""The Napoleonic campaign's records (issue 14): an army, its retreat being chosen, a battle on the campaign map and
a siege, as typed records in the state instead of JSON-shaped dicts. The engine copies the state and changes its
records in place (state.py); `dump` writes each one as the dict the snapshots always held and `load` reads it
back, so rooms written before load and replay (the conversion is at the edge: the state's dump and load).

Cells are [x, y] lists, y the latitude growing north (docs/protocol.md, Coordinates).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from server.napoleonic.siege.sequence import Siege


def _cell(value: Any) -> list[int]:
    return [int(value[0]), int(value[1])]


def _opt_str(value: Any) -> str | None:
    return None if value is None else str(value)


@dataclass(slots=True)
class Retreat:
    """N-VICTORY-4: a beaten army's team chooses where it retreats, up to `cells` from `start` (the wire's
    "from"); the battle or siege it lost; the path the engine suggests."""

    start: list[int]
    cells: int
    battle: str | None
    siege: str | None
    winner: str
    suggested: list[list[int]]

    def dump(self) -> dict[str, Any]:
        return {"from": list(self.start), "cells": self.cells, "battle": self.battle, "siege": self.siege,
                "winner": self.winner, "suggested": [list(c) for c in self.suggested]}

    @classmethod
    def load(cls, d: Mapping[str, Any]) -> Retreat:
        return cls(_cell(d["from"]), int(d["cells"]), _opt_str(d.get("battle")), _opt_str(d.get("siege")),
                   str(d["winner"]), [_cell(c) for c in d.get("suggested") or []])

    def __deepcopy__(self, memo: dict[int, Any]) -> Retreat:
        return Retreat(list(self.start), self.cells, self.battle, self.siege, self.winner,
                       [list(c) for c in self.suggested])


@dataclass(slots=True)
class Army:
    """An army of regiments (D-NAP-1): movement `points` left this turn of `max_points`, its `status` (state.py),
    the postures `intercept` and `support` (N-START-2, D-N-12), the `battle` it is frozen in (D-L-1), and its
    units — {id, type, morale, loss_tolerance, guns, accuracy}: campaign morale is kept per unit (the unit's morale
    when its next battle begins). `retreat` is set while its team chooses where it retreats."""

    id: str
    name: str
    team: str
    general: str | None
    seat: int
    cell: list[int]
    points: float
    max_points: float
    base: str | None
    status: str
    intercept: bool
    support: bool
    battle: str | None
    units: list[dict[str, Any]]
    retreat: Retreat | None = None

    def dump(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id, "name": self.name, "team": self.team, "general": self.general, "seat": self.seat,
            "cell": list(self.cell), "points": self.points, "max_points": self.max_points, "base": self.base,
            "status": self.status, "intercept": self.intercept, "support": self.support, "battle": self.battle,
            "units": [dict(u) for u in self.units]}
        if self.retreat is not None:
            out["retreat"] = self.retreat.dump()
        return out

    @classmethod
    def load(cls, d: Mapping[str, Any]) -> Army:
        retreat = d.get("retreat")
        return cls(str(d["id"]), str(d["name"]), str(d["team"]), _opt_str(d.get("general")), int(d.get("seat", 1)),
                   _cell(d["cell"]), float(d["points"]), float(d["max_points"]), _opt_str(d.get("base")),
                   str(d["status"]), bool(d.get("intercept", False)), bool(d.get("support", False)),
                   _opt_str(d.get("battle")), [dict(u) for u in d.get("units", [])],
                   Retreat.load(retreat) if retreat else None)

    def __deepcopy__(self, memo: dict[int, Any]) -> Army:
        """The engine copies the state for every command: the units are flat dicts of numbers and names."""
        return Army(self.id, self.name, self.team, self.general, self.seat, list(self.cell), self.points,
                    self.max_points, self.base, self.status, self.intercept, self.support, self.battle,
                    [dict(u) for u in self.units], None if self.retreat is None else self.retreat.__deepcopy__(memo))


@dataclass(slots=True)
class Battle:
    """A battle on the campaign map (N-START-1 … 3, D-L-1): `status` contact, running, declined or over; the
    `armies` and `reinforcements` of each team; `quick` a quick resolution offered (D-L-2); `waiting` the powers
    whose armies wait their turn in the cell (D-NAP-6); a sortie or storm names its `siege` and `fortress`."""

    id: str
    cell: list[int]
    kind: str
    engine: str
    status: str
    attacker: str
    defender: str
    came_from: list[int]
    armies: dict[str, list[str]]
    reinforcements: dict[str, list[str]]
    retreat_with_battle: bool = False
    quick: dict[str, Any] | None = None
    turn: int = 0
    result: dict[str, Any] | None = None
    waiting: list[str] | None = None
    siege: str | None = None
    fortress: dict[str, Any] | None = None

    def dump(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id, "cell": list(self.cell), "kind": self.kind, "engine": self.engine, "status": self.status,
            "attacker": self.attacker, "defender": self.defender, "came_from": list(self.came_from),
            "armies": {t: list(ids) for t, ids in self.armies.items()},
            "reinforcements": {t: list(ids) for t, ids in self.reinforcements.items()},
            "retreat_with_battle": self.retreat_with_battle, "quick": _copy(self.quick), "turn": self.turn,
            "result": _copy(self.result)}
        if self.waiting is not None:
            out["waiting"] = list(self.waiting)
        if self.siege is not None:
            out["siege"] = self.siege
            out["fortress"] = _copy(self.fortress)
        return out

    @classmethod
    def load(cls, d: Mapping[str, Any]) -> Battle:
        return cls(str(d["id"]), _cell(d["cell"]), str(d["kind"]), str(d.get("engine", "battle")), str(d["status"]),
                   str(d["attacker"]), str(d["defender"]), _cell(d.get("came_from", d["cell"])),
                   {str(t): [str(a) for a in ids] for t, ids in d["armies"].items()},
                   {str(t): [str(a) for a in ids] for t, ids in d.get("reinforcements", {}).items()},
                   bool(d.get("retreat_with_battle", False)), _copy(d.get("quick")), int(d.get("turn", 0)),
                   _copy(d.get("result")), None if d.get("waiting") is None else [str(t) for t in d["waiting"]],
                   _opt_str(d.get("siege")), _copy(d.get("fortress")))

    def __deepcopy__(self, memo: dict[int, Any]) -> Battle:
        return Battle(self.id, list(self.cell), self.kind, self.engine, self.status, self.attacker, self.defender,
                      list(self.came_from), {t: list(ids) for t, ids in self.armies.items()},
                      {t: list(ids) for t, ids in self.reinforcements.items()}, self.retreat_with_battle,
                      _copy(self.quick), self.turn, _copy(self.result),
                      None if self.waiting is None else list(self.waiting), self.siege, _copy(self.fortress))


@dataclass(slots=True)
class SiegeRecord:
    """A siege on the campaign map (N-SIEGE-2 … 8): the siege machine's state (server/napoleonic/siege), the cell,
    the besieging and besieged armies, the battle (sortie or storm) it fights, if any, and the besieger's
    companies that become howitzers for its storm (N-SIEGE-9, chosen with the storm order)."""

    siege: Siege
    cell: list[int]
    besieger: list[str]
    garrison: list[str]
    battle: str | None = None
    howitzers: list[str] = field(default_factory=list)

    def dump(self) -> dict[str, Any]:
        out = {"siege": self.siege.dump(), "cell": list(self.cell), "besieger": list(self.besieger),
               "garrison": list(self.garrison), "battle": self.battle}
        if self.howitzers:
            out["howitzers"] = list(self.howitzers)
        return out

    @classmethod
    def load(cls, d: Mapping[str, Any]) -> SiegeRecord:
        return cls(Siege.load(d["siege"]), _cell(d["cell"]), [str(a) for a in d["besieger"]],
                   [str(a) for a in d["garrison"]], _opt_str(d.get("battle")),
                   [str(u) for u in d.get("howitzers") or ()])

    def __deepcopy__(self, memo: dict[int, Any]) -> SiegeRecord:
        """The siege machine's state is immutable (frozen; its module changes it by `replace`): shared."""
        return SiegeRecord(self.siege, list(self.cell), list(self.besieger), list(self.garrison), self.battle,
                           list(self.howitzers))


def _copy(value: Any) -> Any:
    """JSON-shaped values (a battle's result, quick offer, fortress) copied so that records share nothing."""
    if isinstance(value, Mapping):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


