"""Refusals by the room itself (before the rules engine is asked). Each maps to a protocol error code."""

from __future__ import annotations

from server.core.errors import RuleError


class RoomError(RuleError):
    """A command the room refuses: `code` is the protocol error code (see shared/protocol/server.py)."""

    def __init__(self, code: str, message: str, *, rule: str | None = None):
        super().__init__(message, rule=rule)
        self.code = code


def forbidden(message: str) -> RoomError:
    return RoomError("forbidden", message)


def game_over() -> RoomError:
    return RoomError("game_over", "the game is over")
