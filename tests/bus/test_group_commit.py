"""Group commit (issue 20 §2): the appends of many rooms in the same moment share one fsync (embedded, through the
write-ahead file) or one pipelined round trip (Redis); each is answered only once durable, each keeps its own
next-index and fencing checks; with grouping off every append is made durable on its own."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
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


async def test_group_commit_queue_groups_a_moment_and_never_strands_a_write() -> None:
    """The queue alone (server/store/batch.py): the writes of one moment are one group; the next write after a
    group's answer starts a flush of its own (a flusher ending must not leave it waiting); with `in_flight` 2 a
    second group goes out while the first waits, never a third."""
    from server.store.batch import GroupCommit

    groups: list[list[int]] = []
    running, most = 0, 0
    gate = asyncio.Event()

    async def flush(items: Sequence[int]) -> list[BaseException | None]:
        nonlocal running, most
        groups.append(list(items))
        running += 1
        most = max(most, running)
        await gate.wait()
        running -= 1
        return [None if i % 7 else ValueError(i) for i in items]

    commits: GroupCommit[int] = GroupCommit(flush, in_flight=2)
    gate.set()
    outcomes = await asyncio.gather(*(commits.write(i) for i in range(1, 11)), return_exceptions=True)
    assert groups == [list(range(1, 11))] and isinstance(outcomes[6], ValueError) and outcomes.count(None) == 9
    alone: GroupCommit[int] = GroupCommit(flush)  # in_flight 1, as the embedded store's

    async def one_after_the_other() -> None:  # each its own flush, none stranded
        for i in (11, 12, 13):
            await alone.write(i)

    await asyncio.wait_for(one_after_the_other(), 1)
    assert groups[-3:] == [[11], [12], [13]]
    gate.clear()
    first = asyncio.gather(*(commits.write(i) for i in range(20, 23)), return_exceptions=True)
    await asyncio.sleep(0.01)
    second = asyncio.gather(*(commits.write(i) for i in range(30, 33)), return_exceptions=True)
    await asyncio.sleep(0.01)
    third = asyncio.gather(*(commits.write(i) for i in range(40, 43)), return_exceptions=True)
    await asyncio.sleep(0.01)
    assert groups[-2:] == [[20, 21, 22], [30, 31, 32]] and most == 2  # the third waits for a flusher
    gate.set()
    done = await asyncio.wait_for(asyncio.gather(first, second, third), 1)
    assert groups[-1] == [40, 41, 42] and most == 2
    assert [[type(x).__name__ for x in d] for d in done] == [["NoneType", "ValueError", "NoneType"], ["NoneType"] * 3,
                                                            ["NoneType", "NoneType", "ValueError"]]  # 21, 42: refused
