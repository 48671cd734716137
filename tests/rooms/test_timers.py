"""A room's timers go through the injected scheduler (server/rooms/scheduler.py): the test moves time on and the
room's clock flags exactly at its deadline — no sleep, no private method (C-1.9)."""

from __future__ import annotations

from pathlib import Path

from server.rooms.members import Member
from tests.rooms.helpers import ManualClock, ManualScheduler, open_hub, spec


async def test_the_clock_flags_when_the_scheduler_reaches_its_deadline_and_follows_the_moderator_C_1_9(
        tmp_path: Path) -> None:
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    scheduler = hub.scheduler
    assert isinstance(scheduler, ManualScheduler)
    made = await hub.create_campaign(spec())
    room = hub.rooms[made["room"]]
    mod = Member(made["campaign"], "moderator", "moderator")
    deadline = clock() + 60_000
    assert scheduler.pending() == [deadline]  # red's turn: its clock's deadline is the room's one timer

    await scheduler.advance(59_999)
    assert not [e for e in room.history if e.kind == "clock_flagged"]
    await hub.submit(room.id, "clock", {"action": "adjust", "team": "red", "delta_ms": 10_000}, mod)
    assert scheduler.pending() == [deadline + 10_000]  # re-armed at the new deadline
    await scheduler.advance(1)
    assert not [e for e in room.history if e.kind == "clock_flagged"]

    await hub.submit(room.id, "clock", {"action": "pause"}, mod)
    assert scheduler.pending() == []  # paused: nothing can fall due
    await scheduler.advance(3_600_000)
    await hub.submit(room.id, "clock", {"action": "resume"}, mod)
    assert scheduler.pending() == [clock() + 10_000]

    await scheduler.advance(10_000)
    flagged = [e for e in room.history if e.kind == "clock_flagged"]
    assert len(flagged) == 1 and flagged[0].at_ms == clock()
    ended = [e for e in room.history if e.kind == "turn_ended"][-1]
    assert ended.data == {**ended.data, "team": "red", "flagged": True}
    assert scheduler.pending() == [clock() + 60_000]  # blue's turn, blue's deadline
    await hub.close()
    assert scheduler.pending() == []  # a closed room's timer is stopped
