"""An event's data is packed once and reused by the log, the bus and the frames: the bytes are exactly those the
whole structure packed at once gives (old journals read the same; clients see the same frames). Read back, and in a
room's history, it stays packed until something reads it."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import msgpack

from server.bus import pack_events, unpack_events
from server.rooms.catch_up import ev
from server.store.records import LoggedEvent, PackedData, Record
from shared.protocol.codec import encode, encode_json, encode_with


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


def test_read_back_from_the_log_or_the_bus_an_events_data_stays_packed_until_it_is_read() -> None:
    events = _events(3)
    record = Record(1, 2, "order", {"order": {}}, None, events)
    again = Record.unpack(record.pack())
    assert all(isinstance(e.data, PackedData) for e in again.events)
    assert [e.packed_data() for e in again.events] == [e.packed_data() for e in events]  # framed without packing
    assert again.events == events and again.events[1].plain_data() == dict(events[1].data)
    room, relayed = unpack_events(pack_events("c-9", events))
    assert room == "c-9" and relayed == list(events) and isinstance(relayed[0].data, PackedData)
    assert relayed[2].data["deep"] == {"x": "é"} and relayed[2].data.get("none") is None


def test_a_rooms_history_keeps_packed_bytes_and_serves_catch_ups_as_plain_messages() -> None:
    kept = _events(2)[1].kept()
    assert isinstance(kept.data, PackedData) and kept.kept() is kept
    message = ev("c-1", kept)
    assert type(message["data"]) is dict and encode_json(message)  # JSON clients get plain maps
