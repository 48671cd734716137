"""Storm replays in the battle engine's replay format (server.battle.replay), with the siege engine behind it.

    {"format": "kriegsspiel/siege-replay/1", "seed": 1813, "config": {storm setup, docs/siege.md},
     "commands": [{"op": "order", "actor": {...}, "order": {...}}, {"op": "end_turn", ...}, {"op": "moderate", ...}]}

Same seed, setup and commands ⇒ the same events, byte for byte (`server.battle.replay.event_lines`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from server.core.engine import Actor, Event

from .engine import SiegeEngine, StormState

FORMAT = "kriegsspiel/siege-replay/1"


@dataclass
class StormRecorder:
    """Drives a SiegeEngine and records every accepted command (a refused one changes nothing and is dropped)."""

    config: Mapping[str, Any]
    seed: int
    engine: SiegeEngine = field(default_factory=SiegeEngine)
    commands: list[dict[str, Any]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    state: StormState = field(init=False)

    def __post_init__(self) -> None:
        self.state, events = self.engine.setup(self.config, self.seed)
        self.events.extend(events)

    def order(self, actor: Actor, order: Mapping[str, Any]) -> Sequence[Event]:
        self.state, events = self.engine.apply(self.state, actor, order)
        self.commands.append({"op": "order", "actor": {"player": actor.player, "team": actor.team,
                                                       "seat": actor.seat, "moderator": actor.moderator},
                              "order": dict(order)})
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


def replay(data: Mapping[str, Any], engine: SiegeEngine | None = None) -> tuple[StormState, list[Event]]:
    """Rebuild a storm from its replay file; returns the final state and every event in order."""
    if data.get("format") != FORMAT:
        raise ValueError(f"not a storm replay (format {data.get('format')!r})")
    engine = engine or SiegeEngine()
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
