"""Rooms written by the code before the rooms redesign (commit 292db94, tests/rooms/old_format/make_fixture.py)
replay to exactly what that code rebuilt: the same sequence numbers, lockouts (D-N-14), chat, spectator delay and
history — from their snapshots and from their whole logs, on the embedded store and on Redis — and they go on
taking commands.

The drill's rooms and the secret-module rooms also rebuild the same engine state, clocks, next timer and every
viewer's snapshot byte for byte. The campaign engines' rules change under them (issue 15's rule fixes came after
the fixture), so for their rooms the game the room rebuilds is held instead to the engine's own replay of the
same records: the room hands its engine exactly the commands of its log, in order."""

from __future__ import annotations

import hashlib
import json
import secrets
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import msgpack
import pytest

from server.bus.local import LocalBus
from server.core.errors import IllegalOrder, RuleError
from server.engines import ENGINES
from server.rooms.members import Member
from server.rooms.room import Room
from server.store.embedded import open_embedded
from server.store.records import Record
from tests.rooms.helpers import ManualClock, ManualScheduler, services

FIXTURE = Path(__file__).with_name("old_format")
EXPECTED = json.loads((FIXTURE / "expected.json").read_text(encoding="utf-8"))
VIEWERS = ("moderator", "spectator", "public", "team:red", "team:blue", "secret:blue-2")


def digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=list)
    return hashlib.sha256(text.encode()).hexdigest()


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, sort_keys=True, default=list))


STABLE_ENGINES = {None, "drill"}
ROOM_ONLY = ("seq", "index", "last_at", "away", "chat", "spectator_delay_ms", "history_kinds", "history")


async def describe(room: Room) -> dict[str, Any]:
    core = room.state
    history = [[e.seq, e.at_ms, e.kind, e.plain_data(), sorted(e.audience) if e.audience else None]
               for e in room.history]
    return _plain({
        "seq": room.seq, "index": room.index, "last_at": room.last_at,
        "state": digest(room.engine.dump(core.game) if room.engine is not None else None),
        "clocks": core.clocks.dump() if core.clocks is not None else None,
        "away": {p: a.dump() for p, a in core.away.items()},
        "chat": {ch: [dict(line) for line in lines] for ch, lines in core.chat.items()},
        "spectator_delay_ms": room.spectator_delay_ms,
        "next_due": room.next_due(),
        "history_kinds": [e[2] for e in history],
        "history": digest(history),
        "snapshots": {v: digest(room.snapshot_for(v)) for v in VIEWERS
                      if room.engine is None or v != "secret:blue-2"},
    })


async def _restore_redis(url: str, prefix: str) -> Any:
    import redis.asyncio as aioredis

    client = aioredis.Redis.from_url(url)
    dump = msgpack.unpackb((FIXTURE / "redis.msgpack").read_bytes(), raw=False, strict_map_key=False)
    for suffix, entry in dump.items():
        key, value = f"{prefix}:{suffix}", entry["value"]
        if entry["type"] == "stream":
            for entry_id, fields in value:
                await client.xadd(key, fields, id=entry_id)
        elif entry["type"] == "string":
            await client.set(key, value)
        elif entry["type"] == "hash":
            await client.hset(key, mapping=value)
        elif entry["type"] == "zset":
            await client.zadd(key, {member: score for member, score in value})
        else:
            await client.rpush(key, *value)
    return client


@pytest.fixture(params=["embedded", pytest.param("redis", marks=pytest.mark.redis)])
async def old_store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[tuple[str, Any, Any]]:
    """The fixture's store, copied (never written in place): (backend, store, bus)."""
    if request.param == "embedded":
        shutil.copytree(FIXTURE / "embedded", tmp_path / "data")
        store: Any = open_embedded(tmp_path / "data", fsync=False)
        yield "embedded", store, LocalBus()
        await store.close()
        return
    from server.backends import open_redis

    url = request.getfixturevalue("redis_url")
    prefix = f"kstest{secrets.token_hex(4)}"
    client = await _restore_redis(url, prefix)
    store, bus = await open_redis(url, prefix)
    yield "redis", store, bus
    await bus.close()
    await store.close()
    async for key in client.scan_iter(match=f"{prefix}:*"):
        await client.delete(key)
    await client.aclose()


