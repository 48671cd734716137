"""A fresh join's snapshot brings back the room's recent events as its `log` (a page reloaded mid-game gets its
turn log back): only what its viewer may see — never another team's events (hidden moves, team chat), never the
spectators' full view younger than its delay (issue 12 item 1) — and exactly what a socket of that viewer that
stayed got live."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from server.core.engine import SPECTATOR
from server.rooms import catch_up
from server.rooms.hub import Hub
from server.rooms.members import Member
from shared.protocol.server import Snapshot
from tests.rooms.helpers import ManualClock, open_hub, spec
from tests.rooms.test_battles import players
from tests.rooms.test_spectating import Seen


async def _snapshot(hub: Hub, member: Member, room: str) -> dict[str, Any]:
    sent: list[dict[str, Any]] = []
    await hub.enter(Seen(), member, room, None, sent.append)
    snapshots = [s for s in sent if s["t"] == "snapshot"]
    assert len(snapshots) == 1 and not [s for s in sent if s["t"] == "ev"], sent  # the log is not sent as news
    Snapshot.model_validate(snapshots[0])  # the protocol's message: its log's events are `ev` messages
    return snapshots[0]


def _texts(log: list[dict[str, Any]]) -> list[str]:
    return [e["data"]["text"] for e in log if e["kind"] == "chat"]


async def test_a_rejoin_as_red_after_blue_only_events_gets_none_of_them_C_1_8(tmp_path: Path) -> None:
    hub = await open_hub(tmp_path, ManualClock())
    made = await hub.create_campaign(spec())
    room, m = str(made["room"]), players(made["campaign"])
    stayed: dict[str, Seen] = {}
    joined_at = hub.rooms[room].seq
    for who in ("red-1", "blue-1", "moderator", "spectator"):  # sockets that stay: what they get live
        stayed[who] = Seen()
        await hub.enter(stayed[who], m[who], room, None, [].append)
    await hub.submit(room, "order", {"order": {"type": "move", "counter": "r1", "to": [1, 1]}}, m["red-1"])
    await hub.submit(room, "chat", {"channel": "team", "text": "red plan"}, m["red-2"])
    await hub.submit(room, "end_turn", {}, m["red-1"])
    await hub.submit(room, "order", {"order": {"type": "move", "counter": "b2", "to": [3, 6]}}, m["blue-2"])
    await hub.submit(room, "chat", {"channel": "team", "text": "blue plan"}, m["blue-1"])
    await hub.submit(room, "chat", {"channel": "moderator", "text": "blue asks the umpire"}, m["blue-1"])
    await hub.submit(room, "chat", {"channel": "players", "text": "peace?"}, m["blue-1"])
    history = hub.rooms[room].history
    blue_only = [e for e in history if e.audience is not None and "team:red" not in e.audience]
    assert any(e.kind == "counter_moved" for e in blue_only) and len(blue_only) >= 3  # the case is a real one

    log = (await _snapshot(hub, m["red-2"], room))["log"]
    assert not {e.seq for e in blue_only} & {e["seq"] for e in log}
    assert _texts(log) == ["red plan", "peace?"]
    assert not [e for e in log if e["kind"] == "counter_moved" and e["data"].get("team") == "blue"]
    for who, member in (("red-1", m["red-2"]), ("blue-1", m["blue-2"]), ("moderator", m["moderator"]),
                        ("spectator", m["spectator"])):
        live = [e for e in map(json.loads, stayed[who].frames) if e["t"] == "ev"]
        log = (await _snapshot(hub, member, room)).get("log", [])
        assert [e for e in log if e["seq"] > joined_at] == live and live, who
    assert _texts((await _snapshot(hub, m["blue-2"], room))["log"]) == ["blue plan", "blue asks the umpire", "peace?"]
    await hub.close()


async def test_the_log_keeps_the_last_events_only(tmp_path: Path) -> None:
    hub = await open_hub(tmp_path, ManualClock())
    made = await hub.create_campaign(spec())
    room, m = str(made["room"]), players(made["campaign"])
    for i in range(catch_up.LOG_EVENTS + 5):
        await hub.submit(room, "chat", {"channel": "players", "text": f"line {i}"}, m["red-1"])
    log = (await _snapshot(hub, m["blue-1"], room))["log"]
    assert len(log) == catch_up.LOG_EVENTS and log[-1]["seq"] == hub.rooms[room].seq
    assert _texts(log)[0] == "line 5" and [e["seq"] for e in log] == sorted(e["seq"] for e in log)
    await hub.close()


async def test_a_spectator_rejoin_within_the_delay_gets_no_younger_event_issue_12(tmp_path: Path) -> None:
    """Under `full` the spectators' link sees everything, but only `delay` behind: its snapshot is the room as it
    was then, and so is its log — nothing said or done since, not even the setup's events while they are young."""
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    made = await hub.create_campaign(spec(clock=None))  # no clocks: red's turn lasts while time passes
    room, m = str(made["room"]), players(made["campaign"])
    await hub.submit(room, "ruling", {"ruling": {"type": "spectating", "full": True, "delay_minutes": 2}},
                     m["moderator"])
    delay = 2 * 60_000
    snap = await _snapshot(hub, m["spectator"], room)
    assert "log" not in snap  # the room is younger than the delay: nothing of it yet
    await hub.submit(room, "chat", {"channel": "announce", "text": "early"}, m["moderator"])
    clock.advance(delay + 1_000)
    await hub.submit(room, "order", {"order": {"type": "move", "counter": "r1", "to": [1, 1]}}, m["red-1"])
    await hub.submit(room, "chat", {"channel": "announce", "text": "late"}, m["moderator"])
    moved = hub.rooms[room].history[-2]
    assert moved.kind == "counter_moved" and moved.audience is not None and SPECTATOR in moved.audience

    snap = await _snapshot(hub, m["spectator"], room)
    assert _texts(snap["log"]) == ["early"] and all(e["at_ms"] <= clock() - delay for e in snap["log"])
    assert snap["seq"] < moved.seq and not [e for e in snap["log"] if e["seq"] >= moved.seq]
    named, _ = await hub.name_spectator(made["moderator_token"], made["campaign"], "Anna")
    assert _texts((await _snapshot(hub, named, room))["log"]) == ["early", "late"]  # named: live

    clock.advance(delay)
    snap = await _snapshot(hub, m["spectator"], room)
    assert _texts(snap["log"]) == ["early", "late"] and moved.seq in {e["seq"] for e in snap["log"]}
    await hub.close()
