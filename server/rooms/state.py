"""What a room is (`RoomSpec`, from its setup record) and everything its rules decide from (`RoomState`, one
immutable value: the game's state, the clocks, who is in the secret module, recent chat, the spectator delay).

`RoomState.dump`/`load` are the room part of a snapshot, in the format snapshots have always had.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

from server.clock import Clocks
from server.core.engine import Engine, Event
from server.core.registry import Registry
from server.rooms.ids import RoomId, RoomKind
from server.rooms.spectating import Spectating

ChatLine = Mapping[str, Any]
LOCKOUT_MS = 20 * 60_000
"""D-N-14: how long a player stays in the secret module unless the campaign sets otherwise."""

Outcome = tuple["RoomState", list[Event]]
"""What a room step gives: the new room state and its events."""


@dataclass(frozen=True, slots=True)
class Away:
    """A player in the secret module until `until_ms` (server/rooms/secret_module.py)."""

    player: str
    team: str | None
    since_ms: int
    until_ms: int
    reason: str = ""

    def dump(self) -> dict[str, Any]:
        return {"player": self.player, "team": self.team, "since_ms": self.since_ms, "until_ms": self.until_ms,
                "reason": self.reason}


@dataclass(frozen=True, slots=True)
class RoomSpec:
    """A room's setup: its id, the engine that plays it (None for the secret module), its teams and players."""

    id: RoomId
    setup: Mapping[str, Any]
    engine: Engine[Any] | None
    teams: tuple[str, ...]
    players: Mapping[str, str]  # player -> team
    lockout_ms: int = LOCKOUT_MS

    @classmethod
    def of(cls, room_id: str, setup: Mapping[str, Any], engines: Registry) -> RoomSpec:
        name = setup.get("engine")
        return cls(RoomId(room_id), dict(setup), engines.find(str(name)) if name else None,
                   tuple(setup.get("teams") or ()), dict(setup.get("players") or {}),
                   int(setup.get("lockout_ms", LOCKOUT_MS)))

    @property
    def kind(self) -> RoomKind:
        return self.id.kind

    def active(self, game: Any) -> frozenset[str]:
        """The teams to act now (the engine's; nobody in a room without one)."""
        return self.engine.active_teams(game) if self.engine is not None else frozenset()

    def mark(self, game: Any) -> Hashable:
        """The engine's turn mark: a change restarts the clocks of the teams that stay active."""
        return self.engine.turn_mark(game) if self.engine is not None else None


@dataclass(frozen=True, slots=True)
class RoomState:
    game: Any
    clocks: Clocks | None
    away: Mapping[str, Away] = field(default_factory=dict)
    chat: Mapping[str, tuple[ChatLine, ...]] = field(default_factory=dict)
    spectator_delay_ms: int = 0
    """Spectators see each event this long after it happened (the moderator's `spectator_delay` ruling)."""
    muted: frozenset[str] = frozenset()
    """Whose chat the moderator has muted (issue 12 §13): `spectators` (all of them), or a spectator's player id or
    the name it chats under."""
    spectating: Spectating = field(default_factory=Spectating)
    """The campaign's spectating policy (a campaign room's; its battles follow it: server/rooms/spectating.py)."""
    ai: Mapping[str, str] = field(default_factory=dict)
    """The seats the AI plays (issue 18, server/rooms/ai_seats.py): player -> why ("setup", "moderator",
    "stand_in")."""

    def with_game(self, game: Any) -> RoomState:
        """`replace(state, game=...)` without `dataclasses.replace`'s field walk (once or twice per command)."""
        return RoomState(game, self.clocks, self.away, self.chat, self.spectator_delay_ms, self.muted, self.spectating,
                         self.ai)

    def with_clocks(self, clocks: Clocks | None) -> RoomState:
        return RoomState(self.game, clocks, self.away, self.chat, self.spectator_delay_ms, self.muted,
                         self.spectating, self.ai)

    def dump(self, spec: RoomSpec) -> dict[str, Any]:
        return {
            "state": spec.engine.dump(self.game) if spec.engine is not None else None,
            "clocks": self.clocks.dump() if self.clocks is not None else None,
            "away": {p: a.dump() for p, a in self.away.items()},
            "chat": {c: [dict(line) for line in lines] for c, lines in self.chat.items()},
            "spectator_delay_ms": self.spectator_delay_ms,
            **({"muted": sorted(self.muted)} if self.muted else {}),
            "spectating": self.spectating.dump(),
            **({"ai": dict(self.ai)} if self.ai else {}),
        }

    @classmethod
    def load(cls, spec: RoomSpec, data: Mapping[str, Any]) -> RoomState:
        return cls(
            spec.engine.load(data["state"]) if spec.engine is not None else None,
            Clocks.load(data["clocks"]) if data.get("clocks") else None,
            {p: Away(**a) for p, a in data.get("away", {}).items()},
            {c: tuple(lines) for c, lines in data.get("chat", {}).items()},
            int(data.get("spectator_delay_ms", 0)),
            frozenset(map(str, data.get("muted") or ())),
            Spectating.load(data.get("spectating")),
            {str(p): str(why) for p, why in dict(data.get("ai") or {}).items()},
        )
