"""Forks: a campaign from a turn (or an event's sequence number) on, under a new id with new tokens, beside the
original — its battles begun before the cut kept under the new id, those begun after left out, the clocks not
charged for the time between the cut and the import; and through the command line on a real server."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from server.admin.errors import AdminError
from server.admin.forks import ForkPoint, fork
from server.admin.transfer import export_campaign, import_campaign, services
from server.engines import ENGINES
from server.rooms.ids import RoomId
from tests.admin.helpers import admin, refused
from tests.net.client import Client, signed_in
from tests.net.test_play import campaign, move
from tests.rooms.helpers import ManualClock, open_hub
from tests.rooms.test_battles import meet, napoleonic, until


def test_fork_points_are_turns_or_sequence_numbers() -> None:
    assert ForkPoint.parse("3") == ForkPoint("turn", 3) == ForkPoint.parse("turn:3")
    assert ForkPoint.parse("seq:120") == ForkPoint("seq", 120)
    for bad in ("", "turn:", "seq:-1", "0", "round:2", "turn:x"):
        with pytest.raises(ValueError):
            ForkPoint.parse(bad)


async def test_a_fork_keeps_the_battles_begun_before_its_cut_under_its_new_id(tmp_path: Path) -> None:
    clock = ManualClock()
    hub = await open_hub(tmp_path / "a", clock)
    made = await hub.create_campaign(napoleonic())
    cid = made["campaign"]
    clock.advance(1_000)
    campaign_room, battle, m = await meet(hub, made)
    started = next(e.seq for e in campaign_room.history if e.kind == "battle_started")
    clock.advance(1_000)
    await hub.submit(battle.id, "chat", {"channel": "team", "text": "hold the ridge"}, m["red-1"])
    clock.advance(1_000)
    await hub.submit(made["room"], "order", {"order": {"type": "offer_quick", "battle": "1"}}, m["red-2"])
    export = await export_campaign(hub.store, cid, now_ms=clock())
    room_services = services(hub.store, ENGINES, clock())

    early = fork(export, ForkPoint("seq", started - 1), room_services, now_ms=clock())
    assert [r.room for r in early.export.rooms] == [f"c-{early.export.campaign}", f"s-{early.export.campaign}"]
    late = fork(export, ForkPoint("seq", started), room_services, now_ms=clock())
    new = late.export.campaign
    assert new != cid and late.export.grants is None and late.export.meta["id"] == new
    assert [r.room for r in late.export.rooms] == [f"c-{new}", f"s-{new}", f"b-{new}-1"]
    kept = late.export.rooms[2]
    assert kept.records[0].body["campaign"] == new and kept.records[0].body["parent"] == f"c-{new}"
    assert [r.kind for r in kept.records][-1] == "chat"  # written before the campaign's next record
    assert all(r.actor is None or r.actor["campaign"] == new for room in late.export.rooms for r in room.records)
    with pytest.raises(AdminError, match="events end at seq"):
        fork(export, ForkPoint("seq", 10_000), room_services, now_ms=clock())
    with pytest.raises(AdminError, match="reached turn 1"):
        fork(export, ForkPoint("turn", 2), room_services, now_ms=clock())

    clock.advance(60_000)  # the fork is imported a minute later
    target = await open_hub(tmp_path / "b", clock)
    done = await import_campaign(target.store, late.export, ENGINES, now_ms=clock(), node="test",
                                 since_ms=late.cut_ms)
    assert done.tokens is not None and len(done.tokens.seats) == 4
    forked = await target.owned(RoomId.campaign_room(new))
    assert forked is not None and forked.state.game.battles["1"].status != "over"  # the quick offer was cut
    battle_id = RoomId.child_room(new, "1")
    await until(lambda: battle_id in target.rooms)
    forked_battle = target.rooms[battle_id]
    assert forked_battle.engine is not None and battle.engine is not None
    assert forked_battle.engine.dump(forked_battle.state.game) == battle.engine.dump(battle.state.game)
    assert "hold the ridge" in {line["text"] for lines in forked_battle.state.chat.values() for line in lines}
    running = forked_battle.state.clocks
    assert running is not None and battle.state.clocks is not None
    remaining = {t: running.view(clock())["teams"][t]["remaining_ms"] for t in ("red", "blue")}
    last = kept.records[-1].at_ms
    original = {t: battle.state.clocks.view(last)["teams"][t]["remaining_ms"] for t in ("red", "blue")}
    assert remaining == original  # the minute until the import was charged to nobody
    assert await hub.store.grants.get_campaign(cid) is not None  # the original is untouched
    await target.close()
    await hub.close()


async def test_import_fork_at_a_turn_through_the_command_line(server_factory: Any, tmp_path: Path) -> None:
    node = server_factory().start()
    made = campaign(node, clock={"mode": "per_turn", "turn_ms": 600_000})
    room, cid = made["room"], made["campaign"]
    red = await signed_in(node.ws_url, made["seats"][0]["token"], room)
    blue = await signed_in(node.ws_url, made["seats"][2]["token"], room)
    await red.request(move(room, "r1", 1, 1))
    await red.request({"t": "end_turn", "room": room})
    await blue.request(move(room, "b1", 1, 6))
    await blue.request({"t": "end_turn", "room": room})  # turn 2 begins
    red.inbox.clear()
    await red.join(room)
    at_turn_2 = await red.wait(lambda m: m["t"] == "snapshot")
    assert at_turn_2["state"]["turn"] == 2
    await red.request(move(room, "r1", 2, 2))  # turn 2 goes on in the original
    for c in (red, blue):
        await c.close()
    export = tmp_path / "c.tar.gz"
    admin("export", cid, str(export), "--data-dir", str(node.data_dir))
    node.stop()

    assert "reached turn 2" in refused("import", str(export), "--fork-at", "turn:5", "--data-dir",
                                       str(node.data_dir))
    out = admin("import", str(export), "--fork-at", "turn:2", "--data-dir", str(node.data_dir),
                "--public-url", "https://games.example.org").stdout
    links = dict(re.findall(r"^  (\S+)\s+(https://games\.example\.org/#token=\S+)$", out, re.M))
    assert set(links) == {"moderator", "spectators", "red-1", "red-2", "blue-1", "blue-2"}, out
    new = re.search(r"as (\w+) \(", out)
    assert new is not None and new.group(1) != cid
    node.start()
    forked_room = f"c-{new.group(1)}"
    red = await signed_in(node.ws_url, links["red-1"].split("#token=")[1], forked_room)
    snap = await red.wait(lambda m: m["t"] == "snapshot")
    assert snap["state"]["turn"] == 2 and snap["active"] == ["red"]
    assert snap["state"]["counters"] == at_turn_2["state"]["counters"]  # as when turn 2 began, not as now
    old = await Client(node.ws_url).connect()
    welcome = await old.hello(made["seats"][0]["token"])  # the original's link opens the original only
    assert welcome["t"] == "welcome" and welcome["campaign"] == cid
    for c in (red, old):
        await c.close()
