"""Room ids: the one place their grammar is known (client side: client_web's own module).

    c-<campaign>            the campaign room
    s-<campaign>            the campaign's secret module (D-N-14)
    b-<campaign>-<child>    a child room of the campaign (a battle or a storm, keyed as its parent names it)

A `RoomId` is the id's text (so it is a dict key, a store key and a wire string as it is) with its parts parsed
once: `kind`, `campaign`, `child`. Campaign ids have no `-`; a child's key may.
"""

from __future__ import annotations

import re
from typing import Literal

from server.rooms.errors import RoomError

MAX_LENGTH = 80
_GRAMMAR = re.compile(rf"[A-Za-z0-9:_\-]{{3,{MAX_LENGTH}}}")
"""The wire's room id (shared/protocol/client.py RoomId): a longer or stranger text is no room of ours and never
reaches a store (a 300-character id made a file name too long: 500, issue 12 §14)."""

RoomKind = Literal["campaign", "battle", "secret_module"]
_KINDS: dict[str, RoomKind] = {"c": "campaign", "s": "secret_module", "b": "battle"}
_PREFIX = {kind: prefix for prefix, kind in _KINDS.items()}


class RoomId(str):
    """A parsed room id; `RoomId(text)` raises `RoomError("no_such_room")` for text that is not one."""

    kind: RoomKind
    campaign: str
    child: str | None

    def __new__(cls, text: str) -> RoomId:
        if isinstance(text, RoomId):
            return text
        if not isinstance(text, str) or _GRAMMAR.fullmatch(text) is None:
            raise RoomError("no_such_room", f"no room {str(text)[:80]!r}")
        self = super().__new__(cls, text)
        prefix, dash, rest = text.partition("-")
        kind = _KINDS.get(prefix)
        campaign, _, child = rest.partition("-") if kind == "battle" else (rest, "", "")
        if not dash or kind is None or not campaign or (kind == "battle") != bool(child):
            raise RoomError("no_such_room", f"no room {text[:80]!r}")
        self.kind, self.campaign, self.child = kind, campaign, child or None
        return self

    @classmethod
    def parse(cls, text: str) -> RoomId | None:
        """The id, or None for text that is not a room id."""
        try:
            return cls(text)
        except RoomError:
            return None

    @classmethod
    def of(cls, kind: RoomKind, campaign: str, child: str | None = None) -> RoomId:
        return cls(f"{_PREFIX[kind]}-{campaign}" + (f"-{child}" if child is not None else ""))

    @classmethod
    def campaign_room(cls, campaign: str) -> RoomId:
        return cls.of("campaign", campaign)

    @classmethod
    def secret_room(cls, campaign: str) -> RoomId:
        return cls.of("secret_module", campaign)

    @classmethod
    def child_room(cls, campaign: str, child: str) -> RoomId:
        return cls.of("battle", campaign, child)

    @property
    def parent(self) -> RoomId | None:
        """The campaign room a child room belongs to."""
        return RoomId.campaign_room(self.campaign) if self.kind == "battle" else None
