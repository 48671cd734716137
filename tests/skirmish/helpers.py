"""Builders for skirmish tests: small scenarios, games set up on an open (or drawn) table, figures put where a
test needs them, and scripted dice so that every case is computed by hand."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from server.core.engine import Actor, Event
from server.skirmish.engine import SkirmishEngine
from server.skirmish.state import IN_ACTION, SkirmishState

ENGINE = SkirmishEngine()
ATT, DEF = "red", "blue"  # the attacker (south edge) and the defender (north edge)
ACTORS = {ATT: Actor("p-red", ATT), DEF: Actor("p-blue", DEF)}
MODERATOR = Actor("mod", None, moderator=True)
SCENARIOS = Path(__file__).resolve().parents[2] / "shared" / "scenarios" / "skirmish"


def scenario_file(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SCENARIOS / f"{name}.json").read_text(encoding="utf-8"))
    return data


@dataclass(frozen=True)
class Scripted:
    """Dice that roll the faces given, in order; running out is a test failure (a roll the test did not count)."""

    faces: tuple[int, ...]
    pos: int = 0

    @property
    def state(self) -> int:
        return 0

    @property
    def left(self) -> int:
        return len(self.faces) - self.pos

    def roll(self, faces: int = 6) -> tuple[int, Scripted]:
        assert self.pos < len(self.faces), f"a roll the test did not script (after {self.faces})"
        value = self.faces[self.pos]
        assert 1 <= value <= faces, f"scripted {value} on a d{faces}"
        return value, Scripted(self.faces, self.pos + 1)


def fig(role: str = "rifleman", weapon: str | None = "rifle", count: int = 1, **kw: Any) -> dict[str, Any]:
    return {"role": role, "weapon": weapon, "count": count, **kw}


def unit(uid: str, *figures: dict[str, Any], units: Sequence[dict[str, Any]] = (), kind: str = "squad"
         ) -> dict[str, Any]:
    return {"id": uid, "name": uid, "kind": kind, "figures": list(figures), "units": list(units)}


def rifles(uid: str, n: int, commander: str = "rifle") -> dict[str, Any]:
    """A squad: a commander (with `commander`'s weapon) and n-1 riflemen."""
    figures = [fig("commander", commander)] + ([fig("rifleman", "rifle", n - 1)] if n > 1 else [])
    return unit(uid, *figures)


def tank(uid: str) -> dict[str, Any]:
    return unit(uid, {"role": "tank", "vehicle": "medium_tank", "model": "test"}, kind="tank")


def scenario(attackers: Sequence[dict[str, Any]], defenders: Sequence[dict[str, Any]], *,
             terrain: Sequence[dict[str, Any]] = (), settings: dict[str, Any] | None = None,
             objective: str | None = None) -> dict[str, Any]:
    return {"format": "kriegsspiel/skirmish-scenario/1", "id": "test", "name": "test",
            "settings": {"terrain_count": 0, **(settings or {})}, "terrain": list(terrain), "objective": objective,
            "sides": [{"id": "att", "role": "attacker", "colour": ATT, "edge": "south", "units": list(attackers)},
                      {"id": "def", "role": "defender", "colour": DEF, "edge": "north", "units": list(defenders)}]}


def element(kind: str, x: int, y: int, w: int = 1, h: int = 1, **kw: Any) -> dict[str, Any]:
    return {"kind": kind, "x": x, "y": y, "w": w, "h": h, **kw}


def start(scn: dict[str, Any], at: dict[str, Sequence[Any]] | None = None, *, hold: Sequence[str] = (),
          seed: int = 1, turn_dice: Sequence[int] | None = None, orders: dict[str, int] | None = None,
          first: str | None = None, dice: Sequence[int] | None = None) -> SkirmishState:
    """A game at turn 1's orders phase: both sides deployed by the server (the defender holding `hold` back),
    `turn_dice` the faces of turn 1's initiative and order rolls; then the figures of `at` put where the test
    wants them, the orders left set (`orders`, `first` to give the next) and the dice scripted (`dice`)."""
    s, _ = ENGINE.setup({"scenario": scn}, seed)
    s, _ = ENGINE.apply(s, ACTORS[DEF], {"type": "deploy", "hold": list(hold)} if hold else {"type": "deploy"})
    if turn_dice is not None:
        s.dice = Scripted(tuple(turn_dice))
    s, _ = ENGINE.apply(s, ACTORS[ATT], {"type": "deploy"})
    for fid, spot in (at or {}).items():
        put(s, fid, *spot)
    if orders is not None:
        for team, n in orders.items():
            s.sides[team].orders_left = s.sides[team].orders_rolled = n
    if first is not None:
        s.next_side = first
    if dice is not None:
        s.dice = Scripted(tuple(dice))
    return s


def put(s: SkirmishState, fid: str, x: int, y: int, facing: str | None = None, status: str = IN_ACTION) -> None:
    f = s.figures[fid]
    f.x, f.y, f.status = x, y, status
    if facing is not None:
        f.facing = facing


def line(s: SkirmishState, uid: str, x: int, y: int, dx: int = 1, dy: int = 0) -> None:
    """Put a unit's figures in a line from (x, y)."""
    for i, fid in enumerate(s.units[uid].members):
        put(s, fid, x + dx * i, y + dy * i)


def remove(s: SkirmishState, *fids: str) -> None:
    """Take figures off the table (out of action) so that they play no part."""
    for fid in fids:
        s.figures[fid].status = "out"


def order(s: SkirmishState, team: str, o: dict[str, Any]) -> tuple[SkirmishState, list[Event]]:
    s2, ev = ENGINE.apply(s, ACTORS[team], o)
    return s2, list(ev)


def kinds(events: Iterable[Event], kind: str) -> list[dict[str, Any]]:
    return [dict(e.data) for e in events if e.kind == kind]


def rolls(events: Iterable[Event], purpose: str) -> list[dict[str, Any]]:
    return [dict(e.data) for e in events if e.kind == "roll" and e.data["purpose"] == purpose]


def visible_to(events: Iterable[Event], viewer: str) -> list[Event]:
    return [e for e in events if e.visible_to(viewer)]


def status(s: SkirmishState, *fids: str) -> list[str]:
    return [s.figures[f].status for f in fids]
