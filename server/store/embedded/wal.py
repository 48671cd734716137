"""The embedded store's write-ahead file: how a group of appends to many rooms' journals is made durable by one fsync.

    wal    frames (journal.py's framing) of msgpack [room, record bytes], in the order they were appended

A group's records are written to their rooms' journals without an fsync, and to the end of `wal`, which alone is
then fsynced: from then on every record of the group survives a power cut (a killed process loses nothing either
way: the page cache holds both writes). Once `wal` passes `WAL_LIMIT` bytes, each journal written since the last
checkpoint is fsynced and `wal` is emptied. When the store is opened, the records of `wal` that a journal lacks (its
unsynced tail lost in a power cut) are written to it again, the journals fsynced and `wal` emptied, before any room
is read. Every record not yet fsynced in its journal is in `wal`: that is the invariant the checkpoint keeps.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path

import msgpack

from server.store.embedded.journal import frame, frames

WAL_LIMIT = 4 << 20
"""Bytes of `wal` past which the journals are fsynced and it is emptied (about 13,000 records of 300 bytes)."""


class WriteAhead:
    def __init__(self, root: Path):
        self.path = root / "wal"
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        self.size = os.fstat(self.fd).st_size
        self.dirty: set[Path] = set()
        """The journals written since the last checkpoint: fsynced at the next one."""
        self.lock = threading.Lock()
        """Held by the thread writing a group (one at a time: with grouping off, each command is its own)."""
        self.fsyncs = 0

    def pending(self) -> Iterator[tuple[str, bytes]]:
        """(room, record bytes) of each whole frame of `wal`, in order (a torn last frame was never acknowledged)."""
        for body in frames(os.pread(self.fd, self.size, 0)):
            room, record = msgpack.unpackb(body, raw=False)
            yield str(room), bytes(record)

    def append(self, records: Iterable[tuple[str, bytes]], journals: Iterable[Path]) -> None:
        """Make `records` durable (one write, one fsync), the caller having written them to `journals` (held: the
        caller has `lock`)."""
        data = memoryview(b"".join(frame(msgpack.packb([room, record], use_bin_type=True)) for room, record in records))
        self.dirty.update(journals)
        try:
            while data:
                data = data[os.write(self.fd, data):]
            os.fsync(self.fd)
            self.fsyncs += 1
        except BaseException:
            os.ftruncate(self.fd, self.size)  # no torn frame before the next group's
            raise
        self.size = os.fstat(self.fd).st_size
        if self.size > WAL_LIMIT:
            self.checkpoint()

    def checkpoint(self) -> None:
        """Fsync every journal written since the last checkpoint, then empty `wal` (held: the caller has `lock`)."""
        for path in sorted(self.dirty):
            with contextlib.suppress(FileNotFoundError):  # the room was deleted meanwhile
                fd = os.open(path, os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
        self.dirty.clear()
        if self.size:
            os.ftruncate(self.fd, 0)
            os.fsync(self.fd)
            self.size = 0

    def close(self) -> None:
        with self.lock:
            self.checkpoint()
        os.close(self.fd)
