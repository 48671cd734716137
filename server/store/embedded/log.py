"""The embedded room log: a journal per room (journal.py), its latest snapshot, and the schedule of every room's
next timer, under the data directory:

    rooms/<room>/journal, checkpoints   the log (journal.py)
    rooms/<room>/snapshot               latest RoomSnapshot (written to a temp file, then renamed)
    schedule                            msgpack {room: ms}: each room's next timer in service time (wall time less
                                        the outages before it: a clock deadline does not move when the server is down)

Nothing is read for a room until it is opened, and then only from its last checkpoint on. A room whose journal
is newer than the schedule file (a crash between the two writes) is reported due once at start.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import shutil
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import msgpack

from server.store.batch import GroupCommit
from server.store.embedded.journal import Journal, read_msgpack, write_atomic
from server.store.embedded.wal import Write, WriteAhead
from server.store.log import RoomStat
from server.store.records import Fenced, LogConflict, Record, RoomSnapshot

MAX_OPEN_JOURNALS = 1024
"""Journal files a node holds open at once by default (`--open-journals`), never more than a quarter of the
process's file limit; the others are closed and opened again for their next write. Below the number of rooms being
written, every command pays an open and a close (issue 20: 100 rooms played at once over 64 open journals)."""


def default_open_journals() -> int:
    try:
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (OSError, ValueError):
        return 64
    if soft == resource.RLIM_INFINITY:
        return MAX_OPEN_JOURNALS
    return max(16, min(MAX_OPEN_JOURNALS, soft // 4))


def _save_snapshot(folder: Path, payload: bytes, journal: Journal | None, mark: tuple[int, int] | None,
                   fsync: bool) -> None:
    folder.mkdir(exist_ok=True)
    write_atomic(folder / "snapshot", payload, fsync)
    if journal is not None and mark is not None:
        journal.write_mark(*mark)


class FileLog:
    def __init__(self, root: Path, *, fsync: bool, down_ms: Callable[[], int], read_only: bool = False,
                 epoch: Callable[[], int] = lambda: 0, group_commit: bool = True, open_journals: int | None = None):
        self.root = root
        self.open_journals = open_journals or default_open_journals()
        self.epoch = epoch
        """The lease epoch of the process holding the directory's LOCK (FileLeases): an append given another is
        refused, as under Redis."""
        self.fsync = fsync
        self.down_ms = down_ms
        self.read_only = read_only
        """Beside a running server (an operator's listing or export): reads only, never a file created or cut."""
        if not read_only:
            (root / "rooms").mkdir(parents=True, exist_ok=True)
        self._journals: dict[str, Journal] = {}
        self._open: OrderedDict[str, None] = OrderedDict()
        """The journals whose file is open, least recently written first: at most `open_journals`."""
        self._due: dict[str, int] = {str(k): int(v) for k, v in read_msgpack(root / "schedule", {}).items()}
        self._unscheduled = self._written_after(root / "schedule")
        self._journals_ahead = False  # a journal was written after the schedule file
        self._writing: Counter[str] = Counter()
        """Rooms with a write queued or under way in a thread: their journal's file is not parked meanwhile."""
        self._wal = WriteAhead(root) if not read_only else None
        if self._wal is not None:
            self._replay(self._wal)  # also without fsync now: what a run with it left after a power cut
            if not fsync:
                self._wal.close()
                self._wal = None
        self._serial = asyncio.Lock()
        """One group written and fsynced at a time (with grouping off: one command)."""
        self._syncer = ThreadPoolExecutor(1, thread_name_prefix="wal-sync") if self._wal is not None else None
        """The write-ahead file's own thread for its fsyncs: in asyncio's shared pool a group's fsync queued behind
        snapshot writes (each ~3 fsyncs; a hundred rooms reach their 200th record together) and file deletions."""
        self.commits = GroupCommit(self._flush, grouped=group_commit) if self._wal is not None else None
        """Group commit (server/store/batch.py): the appends of many rooms in the same moment share one fsync. Off
        (--no-group-commit), each append has its own, through the same code: the benchmark's baseline."""

    def _written_after(self, path: Path) -> list[str]:
        """Rooms whose journal changed after `path` did (stat only: no journal is read)."""
        try:
            since = path.stat().st_mtime_ns
        except FileNotFoundError:
            since = -1
        out = []
        with os.scandir(self.root / "rooms") as rooms:  # one stat per room (10,000 campaigns: 20,000 rooms)
            for room in rooms:
                with contextlib.suppress(FileNotFoundError, NotADirectoryError):
                    if os.stat(os.path.join(room.path, "journal")).st_mtime_ns > since:
                        out.append(room.name)
        return sorted(out)

    def _room_dir(self, room: str, *, make: bool = True) -> Path:
        if not room or "/" in room or room.startswith("."):
            raise ValueError(f"bad room id {room!r}")
        path = self.root / "rooms" / room
        if make and not self.read_only:
            path.mkdir(exist_ok=True)
        return path

    def journal(self, room: str) -> Journal:
        """The journal of a room this node writes (created if new), its file open: the least recently written
        beyond `open_journals` are parked (issue 12 §12: 500 campaigns held 1,000 files open)."""
        journal = self._journals.get(room)
        if journal is None:
            journal = self._journals[room] = Journal(self._room_dir(room) / "journal", self.fsync,
                                                     read_only=self.read_only)
        self._open[room] = None
        self._open.move_to_end(room)
        while len(self._open) > self.open_journals:
            parked = next((r for r in self._open if not self._writing[r]), None)
            if parked is None:  # every open one is being written: parked after their writes
                break
            del self._open[parked]
            self._journals[parked].park()
        return journal

    @contextlib.contextmanager
    def _existing(self, room: str) -> Iterator[Journal | None]:
        """The room's journal to read, if it has one: the one held open, else the file opened for this read only —
        nothing is created, and nothing kept open, for a room that has none or that this node does not write
        (a replay, a made-up room id: issue 12 §12)."""
        held = self._journals.get(room)
        if held is not None:
            yield held
            return
        path = self._room_dir(room, make=False) / "journal"
        try:
            journal = Journal(path, self.fsync, read_only=True)
        except FileNotFoundError:
            yield None
            return
        try:
            yield journal
        finally:
            journal.close()

    def held(self) -> list[str]:
        """The rooms whose journal is open."""
        return sorted(self._journals)

    async def append(self, room: str, record: Record, due_ms: int | None = None, *, epoch: int | None = None) -> None:
        fenced = self._fenced(room, record.index, epoch)
        if fenced is not None:
            raise fenced
        journal = self.journal(room)
        if record.index != journal.last_index + 1:
            raise LogConflict(f"{room}: record {record.index} after {journal.last_index}")
        if self.commits is None:
            journal.write(record.index, record.pack(), False)
        else:
            self._writing[room] += 1
            try:
                await self.commits.write(Write(room, journal, record.index, record.pack(), epoch))
            finally:
                self._writing[room] -= 1
                if not self._writing[room]:
                    del self._writing[room]
        self._journals_ahead = True
        if due_ms is not None or room in self._due:  # a room without timers (most commands) has nothing to set
            await self.set_due(room, due_ms)

    def _fenced(self, room: str, index: int, epoch: int | None) -> Fenced | None:
        if epoch is not None and epoch != self.epoch():
            return Fenced(f"{room}: record {index}: epoch {epoch} is not this process's {self.epoch()}")
        return None

    async def _flush(self, writes: Sequence[Write]) -> list[BaseException | None]:
        """One group: the fencing check again as it goes out, each record written to its journal and all of them to
        the write-ahead file, which is then fsynced once in a thread (wal.py)."""
        outcomes: list[BaseException | None] = [self._fenced(w.room, w.index, w.epoch) for w in writes]
        wal = self._wal
        assert wal is not None
        async with self._serial:
            written = wal.write_group(writes, outcomes)
            if written:
                try:
                    await asyncio.get_running_loop().run_in_executor(self._syncer, wal.sync)
                except OSError as exc:
                    for i in written:
                        outcomes[i] = exc
        return outcomes

    def _replay(self, wal: WriteAhead) -> None:
        """The records of the write-ahead file a journal lacks (lost in a power cut) written to it again; then every
        journal fsynced and the file emptied (wal.py)."""
        for room, payload in wal.pending():
            record = Record.unpack(payload)
            journal = self.journal(room)
            if record.index == journal.last_index + 1:
                journal.write(record.index, payload, False)
            wal.dirty.add(journal.path)
        wal.checkpoint()

    async def read(self, room: str, after_index: int) -> list[Record]:
        with self._existing(room) as journal:
            return journal.read_after(after_index) if journal is not None else []

    async def save_snapshot(self, room: str, snapshot: RoomSnapshot) -> None:
        """The snapshot, then its checkpoint mark, written and fsynced in a thread: the mark's fsync on the event
        loop held every room's commands (a hundred rooms played at once take ~30 snapshots a second)."""
        folder = self._room_dir(room, make=False)
        journal = self.journal(room)
        mark = journal.mark_of(snapshot.index)
        await asyncio.to_thread(_save_snapshot, folder, snapshot.pack(), journal if mark else None, mark, self.fsync)
        if mark is not None:
            journal.marked(snapshot.index)

    async def load_snapshot(self, room: str) -> RoomSnapshot | None:
        path = self._room_dir(room, make=False) / "snapshot"
        return RoomSnapshot.unpack(path.read_bytes()) if path.exists() else None

    async def set_due(self, room: str, due_ms: int | None) -> None:
        due = None if due_ms is None else due_ms - self.down_ms()
        if self._due.get(room) == due:
            return
        if due is None:
            del self._due[room]
        else:
            self._due[room] = due
        self._write_schedule()

    def _write_schedule(self) -> None:
        if self.read_only:
            return
        """Rewritten when a due time changes, and every half second after appends: so that after a crash only
        the rooms written in the last moment are newer than it."""
        write_atomic(self.root / "schedule", msgpack.packb(self._due, use_bin_type=True), False)
        self._journals_ahead = False

    async def due_rooms(self, until_ms: int) -> list[str]:
        until = until_ms - self.down_ms()
        due = [room for room, at in self._due.items() if at <= until]
        extra, self._unscheduled = self._unscheduled, []
        return sorted({*due, *extra})

    async def sync(self) -> None:
        if self._journals_ahead:
            self._write_schedule()

    async def forget(self, room: str) -> None:
        """The room is closed here (an idle room unloaded): its journal's file and checkpoints are let go."""
        if self._writing[room]:  # a write of it is under way in a thread (a room is unloaded only when idle)
            return
        self._open.pop(room, None)
        journal = self._journals.pop(room, None)
        if journal is not None:
            journal.close()

    async def rooms(self) -> list[str]:
        found = []
        for journal in (self.root / "rooms").glob("*/journal"):
            with contextlib.suppress(FileNotFoundError):  # deleted meanwhile
                if journal.stat().st_size > 0:
                    found.append(journal.parent.name)
        return sorted(found)

    async def stat(self, room: str) -> RoomStat | None:
        with self._existing(room) as journal:
            if journal is None or journal.last_index == 0:
                return None
            last = journal.read_after(journal.last_index - 1)[-1]
        held = sum(p.stat().st_size for p in self._room_dir(room, make=False).iterdir() if p.is_file())
        return RoomStat(journal.last_index, held, last.at_ms)

    async def restore(self, room: str, records: Sequence[Record]) -> None:
        journal = self.journal(room)
        if journal.last_index != 0:
            raise LogConflict(f"{room}: has a log already (record {journal.last_index})")
        if [r.index for r in records] != list(range(1, len(records) + 1)):
            raise LogConflict(f"{room}: a restored log is records 1..n in order")
        await asyncio.to_thread(journal.write_many, [(r.index, r.pack()) for r in records], self.fsync)
        self._journals_ahead = True

    async def delete(self, room: str) -> None:
        if self._wal is not None:  # its records leave the write-ahead file first: a replay would bring them back
            async with self._serial:
                await asyncio.get_running_loop().run_in_executor(self._syncer, self._wal.checkpoint)
        await self.forget(room)
        path = self._room_dir(room, make=False)
        if path.exists():
            await asyncio.to_thread(shutil.rmtree, path)
        self._unscheduled = [r for r in self._unscheduled if r != room]
        if self._due.pop(room, None) is not None:
            self._write_schedule()

    def close(self) -> None:
        self._write_schedule()
        if self._wal is not None:
            self._wal.close()
        if self._syncer is not None:
            self._syncer.shutdown()
        for journal in self._journals.values():
            journal.close()
        self._journals.clear()
        self._open.clear()
