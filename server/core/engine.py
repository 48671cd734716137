"""The small interface between a room (the authority) and a rules engine.

An engine is pure: `apply(state, actor, order) -> (state, events)`; it raises a `RuleError` for an illegal order
and then the state it was given is unchanged. It never reads time or does I/O; the room owns clocks, logs and
the network. The engine tells the room which teams are to act (`active_teams`), and the room calls `end_turn` when
a team ends its turn by command or because its clock flagged.

Viewer classes: "moderator" sees everything; "spectator"; "team:<colour>" for a team's players; "public" for
what everyone may see (a player locked in the secret module sees only this). An `Event` names the viewer classes
that may receive it (`audience`); `None` means everyone. When teams must see different data, the engine emits one
event per audience, so each event is serialized once per viewer class and the same bytes go to every socket.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

MODERATOR = "moderator"
SPECTATOR = "spectator"
PUBLIC = "public"


def team_viewer(team: str) -> str:
    return f"team:{team}"


@dataclass(frozen=True, slots=True)
class Actor:
    """Who gives an order: a player of `team` (seat index), or the moderator (team is None)."""

    player: str
    team: str | None
    seat: int | None = None
    moderator: bool = False


@dataclass(frozen=True, slots=True)
class Event:
    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)
    audience: frozenset[str] | None = None

    def visible_to(self, viewer: str) -> bool:
        return self.audience is None or viewer == MODERATOR or viewer in self.audience


S = TypeVar("S")


class Engine(Protocol[S]):
    """What a room needs from a rules engine. Implementations: campaign, battle (and a test engine)."""

    kind: str

    def setup(self, config: Mapping[str, Any], seed: int) -> tuple[S, Sequence[Event]]:
        """The starting state of a game from its scenario/config, with its opening events."""
        ...

    def teams(self, state: S) -> Sequence[str]:
        """All teams (sides) in turn order."""
        ...

    def active_teams(self, state: S) -> frozenset[str]:
        """Teams that may give orders now and whose clocks run. Empty when the game is over."""
        ...

    def apply(self, state: S, actor: Actor, order: Mapping[str, Any]) -> tuple[S, Sequence[Event]]:
        """Validate and execute one order. Raises RuleError (state unchanged) when illegal."""
        ...

    def end_turn(self, state: S, team: str, *, flagged: bool) -> tuple[S, Sequence[Event]]:
        """`team` has finished (or its clock flagged): advance the turn, resolving when all have finished."""
        ...

    def moderate(self, state: S, ruling: Mapping[str, Any]) -> tuple[S, Sequence[Event]]:
        """A moderator's ruling that the engine understands (disputes, imposed results, interventions)."""
        ...

    def view(self, state: S, viewer: str) -> dict[str, Any]:
        """The projection of the state for a viewer class: nothing it may not see."""
        ...

    def is_over(self, state: S) -> bool: ...

    def dump(self, state: S) -> dict[str, Any]:
        """A msgpack/JSON-able snapshot of the state (plain dicts, lists, str, int, float, bool, None)."""
        ...

    def load(self, data: Mapping[str, Any]) -> S: ...
