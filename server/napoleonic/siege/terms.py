"""Capitulation terms (N-SIEGE-8, D-N-14): negotiated between the two commanders, or imposed by the moderator.

The terms settle two things: the garrison either goes into captivity ("prisoners") or makes an honourable
retreat ("march_out"); the losing general is either taken prisoner ("captured" — his player goes to the secret
module for 20 minutes, D-N-14) or "released". One commander proposes, the other accepts or counter-proposes; a
commander cannot accept his own proposal. The moderator may impose terms at any time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from server.core.errors import BadOrder, IllegalOrder

GARRISON_TERMS = ("prisoners", "march_out")
GENERAL_TERMS = ("captured", "released")
SECRET_MODULE_MINUTES = 20
"""N-SIEGE-8, D-N-14: a captured general's player is locked in the secret module for 20 minutes (setting)."""


@dataclass(frozen=True, slots=True)
class Terms:
    garrison: str
    general: str

    @classmethod
    def parse(cls, data: Any) -> Terms:
        if not isinstance(data, Mapping):
            raise BadOrder("terms are {garrison, general}", rule="N-SIEGE-8")
        garrison, general = data.get("garrison"), data.get("general")
        if garrison not in GARRISON_TERMS:
            raise BadOrder(f"garrison terms are one of {GARRISON_TERMS}", rule="N-SIEGE-8",
                           details={"garrison": garrison})
        if general not in GENERAL_TERMS:
            raise BadOrder(f"the general is one of {GENERAL_TERMS}", rule="N-SIEGE-8", details={"general": general})
        return cls(str(garrison), str(general))

    def dump(self) -> dict[str, str]:
        return {"garrison": self.garrison, "general": self.general}


@dataclass(frozen=True, slots=True)
class TermsTalk:
    """The exchange so far: the standing `proposal` and who made it; `agreed` once settled."""

    proposal: Terms | None = None
    proposer: str | None = None
    agreed: Terms | None = None
    imposed: bool = False
    rounds: int = 0

    def propose(self, side: str, terms: Terms) -> TermsTalk:
        self._open()
        return replace(self, proposal=terms, proposer=side, rounds=self.rounds + 1)

    def accept(self, side: str) -> TermsTalk:
        self._open()
        if self.proposal is None or self.proposer is None:
            raise IllegalOrder("no terms have been proposed", rule="N-SIEGE-8")
        if side == self.proposer:
            raise IllegalOrder("the other commander must accept the terms", rule="N-SIEGE-8")
        return replace(self, agreed=self.proposal)

    def impose(self, terms: Terms) -> TermsTalk:
        self._open()
        return replace(self, agreed=terms, imposed=True)

    def lapse(self, terms: Terms) -> TermsTalk:
        """The commander whose word the terms waited for let his turn pass: `terms` hold."""
        self._open()
        return replace(self, agreed=terms)

    def _open(self) -> None:
        if self.agreed is not None:
            raise IllegalOrder("the terms are settled", rule="N-SIEGE-8")

    def dump(self) -> dict[str, Any]:
        return {"proposal": self.proposal.dump() if self.proposal else None, "proposer": self.proposer,
                "agreed": self.agreed.dump() if self.agreed else None, "imposed": self.imposed,
                "rounds": self.rounds}

    @classmethod
    def load(cls, d: Mapping[str, Any]) -> TermsTalk:
        p, a = d.get("proposal"), d.get("agreed")
        return cls(Terms.parse(p) if p else None, d.get("proposer"), Terms.parse(a) if a else None,
                   bool(d.get("imposed", False)), int(d.get("rounds", 0)))
