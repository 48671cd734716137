"""Fair dice (D-GEN-4, issue 12 item 3): a room commits to its seed when it opens, no seed leaves it while it runs,
it reveals the seed when its game is over, and `admin verify` replays its log from the revealed seed — OK for the
room as played, MISMATCH for a log or a seed tampered with. Child seeds are HMACs: one revealed reveals no other.

The room plays the golden field battle (tests/napoleonic/battle/golden: 214 commands, dice in every fire and melee)
on an embedded store, through `Room.submit` as the players' commands go."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import msgpack
import pytest

from server.admin import cli
from server.admin.verify import replay_check, verify
from server.bus.local import LocalBus
from server.core import seeds
from server.engines import ENGINES
from server.rooms.members import Member
from server.rooms.room import Room
from server.store.embedded import open_embedded
from server.store.records import LoggedEvent, PackedData
from tests.rooms.helpers import ManualClock, services

GOLDEN = Path(__file__).parents[1] / "napoleonic" / "battle" / "golden" / "field_battle.replay.json"
ROOM = "b-fair-1"


def _members() -> dict[str, Member]:
    return {"red": Member("fair", "player", "p-red", "red", 1), "blue": Member("fair", "player", "p-blue", "blue", 1)}


async def _played(path: Path, *, until: int | None = None) -> tuple[Any, Room, int]:
    """The golden battle played in room b-fair-1 (all of it, or its first `until` commands)."""
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    store = open_embedded(path, fsync=False)
    clock = ManualClock()
    seed = int(golden["seed"])
    room = await Room.create(ROOM, {"engine": "battle", "campaign": "fair", "teams": ["red", "blue"],
                                    "players": {"p-red": "red", "p-blue": "blue"}, "seed": seed,
                                    "config": golden["config"]}, services(store, LocalBus(), clock))
    members = _members()
    for command in golden["commands"][:until]:
        clock.advance(1000)
        if command["op"] == "order":
            await room.submit("order", {"order": command["order"]}, members[command["actor"]["team"]])
        else:
            await room.submit("end_turn", {}, members[command["team"]])
    return store, room, seed


def _contains(value: Any, seed: int) -> bool:
    if isinstance(value, dict):
        return "seed" in value or any(_contains(v, seed) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_contains(v, seed) for v in value)
    return isinstance(value, int) and not isinstance(value, bool) and value == seed


async def test_a_room_commits_to_its_seed_hides_it_while_it_runs_and_reveals_it_at_the_end_D_GEN_4(
        tmp_path: Path) -> None:
    store, room, seed = await _played(tmp_path / "data")
    try:
        assert room.engine is not None and room.engine.is_over(room.state.game)
        records = await store.log.read(ROOM, 0)
        events = [e for r in records for e in r.events]
        assert events[0].kind == "room_opened" and events[0].plain_data()["commitment"] == seeds.commitment(ROOM, seed)
        assert events[-1].kind == "seed_revealed" and events[-1].audience is None
        assert events[-1].plain_data() == {"room": ROOM, "seed": seed, "commitment": seeds.commitment(ROOM, seed),
                                           "rule": "D-GEN-4"}
        assert [e.kind for e in events].count("seed_revealed") == 1
        leaked = [e.kind for e in events[:-1] if _contains(e.plain_data(), seed)]
        assert leaked == []  # nothing before the reveal carries the seed (nor a field named seed)
        for viewer in ("moderator", "spectator", "team:red", "team:blue", "public"):
            assert not _contains(room.engine.view(room.state.game, viewer), seed)
        verdict = await verify(store, ENGINES, ROOM)
        assert verdict.ok, verdict.lines()
        assert verdict.records == len(records) and verdict.events == len(events)
        assert verdict.lines()[0].startswith(f"OK: room {ROOM}: its revealed seed {seed}")
    finally:
        await store.close()


async def test_verify_says_mismatch_for_a_roll_tampered_with_or_another_seed_D_GEN_4(tmp_path: Path) -> None:
    store, _room, seed = await _played(tmp_path / "data")
    try:
        records = await store.log.read(ROOM, 0)
    finally:
        await store.close()
    compared, problems = replay_check(ROOM, records, ENGINES, seed)
    assert problems == [] and compared == sum(len(r.events) for r in records)
    # another seed: the first die differs
    _, problems = replay_check(ROOM, records, ENGINES, seed + 1)
    assert len(problems) == 1 and "room_opened" in problems[0]
    # a die's face changed in the log (a 6 where a 1 was rolled)
    at, i = next((n, k) for n, r in enumerate(records) for k, e in enumerate(r.events) if e.kind == "roll")
    e = records[at].events[i]
    data = dict(e.plain_data())
    data["face"] = 7 - int(data["face"])
    forged = LoggedEvent(e.seq, e.at_ms, e.kind, PackedData(msgpack.packb(data)), e.audience)
    events = list(records[at].events)
    events[i] = forged
    tampered = [*records[:at], replace(records[at], events=tuple(events)), *records[at + 1:]]
    _, problems = replay_check(ROOM, tampered, ENGINES, seed)
    assert len(problems) == 1 and f"record {records[at].index}" in problems[0]


async def test_admin_verify_on_the_command_line_ok_mismatch_and_not_yet_D_GEN_4(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store, _room, _seed = await _played(tmp_path / "done")
    await store.close()
    store, _room, _seed = await _played(tmp_path / "running", until=20)
    await store.close()
    done, running = str(tmp_path / "done"), str(tmp_path / "running")

    async def run(*argv: str) -> int:
        return await asyncio.to_thread(cli.main, list(argv), lambda exc, settings: None, {})

    assert await run("verify", ROOM, "--data-dir", done) == 0
    assert capsys.readouterr().out.startswith(f"OK: room {ROOM}")
    assert await run("verify", ROOM, "--data-dir", running) == 1
    assert "has not revealed its seed" in capsys.readouterr().err
    assert await run("verify", "b-nosuch-1", "--data-dir", done) == 1
    assert "no room b-nosuch-1" in capsys.readouterr().err


def test_child_seeds_are_hmacs_one_revealed_reveals_no_other_D_GEN_4() -> None:
    parent = 123456789
    a, b = seeds.child_seed(parent, "b-k-1"), seeds.child_seed(parent, "b-k-2")
    assert a != b and a == seeds.child_seed(parent, "b-k-1")
    assert seeds.child_seed(parent + 1, "b-k-1") != a
    assert all(0 <= s < 2**seeds.SEED_BITS for s in (a, b))
    assert parent not in (a, b) and seeds.derived(a, "map") not in (a, b)
    assert seeds.commitment("b-k-1", a) != seeds.commitment("b-k-2", a)  # the room id is in the commitment
