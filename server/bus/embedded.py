"""The embedded default: no Redis. Logs are append-only journal files, snapshots and campaigns are files under a
data directory, and the event bus calls the node's own feeds in-process.

Layout of the data directory:
    LOCK                         held (flock) by the one process using the directory
    campaigns/<id>.msgpack       campaign record with its token grants (hashes only)
    rooms/<room>/journal         frames: u32 length, u32 crc32, msgpack Record
    rooms/<room>/checkpoints     u64 index, u64 offset: where the record after each snapshot's index starts
    rooms/<room>/snapshot        latest RoomSnapshot (written to a temp file, then renamed)
    alive                        last time (ms) the process was seen alive (every half second)
    outages                      msgpack [[from, to], ...]: when the server was down (recorded at each start)
    schedule                     msgpack {room: ms}: each room's next timer in service time (wall time less the
                                 outages before it: a clock deadline does not move when the server is down)

A frame torn by a crash (short or bad checksum) is cut off when the journal is opened: it was never acknowledged.
Nothing is read for a room until it is opened, and then only from its last checkpoint on. A room whose journal
is newer than the schedule file (a crash between the two writes) is reported due once at start.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import fcntl
import os
import struct
import zlib
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import msgpack

from server.bus.base import CommandHandler, EventHandler, LogConflict, LoggedEvent, Record, RoomSnapshot

_FRAME = struct.Struct(">II")
_MARK = struct.Struct(">QQ")


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
    """One room's append-only journal file, with a checkpoint file beside it.

    `checkpoints` holds (index, offset) pairs: the record after `index` starts at `offset`. One is appended to the
    checkpoint file at every snapshot, so opening a journal reads only the records after the last checkpoint (to
    find the last index and cut a torn tail), and a read seeks to the nearest checkpoint instead of the start.
    """

    def __init__(self, path: Path, fsync: bool):
        self.path = path
        self.marks_path = path.with_name("checkpoints")
        self.fsync = fsync
        self.fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        size = os.fstat(self.fd).st_size
        self.checkpoints: list[tuple[int, int]] = [(0, 0)]
        with contextlib.suppress(FileNotFoundError):
            raw = self.marks_path.read_bytes()
            for i in range(0, len(raw) - len(raw) % _MARK.size, _MARK.size):
                index, offset = _MARK.unpack_from(raw, i)
                if offset <= size and index > self.checkpoints[-1][0] and offset > self.checkpoints[-1][1]:
                    self.checkpoints.append((index, offset))
        self.last_index, good = self._scan_tail(size)
        if size != good:
            os.ftruncate(self.fd, good)
        self.size = good

    def _scan_tail(self, size: int) -> tuple[int, int]:
        """(last index, end of the last whole frame) from the last checkpoint whose first frame is the record
        it names (a checkpoint that does not fit is dropped)."""
        while True:
            index, start = self.checkpoints[-1]
            with open(self.path, "rb") as f:
                f.seek(start)
                data = f.read(size - start)
            frames = list(_frames(data, start, check=True))
            if frames and frames[0][0] != index + 1 and len(self.checkpoints) > 1:
                self.checkpoints.pop()
                continue
            if not frames and start > 0 and start != size:
                self.checkpoints.pop()
                continue
            self.checkpoints += [(idx, end) for idx, _, end in frames]
            return (frames[-1][0], frames[-1][2]) if frames else (index, start)

    def write(self, index: int, payload: bytes, fsync: bool) -> None:
        frame = _FRAME.pack(len(payload), zlib.crc32(payload)) + payload
        os.write(self.fd, frame)
        if fsync:
            os.fsync(self.fd)
        self.size += len(frame)
        self.last_index = index
        self.checkpoints.append((index, self.size))

    def checkpoint(self, index: int) -> None:
        """Remember where the record after `index` starts, in the checkpoint file (at a snapshot)."""
        pos = bisect.bisect_left(self.checkpoints, (index, -1))
        if index == 0 or pos == len(self.checkpoints) or self.checkpoints[pos][0] != index:
            return
        offset = self.checkpoints[pos][1]
        with open(self.marks_path, "ab") as f:
            f.write(_MARK.pack(index, offset))
            if self.fsync:
                f.flush()
                os.fsync(f.fileno())

    def read_after(self, after_index: int) -> list[Record]:
        pos = bisect.bisect_right(self.checkpoints, (after_index, 1 << 62)) - 1
        start = self.checkpoints[max(0, pos)][1]
        if start >= self.size:
            return []
        with open(self.path, "rb") as f:
            f.seek(start)
            data = f.read(self.size - start)
        return [Record.unpack(body) for idx, body, _ in _frames(data, start) if idx > after_index]

    def close(self) -> None:
        os.close(self.fd)


def _frames(data: bytes, base: int, check: bool = False) -> Iterator[tuple[int, bytes, int]]:
    """(index, record bytes, file offset after the frame) of each whole frame; stops at a torn or bad one."""
    pos = 0
    while pos + _FRAME.size <= len(data):
        length, crc = _FRAME.unpack_from(data, pos)
        end = pos + _FRAME.size + length
        if end > len(data):
            return
        body = data[pos + _FRAME.size:end]
        if check and zlib.crc32(body) != crc:
            return
        yield _index_of(body), body, base + end
        pos = end


def _index_of(body: bytes) -> int:
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)
    unpacker.feed(body)
    unpacker.read_array_header()
    return int(unpacker.unpack())


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
        self._seats: dict[tuple[str, str], str] = {}
        self._outages: list[tuple[int, int]] = [
            (int(a), int(b)) for a, b in _read_msgpack(self.root / "outages", [])]
        self._due: dict[str, int] = {str(k): int(v) for k, v in _read_msgpack(self.root / "schedule", {}).items()}
        self._unscheduled = self._written_after(self.root / "schedule")
        self._journals_ahead = False  # a journal was written after the schedule file
        for path in sorted((self.root / "campaigns").glob("*.msgpack")):
            record = msgpack.unpackb(path.read_bytes(), raw=False, strict_map_key=False)
            self._index_campaign(record["campaign"], record["grants"])

    def _index_campaign(self, campaign: Mapping[str, Any], grants: Mapping[str, Mapping[str, Any]]) -> None:
        self._campaigns[str(campaign["id"])] = dict(campaign)
        for digest, grant in grants.items():
            self._grants[digest] = dict(grant)

    def _written_after(self, path: Path) -> list[str]:
        """Rooms whose journal changed after `path` did (stat only: no journal is read)."""
        try:
            since = path.stat().st_mtime_ns
        except FileNotFoundError:
            since = -1
        out = []
        for journal in (self.root / "rooms").glob("*/journal"):
            with contextlib.suppress(FileNotFoundError):
                if journal.stat().st_mtime_ns > since:
                    out.append(journal.parent.name)
        return sorted(out)

    def _room_dir(self, room: str) -> Path:
        if not room or "/" in room or room.startswith("."):
            raise ValueError(f"bad room id {room!r}")
        path = self.root / "rooms" / room
        path.mkdir(exist_ok=True)
        return path

    def _journal(self, room: str) -> _Journal:
        journal = self._journals.get(room)
        if journal is None:
            journal = self._journals[room] = _Journal(self._room_dir(room) / "journal", self.fsync)
        return journal

    async def append(self, room: str, record: Record, due_ms: int | None = None) -> None:
        journal = self._journal(room)
        if record.index != journal.last_index + 1:
            raise LogConflict(f"{room}: record {record.index} after {journal.last_index}")
        payload = record.pack()
        if self.fsync:
            await asyncio.to_thread(journal.write, record.index, payload, True)
        else:
            journal.write(record.index, payload, False)
        self._journals_ahead = True
        await self.set_due(room, due_ms)

    async def read_log(self, room: str, after_index: int) -> list[Record]:
        return self._journal(room).read_after(after_index)

    async def save_snapshot(self, room: str, snapshot: RoomSnapshot) -> None:
        path = self._room_dir(room) / "snapshot"
        await asyncio.to_thread(_write_atomic, path, snapshot.pack(), self.fsync)
        self._journal(room).checkpoint(snapshot.index)

    async def load_snapshot(self, room: str) -> RoomSnapshot | None:
        path = self._room_dir(room) / "snapshot"
        return RoomSnapshot.unpack(path.read_bytes()) if path.exists() else None

    async def mark_alive(self, rooms: Sequence[str], now_ms: int) -> None:
        """One process owns every room of the directory: one mark for all of them."""
        _write_atomic(self.root / "alive", str(now_ms).encode(), False)
        if self._journals_ahead:
            self._write_schedule()

    async def last_alive(self, room: str) -> int | None:
        return None  # one process: when it stops, the service stops (an outage), no room is left orphaned

    async def orphans(self, before_ms: int) -> list[str]:
        return []

    async def record_outage(self, now_ms: int, gap_ms: int) -> None:
        """The LOCK makes this the only process: all the time since its predecessor's last mark was an outage."""
        try:
            last = int((self.root / "alive").read_text())
        except (FileNotFoundError, ValueError):
            last = None
        if last is not None and now_ms > last:
            self._outages.append((last, now_ms))
            _write_atomic(self.root / "outages", msgpack.packb(self._outages, use_bin_type=True), self.fsync)
        _write_atomic(self.root / "alive", str(now_ms).encode(), False)

    async def outages(self, after_ms: int) -> list[tuple[int, int]]:
        return [o for o in self._outages if o[1] > after_ms]

    def _down_ms(self) -> int:
        return sum(b - a for a, b in self._outages)

    async def set_due(self, room: str, due_ms: int | None) -> None:
        due = None if due_ms is None else due_ms - self._down_ms()
        if self._due.get(room) == due:
            return
        if due is None:
            del self._due[room]
        else:
            self._due[room] = due
        self._write_schedule()

    def _write_schedule(self) -> None:
        """Rewritten when a due time changes, and every half second after appends: so that after a crash only
        the rooms written in the last moment are newer than it."""
        _write_atomic(self.root / "schedule", msgpack.packb(self._due, use_bin_type=True), False)
        self._journals_ahead = False

    async def due_rooms(self, until_ms: int) -> list[str]:
        until = until_ms - self._down_ms()
        due = [room for room, at in self._due.items() if at <= until]
        extra, self._unscheduled = self._unscheduled, []
        return sorted({*due, *extra})

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
        """The room is closed here (an idle room unloaded): its journal's file and checkpoints are let go too."""
        journal = self._journals.pop(room, None)
        if journal is not None:
            journal.close()

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

    async def claim_seat(self, campaign: str, player: str, session: str) -> str | None:
        previous = self._seats.get((campaign, player))
        self._seats[(campaign, player)] = session
        return previous

    async def release_seat(self, campaign: str, player: str, session: str) -> None:
        if self._seats.get((campaign, player)) == session:
            del self._seats[(campaign, player)]

    async def close(self) -> None:
        self._write_schedule()
        for journal in self._journals.values():
            journal.close()
        self._journals.clear()
        with contextlib.suppress(OSError):
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)


def _read_msgpack(path: Path, default: Any) -> Any:
    try:
        return msgpack.unpackb(path.read_bytes(), raw=False, strict_map_key=False)
    except (FileNotFoundError, ValueError):
        return default


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
