"""The one event collector of every ruleset (issue 14): the events of one engine call with their audiences —
public, a team's (its players, and spectators unless it is a secret), several teams', the moderator's — and the
dice's rolls (D-GEN-1: every roll is an event). Each ruleset's working context is this collector with its state
(server/continental/context.py `Ctx`, server/napoleonic/campaign/events.py `Ctx`, server/napoleonic/battle/log.py
`Log`); the wire and log formats of their events are unchanged.

Audiences are viewer classes (server/core/engine.py): None is everyone; the moderator sees every event.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from server.core.engine import MODERATOR, SPECTATOR, Event, team_viewer


def public(kind: str, /, **data: Any) -> Event:
    return Event(kind, data, None)


def for_team(team: str, kind: str, /, *, spectators: bool = True, **data: Any) -> Event:
    """A team's own event: its players, the spectators (unless `spectators` is False) and the moderator."""
    return Event(kind, data, team_audience(team, spectators=spectators))


def for_teams(teams: Iterable[str], kind: str, /, **data: Any) -> Event:
    return Event(kind, data, frozenset({team_viewer(t) for t in teams} | {SPECTATOR}))


def umpire(kind: str, /, *, spectators: bool = False, **data: Any) -> Event:
    """For the moderator only (C-9.3 silent corrections, D-C-7 false answers), optionally spectators too."""
    return Event(kind, data, frozenset({MODERATOR} | ({SPECTATOR} if spectators else set())))


def team_audience(team: str, *, spectators: bool = True) -> frozenset[str]:
    return frozenset({team_viewer(team)} | ({SPECTATOR} if spectators else set()))


class Collector:
    """The events of one engine call, in order. `audience`: who the collector's public events go to (None:
    everyone; a side's own audience while it gives orders in a battle with hidden information)."""

    __slots__ = ("audience", "events")

    def __init__(self, audience: frozenset[str] | None = None) -> None:
        self.events: list[Event] = []
        self.audience = audience

    def add(self, event: Event) -> None:
        self.events.append(event)

    def public(self, kind: str, /, **data: Any) -> None:
        self.events.append(Event(kind, data, self.audience))

    def team(self, team: str, kind: str, /, *, spectators: bool = True, **data: Any) -> None:
        self.events.append(Event(kind, data, team_audience(team, spectators=spectators)))

    def teams(self, teams: Iterable[str], kind: str, /, **data: Any) -> None:
        self.events.append(for_teams(teams, kind, **data))

    def moderator(self, kind: str, /, *, spectators: bool = False, **data: Any) -> None:
        self.events.append(umpire(kind, spectators=spectators, **data))

    def rolled(self, data: dict[str, Any], audience: frozenset[str] | None = None) -> None:
        """D-GEN-1: a roll of the dice, as the ruleset words it, to `audience` (None: everyone)."""
        self.events.append(Event("roll", data, audience))
