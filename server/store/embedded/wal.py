"""The embedded store's write-ahead files: how a group of appends to many rooms' journals is made durable by one fsync.

    wal.<n>    frames (journal.py's framing) of msgpack [room, record bytes], in the order they were appended

A group's records are written to their rooms' journals without an fsync, and to the end of the newest `wal.<n>`,
which alone is then fsynced: from then on every record of the group survives a power cut (a killed process loses
nothing either way: the page cache holds both writes). Once it passes `WAL_LIMIT` bytes the next group goes to a
new `wal.<n+1>`, and a background thread fsyncs each journal written in `wal.<n>`'s time, then deletes it: the
groups do not wait for that. When the store is opened, the records of every `wal.<n>` that a journal lacks (its
unsynced tail lost in a power cut) are written to it again, in order, the journals fsynced and the files emptied,
before any room is read. Every record not yet fsynced in its journal is in a `wal.<n>`: that is the invariant.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import msgpack

from server.store.embedded.journal import Journal, frame, frames
from server.store.records import LogConflict
from shared.protocol.codec import pack

log = logging.getLogger(__name__)

WAL_LIMIT = 4 << 20
"""Bytes of a `wal.<n>` past which the next one is started and it is retired (about 13,000 records of 300 bytes)."""


def _fsync_path(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@dataclass(frozen=True, slots=True)
class Write:
    """One append of a group: its room's record `payload`, to be the `index`th of `journal`."""

    room: str
    journal: Journal
    index: int
    payload: bytes
    epoch: int | None


class WriteAhead:
    def __init__(self, root: Path):
        self.root = root
        self.older = sorted((p for p in root.glob("wal.*") if p.suffix[1:].isdigit()), key=lambda p: int(p.suffix[1:]))
        """Files left by the last run, oldest first: replayed (`pending`), then removed by `checkpoint`."""
        self.gen = int(self.older[-1].suffix[1:]) if self.older else 0
        self.path, self.fd = self._start(self.gen)
        self.older = [p for p in self.older if p != self.path]
        self.size = os.fstat(self.fd).st_size
        self.dirty: set[Path] = set()
        """The journals written since the current file was started: fsynced before it is retired."""
        self.fsyncs = 0
        self._retiring: threading.Thread | None = None

    def _start(self, gen: int) -> tuple[Path, int]:
        path = self.root / f"wal.{gen}"
        new = not path.exists()
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        if new:  # its name must survive a power cut too
            _fsync_path(self.root)
        return path, fd

    def pending(self) -> Iterator[tuple[str, bytes]]:
        """(room, record bytes) of each whole frame of every file, in order (a torn last frame was never
        acknowledged)."""
        for path in [*self.older, self.path]:
            for body in frames(path.read_bytes()):
                room, record = msgpack.unpackb(body, raw=False)
                yield str(room), bytes(record)

    def write_group(self, writes: Sequence[Write], outcomes: list[BaseException | None]) -> list[int]:
        """A group's writes, on the event loop (page-cache writes: no fsync): each record to its journal, in each
        room's order and only as the next index, then all of them to the end of this file; `outcomes` gets what
        refused each (it holds the refusals made before: fencing). Returns the positions written: durable once
        `sync` returns. (Only the fsync goes to a thread: a thread doing the writes as well took the GIL back after
        each system call, waiting up to the switch interval each time behind the busy event loop.)"""
        by_journal: dict[Journal, list[int]] = {}
        for i, w in enumerate(writes):
            if outcomes[i] is None:
                by_journal.setdefault(w.journal, []).append(i)
        written: list[int] = []
        for journal, positions in by_journal.items():
            run: list[int] = []
            for i in positions:  # in each room's order, each the next index (else refused, not written)
                if writes[i].index != journal.last_index + 1 + len(run):
                    outcomes[i] = LogConflict(f"{writes[i].room}: record {writes[i].index} after "
                                              f"{journal.last_index + len(run)}")
                else:
                    run.append(i)
            try:
                journal.write_many([(writes[i].index, writes[i].payload) for i in run], False)
            except OSError as exc:
                for i in run:
                    outcomes[i] = exc
                continue
            written += run
        if written:
            try:
                self.write([(writes[i].room, writes[i].payload) for i in written], [w.journal.path for w in writes])
            except OSError as exc:
                for i in written:
                    outcomes[i] = exc
                written = []
        return written

    def write(self, records: Iterable[tuple[str, bytes]], journals: Iterable[Path]) -> None:
        """Append `records` (one write), the caller having written them to `journals`; durable after `sync`."""
        data = memoryview(b"".join([frame(pack([room, record])) for room, record in records]))  # one shared packer
        self.dirty.update(journals)
        try:
            while data:
                data = data[os.write(self.fd, data):]
        except BaseException:
            os.ftruncate(self.fd, self.size)  # no torn frame before the next group's
            raise
        self.size = os.fstat(self.fd).st_size

    def sync(self) -> None:
        """Fsync what was written (in a thread); past `WAL_LIMIT` the next group goes to a new file."""
        os.fsync(self.fd)
        self.fsyncs += 1
        if self.size > WAL_LIMIT:
            self._rotate()

    def _rotate(self) -> None:
        """The next group goes to a new file; this one is retired by a thread of its own."""
        self._wait_retired()  # the one before is still being retired (its journals fsynced): rare
        retired = (self.fd, self.path, self.dirty)
        self.gen += 1
        self.path, self.fd = self._start(self.gen)
        self.size, self.dirty = 0, set()
        self._retiring = threading.Thread(target=self._retire, args=retired, name="wal-retire", daemon=True)
        self._retiring.start()

    @staticmethod
    def _retire(fd: int, path: Path, dirty: set[Path]) -> None:
        """Fsync the journals written in `path`'s time, then delete it; left in place if an fsync fails (replayed
        at the next start)."""
        os.close(fd)
        try:
            for journal in sorted(dirty):
                with contextlib.suppress(FileNotFoundError):  # the room was deleted meanwhile
                    _fsync_path(journal)
        except OSError:
            log.exception("write-ahead file %s kept: fsyncing its journals failed", path)
            return
        path.unlink(missing_ok=True)

    def _wait_retired(self) -> None:
        if self._retiring is not None:
            self._retiring.join()
            self._retiring = None

    def checkpoint(self) -> None:
        """Fsync every journal written since the current file was started, empty it and remove older ones (at
        open after the replay, before a room is deleted, at close; no group is being written meanwhile)."""
        self._wait_retired()
        for journal in sorted(self.dirty):
            with contextlib.suppress(FileNotFoundError):
                _fsync_path(journal)
        self.dirty.clear()
        for path in self.older:
            path.unlink(missing_ok=True)
        self.older = []
        if self.size:
            os.ftruncate(self.fd, 0)
            os.fsync(self.fd)
            self.size = 0

    def close(self) -> None:
        self.checkpoint()
        os.close(self.fd)
