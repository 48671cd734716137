"""Replay files: a battle's seed, setup and accepted commands, replayed to the same events byte for byte
(D-GEN-1: the dice are in the state, so the commands decide everything).

    {"format": "kriegsspiel/battle-replay/1", "seed": 7, "config": {...},
     "commands": [{"op": "order", "actor": {"player": "p1", "team": "red"}, "order": {...}},
                  {"op": "end_turn", "team": "red", "flagged": false},
                  {"op": "moderate", "ruling": {...}}]}
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from server.core.engine import Actor, Event

from .engine import BattleEngine
from .state import BattleState

FORMAT = "kriegsspiel/battle-replay/1"


def event_line(event: Event) -> str:
    """One event as canonical JSON (sorted keys, no spaces): the unit of byte-for-byte comparison."""
    audience = sorted(event.audience) if event.audience is not None else None
    return json.dumps({"kind": event.kind, "data": event.data, "audience": audience}, sort_keys=True,
                      separators=(",", ":"), ensure_ascii=False)


def event_lines(events: Iterable[Event]) -> list[str]:
    return [event_line(e) for e in events]


@dataclass
class Recorder:
    """Drives a BattleEngine and records every accepted command (refused ones change nothing and are dropped)."""

    config: Mapping[str, Any]
    seed: int
    engine: BattleEngine = field(default_factory=BattleEngine)
    commands: list[dict[str, Any]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    state: BattleState = field(init=False)

    def __post_init__(self) -> None:
        self.state, events = self.engine.setup(self.config, self.seed)
        self.events.extend(events)

    def order(self, actor: Actor, order: Mapping[str, Any]) -> Sequence[Event]:
        self.state, events = self.engine.apply(self.state, actor, order)
        self.commands.append({"op": "order", "actor": _actor(actor), "order": dict(order)})
        self.events.extend(events)
        return events

    def end_turn(self, team: str, flagged: bool = False) -> Sequence[Event]:
        self.state, events = self.engine.end_turn(self.state, team, flagged=flagged)
        self.commands.append({"op": "end_turn", "team": team, "flagged": flagged})
        self.events.extend(events)
        return events

    def moderate(self, ruling: Mapping[str, Any]) -> Sequence[Event]:
        self.state, events = self.engine.moderate(self.state, ruling)
        self.commands.append({"op": "moderate", "ruling": dict(ruling)})
        self.events.extend(events)
        return events

    def export(self) -> dict[str, Any]:
        return {"format": FORMAT, "seed": self.seed, "config": self.config, "commands": self.commands}


def _actor(actor: Actor) -> dict[str, Any]:
    return {"player": actor.player, "team": actor.team, "seat": actor.seat, "moderator": actor.moderator}


def replay(data: Mapping[str, Any], engine: BattleEngine | None = None) -> tuple[BattleState, list[Event]]:
    """Rebuild a battle from a replay file; returns the final state and every event in order."""
    if data.get("format") != FORMAT:
        raise ValueError(f"not a battle replay (format {data.get('format')!r})")
    engine = engine or BattleEngine()
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
