"""The two interfaces between rooms and the outside world: `Store` (durable logs, snapshots, campaigns, tokens,
leases) and `EventBus` (a room's events to every node). Two implementations each: embedded (server/bus/embedded.py,
files under a data directory + in-process fan-out) and Redis (server/bus/redis.py).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import msgpack

from shared.protocol.codec import pack, pack_array_header


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
            if isinstance(data, PackedData):
                return data.packed
            packed = pack(data if isinstance(data, dict) else dict(data))
            object.__setattr__(self, "_packed_data", packed)
        return packed

    def plain_data(self) -> dict[str, Any]:
        """`data` as a dict (for JSON frames and messages built from the history)."""
        data = self.data
        if isinstance(data, dict):
            return data
        return data.load() if isinstance(data, PackedData) else dict(data)

    def kept(self) -> LoggedEvent:
        """The event as a room's history keeps it: its data as packed bytes."""
        if isinstance(self.data, PackedData):
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
        return cls(int(seq), int(at_ms), str(kind), data, frozenset(aud) if aud is not None else None)


def _unpacker(raw: bytes) -> msgpack.Unpacker:
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False, max_buffer_size=max(len(raw), 1))
    unpacker.feed(raw)
    return unpacker


@dataclass(frozen=True, slots=True)
class Record:
    """One accepted room input (order, end of turn, flag, chat, moderator command, downtime) with its events.

    Replaying the records in `index` order through the room rebuilds it exactly; the events serve resumes.
    """

    index: int
    at_ms: int
    kind: str
    body: Mapping[str, Any]
    actor: Mapping[str, Any] | None = None
    events: tuple[LoggedEvent, ...] = ()

    def pack(self) -> bytes:
        """msgpack `[index, at_ms, kind, body, actor, [event, ...]]`, the events' data as already packed."""
        head = pack([self.index, self.at_ms, self.kind, dict(self.body), dict(self.actor) if self.actor else None])
        events = self.events
        return (b"\x96" + head[1:] + pack_array_header(len(events))
                + b"".join([e.packed() for e in events]))

    @classmethod
    def unpack(cls, raw: bytes) -> Record:
        unpacker = _unpacker(raw)
        if unpacker.read_array_header() != 6:
            raise ValueError("a record is [index, at_ms, kind, body, actor, events]")
        index, at_ms, kind, body, actor = (unpacker.unpack() for _ in range(5))
        events = tuple(LoggedEvent.read(unpacker, raw) for _ in range(unpacker.read_array_header()))
        return cls(int(index), int(at_ms), str(kind), body, actor, events)


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


