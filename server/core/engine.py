"""The small interface between a room (the authority) and a rules engine.

An engine is pure: `apply(state, actor, order) -> (state, events)`; it raises a `RuleError` for an illegal order
and then the state it was given is unchanged. It never reads time or does I/O; the room owns clocks, logs and
the network. The engine tells the room which teams are to act (`active_teams`), and the room calls `end_turn` when
a team ends its turn by command or because its clock flagged.

Viewer classes: "moderator" sees everything; "spectator"; "team:<colour>" for a team's players; "public" for
what everyone may see (a player locked in the secret module sees only this). An `Event` names the viewer classes
that may receive it (`audience`); `None` means everyone. When teams must see different data, the engine emits one
event per audience, so each event is serialized once per viewer class and the same bytes go to every socket.

Beyond the moves of one game, an engine declares hooks the rooms call and `BaseEngine` gives their defaults:
orders a team may give out of its turn, the consequence of a refused order, a mark that restarts the clocks of
teams that stay active (one clock per order), the child rooms a game runs (a campaign's battles: what they are,
how each starts, what its result does here, the commands its events call for), and the AI commander that plays a
side from its view (issue 18).
The rooms know no particular game: they ask these hooks, never the engine's state.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from server.core.errors import RuleError

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


@dataclass(frozen=True, slots=True)
class ChildRoom:
    """A room a game runs beside itself while it lasts (a campaign's battle or storm, N-START-1): its key among
    the parent's children, the engine that plays it, its sides as (team, side) pairs, and how the lobby names it."""

    key: str
    engine: str
    sides: tuple[tuple[str, str], ...]
    title: str = ""
    winner: str | None = None
    """Of a child room fought to its end (`finished_child_rooms`): the side that won, if one did."""

    @property
    def teams(self) -> tuple[str, ...]:
        return tuple(team for team, _ in self.sides)


@dataclass(frozen=True, slots=True)
class ChildSetup:
    """How a child room starts: its engine, setup config and seed, its teams in turn order, and what else its
    setup record keeps (the parent's own names for it: a battle's id, cell and kind)."""

    engine: str
    config: Mapping[str, Any]
    seed: int
    teams: tuple[str, ...]
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class FollowUp:
    """A command an event of a game calls for, run by the server once the event is durable: on the room itself
    (`child` None) or on one of its child rooms. `command` is a room command ("lock": the secret module, D-N-14;
    "ruling": a moderator's ruling). `settles_child`: the parent settled that child, so the child's own result is
    not sent back to it."""

    command: str
    body: Mapping[str, Any]
    child: str | None = None
    settles_child: bool = False


class Engine(Protocol[S]):
    """What a room needs from a rules engine. Implementations: campaign, battle (and a test engine). The hooks
    after `load` have defaults in `BaseEngine`; an engine overrides those its game has (python-chess's variants)."""

    kind: str
    any_time_orders: frozenset[str]
    """Order types a team may give out of its turn (the room skips its turn check; the engine checks who may)."""
    has_child_rooms: bool
    """Whether its games run child rooms (battles): the lobby looks for them only in those."""

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

    def options(self, state: S, viewer: str, unit: str | None) -> dict[str, Any] | None:
        """Issue 14: the legal options of `unit` (or, None, of the viewer's team as a whole: its armies, its army's
        retreat, its pending decisions) for the team `viewer` orders ("team:<colour>", or the moderator), as plain
        data the protocol describes (shared/protocol/options.py) — only what that viewer may see, judged by the
        code that judges the orders, so every option offered is accepted when ordered at once. None: this game
        answers no options."""
        ...

    def refused(self, state: S, team: str, error: RuleError) -> tuple[S, Sequence[Event]]:
        """After the room refused `team`'s order as illegal (`error`): a consequence the rules attach to that
        (D-C-6, C-9.3: a penalty), as a command of its own; no events: nothing happens."""
        ...

    def result(self, state: S) -> Mapping[str, Any] | None:
        """The result of a finished game, for the room that spawned it (D-L-1); None while it runs."""
        ...

    def child_rooms(self, state: S) -> Sequence[ChildRoom]:
        """The child rooms that run now (battles being fought)."""
        ...

    def finished_child_rooms(self, state: S) -> Sequence[ChildRoom]:
        """The child rooms fought to their end, with their winners (the lobby offers their replays, issue 17)."""
        ...

    def child_opened(self, kind: str, data: Mapping[str, Any]) -> str | None:
        """The key of the child room an event of this engine opens (`battle_started`), else None."""
        ...

    def child_setup(self, state: S, key: str, seed: int) -> ChildSetup:
        """How child room `key` starts (its engine's config from this game's state: the forces, the field), with
        the `seed` the room derived for it (D-GEN-4: `server.core.seeds.child_seed`; the game keeps none of its
        own, so nothing in the parent's state or events gives a child's dice away)."""
        ...

    def child_over(self, state: S, key: str, result: Mapping[str, Any]) -> tuple[S, Sequence[Event]]:
        """Child room `key` ended with `result` (its engine's `result`): applied to this game, once (D-L-1)."""
        ...

    def follow_ups(self, kind: str, data: Mapping[str, Any]) -> Sequence[FollowUp]:
        """The commands an event of this engine calls for (a fallen general's player to the secret module,
        N-VICTORY-3; a battle settled on the map ended in its room, D-L-2)."""
        ...

    def turn_mark(self, state: S) -> Hashable:
        """What names the decision the active teams face now: when it changes while a team stays active (the
        skirmish's dice give a side two orders running, D-S-4), the room ends that team's clock and starts it
        afresh, as for a new turn. Engines whose clocks follow `active_teams` alone keep the default (None)."""
        ...

    def commander(self, view: Mapping[str, Any], team: str, rng_seed: int) -> Sequence[Mapping[str, Any]] | None:
        """The AI commander (issue 18): the orders `team` gives now, decided from `view` alone — the projection
        its players receive (fog included), never the state — and `rng_seed` (from the room's generator). The
        room sends them through its authority like a person's, then ends the team's turn (an engine whose
        `commander_alternatives` is true offers alternatives instead, best first: the first accepted is the order,
        and the AI is asked again). None: this game has no AI (the room only ends the turn)."""
        ...


class BaseEngine(Generic[S]):
    """The defaults of the engine hooks: no options answered, no out-of-turn orders, no consequence of a refusal,
    no result for a parent, no child rooms, no follow-ups, no turn mark (clocks follow the active teams alone)."""

    any_time_orders: frozenset[str] = frozenset()
    has_child_rooms: bool = False

    def options(self, state: S, viewer: str, unit: str | None) -> dict[str, Any] | None:
        return None

    def refused(self, state: S, team: str, error: RuleError) -> tuple[S, Sequence[Event]]:
        return state, ()

    def result(self, state: S) -> Mapping[str, Any] | None:
        return None

    def child_rooms(self, state: S) -> Sequence[ChildRoom]:
        return ()

    def finished_child_rooms(self, state: S) -> Sequence[ChildRoom]:
        return ()

    def child_opened(self, kind: str, data: Mapping[str, Any]) -> str | None:
        return None

    def child_setup(self, state: S, key: str, seed: int) -> ChildSetup:
        raise RuleError(f"this game has no child room {key!r}")

    def child_over(self, state: S, key: str, result: Mapping[str, Any]) -> tuple[S, Sequence[Event]]:
        raise RuleError(f"this game has no child room {key!r}")

    def follow_ups(self, kind: str, data: Mapping[str, Any]) -> Sequence[FollowUp]:
        return ()

    def turn_mark(self, state: S) -> Hashable:
        return None

    def commander(self, view: Mapping[str, Any], team: str, rng_seed: int) -> Sequence[Mapping[str, Any]] | None:
        return None
