"""The secret module (N-VICTORY-3, D-N-14): a player whose general was killed or captured — or whom the moderator
sends there — is locked out of the campaign for a time (twenty minutes unless the campaign says otherwise). Pure:
the rules of it, wherever the rooms need them.

While away, the player commands nothing in any room of the campaign (`locked_out`), sees the campaign as the
public does, speaks only with the moderator, in the campaign's secret-module room (`s-<campaign>`) — which only
the moderator and players away may enter — and returns when the time is up or early by the moderator's word.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from server.core.engine import MODERATOR, PUBLIC, Event
from server.rooms.errors import RoomError, forbidden, moderator_only
from server.rooms.members import Member
from server.rooms.state import Away, Outcome, RoomSpec, RoomState

SECRET = "secret"


def secret_viewer(player: str) -> str:
    """The viewer class (and chat channel) of a player in the secret-module room: that player and the moderator."""
    return f"{SECRET}:{player}"


def lock(spec: RoomSpec, state: RoomState, body: Mapping[str, Any], member: Member | None,
         at: int) -> Outcome:
    """The moderator (or the server, for a fallen general) sends a player there until `at` + the lockout."""
    moderator_only(member, "send a player to the secret module")
    player = str(body["player"])
    if player not in spec.players:
        raise RoomError("no_such_player", f"no player {player!r} in this campaign")
    minutes = body.get("minutes")
    span = int(float(minutes) * 60_000) if minutes else spec.lockout_ms
    away = Away(player, spec.players[player], at, at + span, str(body.get("reason", "")))
    return replace(state, away={**state.away, player: away}), [
        Event("secret_module", {"action": "sent", **away.dump()})]


def release(spec: RoomSpec, state: RoomState, body: Mapping[str, Any], member: Member | None,
            at: int) -> Outcome | None:
    """The player returns: at the end of the lockout (its timer: None while not yet due) or early by the
    moderator's word."""
    player = str(body["player"])
    away = state.away.get(player)
    early = body.get("by") != "time"
    if early:
        moderator_only(member, "bring a player back early")
    if away is None:
        if not early:
            return None
        raise RoomError("no_such_player", f"{player!r} is not in the secret module")
    if not early and at < away.until_ms:
        return None
    rest = {p: a for p, a in state.away.items() if p != player}
    return replace(state, away=rest), [
        Event("secret_module", {"action": "returned", "player": player, "team": away.team,
                                "early": early, "at_ms": at})]


def due_returns(state: RoomState, now: int) -> list[dict[str, Any]]:
    """The timed returns due by `now` (release commands)."""
    return [{"player": p, "by": "time"} for p, a in sorted(state.away.items()) if a.until_ms <= now]


def refuse_commands(state: RoomState, member: Member) -> None:
    """A player away commands nothing."""
    away = state.away.get(member.player)
    if away is not None:
        raise RoomError("locked_out", f"{member.player} is in the secret module until {away.until_ms}",
                        rule="D-N-14")


def refuse_chat(spec: RoomSpec, state: RoomState, member: Member) -> None:
    """A player away speaks only in the secret-module room."""
    if member.role == "player" and spec.kind != "secret_module" and member.player in state.away:
        raise RoomError("locked_out", "in the secret module you speak only with the moderator", rule="D-N-14")


def viewer_of(spec: RoomSpec, state: RoomState, member: Member) -> str:
    """The viewer class a member sees a room as: in the secret-module room its own channel's; a player away sees
    the campaign as the public does."""
    if spec.kind == "secret_module":
        return MODERATOR if member.role == "moderator" else secret_viewer(member.player)
    if member.role == "player" and member.player in state.away:
        return PUBLIC
    return member.viewer


def sees_public_while_away(room_kind: str) -> bool:
    """Whether a player sent away from this kind of room sees it as the public does (the campaign room)."""
    return room_kind == "campaign"


def refuse_entry(member: Member, away: Away | None) -> None:
    """Only the moderator and players away enter the secret-module room."""
    if member.role != "moderator" and (member.role == "spectator" or away is None):
        raise RoomError("forbidden", "only the moderator and players sent there enter the secret module",
                        rule="D-N-14")


def refuse_voice(member: Member, away: Away | None) -> None:
    """A player back from the secret module no longer speaks in its room."""
    if member.role == "player" and away is None:
        raise forbidden("you are back from the secret module", rule="D-N-14")
