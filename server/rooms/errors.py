"""Refusals by the room itself (before the rules engine is asked). Each maps to a protocol error code."""

from __future__ import annotations

from server.core.errors import RuleError
from server.rooms.members import Member


class RoomError(RuleError):
    """A command the room refuses: `code` is the protocol error code (see shared/protocol/server.py)."""

    def __init__(self, code: str, message: str, *, rule: str | None = None):
        super().__init__(message, rule=rule)
        self.code = code


def forbidden(message: str, *, rule: str | None = None) -> RoomError:
    return RoomError("forbidden", message, rule=rule)


def game_over() -> RoomError:
    return RoomError("game_over", "the game is over")


def paused() -> RoomError:
    """Issue 12 §5: the clocks are paused, or the moderator has not started the game (CLK-6)."""
    return RoomError("paused", "the clocks are paused: orders wait until the moderator resumes the game",
                     rule="CLK-6")


def moderator_only(member: Member | None, what: str) -> None:
    """Only the moderator (or the server acting as one) may do `what`."""
    if member is None or member.role != "moderator":
        raise forbidden(f"only the moderator may {what}")
