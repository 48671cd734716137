"""Exactly once (issue 12 §9): a command a client sends again with the same `cid` — after a lost answer, a dropped
socket, a node's restart — gets the answer it got the first time and is not applied again.

Each logged record of a session's command keeps the client's request: its `cid` and a digest of the message (less
the cid). A room keeps, per seat, the answers of its last `WINDOW` requests (`Answers`): rebuilt from the log as the
room is replayed and kept in its snapshots, so the window covers reconnects, restarts and a move to another node.
A request already answered gets that answer: the sequence number of its first event, or the refusal that was logged
with a consequence (an illegal order's penalty, D-C-6, is charged once). The same cid with another message is a
client's mistake: `cid_reused`. A client numbers its commands so that a seat never reuses a cid (across its
reconnects and page loads too); cid 0 opts out. Refusals that logged nothing are not kept: running them again
changes nothing.

Spectators share one token (one "seat" for all of them), so their chat is not deduplicated; nor is the server's.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import ormsgpack
from pydantic import BaseModel

from server.rooms.errors import RoomError
from server.rooms.members import SERVER
from server.store.frozen import quick_init

WINDOW = 256
"""Requests kept per seat and room: far more than a client has in flight or retries after a reconnect."""


@quick_init
@dataclass(frozen=True, slots=True)
class Request:
    """A client's command as sent: its `cid` and the digest of the rest of the message."""

    cid: int
    digest: str

    @classmethod
    def of(cls, message: Mapping[str, Any]) -> Request | None:
        """The request of a decoded client message (a dict with `cid`); None for cid 0, which a client that does
        not number its commands sends: such commands are not deduplicated."""
        if not message.get("cid"):
            return None
        return cls.of_rest(int(message["cid"]), {k: v for k, v in message.items() if k != "cid"})

    @classmethod
    def of_rest(cls, cid: int, rest: Mapping[str, Any]) -> Request:
        """The request of cid `cid` whose message less its cid is `rest` (the session dumps its model without the
        cid: no dict built only to drop it). The digest is the same as `of`'s, as records already logged keep it."""
        # packed with sorted keys: the same message however its keys are ordered, 7x cheaper than sorted JSON (a
        # 3 KB ruling: 14 us against 101 us, once per command)
        packed = ormsgpack.packb(rest, option=ormsgpack.OPT_SORT_KEYS)
        return cls(cid, hashlib.sha256(packed).hexdigest()[:32])

    @classmethod
    def of_message(cls, message: BaseModel) -> Request | None:
        """The request of a validated client message: `of_rest` of its fields less the cid, read as validated
        instead of dumped (a client message has no nested model and no alias, so its dump is a copy of the same
        values: the same digest, and a 3 KB ruling's dump cost 23 µs of its command's ~250; issue 20). None for
        cid 0."""
        fields = vars(message)
        cid = fields["cid"]
        if not cid:
            return None
        return cls.of_rest(cid, {name: value for name, value in fields.items() if name != "cid"})

    def pair(self) -> tuple[int, str]:
        return self.cid, self.digest


@quick_init
@dataclass(frozen=True, slots=True)
class Answer:
    """What a request was answered: the sequence number of its first event, or a logged refusal."""

    seq: int | None = None
    code: str | None = None
    message: str = ""
    rule: str | None = None

    def give(self) -> int | None:
        """The answer again: the sequence number, or the refusal raised again."""
        if self.code is not None:
            raise RoomError(self.code, self.message, rule=self.rule)
        return self.seq

    def dump(self) -> list[Any]:
        return [self.seq, self.code, self.message, self.rule]

    @classmethod
    def load(cls, data: list[Any]) -> Answer:
        seq, code, message, rule = data
        return cls(None if seq is None else int(seq), code, str(message), rule)


def seat_of(actor: Mapping[str, Any] | None) -> str | None:
    """Whose requests these are: the seat's player (or the moderator); None for spectators and the server."""
    if not actor or actor.get("role") == "spectator" or actor.get("player") == SERVER:
        return None
    return str(actor.get("player"))


def answer_of(kind: str, body: Mapping[str, Any], first_seq: int | None) -> Answer:
    """The answer a logged record gave its request: a `refused` record is the illegal order's refusal."""
    if kind == "refused":
        return Answer(code="illegal_order", message=str(body.get("message", "")), rule=body.get("rule"))
    return Answer(seq=first_seq)


class Answers:
    """The answers of each seat's last `WINDOW` requests in one room."""

    __slots__ = ("_seats", "window")

    def __init__(self, window: int = WINDOW):
        self.window = window
        self._seats: dict[str, OrderedDict[int, tuple[str, Answer]]] = {}

    def find(self, actor: Mapping[str, Any] | None, request: Request | None) -> Answer | None:
        """The answer already given to this request (None: not seen, run it). The same cid with another message
        is refused (`cid_reused`): it is a different command, and applying it could hide a lost one."""
        seat = seat_of(actor)
        if seat is None or request is None:
            return None
        seen = self._seats.get(seat)
        kept = seen.get(request.cid) if seen is not None else None
        if kept is None:
            return None
        digest, answer = kept
        if digest != request.digest:
            raise RoomError("cid_reused", f"cid {request.cid} was used for another command; use a new cid for a "
                                          "new command and the same cid only to retry the same one")
        return answer

    def keep(self, actor: Mapping[str, Any] | None, request: tuple[int, str] | None, answer: Answer) -> None:
        seat = seat_of(actor)
        if seat is None or request is None:
            return
        kept = self._seats.get(seat)
        if kept is None:
            kept = self._seats[seat] = OrderedDict()
        cid = int(request[0])
        if cid in kept:  # a new cid goes to the end as it is added; a kept one is moved there
            kept.move_to_end(cid)
        kept[cid] = (str(request[1]), answer)
        while len(kept) > self.window:
            kept.popitem(last=False)

    def dump(self) -> list[list[Any]]:
        """For the snapshot: `[seat, cid, digest, answer]` oldest first."""
        return [[seat, cid, digest, answer.dump()] for seat, kept in self._seats.items()
                for cid, (digest, answer) in kept.items()]

    def load(self, data: list[list[Any]]) -> None:
        for seat, cid, digest, answer in data:
            kept = self._seats.setdefault(str(seat), OrderedDict())
            kept[int(cid)] = (str(digest), Answer.load(answer))
            while len(kept) > self.window:
                kept.popitem(last=False)
