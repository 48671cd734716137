"""The spectating policy (issue 12 item 1): what the campaign's spectators see, set by the campaign and changed by
its moderator; its battles follow it. Pure: the policy is part of the campaign room's state, changed by a logged
ruling.

- The spectators' link (one token the campaign shares; a player may hold it too) shows only what is public: the
  `public` viewer class — the campaign map without hidden armies, of a battle what everyone may see.
- With `full` the spectators' link shows everything (the `spectator` class), but only `delay_ms` behind: at least
  the moderator's setting (10 minutes by default) and never less than one phase of the room's clock, so nothing
  it shows can change a phase still being played.
- Spectators the moderator names (a personal token each, `POST /api/campaigns/{id}/spectators`) see everything
  live.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from server.core.engine import PUBLIC, SPECTATOR
from server.rooms.errors import RoomError
from server.rooms.members import Member

DEFAULT_DELAY_MS = 10 * 60_000
"""The full view's delay unless the moderator sets more."""
MAX_DELAY_MS = 24 * 3_600_000
NAMED_PREFIX = "spectator:"
"""A named spectator's player id is `spectator:<name>`; the shared link's is `spectator`."""
MAX_NAMED = 50


@dataclass(frozen=True, slots=True)
class Spectating:
    full: bool = False
    """Whether the spectators' link shows everything (delayed) rather than only what is public."""
    delay_ms: int = DEFAULT_DELAY_MS
    named: frozenset[str] = field(default_factory=frozenset)
    """The named spectators' player ids: everything, live."""

    def dump(self) -> dict[str, Any]:
        return {"full": self.full, "delay_ms": self.delay_ms, "named": sorted(self.named)}

    @classmethod
    def load(cls, data: Mapping[str, Any] | None) -> Spectating:
        if not data:
            return cls()
        return cls(bool(data.get("full", False)), int(data.get("delay_ms", DEFAULT_DELAY_MS)),
                   frozenset(str(n) for n in data.get("named") or ()))

    def changed(self, ruling: Mapping[str, Any]) -> Spectating:
        """The moderator's `spectating` ruling: `full` (bool), `delay_minutes` (> 0), `name`/`unname` (a named
        spectator's player id). Bad values are refused with a typed error."""
        full, delay_ms, named = self.full, self.delay_ms, set(self.named)
        if "full" in ruling:
            if not isinstance(ruling["full"], bool):
                raise RoomError("bad_order", "'full' is true or false")
            full = ruling["full"]
        if "delay_minutes" in ruling:
            minutes = ruling["delay_minutes"]
            if isinstance(minutes, bool) or not isinstance(minutes, int | float) or not \
                    0 < minutes * 60_000 <= MAX_DELAY_MS:
                raise RoomError("bad_order", f"the spectators' delay is more than 0 and at most "
                                f"{MAX_DELAY_MS // 3_600_000} hours, in minutes")
            delay_ms = int(minutes * 60_000)
        for key in ("name", "unname"):
            if key in ruling:
                who = ruling[key]
                if not isinstance(who, str) or not who.startswith(NAMED_PREFIX) or not 0 < len(who) <= 80:
                    raise RoomError("bad_order", f"'{key}' is a named spectator's id, {NAMED_PREFIX}<name>")
                if key == "name":
                    named.add(who)
                else:
                    named.discard(who)
        if len(named) > MAX_NAMED:
            raise RoomError("bad_order", f"at most {MAX_NAMED} named spectators")
        return Spectating(full, delay_ms, frozenset(named))

    def delay_for(self, phase_ms: int | None) -> int:
        """The full view's delay: the setting, and never less than one phase (`phase_ms`, the room clock's)."""
        return max(self.delay_ms, phase_ms or 0)


def phase_ms(clock: Mapping[str, Any] | None) -> int:
    """One phase of a room's clock (its turn time), the least the full view is delayed by."""
    return int(clock.get("turn_ms") or 0) if clock else 0


def is_named(policy: Spectating, member: Member) -> bool:
    return member.role == "spectator" and member.player in policy.named


def viewer_of(policy: Spectating, member: Member) -> str:
    """The viewer class a member gets from the policy (only spectators' depends on it)."""
    if member.role != "spectator":
        return member.viewer
    if is_named(policy, member) or policy.full:
        return SPECTATOR
    return PUBLIC


def delayed(policy: Spectating, member: Member) -> bool:
    """Whether what the member sees waits out the full view's delay (the spectators' link under `full`)."""
    return member.role == "spectator" and policy.full and not is_named(policy, member)
