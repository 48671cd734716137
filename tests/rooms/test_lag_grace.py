"""CLK-5 (docs/clocks.md), issue 12 §8: the capped, server-measured lag allowance at the room's flag. The room flags
a clock `lag_cap_ms` after its deadline; a command of the team late by no more than its link's measured lag (capped)
was sent in time and counts, a later one is refused with `not_your_turn` citing CLK-5."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from server.core.errors import NotYourTurn
from server.engines import ENGINES
from server.rooms import rules
from server.rooms.members import Member
from server.rooms.state import RoomSpec, RoomState
from tests.rooms.helpers import ManualClock, ManualScheduler, open_hub, spec

CAP = 1_000
SETUP: dict[str, Any] = {"engine": "drill", "campaign": "k", "teams": ["red", "blue"],
                         "players": {"red-1": "red", "blue-1": "blue"}, "seed": 1,
                         "clock": {"mode": "per_turn", "turn_ms": 60_000, "lag_cap_ms": CAP},
                         "config": {"teams": ["red", "blue"]}}
RED = Member("k", "player", "red-1", "red", 1)
DEADLINE = 61_000  # set up at 1 000, red's 60 s


def _room() -> tuple[RoomSpec, RoomState]:
    spec = RoomSpec.of("c-k", SETUP, ENGINES)
    outcome = rules.step(spec, RoomState(None, None), "setup", SETUP, None, 1_000)
    assert outcome is not None
    return spec, outcome[0]


def test_an_end_turn_400_ms_late_with_600_ms_measured_lag_is_accepted_CLK_5() -> None:
    spec, state = _room()
    outcome = rules.step(spec, state, "end_turn", {"lag_ms": 600}, RED, DEADLINE + 400)
    assert outcome is not None
    after, events = outcome
    stopped = next(e for e in events if e.kind == "clock_stopped")
    assert stopped.data["lag_credit_ms"] == 600 and stopped.data["team"] == "red"
    assert not any(e.kind == "clock_flagged" for e in events)
    assert spec.active(after.game) == {"blue"}


def test_an_order_late_within_its_lag_counts_and_one_later_is_refused_CLK_5() -> None:
    spec, state = _room()
    move = {"order": {"type": "move", "counter": "r1", "to": [1, 1]}}
    assert rules.step(spec, state, "order", {**move, "lag_ms": 600}, RED, DEADLINE + 400) is not None
    with pytest.raises(NotYourTurn) as err:
        rules.step(spec, state, "order", {**move, "lag_ms": 100}, RED, DEADLINE + 400)
    assert err.value.rule == "CLK-5" and err.value.details == {"late_ms": 300}


@pytest.mark.parametrize(("late", "lag"), [(400, 100), (400, 0), (1_500, 5_000), (CAP + 1, 60_000)])
def test_an_end_turn_later_than_its_capped_lag_is_refused_CLK_5(late: int, lag: int) -> None:
    spec, state = _room()
    with pytest.raises(NotYourTurn) as err:
        rules.step(spec, state, "end_turn", {"lag_ms": lag}, RED, DEADLINE + late)
    assert err.value.rule == "CLK-5" and err.value.details["late_ms"] == late - min(lag, CAP)


def test_the_room_flags_its_lag_allowance_after_the_deadline_CLK_5() -> None:
    spec, state = _room()
    assert rules.next_due(state) == DEADLINE + CAP
    assert rules.timers_due(spec, state, DEADLINE) == []  # a late end_turn may still be on its way
    assert rules.timers_due(spec, state, DEADLINE + CAP) == [("flag", {"team": "red", "grace_ms": CAP})]
    assert rules.step(spec, state, "flag", {"team": "red", "grace_ms": CAP}, None, DEADLINE + CAP - 1) is None
    outcome = rules.step(spec, state, "flag", {"team": "red", "grace_ms": CAP}, None, DEADLINE + CAP)
    assert outcome is not None
    flagged = next(e for e in outcome[1] if e.kind == "clock_flagged")
    assert flagged.data["flagged_at_ms"] == DEADLINE  # the turn's time ended at the deadline; only the flag waited


def test_a_flag_logged_before_the_allowance_replays_as_it_was_CLK_5() -> None:
    """A `flag` record without `grace_ms` (written before issue 12 §8) flags at the deadline, as it did."""
    spec, state = _room()
    assert rules.step(spec, state, "flag", {"team": "red"}, None, DEADLINE) is not None


async def test_in_a_room_the_timer_waits_for_the_allowance_and_a_late_end_turn_in_it_counts_CLK_5(
        tmp_path: Path) -> None:
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    scheduler = hub.scheduler
    assert isinstance(scheduler, ManualScheduler)
    made = await hub.create_campaign(spec(clock={"mode": "per_turn", "turn_ms": 60_000, "lag_cap_ms": CAP}))
    room = hub.rooms[made["room"]]
    red = Member(made["campaign"], "player", "red-1", "red", 1)
    deadline = clock() + 60_000
    assert scheduler.pending() == [deadline + CAP]
    await scheduler.advance(60_400)
    assert not any(e.kind == "clock_flagged" for e in room.history)
    with pytest.raises(NotYourTurn):  # 400 ms late with 100 ms of lag: too late; nothing logged
        await room.submit("end_turn", {"lag_ms": 100}, red)
    await room.submit("end_turn", {"lag_ms": 600}, red)
    ended = [e for e in room.history if e.kind == "turn_ended"][-1]
    assert ended.data["team"] == "red" and ended.data["flagged"] is False
    await scheduler.advance(CAP)
    assert not any(e.kind == "clock_flagged" for e in room.history)  # blue's clock: its own, later deadline
    await hub.close()
