"""Both stores keep the same contract: the next index only, reads after an index, snapshots, leases; the
embedded journal cuts off a frame torn by a crash."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from server.bus.local import LocalBus
from server.store import Store
from server.store.embedded import DataDirLocked, FileLog, open_embedded
from server.store.records import LogConflict, LoggedEvent, Record, RoomSnapshot


@pytest.fixture(params=["embedded", pytest.param("redis", marks=pytest.mark.redis)])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    if request.param == "embedded":
        s: Any = open_embedded(tmp_path, fsync=False)
        yield s
        await s.close()
        return
    url = request.getfixturevalue("redis_url")
    from server.backends import open_redis

    prefix = f"kstest{secrets.token_hex(4)}"
    s, bus = await open_redis(url, prefix)
    yield s
    async for key in s.log.r.scan_iter(match=f"{prefix}:*"):
        await s.log.r.delete(key)
    await bus.close()
    await s.close()


def _record(index: int) -> Record:
    return Record(index, 1000 + index, "chat", {"text": f"m{index}"}, {"player": "red-1"},
                  (LoggedEvent(index, 1000 + index, "chat", {"text": f"m{index}"}, frozenset({"team:red"})),))


async def test_append_only_the_next_index_and_read_after(store: Store) -> None:
    for i in (1, 2, 3):
        await store.log.append("c-x", _record(i))
    with pytest.raises(LogConflict):
        await store.log.append("c-x", _record(3))
    with pytest.raises(LogConflict):
        await store.log.append("c-x", _record(5))
    got = await store.log.read("c-x", 1)
    assert [r.index for r in got] == [2, 3]
    assert got[0] == _record(2)
    assert await store.log.read("c-x", 3) == []


async def test_snapshot_alive_and_campaigns_roundtrip(store: Store) -> None:
    assert await store.log.load_snapshot("c-y") is None
    await store.log.save_snapshot("c-y", RoomSnapshot(7, 21, {"state": {"a": [1, 2]}}))
    assert await store.log.load_snapshot("c-y") == RoomSnapshot(7, 21, {"state": {"a": [1, 2]}})
    await store.leases.mark_alive(["c-y"], 12345)
    # embedded: one process, so a room is never orphaned (its downtime is the service's outages)
    assert await store.leases.last_alive("c-y") == (None if isinstance(store.log, FileLog) else 12345)
    await store.grants.put_campaign({"id": "y", "name": "Y"}, {"abc": {"campaign": "y", "role": "spectator"}})
    assert (await store.grants.get_campaign("y")) == {"id": "y", "name": "Y"}
    assert (await store.grants.find("abc")) == {"campaign": "y", "role": "spectator"}
    assert await store.grants.find("nope") is None


async def test_lease_has_one_holder(store: Store) -> None:
    assert await store.leases.acquire("c-z", "node-a", 5_000)
    assert await store.leases.acquire("c-z", "node-a", 5_000)  # renewal
    if isinstance(store.log, FileLog):
        return  # one process per data directory: the LOCK file is the lease
    assert not await store.leases.acquire("c-z", "node-b", 5_000)
    await store.leases.release("c-z", "node-b")  # not the holder: nothing happens
    assert not await store.leases.acquire("c-z", "node-b", 5_000)
    await store.leases.release("c-z", "node-a")
    assert await store.leases.acquire("c-z", "node-b", 5_000)


async def test_torn_journal_frame_is_cut_off_on_open(tmp_path: Path) -> None:
    s = open_embedded(tmp_path, fsync=False)
    await s.log.append("c-t", _record(1))
    await s.log.append("c-t", _record(2))
    await s.close()
    journal = tmp_path / "rooms" / "c-t" / "journal"
    whole = journal.read_bytes()
    journal.write_bytes(whole + whole[: len(whole) // 3])  # a crash in the middle of writing record 3
    s = open_embedded(tmp_path, fsync=False)
    assert [r.index for r in await s.log.read("c-t", 0)] == [1, 2]
    await s.log.append("c-t", _record(3))
    assert [r.index for r in await s.log.read("c-t", 0)] == [1, 2, 3]
    await s.close()


def test_one_process_per_data_directory(tmp_path: Path) -> None:
    s = open_embedded(tmp_path)
    with pytest.raises(DataDirLocked):
        open_embedded(tmp_path)
    import asyncio

    asyncio.run(s.close())


async def test_local_bus_delivers_in_order_to_subscribers() -> None:
    bus = LocalBus()
    got: list[int] = []

    def handler(room: str, events: Any) -> None:
        got.extend(e.seq for e in events)

    await bus.subscribe("c-q", handler)
    await bus.publish("c-q", [LoggedEvent(1, 0, "a", {}), LoggedEvent(2, 0, "b", {})])
    await bus.unsubscribe("c-q", handler)
    await bus.publish("c-q", [LoggedEvent(3, 0, "c", {})])
    assert got == [1, 2]


async def test_schedule_keeps_each_rooms_next_timer(store: Store) -> None:
    await store.log.append("c-d", _record(1), due_ms=5_000)
    await store.log.append("c-e", _record(1), due_ms=9_000)
    assert set(await store.log.due_rooms(6_000)) >= {"c-d"}
    assert "c-e" not in await store.log.due_rooms(6_000)
    await store.log.append("c-d", _record(2), due_ms=None)  # nothing due any more
    await store.log.set_due("c-e", 4_000)
    assert "c-d" not in await store.log.due_rooms(10_000)
    assert "c-e" in await store.log.due_rooms(4_000)


async def test_outage_is_recorded_when_nothing_was_alive(store: Store) -> None:
    await store.leases.mark_alive([], 10_000)
    await store.leases.record_outage(10_300, 2_000)
    if not isinstance(store.log, FileLog):  # another node was alive 300 ms ago: no outage
        assert await store.leases.outages(0) == []
    await store.leases.mark_alive([], 11_000)
    await store.leases.record_outage(20_000, 2_000)
    assert (11_000, 20_000) in await store.leases.outages(15_000)
    assert await store.leases.outages(20_000) == []


async def test_the_embedded_alive_mark_written_in_place_is_what_the_next_process_reads(tmp_path: Path) -> None:
    (tmp_path / "alive").write_text("1700000000000")  # as marks were written before: digits, a whole new file
    store = open_embedded(tmp_path, fsync=False)
    assert await store.leases.last_seen() == 1700000000000
    await store.leases.mark_alive([], 1700000000500)
    await store.leases.mark_alive([], 1700000001000)
    assert await store.leases.last_seen() == 1700000001000
    await store.close()
    again = open_embedded(tmp_path, fsync=False)
    await again.leases.record_outage(1700000009000, 2_000)
    assert (1700000001000, 1700000009000) in await again.leases.outages(0)
    await again.leases.mark_alive([], 1700000009500)  # the file record_outage replaced
    assert await again.leases.last_seen() == 1700000009500
    await again.close()


async def test_a_room_released_is_no_orphan_one_left_behind_is(store: Store) -> None:
    if isinstance(store.log, FileLog):
        assert await store.leases.orphans(10**13) == []
        return
    await store.leases.acquire("c-o", "node-a", 5_000)
    await store.leases.acquire("c-p", "node-a", 5_000)
    await store.leases.mark_alive(["c-o", "c-p"], 1_000)
    await store.leases.release("c-p", "node-a")
    assert await store.leases.orphans(2_000) == ["c-o"]
    assert await store.leases.last_alive("c-p") is None


async def test_journal_opens_from_its_last_checkpoint(tmp_path: Path) -> None:
    """Opening a journal reads only the records after the last snapshot's checkpoint; reads before it still work,
    and a checkpoint file that does not fit the journal is ignored."""
    s = open_embedded(tmp_path, fsync=False)
    for i in range(1, 501):
        await s.log.append("c-k", _record(i))
    await s.log.save_snapshot("c-k", RoomSnapshot(400, 400, {}))
    await s.close()
    s = open_embedded(tmp_path, fsync=False)
    journal = s.log.journal("c-k")
    assert journal.last_index == 500
    assert len(journal.checkpoints) == 1 + 1 + 100  # the start, the snapshot's, then one per record read
    assert [r.index for r in await s.log.read("c-k", 397)][:4] == [398, 399, 400, 401]
    assert len(await s.log.read("c-k", 0)) == 500
    await s.log.append("c-k", _record(501))
    await s.close()
    (tmp_path / "rooms" / "c-k" / "checkpoints").write_bytes(b"\0" * 7 + b"\x05" + b"\0" * 7 + b"\x03")
    s = open_embedded(tmp_path, fsync=False)
    assert s.log.journal("c-k").last_index == 501
    assert [r.index for r in await s.log.read("c-k", 0)] == list(range(1, 502))
    await s.close()


async def test_a_journal_keeps_the_offsets_of_its_records_only_until_the_next_snapshots_mark(tmp_path: Path) -> None:
    """Issue 12 §14: an open room's journal held one (index, offset) pair per record written, for as long as the
    room was open; a snapshot's checkpoint now lets go of those before it, and reads still find every record."""
    s = open_embedded(tmp_path, fsync=False)
    assert isinstance(s.log, FileLog)
    for i in range(1, 401):
        await s.log.append("c-o", _record(i))
    await s.log.save_snapshot("c-o", RoomSnapshot(300, 300, {"setup": {}}))
    journal = s.log.journal("c-o")
    assert len(journal.checkpoints) <= 2 + 100  # the start, the mark at 300 and the records after it
    assert [r.index for r in await s.log.read("c-o", 150)] == list(range(151, 401))
    assert [r.index for r in await s.log.read("c-o", 350)] == list(range(351, 401))
    await s.close()
    s = open_embedded(tmp_path, fsync=False)
    assert [r.index for r in await s.log.read("c-o", 0)] == list(range(1, 401))
    await s.close()
