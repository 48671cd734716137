"""Replay files: a game's seed, setup and accepted commands, replayed to the same events byte for byte
(D-GEN-1: the dice are in the state, so the commands decide everything). One recorder and one player for every
engine of the Engine protocol (server.core.engine): field battles (server.napoleonic.battle), storms
(server.napoleonic.siege), any other.

    {"format": "kriegsspiel/battle-replay/1", "seed": 7, "config": {...},
     "commands": [{"op": "order", "actor": {"player": "p1", "team": "red"}, "order": {...}},
                  {"op": "end_turn", "team": "red", "flagged": false},
                  {"op": "moderate", "ruling": {...}}]}

The format names the engine's `kind`: "kriegsspiel/<kind>-replay/1" ("battle", "siege").
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Generic, TypeVar

from .engine import Actor, Engine, Event

S = TypeVar("S")


def replay_format(kind: str) -> str:
    """The replay format of an engine kind."""
    return f"kriegsspiel/{kind}-replay/1"


def event_line(event: Event) -> str:
    """One event as canonical JSON (sorted keys, no spaces): the unit of byte-for-byte comparison."""
    audience = sorted(event.audience) if event.audience is not None else None
    return json.dumps({"kind": event.kind, "data": event.data, "audience": audience}, sort_keys=True,
                      separators=(",", ":"), ensure_ascii=False)


def event_lines(events: Iterable[Event]) -> list[str]:
    return [event_line(e) for e in events]


class Recorder(Generic[S]):
    """Drives `engine` from the game's setup and records every accepted command; a refused one changes nothing and
    is dropped."""

    def __init__(self, config: Mapping[str, Any], seed: int, engine: Engine[S]) -> None:
        self.config = config
        self.seed = seed
        self.engine = engine
        self.commands: list[dict[str, Any]] = []
        self.state, first = engine.setup(config, seed)
        self.events: list[Event] = list(first)

    def _record(self, command: dict[str, Any], step: tuple[S, Sequence[Event]]) -> Sequence[Event]:
        self.state, events = step
        self.commands.append(command)
        self.events.extend(events)
        return events

    def order(self, actor: Actor, order: Mapping[str, Any]) -> Sequence[Event]:
        return self._record({"op": "order", "actor": _actor(actor), "order": dict(order)},
                            self.engine.apply(self.state, actor, order))

    def end_turn(self, team: str, flagged: bool = False) -> Sequence[Event]:
        return self._record({"op": "end_turn", "team": team, "flagged": flagged},
                            self.engine.end_turn(self.state, team, flagged=flagged))

    def moderate(self, ruling: Mapping[str, Any]) -> Sequence[Event]:
        return self._record({"op": "moderate", "ruling": dict(ruling)}, self.engine.moderate(self.state, ruling))

    def export(self) -> dict[str, Any]:
        return {"format": replay_format(self.engine.kind), "seed": self.seed, "config": self.config,
                "commands": self.commands}


def _actor(actor: Actor) -> dict[str, Any]:
    return {"player": actor.player, "team": actor.team, "seat": actor.seat, "moderator": actor.moderator}


def replay(data: Mapping[str, Any], engine: Engine[S]) -> tuple[S, list[Event]]:
    """Rebuild a game from its replay file with `engine`; returns the final state and every event in order. The
    file's format must be the engine's."""
    expected = replay_format(engine.kind)
    if data.get("format") != expected:
        raise ValueError(f"not a {engine.kind} replay (format {data.get('format')!r}, expected {expected!r})")
    state, first = engine.setup(data["config"], int(data["seed"]))
    events = list(first)
    for cmd in data["commands"]:
        op = cmd["op"]
        if op == "order":
            a = cmd["actor"]
            actor = Actor(str(a["player"]), a.get("team"), a.get("seat"), bool(a.get("moderator", False)))
            state, ev = engine.apply(state, actor, cmd["order"])
        elif op == "end_turn":
            state, ev = engine.end_turn(state, str(cmd["team"]), flagged=bool(cmd["flagged"]))
        elif op == "moderate":
            state, ev = engine.moderate(state, cmd["ruling"])
        else:
            raise ValueError(f"unknown replay command {op!r}")
        events.extend(ev)
    return state, events


def dumps(data: Mapping[str, Any]) -> str:
    return json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def loads(text: str) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(text)
    return out
