"""Event helpers: who may receive what (DESIGN: hidden information is a projection).

A team's secrets go to that team only (and the moderator, who sees every event). Spectators see the map as the
moderator does but not a team's questions, answers or orders waiting for resolution (docs/campaign.md). The
helpers are the common core's (server/core/events.py)."""

from __future__ import annotations

from server.core.events import for_team, for_teams, public, umpire

__all__ = ["for_team", "for_teams", "public", "umpire"]


