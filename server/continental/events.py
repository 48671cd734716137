"""Event helpers: who may receive what (DESIGN: hidden information is a projection).

A team's secrets go to that team only (and the moderator, who sees every event). Spectators see the map as the
moderator does but not a team's questions, answers or orders waiting for resolution (docs/campaign.md)."""

from __future__ import annotations

from typing import Any

from server.core.engine import MODERATOR, SPECTATOR, Event, team_viewer


def public(kind: str, /, **data: Any) -> Event:
    return Event(kind, data, None)


def for_team(team: str, kind: str, /, *, spectators: bool = True, **data: Any) -> Event:
    audience = {team_viewer(team)} | ({SPECTATOR} if spectators else set())
    return Event(kind, data, frozenset(audience))


def for_teams(teams: list[str], kind: str, /, **data: Any) -> Event:
    return Event(kind, data, frozenset({team_viewer(t) for t in teams} | {SPECTATOR}))


def umpire(kind: str, /, *, spectators: bool = False, **data: Any) -> Event:
    """For the moderator only (C-9.3 silent corrections, D-C-7 false answers), optionally spectators too."""
    return Event(kind, data, frozenset({MODERATOR} | ({SPECTATOR} if spectators else set())))