def engine_replay(engine: Any, start: Any, records: list[Record]) -> Any:
    """The game a log's records make when handed to the engine directly, from `start` (a snapshot's game)."""
    game = start
    for record in records:
        body, member = record.body, Member.load(record.actor) if record.actor else None
        try:
            if record.kind == "setup":
                game, _ = engine.setup(body.get("config") or {}, int(body.get("seed", 0)))
            elif record.kind == "order":
                game, _ = engine.apply(game, member.actor, body["order"])  # type: ignore[union-attr]
            elif record.kind in ("end_turn", "flag"):
                team = str(body["team"]) if record.kind == "flag" else str(member.team)  # type: ignore[union-attr]
                game, _ = engine.end_turn(game, team, flagged=record.kind == "flag")
            elif record.kind == "ruling" and body["ruling"].get("type") != "spectator_delay":
                game, _ = engine.moderate(game, body["ruling"])
            elif record.kind == "refused":
                game, _ = engine.refused(game, str(body["team"]), IllegalOrder(str(body["message"]),
                                                                                rule=body.get("rule")))
        except RuleError:
            pass  # refused under today's rules: the room keeps its game as it was (a flag not applied)
    return game


async def test_rooms_written_by_the_old_code_rebuild_exactly_D_N_14_C_1_9(old_store: tuple[str, Any, Any]) -> None:
    backend, store, bus = old_store
    expected = EXPECTED[backend]
    clock = ManualClock(expected["now_ms"])
    for room_id in expected["rooms"]:
        for how, kw in (("snapshot", {}), ("log", {"until_ms": clock() + 10**9})):
            room = await Room.open(room_id, services(store, bus, clock), owner=False, **kw)
            assert room is not None, room_id
            got, want = await describe(room), dict(expected["rooms_described"][f"{room_id} {how}"])
            clocks = room.state.clocks
            if clocks is not None and want["next_due"] is not None and want["next_due"] == clocks.next_deadline_ms():
                # CLK-5 (issue 12 §8): a clock now flags its lag allowance after the deadline the old code armed at
                want["next_due"] += clocks.settings.lag_cap_ms
            if room.setup.get("engine") in STABLE_ENGINES:
                assert got == want, (room_id, how)
                continue
            assert {k: got[k] for k in ROOM_ONLY} == {k: want[k] for k in ROOM_ONLY}, (room_id, how)
            snap = await store.log.load_snapshot(room_id) if how == "snapshot" else None
            start = room.engine.load(snap.data["state"]) if snap is not None else None  # type: ignore[union-attr]
            records = await store.log.read(room_id, snap.index if snap is not None else 0)
            game = engine_replay(room.engine, start, records)
            assert room.engine.dump(room.state.game) == room.engine.dump(game), (room_id, how)  # type: ignore[union-attr]
            for viewer in VIEWERS[:5]:
                assert room.snapshot_for(viewer)["state"] == room.engine.view(game, viewer)  # type: ignore[union-attr]


async def test_a_room_written_by_the_old_code_takes_commands_again(old_store: tuple[str, Any, Any]) -> None:
    from server.rooms.hub import Hub

    backend, store, bus = old_store
    expected = EXPECTED[backend]
    clock = ManualClock(expected["now_ms"])
    hub = Hub(store, bus, ENGINES, scheduler=ManualScheduler(clock))
    campaign = expected["drill"]
    room = await hub.owned(f"c-{campaign}")
    assert room is not None
    seq = room.seq
    red = Member(campaign, "player", "red-1", "red", 1)
    assert await hub.submit(room.id, "chat", {"channel": "team", "text": "still here"}, red) == seq + 1
    battle = await hub.owned(expected["rooms"][-1])
    assert battle is not None and battle.spectator_delay_ms == 60_000
    await hub.close()
