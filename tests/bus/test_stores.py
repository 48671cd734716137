"""Both stores keep the same contract: the next index only, reads after an index, snapshots, leases; the
embedded journal cuts off a frame torn by a crash."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from server.bus.base import LogConflict, LoggedEvent, Record, RoomSnapshot, Store
from server.bus.embedded import DataDirLocked, FileStore, LocalBus


@pytest.fixture(params=["embedded", pytest.param("redis", marks=pytest.mark.redis)])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    if request.param == "embedded":
        s: Any = FileStore(tmp_path, fsync=False)
        yield s
        await s.close()
        return
    url = request.getfixturevalue("redis_url")
    from server.bus.redis import open_redis

    prefix = f"kstest{secrets.token_hex(4)}"
    s, bus = await open_redis(url, prefix)
    yield s
    async for key in s.r.scan_iter(match=f"{prefix}:*"):
        await s.r.delete(key)
    await bus.close()
    await s.close()


def _record(index: int) -> Record:
    return Record(index, 1000 + index, "chat", {"text": f"m{index}"}, {"player": "red-1"},
                  (LoggedEvent(index, 1000 + index, "chat", {"text": f"m{index}"}, frozenset({"team:red"})),))


async def test_append_only_the_next_index_and_read_after(store: Store) -> None:
    for i in (1, 2, 3):
        await store.append("c-x", _record(i))
    with pytest.raises(LogConflict):
        await store.append("c-x", _record(3))
    with pytest.raises(LogConflict):
        await store.append("c-x", _record(5))
    got = await store.read_log("c-x", 1)
    assert [r.index for r in got] == [2, 3]
    assert got[0] == _record(2)
    assert await store.read_log("c-x", 3) == []


async def test_snapshot_alive_and_campaigns_roundtrip(store: Store) -> None:
    assert await store.load_snapshot("c-y") is None
    await store.save_snapshot("c-y", RoomSnapshot(7, 21, {"state": {"a": [1, 2]}}))
    assert await store.load_snapshot("c-y") == RoomSnapshot(7, 21, {"state": {"a": [1, 2]}})
    await store.mark_alive(["c-y"], 12345)
    assert await store.last_alive("c-y") == 12345
    await store.put_campaign({"id": "y", "name": "Y"}, {"abc": {"campaign": "y", "role": "spectator"}})
    assert (await store.get_campaign("y")) == {"id": "y", "name": "Y"}
    assert (await store.find_grant("abc")) == {"campaign": "y", "role": "spectator"}
    assert await store.find_grant("nope") is None


async def test_lease_has_one_holder(store: Store) -> None:
    assert await store.acquire_lease("c-z", "node-a", 5_000)
    assert await store.acquire_lease("c-z", "node-a", 5_000)  # renewal
    if isinstance(store, FileStore):
        return  # one process per data directory: the LOCK file is the lease
    assert not await store.acquire_lease("c-z", "node-b", 5_000)
    await store.release_lease("c-z", "node-b")  # not the holder: nothing happens
    assert not await store.acquire_lease("c-z", "node-b", 5_000)
    await store.release_lease("c-z", "node-a")
    assert await store.acquire_lease("c-z", "node-b", 5_000)


async def test_torn_journal_frame_is_cut_off_on_open(tmp_path: Path) -> None:
    s = FileStore(tmp_path, fsync=False)
    await s.append("c-t", _record(1))
    await s.append("c-t", _record(2))
    await s.close()
    journal = tmp_path / "rooms" / "c-t" / "journal"
    whole = journal.read_bytes()
    journal.write_bytes(whole + whole[: len(whole) // 3])  # a crash in the middle of writing record 3
    s = FileStore(tmp_path, fsync=False)
    assert [r.index for r in await s.read_log("c-t", 0)] == [1, 2]
    await s.append("c-t", _record(3))
    assert [r.index for r in await s.read_log("c-t", 0)] == [1, 2, 3]
    await s.close()


def test_one_process_per_data_directory(tmp_path: Path) -> None:
    s = FileStore(tmp_path)
    with pytest.raises(DataDirLocked):
        FileStore(tmp_path)
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
