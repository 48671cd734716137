"""Typed rule errors. An engine raises one for an illegal command; the state is left unchanged.

The network edge turns each into a protocol `error` message carrying `code`, the human `message` and the `rule`
ID (e.g. "N-INF-6") that forbids the order, so a player sees which rule said no.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class RuleError(Exception):
    """An order the rules do not allow. `code` is a stable machine name; `rule` cites the rule or decision."""

    code = "illegal_order"

    def __init__(self, message: str, *, rule: str | None = None, details: Mapping[str, Any] | None = None):
        super().__init__(message)
        self.message = message
        self.rule = rule
        self.details: dict[str, Any] = dict(details or {})


class IllegalOrder(RuleError):
    code = "illegal_order"


class NotYourUnit(RuleError):
    code = "not_your_unit"


class NotYourTurn(RuleError):
    code = "not_your_turn"


class UnknownOrder(RuleError):
    code = "unknown_order"


class BadOrder(RuleError):
    """The order is malformed for this engine (missing or out-of-range fields)."""

    code = "bad_order"
