"""Which seats the AI plays (issue 18): the room's rule for handing a seat to the AI and back, pure like the rest
of server/rooms/rules.py, and the questions the AI commanders (commanders.py) ask of it.

A seat is played by the AI from the campaign's creation (a team created with `"ai": true`: the setup record's
`ai` list), when the moderator hands it over (`mod_ai {player, on}`; `player` may be a team's colour: all its
seats), or while the AI stands in for an absent player (the server's `mod_ai` with `stand_in`, taken back when the
player returns). Each change is logged like any command and announced by an `ai_seat` event to the moderator and
the seat's team (teammates see who is played by the AI; the enemy is not told). The AI gives a team's orders when
every seat of that team is played by it: a team still has a person at it, that person commands.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from server.core.engine import MODERATOR, Event, team_viewer
from server.rooms.errors import RoomError, forbidden, moderator_only
from server.rooms.members import Member
from server.rooms.state import Outcome, RoomSpec, RoomState

SETUP, MODERATED, STAND_IN = "setup", "moderator", "stand_in"
"""Why a seat is played by the AI."""


def at_setup(spec: RoomSpec, body: Mapping[str, Any]) -> dict[str, str]:
    """The seats the setup record hands to the AI (a team created with `"ai": true`, or a battle whose teams
    the AI plays in the campaign)."""
    return {str(p): SETUP for p in body.get("ai") or () if str(p) in spec.players}


def seats_named(spec: RoomSpec, name: str) -> list[str]:
    """The seats `name` means: one player, or every seat of a team."""
    if name in spec.players:
        return [name]
    seats = sorted(p for p, team in spec.players.items() if team == name)
    if not seats:
        raise RoomError("no_such_player", f"no player or team {name!r} in this room")
    return seats


def hand_over(spec: RoomSpec, state: RoomState, body: Mapping[str, Any], member: Member | None,
              at: int) -> Outcome | None:
    """`mod_ai {player, on}`: the moderator hands a seat (or a team's seats) to the AI, or takes it back; the
    server does so for a stand-in (`stand_in`: only seats it took over are given back). Nothing changed: None."""
    moderator_only(member, "hand seats to the AI")
    assert member is not None
    on = body.get("on")
    if not isinstance(on, bool):
        raise RoomError("bad_order", "mod_ai needs on: true or false")
    stand_in = bool(body.get("stand_in")) and member.is_server
    why = STAND_IN if stand_in else MODERATED
    ai = dict(state.ai)
    events: list[Event] = []
    for player in seats_named(spec, str(body.get("player", ""))):
        if on == (player in ai) or (stand_in and not on and ai.get(player) != STAND_IN):
            continue
        if on:
            ai[player] = why
        else:
            del ai[player]
        team = spec.players[player]
        events.append(Event("ai_seat", {"player": player, "team": team, "on": on, "why": why},
                            frozenset({MODERATOR, team_viewer(team)})))
    if not events:
        return None
    return replace(state, ai=ai), events


def refuse_stale(state: RoomState, member: Member | None, body: Mapping[str, Any]) -> None:
    """The AI's order or end of turn for a seat taken back while it decided (by the moderator, or by its player
    returning) is refused under the room's lock: once a person has the seat, the AI never acts for it."""
    if body.get("ai") and (member is None or member.player not in state.ai):
        raise forbidden(f"the AI no longer plays {member.player if member is not None else 'this seat'}")


def played_by_ai(spec: RoomSpec, ai: Mapping[str, str]) -> frozenset[str]:
    """The teams every seat of which the AI plays (it gives their orders)."""
    teams: dict[str, bool] = {}
    for player, team in spec.players.items():
        teams[team] = teams.get(team, True) and player in ai
    return frozenset(t for t, all_ai in teams.items() if all_ai)


def seat_for(spec: RoomSpec, ai: Mapping[str, str], team: str) -> str | None:
    """The seat the AI's orders for `team` are logged as given by (its first AI seat)."""
    return next((p for p in sorted(spec.players) if spec.players[p] == team and p in ai), None)


def visible_to(spec: RoomSpec, ai: Mapping[str, str], viewer: str) -> list[str]:
    """The AI-played seats a viewer class is shown: all to the moderator, its own team's to a team."""
    if viewer == MODERATOR:
        return sorted(ai)
    return sorted(p for p in ai if team_viewer(spec.players.get(p, "")) == viewer)
