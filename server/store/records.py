"""The formats rooms are kept in: a log `Record` (one accepted command with its events), `LoggedEvent` (an event
as the log, the bus and the fan-out carry it, its data packed once) and `RoomSnapshot`. A room written by any
version of the server reads back with these (tests/rooms/test_old_format.py).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, final

import msgpack

from server.store.frozen import quick_init
from shared.protocol.codec import pack, pack_array_header


@final
class PackedData(Mapping[str, Any]):
    """An event's data kept as its msgpack bytes (as read from the log or the bus, or as packed once): a room's
    history holds thousands of events as a few bytes objects instead of the Python objects of their data, which the
    garbage collector would keep scanning; followers frame them without unpacking. Read, it unpacks once."""

    __slots__ = ("_loaded", "packed")

    def __init__(self, packed: bytes) -> None:
        self.packed = packed
        self._loaded: dict[str, Any] | None = None

    def load(self) -> dict[str, Any]:
        loaded = self._loaded
        if loaded is None:
            loaded = self._loaded = dict(msgpack.unpackb(self.packed, raw=False, strict_map_key=False))
        return loaded

    def __getitem__(self, key: str) -> Any:
        return self.load()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.load())

    def __len__(self) -> int:
        return len(self.load())

    def __repr__(self) -> str:
        return f"PackedData({self.load()!r})"


@quick_init
@dataclass(frozen=True, slots=True)
class LoggedEvent:
    """An event as published: the room's sequence number, when, what, and which viewer classes may see it."""

    seq: int
    at_ms: int
    kind: str
    data: Mapping[str, Any]
    audience: frozenset[str] | None = None
    _packed_data: bytes | None = field(default=None, init=False, repr=False, compare=False)

    def packed_data(self) -> bytes:
        """`data` as msgpack, packed once for the log, the bus and every frame that carries the event."""
        packed = self._packed_data
        if packed is None:
            data = self.data
            if type(data) is PackedData:  # not isinstance: an ABC's check (Mapping) is a Python call per event
                return data.packed
            packed = pack(data if isinstance(data, dict) else dict(data))
            object.__setattr__(self, "_packed_data", packed)
        return packed

    def plain_data(self) -> dict[str, Any]:
        """`data` as a dict (for JSON frames and messages built from the history)."""
        data = self.data
        if isinstance(data, dict):
            return data
        return data.load() if type(data) is PackedData else dict(data)

    def kept(self) -> LoggedEvent:
        """The event as a room's history keeps it: its data as packed bytes."""
        if type(self.data) is PackedData:
            return self
        return LoggedEvent(self.seq, self.at_ms, self.kind, PackedData(self.packed_data()), self.audience)

    def packed(self) -> bytes:
        """The event as the log and the bus carry it: msgpack `[seq, at_ms, kind, data, audience]`."""
        aud = sorted(self.audience) if self.audience is not None else None
        return b"\x95" + pack([self.seq, self.at_ms, self.kind])[1:] + self.packed_data() + pack(aud)

    @classmethod
    def read(cls, unpacker: msgpack.Unpacker, raw: bytes) -> LoggedEvent:
        """The next event of `unpacker`, which was fed `raw` (from its start): its data is left packed."""
        if unpacker.read_array_header() != 5:
            raise ValueError("an event is [seq, at_ms, kind, data, audience]")
        seq, at_ms, kind = unpacker.unpack(), unpacker.unpack(), unpacker.unpack()
        start = unpacker.tell()
        unpacker.skip()
        data = PackedData(raw[start:unpacker.tell()])
        aud = unpacker.unpack()
        return cls(int(seq), int(at_ms), sys.intern(str(kind)), data, None if aud is None else audience_of(aud))


_AUDIENCES: dict[tuple[str, ...], frozenset[str]] = {}


def audience_of(viewers: Iterable[str]) -> frozenset[str]:
    """One frozenset per distinct audience for the events read from logs: a room's history holds hundreds of events
    and a frozenset costs 216 bytes (issue 20: an open idle room's memory). Bounded: a process sees few audiences."""
    key = tuple(sorted(viewers))
    found = _AUDIENCES.get(key)
    if found is None:
        if len(_AUDIENCES) >= 4096:
            _AUDIENCES.clear()
        found = _AUDIENCES[key] = frozenset(key)
    return found


def unpacker_of(raw: bytes) -> msgpack.Unpacker:
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False, max_buffer_size=max(len(raw), 1))
    unpacker.feed(raw)
    return unpacker


@quick_init
@dataclass(frozen=True, slots=True)
class Record:
    """One accepted room input (order, end of turn, flag, chat, moderator command, downtime) with its events.

    Replaying the records in `index` order through the room rebuilds it exactly; the events serve resumes.
    `request` is the client's `(cid, digest of its message)` when a session sent it: a retry of the same command
    gets this record's answer instead of running again (server/rooms/requests.py).
    """

    index: int
    at_ms: int
    kind: str
    body: Mapping[str, Any]
    actor: Mapping[str, Any] | None = None
    events: tuple[LoggedEvent, ...] = ()
    request: tuple[int, str] | None = None

    def pack(self) -> bytes:
        """msgpack `[index, at_ms, kind, body, actor, [event, ...]]`, the events' data as already packed, and
        `[cid, digest]` as a seventh item when the record has a request (records without one keep six)."""
        body, actor = self.body, self.actor
        head = pack([self.index, self.at_ms, self.kind, body if type(body) is dict else dict(body),
                     (actor if type(actor) is dict else dict(actor)) if actor else None])
        events = self.events
        tail = b"" if self.request is None else pack(list(self.request))
        return (bytes([0x96 if self.request is None else 0x97]) + head[1:] + pack_array_header(len(events))
                + b"".join([e.packed() for e in events]) + tail)

    @classmethod
    def unpack(cls, raw: bytes) -> Record:
        unpacker = unpacker_of(raw)
        size = unpacker.read_array_header()
        if size not in (6, 7):
            raise ValueError("a record is [index, at_ms, kind, body, actor, events(, request)]")
        index, at_ms, kind, body, actor = (unpacker.unpack() for _ in range(5))
        events = tuple(LoggedEvent.read(unpacker, raw) for _ in range(unpacker.read_array_header()))
        request = None
        if size == 7:
            cid, digest = unpacker.unpack()
            request = (int(cid), str(digest))
        return cls(int(index), int(at_ms), str(kind), body, actor, events, request)


@dataclass(frozen=True, slots=True)
class RoomSnapshot:
    """A room's full state after record `index` (its last event had sequence `seq`)."""

    index: int
    seq: int
    data: Mapping[str, Any] = field(default_factory=dict)

    def pack(self) -> bytes:
        return pack([self.index, self.seq, dict(self.data)])

    @classmethod
    def unpack(cls, raw: bytes) -> RoomSnapshot:
        index, seq, data = msgpack.unpackb(raw, raw=False, strict_map_key=False)
        return cls(int(index), int(seq), data)


class LogConflict(Exception):
    """The record's index is not the next one: another node appended first (lost lease) or a bug."""


class Fenced(LogConflict):
    """The writer's lease epoch is not the room's current holder's: it lost the room (issue 12 §10); nothing was
    written."""
