"""The embedded default: no Redis. Logs are append-only journal files, snapshots and campaigns are files under a
data directory, and the event bus calls the node's own feeds in-process.

Layout of the data directory:
    LOCK                         held (flock) by the one process using the directory
    campaigns/<id>.msgpack       campaign record with its token grants (hashes only)
    rooms/<room>/journal         frames: u32 length, u32 crc32, msgpack Record
    rooms/<room>/snapshot        latest RoomSnapshot (written to a temp file, then renamed)
    alive                        last time (ms) the process was seen alive (every half second)

A frame torn by a crash (short or bad checksum) is cut off when the journal is opened: it was never acknowledged.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import struct
import zlib
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import msgpack

from server.bus.base import CommandHandler, EventHandler, LogConflict, LoggedEvent, Record, RoomSnapshot

_FRAME = struct.Struct(">II")


class DataDirLocked(RuntimeError):
    pass


def _write_atomic(path: Path, payload: bytes, fsync: bool) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(payload)
        if fsync:
            f.flush()
            os.fsync(f.fileno())
    os.replace(tmp, path)


class _Journal:
    """One room's append-only journal file."""

    def __init__(self, path: Path):
        self.path = path
        self.last_index = 0
        self.offsets: list[tuple[int, int]] = []  # (index, file offset) of every record
        good = 0
        if path.exists():
            data = path.read_bytes()
            pos = 0
            while pos + _FRAME.size <= len(data):
                length, crc = _FRAME.unpack_from(data, pos)
                end = pos + _FRAME.size + length
                if end > len(data) or zlib.crc32(data[pos + _FRAME.size:end]) != crc:
                    break
                index = msgpack.unpackb(data[pos + _FRAME.size:end], raw=False, strict_map_key=False)[0]
                self.offsets.append((int(index), pos))
                self.last_index = int(index)
                pos = end
            good = pos
        self.fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        if path.stat().st_size != good:
            os.ftruncate(self.fd, good)
        self.size = good

    def write(self, index: int, payload: bytes, fsync: bool) -> None:
        frame = _FRAME.pack(len(payload), zlib.crc32(payload)) + payload
        os.write(self.fd, frame)
        if fsync:
            os.fsync(self.fd)
        self.offsets.append((index, self.size))
        self.size += len(frame)
        self.last_index = index

    def read_after(self, after_index: int) -> list[Record]:
        start = next((off for idx, off in self.offsets if idx > after_index), None)
        if start is None:
            return []
        with open(self.path, "rb") as f:
            f.seek(start)
            data = f.read(self.size - start)
        out: list[Record] = []
        pos = 0
        while pos + _FRAME.size <= len(data):
            length, _ = _FRAME.unpack_from(data, pos)
            out.append(Record.unpack(data[pos + _FRAME.size:pos + _FRAME.size + length]))
            pos += _FRAME.size + length
        return out

    def close(self) -> None:
        os.close(self.fd)


