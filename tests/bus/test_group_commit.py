"""Group commit (issue 20 §2): the appends of many rooms in the same moment share one fsync (embedded, through the
write-ahead file) or one pipelined round trip (Redis); each is answered only once durable, each keeps its own
next-index and fencing checks; with grouping off every append is made durable on its own."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from server.store import Store
from server.store.embedded import open_embedded
from server.store.embedded import wal as wal_module
from server.store.embedded.journal import Journal
from server.store.records import Fenced, LogConflict, LoggedEvent, Record


def _record(index: int, text: str = "m") -> Record:
    return Record(index, 1000 + index, "chat", {"text": f"{text}{index}"}, {"player": "red-1"},
                  (LoggedEvent(index, 1000 + index, "chat", {"text": f"{text}{index}"}, frozenset({"team:red"})),))


ROOMS = [f"c-g{i:03d}" for i in range(100)]


def _wal_files(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in root.glob("wal.*")}


async def _all_rooms_append(store: Store, index: int) -> None:
    await asyncio.gather(*(store.log.append(room, _record(index, room)) for room in ROOMS))


async def test_embedded_appends_of_many_rooms_share_one_fsync_and_are_all_there(tmp_path: Path) -> None:
    store: Any = open_embedded(tmp_path)
    for index in (1, 2, 3):
        await _all_rooms_append(store, index)
    wal, group = store.log._wal, store.log.commits
    assert group.writes == 300 and group.groups <= 6  # 100 rooms' appends, a few groups (never 300)
    assert wal.fsyncs == group.groups
    for room in ROOMS:
        assert [r.index for r in await store.log.read(room, 0)] == [1, 2, 3]
    await store.close()
    assert sorted(_wal_files(tmp_path)) == ["wal.0"]
    assert (tmp_path / "wal.0").stat().st_size == 0  # a clean close empties it (every journal fsynced)


async def test_embedded_without_grouping_fsyncs_once_per_append(tmp_path: Path) -> None:
    store: Any = open_embedded(tmp_path, group_commit=False)
    await _all_rooms_append(store, 1)
    assert not store.log.commits.grouped and store.log.commits.groups == store.log._wal.fsyncs == 100
    assert [r.index for r in await store.log.read(ROOMS[7], 0)] == [1]
    await store.close()


async def test_embedded_group_keeps_each_rooms_index_and_fencing_checks(tmp_path: Path) -> None:
    store: Any = open_embedded(tmp_path)
    await store.log.append("c-a", _record(1))
    epoch = store.leases.epoch
    outcomes = await asyncio.gather(
        store.log.append("c-b", _record(1), epoch=epoch),
        store.log.append("c-c", _record(1), epoch=epoch + 1),  # not this process's epoch: refused, not written
        store.log.append("c-a", _record(3)),  # not the next index: refused, not written
        store.log.append("c-d", _record(1)),
        return_exceptions=True,
    )
    assert outcomes[0] is None and outcomes[3] is None
    assert isinstance(outcomes[1], Fenced) and isinstance(outcomes[2], LogConflict)
    assert await store.log.read("c-c", 0) == [] and [r.index for r in await store.log.read("c-a", 0)] == [1]
    await store.log.append("c-a", _record(2))
    await store.close()


async def test_embedded_records_lost_from_a_journal_come_back_from_the_write_ahead_file(tmp_path: Path) -> None:
    """A power cut loses the journals' unsynced tails; the write-ahead file, fsynced before each answer, has them."""
    store: Any = open_embedded(tmp_path)
    await _all_rooms_append(store, 1)
    await _all_rooms_append(store, 2)
    wal = (tmp_path / "wal.0").read_bytes()
    assert wal  # not yet checkpointed
    await store.close()
    (tmp_path / "wal.0").write_bytes(wal)  # as the cut found it: the journals' tails unwritten
    for room in ROOMS[:50]:
        journal = Journal(tmp_path / "rooms" / room / "journal", fsync=False)
        os.truncate(journal.path, journal.checkpoints[1][1])  # only record 1 reached the disk
        journal.close()
    for room in ROOMS[50:60]:
        os.truncate(tmp_path / "rooms" / room / "journal", 0)  # nothing did
    again: Any = open_embedded(tmp_path, fsync=False)  # started again without fsync: replayed all the same
    for room in ROOMS:
        assert await again.log.read(room, 0) == [_record(1, room), _record(2, room)]
    assert (tmp_path / "wal.0").stat().st_size == 0
    await again.log.append(ROOMS[0], _record(3, ROOMS[0]))
    await again.close()


async def test_embedded_a_full_write_ahead_file_is_retired_in_the_background_and_its_successor_replayed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(wal_module, "WAL_LIMIT", 5_000)  # a new file every group or so
    store: Any = open_embedded(tmp_path)
    for index in range(1, 6):
        await _all_rooms_append(store, index)
    wal = store.log._wal
    assert wal.gen >= 3  # five groups of 100 appends
    wal._wait_retired()
    kept = _wal_files(tmp_path)
    assert sorted(kept) == [f"wal.{wal.gen}"]  # the full ones deleted
    left = [(room, i) for room, payload in wal.pending() for i in [Record.unpack(payload).index]]
    await store.close()
    for name, data in kept.items():  # a power cut: the current file as it was, the journals missing its records
        (tmp_path / name).write_bytes(data)
    for room in {room for room, _ in left}:
        first = min(i for r, i in left if r == room)
        journal = Journal(tmp_path / "rooms" / room / "journal", fsync=False)
        os.truncate(journal.path, journal.checkpoints[first - 1][1])
        journal.close()
    again: Any = open_embedded(tmp_path)
    for room in ROOMS:
        assert [r.index for r in await again.log.read(room, 0)] == [1, 2, 3, 4, 5]
    await again.close()


@pytest.mark.redis
async def test_redis_appends_of_many_rooms_go_in_one_pipeline_each_checked_by_the_script(redis_store: Store) -> None:
    log: Any = redis_store.log
    await log.r.script_flush()  # Redis lost the script (a restart): it is loaded again and those appends resent
    for index in (1, 2):
        await _all_rooms_append(redis_store, index)
    assert log.commits.writes == 200 and log.commits.groups <= 4
    for room in ROOMS:
        assert [r.index for r in await log.read(room, 0)] == [1, 2]
    epoch = await redis_store.leases.acquire("c-held", "node-a", 5_000)
    assert epoch is not None
    outcomes = await asyncio.gather(
        log.append("c-held", _record(1), epoch=epoch),
        log.append("c-held2", _record(1), epoch=epoch),  # nobody holds it in that epoch: fenced inside the script
        log.append(ROOMS[0], _record(2)),  # there already
        return_exceptions=True,
    )
    assert outcomes[0] is None and isinstance(outcomes[1], Fenced) and isinstance(outcomes[2], LogConflict)
    assert await log.read("c-held2", 0) == []
