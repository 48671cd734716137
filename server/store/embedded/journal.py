"""One room's append-only journal file, with a checkpoint file beside it; and atomic writes of small files.

    journal       frames: u32 length, u32 crc32, msgpack Record
    checkpoints   u64 index, u64 offset: where the record after each snapshot's index starts

A frame torn by a crash (short or bad checksum) is cut off when the journal is opened: it was never acknowledged.
"""

from __future__ import annotations

import bisect
import contextlib
import os
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack

from server.store.records import Record

_FRAME = struct.Struct(">II")
_MARK = struct.Struct(">QQ")


def write_atomic(path: Path, payload: bytes, fsync: bool) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(payload)
        if fsync:
            f.flush()
            os.fsync(f.fileno())
    os.replace(tmp, path)


def read_msgpack(path: Path, default: Any) -> Any:
    try:
        return msgpack.unpackb(path.read_bytes(), raw=False, strict_map_key=False)
    except (FileNotFoundError, ValueError):
        return default


class Journal:
    """`checkpoints` holds (index, offset) pairs: the record after `index` starts at `offset`. One is appended to
    the checkpoint file at every snapshot, so opening a journal reads only the records after the last checkpoint
    (to find the last index and cut a torn tail), and a read seeks to the nearest checkpoint instead of the start.
    """

    def __init__(self, path: Path, fsync: bool, *, read_only: bool = False):
        self.path = path
        self.marks_path = path.with_name("checkpoints")
        self.fsync = fsync
        self.read_only = read_only
        """Read only (an operator's listing or export beside a running server): nothing is created, cut or
        written; a torn or half-written last frame is only not read."""
        if read_only:
            self.fd = os.open(path, os.O_RDONLY)
        else:
            self.fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        size = os.fstat(self.fd).st_size
        self.checkpoints: list[tuple[int, int]] = [(0, 0)]
        with contextlib.suppress(FileNotFoundError):
            raw = self.marks_path.read_bytes()
            for i in range(0, len(raw) - len(raw) % _MARK.size, _MARK.size):
                index, offset = _MARK.unpack_from(raw, i)
                if offset <= size and index > self.checkpoints[-1][0] and offset > self.checkpoints[-1][1]:
                    self.checkpoints.append((index, offset))
        self._marks = {index for index, _ in self.checkpoints}
        """The indexes of the checkpoint file's marks: the pairs kept once a later snapshot's mark is set (the
        others, one per record written since, are let go then: issue 12 §14, they grew for as long as the room was
        open)."""
        self.last_index, good = self._scan_tail(size)
        if size != good and not read_only:
            os.ftruncate(self.fd, good)
        self.size = good

    @property
    def parked(self) -> bool:
        """Its file is closed (issue 12 §12: a node holds a bounded number of journals open); the next write
        opens it again."""
        return self.fd < 0

    def park(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

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
        """One record: a command's append (no list or join: once per command)."""
        framed = frame(payload)
        self._append(framed, fsync)
        self._advance(index, len(framed))

    def write_many(self, records: list[tuple[int, bytes]], fsync: bool) -> None:
        """Append the frames of these (index, record bytes) in one write (an import writes a whole log so)."""
        frames = [frame(payload) for _, payload in records]
        self._append(b"".join(frames), fsync)
        for (index, _), framed in zip(records, frames, strict=True):
            self._advance(index, len(framed))

    def _append(self, data: bytes, fsync: bool) -> None:
        """`data` at the journal's end, fsynced when asked; a write cut short (a signal) goes on with the rest."""
        if self.read_only:
            raise PermissionError(f"{self.path} is open read-only")
        if self.fd < 0:
            self.fd = os.open(self.path, os.O_RDWR | os.O_APPEND)
        written = os.write(self.fd, data)
        if written < len(data):
            rest = memoryview(data)[written:]
            while rest:
                rest = rest[os.write(self.fd, rest):]
        if fsync:
            os.fsync(self.fd)

    def _advance(self, index: int, length: int) -> None:
        """Record `index` is written, `length` bytes framed: where the next starts."""
        self.size += length
        self.checkpoints.append((index, self.size))
        self.last_index = index

    def checkpoint(self, index: int) -> None:
        """Remember where the record after `index` starts, in the checkpoint file (at a snapshot)."""
        mark = self.mark_of(index)
        if mark is not None:
            self.write_mark(*mark)
            self.marked(index)

    def mark_of(self, index: int) -> tuple[int, int] | None:
        """The checkpoint mark a snapshot after record `index` sets — (index, offset of the record after it) — or
        None when there is none to set (nothing after it written here, or read-only)."""
        pos = bisect.bisect_left(self.checkpoints, (index, -1))
        if self.read_only or index == 0 or pos == len(self.checkpoints) or self.checkpoints[pos][0] != index:
            return None
        return index, self.checkpoints[pos][1]

    def write_mark(self, index: int, offset: int) -> None:
        """Append a mark to the checkpoint file (fsynced with fsync on): file work only, so a thread may do it."""
        with open(self.marks_path, "ab") as f:
            f.write(_MARK.pack(index, offset))
            if self.fsync:
                f.flush()
                os.fsync(f.fileno())

    def marked(self, index: int) -> None:
        """The mark of `index` is written: the (index, offset) pairs before it are let go but the marks'."""
        pos = bisect.bisect_left(self.checkpoints, (index, -1))
        self._marks.add(index)
        marks = self._marks
        self.checkpoints = [c for c in self.checkpoints[:pos] if c[0] in marks] + self.checkpoints[pos:]

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
        self.park()


def frame(payload: bytes) -> bytes:
    """A journal frame: u32 length, u32 crc32, the record (an export's logs are framed so too)."""
    return _FRAME.pack(len(payload), zlib.crc32(payload)) + payload


def frames(data: bytes) -> Iterator[bytes]:
    """The bodies of whole, intact frames from the start of `data` (a record, a write-ahead entry); stops at a torn
    or damaged one."""
    for body, _ in _bodies(data, 0, check=True):
        yield body


def _frames(data: bytes, base: int, check: bool = False) -> Iterator[tuple[int, bytes, int]]:
    """(index, record bytes, file offset after the frame) of each whole frame; stops at a torn or bad one."""
    for body, end in _bodies(data, base, check):
        yield _index_of(body), body, end


def _bodies(data: bytes, base: int, check: bool) -> Iterator[tuple[bytes, int]]:
    pos = 0
    while pos + _FRAME.size <= len(data):
        length, crc = _FRAME.unpack_from(data, pos)
        end = pos + _FRAME.size + length
        if end > len(data) or length == 0:  # no record is empty: zeros are a tail a power cut left unwritten
            return
        body = data[pos + _FRAME.size:end]
        if check and zlib.crc32(body) != crc:
            return
        yield body, base + end
        pos = end


def _index_of(body: bytes) -> int:
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)
    unpacker.feed(body)
    unpacker.read_array_header()
    return int(unpacker.unpack())
