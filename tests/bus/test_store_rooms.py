"""What the operator's command line needs of both stores: every room listed, a room's size and last activity, a
whole log restored at once, a room and a campaign deleted, the grants of one campaign, tokens revoked; and the
embedded store read beside a running server without a lock or a single write."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from server.store import Store
from server.store.embedded import DataDirLocked, locked, open_embedded
from server.store.records import LogConflict, RoomSnapshot
from tests.bus.test_stores import _record, store  # the fixture over both stores

__all__ = ["store"]


async def test_rooms_lists_every_room_with_a_log_and_stat_its_size_and_last_record(store: Store) -> None:
    assert await store.log.rooms() == []
    assert await store.log.stat("c-none") is None
    for i in (1, 2, 3):
        await store.log.append("c-aa", _record(i))
    await store.log.append("b-aa-1", _record(1))
    await store.log.save_snapshot("c-aa", RoomSnapshot(2, 2, {"state": "x" * 1000}))
    await store.log.read("c-never", 0)  # reading a room that has none does not make one
    assert await store.log.rooms() == ["b-aa-1", "c-aa"]
    stat = await store.log.stat("c-aa")
    assert stat is not None and stat.records == 3 and stat.last_at_ms == _record(3).at_ms
    small = await store.log.stat("b-aa-1")
    assert small is not None and small.records == 1 and 0 < small.bytes < stat.bytes  # the snapshot counts


async def test_restore_writes_a_whole_log_into_an_empty_room_only(store: Store) -> None:
    records = [_record(i) for i in range(1, 1201)]
    await store.log.restore("c-rs", records)
    assert await store.log.read("c-rs", 0) == records
    await store.log.append("c-rs", _record(1201))  # the log goes on from there
    with pytest.raises(LogConflict):
        await store.log.restore("c-rs", [_record(1)])
    with pytest.raises(LogConflict):
        await store.log.restore("c-gap", [_record(1), _record(3)])
    assert await store.log.read("c-gap", 0) == []


async def test_delete_forgets_a_rooms_log_snapshot_and_schedule(store: Store) -> None:
    await store.log.append("c-del", _record(1), due_ms=5_000)
    await store.log.save_snapshot("c-del", RoomSnapshot(1, 1, {}))
    await store.log.append("c-keep", _record(1), due_ms=5_000)
    await store.log.delete("c-del")
    await store.log.delete("c-absent")  # nothing there: nothing to do
    assert await store.log.rooms() == ["c-keep"]
    assert await store.log.load_snapshot("c-del") is None and await store.log.read("c-del", 0) == []
    assert await store.log.due_rooms(10_000) == ["c-keep"]
    await store.log.append("c-del", _record(1))  # the id may be used again, from record 1
    assert [r.index for r in await store.log.read("c-del", 0)] == [1]


async def test_grants_of_one_campaign_revoked_by_player_and_deleted_with_it(store: Store) -> None:
    red = {"campaign": "g1", "role": "player", "player": "red-1"}
    await store.grants.put_campaign({"id": "g1", "name": "One"}, {
        "h-red": red, "h-red-old": red, "h-mod": {"campaign": "g1", "role": "moderator", "player": "moderator"}})
    await store.grants.put_campaign({"id": "g2", "name": "Two"}, {"h-other": {**red, "campaign": "g2"}})
    assert set(await store.grants.grants_of("g1")) == {"h-red", "h-red-old", "h-mod"}
    assert await store.grants.revoke("g1", "red-1") == 2
    assert await store.grants.revoke("g1", "red-1") == 0
    assert await store.grants.find("h-red") is None and await store.grants.find("h-other") is not None
    assert set(await store.grants.grants_of("g1")) == {"h-mod"}
    await store.grants.delete_campaign("g1")
    assert await store.grants.get_campaign("g1") is None and await store.grants.find("h-mod") is None
    assert [c["id"] for c in await store.grants.list_campaigns()] == ["g2"]


async def test_last_seen_is_the_services_last_mark(store: Store) -> None:
    assert await store.leases.last_seen() is None
    await store.leases.mark_alive([], 42_000)
    assert await store.leases.last_seen() == 42_000


def _tear(journal: Path) -> None:
    with open(journal, "ab") as f:
        f.write(b"\0\0\1\0torn")


def _files(root: Path) -> dict[Path, tuple[int, int]]:
    return {p: (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*") if p.is_file()}


async def test_the_embedded_store_is_read_beside_its_server_without_a_lock_or_a_write(tmp_path: Path) -> None:
    live = open_embedded(tmp_path, fsync=False)
    assert locked(tmp_path)
    for i in (1, 2):
        await live.log.append("c-ro", _record(i), due_ms=9_000)
    await live.grants.put_campaign({"id": "ro", "name": "RO"}, {"h": {"campaign": "ro", "player": "moderator"}})
    _tear(tmp_path / "rooms" / "c-ro" / "journal")  # the server is in the middle of writing record 3
    before = _files(tmp_path)

    reader = open_embedded(tmp_path, read_only=True)  # no DataDirLocked: it takes no lock
    assert await reader.log.rooms() == ["c-ro"]
    assert [r.index for r in await reader.log.read("c-ro", 0)] == [1, 2]
    assert await reader.log.read("c-other", 0) == []
    assert (await reader.grants.get_campaign("ro")) == {"id": "ro", "name": "RO"}
    with pytest.raises(PermissionError):
        await reader.log.append("c-ro", _record(3))
    await reader.close()
    assert _files(tmp_path) == before  # not a byte written, the torn frame left for its writer
    assert not (tmp_path / "rooms" / "c-other").exists()
    await live.close()
    assert not locked(tmp_path)
    again = open_embedded(tmp_path, fsync=False)  # locked() left no lock behind
    with pytest.raises(DataDirLocked):
        open_embedded(tmp_path)
    await again.close()


def test_a_missing_data_directory_is_not_made_by_a_reader(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        open_embedded(tmp_path / "nowhere", read_only=True)
    assert not os.path.exists(tmp_path / "nowhere")