class FileStore:
    """`Store` on local files. One process per data directory (enforced with a lock file)."""

    def __init__(self, data_dir: str | os.PathLike[str], *, fsync: bool = True):
        self.root = Path(data_dir)
        self.fsync = fsync
        (self.root / "rooms").mkdir(parents=True, exist_ok=True)
        (self.root / "campaigns").mkdir(parents=True, exist_ok=True)
        self._lock_fd = os.open(self.root / "LOCK", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._lock_fd)
            raise DataDirLocked(f"data directory {self.root} is in use by another server process") from None
        self._journals: dict[str, _Journal] = {}
        self._campaigns: dict[str, dict[str, Any]] = {}
        self._grants: dict[str, dict[str, Any]] = {}
        self._presence: dict[str, dict[str, dict[str, int]]] = {}
        for path in sorted((self.root / "campaigns").glob("*.msgpack")):
            record = msgpack.unpackb(path.read_bytes(), raw=False, strict_map_key=False)
            self._index_campaign(record["campaign"], record["grants"])

    def _index_campaign(self, campaign: Mapping[str, Any], grants: Mapping[str, Mapping[str, Any]]) -> None:
        self._campaigns[str(campaign["id"])] = dict(campaign)
        for digest, grant in grants.items():
            self._grants[digest] = dict(grant)

    def _room_dir(self, room: str) -> Path:
        if not room or "/" in room or room.startswith("."):
            raise ValueError(f"bad room id {room!r}")
        path = self.root / "rooms" / room
        path.mkdir(exist_ok=True)
        return path

    def _journal(self, room: str) -> _Journal:
        journal = self._journals.get(room)
        if journal is None:
            journal = self._journals[room] = _Journal(self._room_dir(room) / "journal")
        return journal

    async def append(self, room: str, record: Record) -> None:
        journal = self._journal(room)
        if record.index != journal.last_index + 1:
            raise LogConflict(f"{room}: record {record.index} after {journal.last_index}")
        payload = record.pack()
        if self.fsync:
            await asyncio.to_thread(journal.write, record.index, payload, True)
        else:
            journal.write(record.index, payload, False)

    async def read_log(self, room: str, after_index: int) -> list[Record]:
        return self._journal(room).read_after(after_index)

    async def save_snapshot(self, room: str, snapshot: RoomSnapshot) -> None:
        path = self._room_dir(room) / "snapshot"
        await asyncio.to_thread(_write_atomic, path, snapshot.pack(), self.fsync)

    async def load_snapshot(self, room: str) -> RoomSnapshot | None:
        path = self._room_dir(room) / "snapshot"
        return RoomSnapshot.unpack(path.read_bytes()) if path.exists() else None

    async def mark_alive(self, rooms: Sequence[str], now_ms: int) -> None:
        """One process owns every room of the directory: one mark for all of them."""
        _write_atomic(self.root / "alive", str(now_ms).encode(), False)

    async def last_alive(self, room: str) -> int | None:
        try:
            return int((self.root / "alive").read_text())
        except (FileNotFoundError, ValueError):
            return None

    async def put_campaign(self, campaign: Mapping[str, Any], grants: Mapping[str, Mapping[str, Any]]) -> None:
        payload = msgpack.packb({"campaign": dict(campaign), "grants": {k: dict(v) for k, v in grants.items()}},
                                use_bin_type=True)
        await asyncio.to_thread(_write_atomic, self.root / "campaigns" / f"{campaign['id']}.msgpack", payload,
                                self.fsync)
        self._index_campaign(campaign, grants)

    async def get_campaign(self, campaign_id: str) -> dict[str, Any] | None:
        found = self._campaigns.get(campaign_id)
        return dict(found) if found else None

    async def list_campaigns(self) -> list[dict[str, Any]]:
        return [dict(c) for c in self._campaigns.values()]

    async def find_grant(self, token_hash: str) -> dict[str, Any] | None:
        found = self._grants.get(token_hash)
        return dict(found) if found else None

    async def replace_grant(self, campaign_id: str, player: str, token_hash: str, grant: Mapping[str, Any]) -> None:
        grants = {d: g for d, g in self._grants.items() if g.get("campaign") == campaign_id
                  and g.get("player") != player}
        grants[token_hash] = dict(grant)
        campaign = self._campaigns[campaign_id]
        payload = msgpack.packb({"campaign": campaign, "grants": grants}, use_bin_type=True)
        await asyncio.to_thread(_write_atomic, self.root / "campaigns" / f"{campaign_id}.msgpack", payload,
                                self.fsync)
        for digest in [d for d, g in self._grants.items() if g.get("campaign") == campaign_id]:
            del self._grants[digest]
        self._grants.update(grants)

    async def lease_holder(self, room: str) -> str | None:
        return None

    async def acquire_lease(self, room: str, node: str, ttl_ms: int) -> bool:
        return True  # the LOCK file makes this process the only owner of every room in the directory

    async def release_lease(self, room: str, node: str) -> None:
        return None

    async def report_presence(self, node: str, counts: Mapping[str, Mapping[str, int]], ttl_ms: int) -> None:
        self._presence[node] = {room: dict(c) for room, c in counts.items()}

    async def presence(self, exclude: str | None = None) -> dict[str, dict[str, int]]:
        total: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for node, counts in self._presence.items():
            if node == exclude:
                continue
            for room, by_role in counts.items():
                for role, n in by_role.items():
                    total[room][role] += n
        return {room: dict(c) for room, c in total.items()}

    async def close(self) -> None:
        for journal in self._journals.values():
            journal.close()
        self._journals.clear()
        with contextlib.suppress(OSError):
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)


class LocalBus:
    """`EventBus` inside one process: publish calls the room's handlers directly (no copy, no encoding)."""

    def __init__(self) -> None:
        self._handlers: dict[str, list[EventHandler]] = defaultdict(list)

    async def publish(self, room: str, events: Sequence[LoggedEvent]) -> None:
        for handler in list(self._handlers.get(room, ())):
            handler(room, events)

    async def subscribe(self, room: str, handler: EventHandler) -> None:
        self._handlers[room].append(handler)

    async def unsubscribe(self, room: str, handler: EventHandler) -> None:
        handlers = self._handlers.get(room)
        if handlers and handler in handlers:
            handlers.remove(handler)
            if not handlers:
                del self._handlers[room]

    async def serve(self, node: str, handler: CommandHandler) -> None:
        return None  # one process owns every room: nothing is ever forwarded

    async def forward(self, node: str, request: Mapping[str, Any], timeout_s: float = 5.0) -> dict[str, Any]:
        raise LookupError("the embedded bus has no other nodes")

    async def close(self) -> None:
        self._handlers.clear()
