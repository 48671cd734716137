"""The drill engine: a small, honest stand-in game used by the rooms' tests and the demo.

Counters of each team stand on a grid. In its turn a team may move each of its counters one cell (eight
neighbours, D-GEN-2); turns follow `TurnOrder` (C-1.7, C-1.8; level 3 simultaneous). A team sees its own counters
and enemy counters next to one of its own; spectators and the moderator see everything; "public" sees the grid and
the turn only. It plays no rule of the game beyond turn order and hidden positions; it is not the campaign engine.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from server.core.engine import MODERATOR, SPECTATOR, Actor, BaseEngine, Event, team_viewer
from server.core.errors import BadOrder, IllegalOrder, NotYourTurn, NotYourUnit, UnknownOrder
from server.core.turns import TurnOrder


@dataclass(frozen=True, slots=True)
class Counter:
    id: str
    team: str
    x: int
    y: int


@dataclass(frozen=True, slots=True)
class DrillState:
    width: int
    height: int
    order: TurnOrder
    counters: tuple[Counter, ...]
    moved: frozenset[str] = frozenset()
    max_turns: int = 0

    def counter(self, counter_id: str) -> Counter | None:
        return next((c for c in self.counters if c.id == counter_id), None)

    def seen_by(self, team: str) -> tuple[Counter, ...]:
        own = [c for c in self.counters if c.team == team]
        return tuple(c for c in self.counters if c.team == team or any(_near(c, o) for o in own))


def _near(a: Counter, b: Counter) -> bool:
    return max(abs(a.x - b.x), abs(a.y - b.y)) <= 1


def _dump_counter(c: Counter) -> dict[str, Any]:
    return {"id": c.id, "team": c.team, "x": c.x, "y": c.y}


class DrillEngine(BaseEngine[DrillState]):
    kind = "drill"

    def setup(self, config: Mapping[str, Any], seed: int) -> tuple[DrillState, Sequence[Event]]:
        teams = [t["colour"] if isinstance(t, Mapping) else str(t) for t in config.get("teams") or ["red", "blue"]]
        width, height = int(config.get("width", 8)), int(config.get("height", 8))
        per_team = int(config.get("counters", 2))
        order = TurnOrder.start(teams, simultaneous=int(config.get("level", 1)) == 3)
        counters: list[Counter] = []
        for row, team in enumerate(order.teams):
            y = 0 if row == 0 else height - 1 if row == 1 else row * height // len(teams)
            counters += [Counter(f"{team[0]}{i + 1}", team, 1 + 2 * i, y) for i in range(per_team)]
        state = DrillState(width, height, order, tuple(counters), max_turns=int(config.get("max_turns", 0)))
        return state, [Event("drill_started", {"teams": list(order.teams), "width": width, "height": height})]

    def teams(self, state: DrillState) -> Sequence[str]:
        return state.order.teams

    def active_teams(self, state: DrillState) -> frozenset[str]:
        return frozenset() if self.is_over(state) else state.order.active

    def apply(self, state: DrillState, actor: Actor, order: Mapping[str, Any]) -> tuple[DrillState, Sequence[Event]]:
        if order.get("type") != "move":
            raise UnknownOrder(f"the drill knows only 'move', not {order.get('type')!r}")
        counter = state.counter(str(order.get("counter")))
        if counter is None:
            raise BadOrder(f"no counter {order.get('counter')!r}")
        if not actor.moderator and counter.team != actor.team:
            raise NotYourUnit(f"counter {counter.id} belongs to {counter.team}")
        if counter.team not in self.active_teams(state):
            raise NotYourTurn(f"{counter.team} is not to move now", rule="C-1.8")
        to = order.get("to")
        if not (isinstance(to, list | tuple) and len(to) == 2 and all(isinstance(v, int) for v in to)):
            raise BadOrder("'to' must be [x, y]")
        x, y = int(to[0]), int(to[1])
        if not (0 <= x < state.width and 0 <= y < state.height):
            raise BadOrder(f"({x}, {y}) is off the grid")
        if max(abs(x - counter.x), abs(y - counter.y)) != 1:
            raise IllegalOrder("a counter moves exactly one cell", rule="D-GEN-2")
        if counter.id in state.moved:
            raise IllegalOrder(f"{counter.id} has already moved this turn")
        if any(c.x == x and c.y == y for c in state.counters):
            raise IllegalOrder(f"({x}, {y}) is occupied")
        moved = replace(counter, x=x, y=y)
        counters = tuple(moved if c.id == counter.id else c for c in state.counters)
        new = replace(state, counters=counters, moved=state.moved | {counter.id})
        events = [Event("counter_moved", _dump_counter(moved),
                        frozenset({team_viewer(counter.team), SPECTATOR}))]
        for team in new.order.teams:
            if team != counter.team and moved in new.seen_by(team):
                events.append(Event("counter_spotted", _dump_counter(moved), frozenset({team_viewer(team)})))
        return new, events

    def end_turn(self, state: DrillState, team: str, *, flagged: bool) -> tuple[DrillState, Sequence[Event]]:
        if team not in self.active_teams(state):
            raise NotYourTurn(f"{team} is not to act now", rule="C-1.8")
        order, complete = state.order.finish(team)
        own = {c.id for c in state.counters if c.team == team}
        new = replace(state, order=order, moved=frozenset() if complete else state.moved - own)
        events = [Event("turn_ended", {"team": team, "flagged": flagged, "turn": order.turn,
                                       "active": sorted(self.active_teams(new))})]
        if self.is_over(new):
            events.append(Event("drill_over", {"turn": order.turn}))
        return new, events

    def moderate(self, state: DrillState, ruling: Mapping[str, Any]) -> tuple[DrillState, Sequence[Event]]:
        if ruling.get("type") != "note":
            raise UnknownOrder(f"the drill knows only the 'note' ruling, not {ruling.get('type')!r}")
        return state, [Event("ruling", {"text": str(ruling.get("text", ""))})]

    def view(self, state: DrillState, viewer: str) -> dict[str, Any]:
        base: dict[str, Any] = {"width": state.width, "height": state.height, "turn": state.order.turn,
                                "teams": list(state.order.teams), "active": sorted(self.active_teams(state))}
        if viewer in (MODERATOR, SPECTATOR):
            base["counters"] = [_dump_counter(c) for c in state.counters]
        elif viewer.startswith("team:"):
            base["counters"] = [_dump_counter(c) for c in state.seen_by(viewer[5:])]
        else:
            base["counters"] = []
        return base

    def is_over(self, state: DrillState) -> bool:
        return state.max_turns > 0 and state.order.turn > state.max_turns

    def dump(self, state: DrillState) -> dict[str, Any]:
        return {"width": state.width, "height": state.height, "order": state.order.dump(),
                "counters": [_dump_counter(c) for c in state.counters], "moved": sorted(state.moved),
                "max_turns": state.max_turns}

    def load(self, data: Mapping[str, Any]) -> DrillState:
        return DrillState(
            width=int(data["width"]), height=int(data["height"]), order=TurnOrder.load(data["order"]),
            counters=tuple(Counter(str(c["id"]), str(c["team"]), int(c["x"]), int(c["y"])) for c in data["counters"]),
            moved=frozenset(data["moved"]), max_turns=int(data["max_turns"]),
        )