class Store(Protocol):
    async def append(self, room: str, record: Record, due_ms: int | None = None) -> None:
        """Make `record` durable; it must be the room's next index (else LogConflict). `due_ms` is the room's next
        timer after the record (clock deadline, end of a lockout; None: nothing due), kept in the schedule."""
        ...

    async def read_log(self, room: str, after_index: int) -> list[Record]: ...

    async def save_snapshot(self, room: str, snapshot: RoomSnapshot) -> None: ...

    async def load_snapshot(self, room: str) -> RoomSnapshot | None: ...

    async def mark_alive(self, rooms: Sequence[str], now_ms: int) -> None:
        """The owner of `rooms` is alive at `now_ms` (every half second; downtime starts at the last mark)."""
        ...

    async def last_alive(self, room: str) -> int | None:
        """The last mark of the node that owned the room and stopped without releasing it (None: released)."""
        ...

    async def orphans(self, before_ms: int) -> list[str]:
        """Rooms whose owner stopped marking them alive before `before_ms` without releasing them (it died)."""
        ...

    async def record_outage(self, now_ms: int, gap_ms: int) -> None:
        """A node starts: when no node has marked anything alive for `gap_ms`, the service was down since the last
        mark; that outage is kept (rooms opened later skip it on their clocks)."""
        ...

    async def outages(self, after_ms: int) -> list[tuple[int, int]]:
        """The service's outages (from, to) that end after `after_ms`, in order."""
        ...

    async def set_due(self, room: str, due_ms: int | None) -> None:
        """Keep the room's next timer in the schedule (None: nothing due)."""
        ...

    async def due_rooms(self, until_ms: int) -> list[str]:
        """Rooms with a timer due by `until_ms`: they are opened even when nobody joins them."""
        ...

    async def put_campaign(self, campaign: Mapping[str, Any], grants: Mapping[str, Mapping[str, Any]]) -> None:
        """Store a campaign and its token grants, keyed by the token's sha256 hex (never the token)."""
        ...

    async def get_campaign(self, campaign_id: str) -> dict[str, Any] | None: ...

    async def list_campaigns(self) -> list[dict[str, Any]]: ...

    async def find_grant(self, token_hash: str) -> dict[str, Any] | None: ...

    async def replace_grant(self, campaign_id: str, player: str, token_hash: str, grant: Mapping[str, Any]) -> None:
        """Revoke every token of `player` in the campaign and grant the new one (a re-issued invite)."""
        ...

    async def lease_holder(self, room: str) -> str | None:
        """The node that owns the room now, if any."""
        ...

    async def acquire_lease(self, room: str, node: str, ttl_ms: int) -> bool:
        """Become the room's owner if nobody is (or we already are); renews our own lease."""
        ...

    async def release_lease(self, room: str, node: str) -> None:
        """Give the room up cleanly: no longer owned, not an orphan (its clocks run on while the service is up)."""
        ...

    async def report_presence(self, node: str, counts: Mapping[str, Mapping[str, int]], ttl_ms: int) -> None:
        """This node's live sessions per room and role (for the lobby)."""
        ...

    async def presence(self, exclude: str | None = None) -> dict[str, dict[str, int]]:
        """Sessions per room and role summed over the nodes' reports (but node `exclude`'s: it counts its own)."""
        ...

    async def claim_seat(self, campaign: str, player: str, session: str) -> str | None:
        """`session` (`<node>/<id>`) plays the seat now; returns the session that played it before, if any."""
        ...

    async def release_seat(self, campaign: str, player: str, session: str) -> None:
        """The session ended: the seat is free (unless a newer session has claimed it)."""
        ...

    async def close(self) -> None: ...


EventHandler = Callable[[str, Sequence[LoggedEvent]], None]
CommandHandler = Callable[[Mapping[str, Any]], Awaitable[dict[str, Any]]]


class EventBus(Protocol):
    """Fan-out of room events to every node (and, on each node, to the room's local feed)."""

    async def publish(self, room: str, events: Sequence[LoggedEvent]) -> None: ...

    async def subscribe(self, room: str, handler: EventHandler) -> None: ...

    async def unsubscribe(self, room: str, handler: EventHandler) -> None: ...

    async def serve(self, node: str, handler: CommandHandler) -> None:
        """Take commands other nodes forward to rooms this node owns."""
        ...

    async def forward(self, node: str, request: Mapping[str, Any], timeout_s: float = 5.0) -> dict[str, Any]:
        """Run a command on the node that owns its room; LookupError when it cannot be reached."""
        ...

    async def close(self) -> None: ...


def pack_events(room: str, events: Sequence[LoggedEvent]) -> bytes:
    """The pub/sub payload: msgpack `{"room": id, "events": [[seq, at_ms, kind, data, audience], ...]}`."""
    return (b"\x82" + pack("room") + pack(room) + pack("events") + pack_array_header(len(events))
            + b"".join([e.packed() for e in events]))


def unpack_events(raw: bytes) -> tuple[str, list[LoggedEvent]]:
    unpacker = _unpacker(raw)
    room, events = None, None
    for _ in range(unpacker.read_map_header()):
        key = unpacker.unpack()
        if key == "events":
            events = [LoggedEvent.read(unpacker, raw) for _ in range(unpacker.read_array_header())]
        else:
            value = unpacker.unpack()
            room = str(value) if key == "room" else room
    if room is None or events is None:
        raise ValueError("a bus payload is {room, events}")
    return room, events
