"""A fresh join's snapshot brings back the room's recent game events as its `log` (a page reloaded mid-game gets its
turn log back) and the chat of its channels as its `chat` — no chat line in the log, so none comes twice and a
chatty room does not push the dice out of the log: only what its viewer may see — never another team's events
(hidden moves) nor lines (team chat), never the spectators' full view younger than its delay (issue 12 item 1) —
and exactly what a socket of that viewer that stayed got live."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from server.core.engine import SPECTATOR
from server.rooms import catch_up, channels
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
    snapshot = snapshots[0]
    assert not [e for e in snapshot.get("log", []) if e["kind"] in channels.CHAT_KINDS], "a chat line in the log"
    return snapshot


def _texts(chat: list[dict[str, Any]]) -> list[str]:
    return [line["text"] for line in chat]


async def test_a_rejoin_as_red_after_blue_only_events_gets_none_of_them_C_1_8(tmp_path: Path) -> None:
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    made = await hub.create_campaign(spec())
    room, m = str(made["room"]), players(made["campaign"])
    stayed: dict[str, Seen] = {}
    joined_at = hub.rooms[room].seq
    for who in ("red-1", "blue-1", "moderator", "spectator"):  # sockets that stay: what they get live
        stayed[who] = Seen()
        await hub.enter(stayed[who], m[who], room, None, lambda _: None)

    async def say(who: str, channel: str, text: str) -> None:
        clock.advance(1)  # a snapshot's chat is in the order of its lines' times, the live lines in the room's
        await hub.command(m[who], room, "chat", {"channel": channel, "text": text})

    await hub.submit(room, "order", {"order": {"type": "move", "counter": "r1", "to": [1, 1]}}, m["red-1"])
    await say("red-2", "team", "red plan")
    await hub.submit(room, "end_turn", {}, m["red-1"])
    await hub.submit(room, "order", {"order": {"type": "move", "counter": "b2", "to": [3, 6]}}, m["blue-2"])
    await say("blue-1", "team", "blue plan")
    await say("blue-1", "moderator", "blue asks the umpire")
    await say("moderator", "team:blue", "the umpire answers blue")
    await say("blue-1", "players", "peace?")
    await say("spectator", "spectators", "what a game")
    await say("moderator", "announce", "go on")
    history = hub.rooms[room].history
    blue_only = [e for e in history if e.audience is not None and "team:red" not in e.audience]
    assert {e.kind for e in blue_only} >= {"counter_moved", "chat"}  # the case is a real one: a move and lines
    assert [e for e in blue_only if e.kind not in channels.CHAT_KINDS]

    snap = await _snapshot(hub, m["red-2"], room)
    assert not {e.seq for e in blue_only} & {e["seq"] for e in snap["log"]}
    assert not [e for e in snap["log"] if e["kind"] == "counter_moved" and e["data"].get("team") == "blue"]
    assert _texts(snap["chat"]) == ["red plan", "peace?", "go on"]  # not blue's team, not the spectators'
    assert not {line["channel"] for line in snap["chat"]} & {"team:blue", "mod:blue"}
    for who, member in (("red-1", m["red-2"]), ("blue-1", m["blue-2"]), ("moderator", m["moderator"]),
                        ("spectator", m["spectator"])):
        live = [e for e in map(json.loads, stayed[who].frames) if e["t"] == "ev"]
        events = [e for e in live if e["kind"] not in channels.CHAT_KINDS]
        lines = [e["data"] for e in live if e["kind"] in channels.CHAT_KINDS]
        snap = await _snapshot(hub, member, room)
        assert [e for e in snap.get("log", []) if e["seq"] > joined_at] == events and events, who
        assert snap["chat"] == lines and lines, who  # the room had no line before these sockets joined
    assert _texts((await _snapshot(hub, m["blue-2"], room))["chat"]) == [
        "blue plan", "blue asks the umpire", "the umpire answers blue", "peace?", "go on"]
    await hub.close()


async def test_the_log_keeps_the_last_game_events_however_much_is_said(tmp_path: Path) -> None:
    """More than LOG_EVENTS game events, and more lines than those: the log is the last LOG_EVENTS game events,
    not pushed out by the chat, and the chat is the snapshot's `chat` (each channel's last CHAT_HISTORY lines)."""
    hub = await open_hub(tmp_path, ManualClock())
    made = await hub.create_campaign(spec())
    room, m = str(made["room"]), players(made["campaign"])
    said = 0
    while len([e for e in hub.rooms[room].history if e.kind not in channels.CHAT_KINDS]) <= catch_up.LOG_EVENTS:
        for team in ("red", "blue"):
            assert await hub.submit(room, "end_turn", {}, m[f"{team}-1"])
            for _ in range(5):
                await hub.submit(room, "chat", {"channel": "players", "text": f"line {said}"}, m[f"{team}-2"])
                said += 1
    history = hub.rooms[room].history
    game = [e.seq for e in history if e.kind not in channels.CHAT_KINDS]
    assert said > catch_up.LOG_EVENTS and history[-1].kind == "chat"  # the room ends on chat: lines are the news

    snap = await _snapshot(hub, m["blue-1"], room)
    assert [e["seq"] for e in snap["log"]] == game[-catch_up.LOG_EVENTS:]
    assert {e["kind"] for e in snap["log"]} >= {"turn_ended", "turn"}
    assert _texts(snap["chat"]) == [f"line {i}" for i in range(said - channels.CHAT_HISTORY, said)]
    await hub.close()


async def test_a_spectator_rejoin_within_the_delay_gets_no_younger_event_issue_12(tmp_path: Path) -> None:
    """Under `full` the spectators' link sees everything, but only `delay` behind: its snapshot is the room as it
    was then, and so are its log and its chat — nothing done or said since, not even the setup's events while they
    are young."""
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    made = await hub.create_campaign(spec(clock=None))  # no clocks: red's turn lasts while time passes
    room, m = str(made["room"]), players(made["campaign"])
    await hub.submit(room, "ruling", {"ruling": {"type": "spectating", "full": True, "delay_minutes": 2}},
                     m["moderator"])
    delay = 2 * 60_000
    snap = await _snapshot(hub, m["spectator"], room)
    assert "log" not in snap and not snap["chat"]  # the room is younger than the delay: nothing of it yet
    await hub.submit(room, "order", {"order": {"type": "move", "counter": "r1", "to": [1, 1]}}, m["red-1"])
    early = hub.rooms[room].history[-1]
    await hub.submit(room, "chat", {"channel": "announce", "text": "early"}, m["moderator"])
    clock.advance(delay + 1_000)
    await hub.submit(room, "end_turn", {}, m["red-1"])
    late = next(e for e in hub.rooms[room].history if e.seq > early.seq and e.kind == "turn_ended")
    await hub.submit(room, "chat", {"channel": "announce", "text": "late"}, m["moderator"])
    assert early.kind == "counter_moved" and early.audience is not None and SPECTATOR in early.audience

    snap = await _snapshot(hub, m["spectator"], room)
    assert early.seq in {e["seq"] for e in snap["log"]} and all(e["at_ms"] <= clock() - delay for e in snap["log"])
    assert snap["seq"] < late.seq and not [e for e in snap["log"] if e["seq"] >= late.seq]
    assert _texts(snap["chat"]) == ["early"]
    named, _ = await hub.name_spectator(made["moderator_token"], made["campaign"], "Anna")
    snap = await _snapshot(hub, named, room)  # named: live
    assert {early.seq, late.seq} <= {e["seq"] for e in snap["log"]} and _texts(snap["chat"]) == ["early", "late"]

    clock.advance(delay)
    snap = await _snapshot(hub, m["spectator"], room)
    assert {early.seq, late.seq} <= {e["seq"] for e in snap["log"]} and _texts(snap["chat"]) == ["early", "late"]
    await hub.close()
