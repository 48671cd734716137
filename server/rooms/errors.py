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


class Retryable(RoomError):
    """A failure the client retries on its own, with the same cid, after `retry_after_ms` (docs/protocol.md):
    `unavailable` — the command was not applied (the store or the room's owner cannot be reached now) — or
    `outcome_unknown` — it may have been applied (the store's or the owner's answer was lost); a retry with the same
    cid gets the first answer and never applies it twice (server/rooms/requests.py)."""

    def __init__(self, code: str, message: str, retry_after_ms: int):
        super().__init__(code, message)
        self.retry_after_ms = retry_after_ms


def unavailable(message: str, retry_after_ms: int = 500) -> Retryable:
    return Retryable("unavailable", message, retry_after_ms)


def outcome_unknown(message: str, retry_after_ms: int = 500) -> Retryable:
    return Retryable("outcome_unknown", message, retry_after_ms)
