"""An event's data is packed once and reused by the log, the bus and the frames: the bytes are exactly those the
whole structure packed at once gives (old journals read the same; clients see the same frames)."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import msgpack

from server.bus.base import LoggedEvent, Record, pack_events
from shared.protocol.codec import encode, encode_with


def _events(n: int) -> tuple[LoggedEvent, ...]:
    return tuple(LoggedEvent(i + 1, 1000 + i, "fire", {"unit": f"u{i}", "hits": [i, 2.5, None], "deep": {"x": "é"}},
                             frozenset({"team:red", "moderator"}) if i % 2 else None) for i in range(n))


def _old_dump(e: LoggedEvent) -> list[Any]:
    return [e.seq, e.at_ms, e.kind, dict(e.data), sorted(e.audience) if e.audience is not None else None]


def test_a_record_packs_to_the_bytes_of_the_whole_structure_packed_at_once() -> None:
    for n in (0, 1, 15, 16, 70_000 // 1000):
        events = _events(n)
        record = Record(7, 123, "order", {"order": {"type": "fire", "at": [1, 2]}}, {"role": "player"}, events)
        whole = msgpack.packb([7, 123, "order", dict(record.body), dict(record.actor or {}),
                               [_old_dump(e) for e in events]], use_bin_type=True)
        assert record.pack() == whole
        assert Record.unpack(record.pack()) == record


def test_the_bus_payload_and_the_event_frame_match_their_whole_packing() -> None:
    events = _events(20)
    assert pack_events("c-1", events) == msgpack.packb({"room": "c-1", "events": [_old_dump(e) for e in events]},
                                                       use_bin_type=True)
    e = LoggedEvent(3, 5, "moved", MappingProxyType({"to": [1, 2]}))  # a read-only mapping packs as a map
    head = {"t": "ev", "room": "c-1", "seq": 3, "at_ms": 5, "kind": "moved"}
    assert encode_with(head, "data", e.packed_data()) == encode({**head, "data": {"to": [1, 2]}})
    assert e.packed_data() is e.packed_data()  # packed once
