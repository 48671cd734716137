"""The export format and the stores' formats together: rooms written by the old code (tests/rooms/old_format)
export byte for byte, import into either store and rebuild exactly; version 1 of the export format (a file kept
beside this test) reads and imports for good; and a campaign's rooms are held while a command writes them — a room
a server owns is refused with its node named, and no server opens a room held."""

from __future__ import annotations

import secrets
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from server.admin import exports
from server.admin.claims import Claim
from server.admin.errors import AdminError
from server.admin.transfer import campaign_rooms, export_campaign, import_campaign, services
from server.bus.local import LocalBus
from server.engines import ENGINES
from server.rooms.hub import Hub
from server.rooms.room import Room
from server.store import Store
from server.store.embedded import open_embedded
from tests.rooms.helpers import ManualClock, ManualScheduler, spec

HERE = Path(__file__).resolve().parent
OLD = HERE.parent / "rooms" / "old_format" / "embedded"
V1 = HERE / "export_v1" / "campaign-export-v1.tar.gz"
NOW = 1_700_200_000_000


@pytest.fixture(params=["embedded", pytest.param("redis", marks=pytest.mark.redis)])
async def target(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    """An empty store to import into."""
    if request.param == "embedded":
        store: Any = open_embedded(tmp_path / "target", fsync=False)
        yield store
        await store.close()
        return
    from server.backends import open_redis

    prefix = f"kstest{secrets.token_hex(4)}"
    store, bus = await open_redis(request.getfixturevalue("redis_url"), prefix)
    yield store
    async for key in store.log.r.scan_iter(match=f"{prefix}:*"):
        await store.log.r.delete(key)
    await bus.close()
    await store.close()


async def rebuilt(store: Store, room: str) -> dict[str, Any]:
    copy = await Room.open(room, services(store, ENGINES, NOW), owner=False)
    assert copy is not None
    return {"index": copy.index, "seq": copy.seq, **copy.state.dump(copy.spec)}


async def test_old_rooms_export_byte_for_byte_and_rebuild_exactly_in_either_store(tmp_path: Path,
                                                                                  target: Store) -> None:
    shutil.copytree(OLD, tmp_path / "old")
    old = open_embedded(tmp_path / "old", read_only=True)
    for meta in await old.grants.list_campaigns():
        campaign = str(meta["id"])
        made = await export_campaign(old, campaign, now_ms=NOW)
        path = tmp_path / f"{campaign}.tar.gz"
        exports.write(path, made)
        back = exports.read(path)
        assert back.meta == made.meta and back.grants == made.grants == await old.grants.grants_of(campaign)
        for a, b in zip(made.rooms, back.rooms, strict=True):
            assert [r.pack() for r in a.records] == [r.pack() for r in b.records]  # the bytes the store had
            assert a.snapshot == b.snapshot and a.unserved == b.unserved
        done = await import_campaign(target, back, ENGINES, now_ms=NOW, node="test")
        assert done.tokens is None and done.rooms == len(made.rooms)
        for room in made.rooms:
            expected, got = await rebuilt(old, room.room), await rebuilt(target, room.room)
            if got["index"] == expected["index"]:
                assert got == expected
            else:  # one `downtime` record more: its running clocks skipped the time nobody served the room
                assert got["index"] == expected["index"] + 1 and got["clocks"] != expected["clocks"]
                assert {k: v for k, v in got.items() if k not in ("index", "seq", "clocks")} == {
                    k: v for k, v in expected.items() if k not in ("index", "seq", "clocks")}
        assert await target.grants.find(next(iter(made.grants or {}))) is not None
    await old.close()


async def test_version_1_of_the_export_format_reads_and_imports(tmp_path: Path, target: Store) -> None:
    made = exports.read(V1)
    assert made.campaign == "a195608c30" and made.exported_ms == 1_700_100_000_000
    assert [r.room for r in made.rooms] == ["c-a195608c30", "s-a195608c30", "b-a195608c30-1"]
    assert exports.read_manifest(V1)["format"] == "kriegsspiel/campaign-export/1"
    await import_campaign(target, made, ENGINES, now_ms=NOW, node="test")
    shutil.copytree(OLD, tmp_path / "old")
    old = open_embedded(tmp_path / "old", read_only=True)
    for room in ("b-a195608c30-1", "s-a195608c30"):
        assert (await rebuilt(target, room))["state"] == (await rebuilt(old, room))["state"]
    assert await campaign_rooms(target, "a195608c30") == [r.room for r in made.rooms]
    await old.close()


@pytest.mark.redis
async def test_a_claim_refuses_a_room_a_server_owns_and_keeps_servers_out(redis_url: str) -> None:
    from server.backends import open_redis

    prefix = f"kstest{secrets.token_hex(4)}"
    store, bus = await open_redis(redis_url, prefix)
    clock = ManualClock()
    hub = Hub(store, bus, ENGINES, node="node-a", scheduler=ManualScheduler(clock))
    made = await hub.create_campaign(spec())
    rooms = await campaign_rooms(store, made["campaign"])
    with pytest.raises(AdminError, match="is open on node node-a"):
        async with Claim(store, "admin", rooms):
            pass
    assert await store.leases.holder(f"s-{made['campaign']}") == "node-a"  # nothing taken from the server
    await hub.close()
    other = Hub(store, LocalBus(), ENGINES, node="node-b", scheduler=ManualScheduler(clock))
    async with Claim(store, "admin", rooms):
        assert await other.owned(made["room"]) is None  # held: no server opens it meanwhile
        assert await store.leases.holder(made["room"]) == "admin"
    assert await other.owned(made["room"]) is not None  # let go
    await other.close()
    async for key in store.log.r.scan_iter(match=f"{prefix}:*"):
        await store.log.r.delete(key)
    await bus.close()
    await store.close()


async def test_the_servers_own_retention_keeps_out_of_the_rooms_it_has_open(tmp_path: Path) -> None:
    clock = ManualClock()
    hub = Hub(open_embedded(tmp_path, fsync=False), LocalBus(), ENGINES, scheduler=ManualScheduler(clock))
    made = await hub.create_campaign(spec())
    with pytest.raises(AdminError, match="is open on this node"):
        async with Claim(hub.store, "retention", [made["room"]], local=hub.ownership):
            pass
    assert not hub.ownership.opening(made["room"]).locked()  # let go after the refusal
    await hub.close()
    await hub.store.close()
