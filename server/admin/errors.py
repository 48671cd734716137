"""What the operator's command line says when it cannot do what was asked."""

from __future__ import annotations


class AdminError(Exception):
    """A failure the operator can act on: its message is the one line printed (what, and what to do)."""
