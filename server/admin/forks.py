"""A fork: a campaign from one of its turns (or event sequence numbers) on, under a new id with new tokens, beside
the original (`admin import FILE --fork-at turn:N`).

The campaign room's log is cut after the record that began turn N (its engine's view says the turn, as replays
do) or after the record holding event `seq`; every other room of the campaign (its secret module, its battles)
keeps the records written before the campaign room's next record, and a battle that began after that is left out
(the campaign spawns it again when it is next opened, as after any restart). Snapshots are left out too: each room
is rebuilt from its cut log. The campaign's id is replaced wherever the records name it (setups, actors, events),
and the clocks skip the time from the cut to the import.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from server.admin.errors import AdminError
from server.admin.exports import CampaignExport, RoomExport
from server.core.engine import MODERATOR
from server.rooms.ids import RoomId
from server.rooms.room import Room, RoomServices
from server.rooms.state import RoomSpec
from server.store.records import LoggedEvent, Record


@dataclass(frozen=True, slots=True)
class ForkPoint:
    kind: Literal["turn", "seq"]
    value: int

    @classmethod
    def parse(cls, text: str) -> ForkPoint:
        """`turn:N`, `seq:N`, or a bare `N` (a turn)."""
        kind, _, value = text.rpartition(":")
        if kind not in ("", "turn", "seq") or not value.isdigit() or int(value) < 1:
            raise ValueError(f"{text!r} is not turn:N or seq:N")
        return cls("seq" if kind == "seq" else "turn", int(value))

    def __str__(self) -> str:
        return f"{self.kind} {self.value}"


@dataclass(frozen=True, slots=True)
class Fork:
    export: CampaignExport
    cut_ms: int
    """When the cut record was written: the clocks skip the time from then to the import."""
    cut: str
    """What was kept, in words ("turn 3: the campaign's records 1..41")."""


def fork(export: CampaignExport, at: ForkPoint, room_services: RoomServices, *, now_ms: int,
         new_id: str | None = None) -> Fork:
    old = export.campaign
    new = new_id or secrets.token_hex(5)
    head = next((r for r in export.rooms if r.room == RoomId.campaign_room(old)), None)
    if head is None or not head.records:
        raise AdminError(f"the export has no campaign room {RoomId.campaign_room(old)} to fork")
    keep = _cut(head, at, room_services)
    cut_ms = head.records[keep - 1].at_ms
    until = head.records[keep].at_ms if keep < len(head.records) else None  # the campaign's next record
    rooms = []
    for room in export.rooms:
        records = head.records[:keep] if room is head else tuple(
            r for r in room.records if until is None or r.at_ms < until)
        if not records:
            continue  # began after the cut
        rooms.append(RoomExport(_rewrite(room.room, old, new), tuple(_record(r, old, new) for r in records)))
    meta = _rewrite(dict(export.meta), old, new)
    meta.update(id=new, name=f"{export.meta.get('name') or old} (fork at {at})", created_ms=now_ms)
    forked = replace(export, campaign=new, meta=meta, grants=None, rooms=tuple(rooms))
    return Fork(forked, cut_ms, f"{at}: the campaign room's records 1..{keep} of {len(head.records)}")


def _cut(room: RoomExport, at: ForkPoint, room_services: RoomServices) -> int:
    """How many of the campaign room's records the fork keeps."""
    records = room.records
    if at.kind == "seq":
        for n, record in enumerate(records, 1):
            if record.events and record.events[-1].seq >= at.value:
                return n
        last = max((r.events[-1].seq for r in records if r.events), default=0)
        raise AdminError(f"the campaign room's events end at seq {last}: fork at seq:{last} or earlier")
    rebuilt = Room(RoomSpec.of(room.room, records[0].body, room_services.engines), room_services, history=1)
    engine = rebuilt.engine
    if engine is None:
        raise AdminError(f"room {room.room} plays no game: it has no turns")
    reached: Any = None
    for n, record in enumerate(records, 1):
        rebuilt.advance([record])
        if n > 1 and not any(e.kind == "turn" for e in record.events):
            continue  # who is to act did not change: no turn began
        reached = engine.view(rebuilt.state.game, MODERATOR).get("turn")
        if reached == at.value:
            return n
    raise AdminError(f"the campaign reached turn {reached}: fork at turn:{reached} or earlier")


def _record(record: Record, old: str, new: str) -> Record:
    events = tuple(LoggedEvent(e.seq, e.at_ms, e.kind, _rewrite(e.plain_data(), old, new), e.audience)
                   for e in record.events)
    actor = _rewrite(dict(record.actor), old, new) if record.actor else None
    return Record(record.index, record.at_ms, record.kind, _rewrite(dict(record.body), old, new), actor, events)


def _rewrite(value: Any, old: str, new: str) -> Any:
    """`value` with the campaign id `old` replaced by `new`: the id itself and the ids of its rooms."""
    if isinstance(value, str):
        if value == old:
            return new
        room = RoomId.parse(value)
        if room is not None and room.campaign == old:
            return str(RoomId.of(room.kind, new, room.child))
        return value
    if isinstance(value, Mapping):
        return {_rewrite(k, old, new): _rewrite(v, old, new) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_rewrite(v, old, new) for v in value]
    return value
