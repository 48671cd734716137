"""The embedded store (no Redis): files under a data directory, used by one process at a time (the LOCK file).

    LOCK                 held (flock) by the one process using the directory
    rooms/, schedule     the room log (log.py, journal.py)
    wal.<n>              the write-ahead files of group commit (wal.py)
    alive, outages       liveness and the service's outages (leases.py)
    campaigns/           campaigns with their token grants (grants.py)
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
from pathlib import Path

from server.store import Store
from server.store.embedded.grants import FileGrants
from server.store.embedded.leases import FileLeases
from server.store.embedded.log import FileLog
from server.store.embedded.presence import MemoryPresence


class DataDirLocked(RuntimeError):
    pass


def open_embedded(data_dir: str | os.PathLike[str], *, fsync: bool = True, read_only: bool = False,
                  group_commit: bool = True, open_journals: int | None = None) -> Store:
    """The store under `data_dir`, its LOCK held until it is closed. `read_only` takes no lock and writes nothing:
    what an operator lists or exports while the directory's server runs (a room being written is read up to its
    last whole record). `group_commit` (with `fsync`): the appends of many rooms in the same moment share one
    fsync (log.py); off, each append has its own."""
    root = Path(data_dir)
    if read_only:
        if not (root / "rooms").is_dir():
            raise FileNotFoundError(errno.ENOENT, "no embedded store here (no rooms/ directory)", str(root))
        leases = FileLeases(root, fsync=False, read_only=True)
        log = FileLog(root, fsync=False, down_ms=leases.down_ms, read_only=True)

        async def close_read_only() -> None:
            for journal in log.held():
                await log.forget(journal)

        return Store(log, leases, FileGrants(root, fsync=False, read_only=True), MemoryPresence(), close_read_only)
    root.mkdir(parents=True, exist_ok=True)
    lock_fd = os.open(root / "LOCK", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(lock_fd)
        raise DataDirLocked(f"data directory {root} is in use by another server process") from None
    leases = FileLeases(root, fsync=fsync)
    log = FileLog(root, fsync=fsync, down_ms=leases.down_ms, epoch=lambda: leases.epoch, group_commit=group_commit,
                  open_journals=open_journals)

    closed: list[bool] = []

    async def close() -> None:
        if closed:
            return
        closed.append(True)
        log.close()
        leases.close()
        with contextlib.suppress(OSError):
            fcntl.flock(lock_fd, fcntl.LOCK_UN)
            os.close(lock_fd)

    return Store(log, leases, FileGrants(root, fsync=fsync), MemoryPresence(), close)


def locked(data_dir: str | os.PathLike[str]) -> bool:
    """Whether a server process holds the data directory now (its LOCK)."""
    try:
        fd = os.open(Path(data_dir) / "LOCK", os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing drops a shared lock taken just now
    return False


__all__ = ["DataDirLocked", "FileGrants", "FileLeases", "FileLog", "MemoryPresence", "locked", "open_embedded"]
