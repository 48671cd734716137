"""Chess clocks (C-1.9; decisions CLK-1… in docs/clocks.md). Time is passed in: `now_ms` is any integer."""

from __future__ import annotations

import pytest

from server.clock import LEVEL_TURN_RANGE_MS, ClockError, Clocks, ClockSettings
from server.core.engine import Event
from server.core.errors import RuleError

MIN = 60_000
T0 = 1_000_000


def per_turn(turn_ms: int = 5 * MIN, **kw: int) -> Clocks:
    return Clocks.create(ClockSettings(mode="per_turn", turn_ms=turn_ms, **kw), ["red", "blue"])


def fischer(initial_ms: int = 10 * MIN, increment_ms: int = 30_000) -> Clocks:
    settings = ClockSettings(mode="fischer", initial_ms=initial_ms, increment_ms=increment_ms)
    return Clocks.create(settings, ["red", "blue"])


def reserve(turn_ms: int = 3 * MIN, reserve_ms: int = 2 * MIN) -> Clocks:
    settings = ClockSettings(mode="per_turn_reserve", turn_ms=turn_ms, reserve_ms=reserve_ms)
    return Clocks.create(settings, ["red", "blue"])


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


# --- C-1.9 defaults per level --------------------------------------------------------------------------------------

def test_level_2_limits_a_turn_within_3_to_5_minutes_C_1_9() -> None:
    settings = ClockSettings.for_level(2)
    assert settings.mode == "per_turn"
    assert 3 * MIN <= settings.turn_ms <= 5 * MIN
    assert LEVEL_TURN_RANGE_MS[2] == (3 * MIN, 5 * MIN)


def test_level_3_gives_10_minutes_per_turn_C_1_9() -> None:
    settings = ClockSettings.for_level(3)
    assert settings.mode == "per_turn" and settings.turn_ms == 10 * MIN


def test_level_1_shares_level_2s_limit_C_1_9_C_1_7_CLK_1() -> None:
    assert ClockSettings.for_level(1) == ClockSettings.for_level(2)


def test_no_level_4_C_0_2() -> None:
    with pytest.raises(ClockError) as err:
        ClockSettings.for_level(4)
    assert err.value.rule == "C-0.2"


# --- per-turn limit without accumulation (C-1.9) --------------------------------------------------------------------

def test_per_turn_clock_counts_down_only_while_its_turn_runs_C_1_9() -> None:
    clocks = per_turn()
    assert clocks.remaining_ms("red", T0) == 5 * MIN
    clocks, events = clocks.start_turn("red", T0)
    assert kinds(events) == ["clock_started"]
    assert events[0].data["deadline_ms"] == T0 + 5 * MIN
    assert clocks.remaining_ms("red", T0 + 70_000) == 5 * MIN - 70_000
    assert clocks.remaining_ms("blue", T0 + 70_000) == 5 * MIN
    assert clocks.running() == {"red"}


def test_unused_time_is_not_carried_to_the_next_turn_C_1_9() -> None:
    clocks, _ = per_turn().start_turn("red", T0)
    clocks, events = clocks.end_turn("red", T0 + 1 * MIN)
    assert kinds(events) == ["clock_stopped"] and events[0].data["used_ms"] == MIN
    assert clocks.remaining_ms("red", T0 + 2 * MIN) == 5 * MIN
    clocks, _ = clocks.start_turn("red", T0 + 10 * MIN)
    assert clocks.remaining_ms("red", T0 + 10 * MIN) == 5 * MIN


def test_a_flagged_per_turn_clock_gets_a_full_limit_next_turn_C_1_9() -> None:
    clocks, _ = per_turn().start_turn("red", T0)
    clocks, events = clocks.flag_if_due("red", T0 + 5 * MIN)
    assert kinds(events) == ["clock_flagged"]
    assert clocks.view(T0 + 5 * MIN)["teams"]["red"]["flagged"] is True
    clocks, _ = clocks.start_turn("red", T0 + 9 * MIN)
    assert clocks.remaining_ms("red", T0 + 9 * MIN) == 5 * MIN
    assert clocks.view(T0 + 9 * MIN)["teams"]["red"]["flagged"] is False


# --- flagging -------------------------------------------------------------------------------------------------------

def test_flag_is_not_due_before_the_deadline_and_is_emitted_exactly_once() -> None:
    clocks, _ = per_turn().start_turn("red", T0)
    deadline = clocks.deadline_ms("red")
    assert deadline == T0 + 5 * MIN
    same, events = clocks.flag_if_due("red", deadline - 1)
    assert same is clocks and events == []
    clocks, events = clocks.flag_if_due("red", deadline + 250)
    assert kinds(events) == ["clock_flagged"]
    assert events[0].data["flagged_at_ms"] == deadline and events[0].data["remaining_ms"] == 0
    assert clocks.running() == frozenset() and clocks.deadline_ms("red") is None
    again, events = clocks.flag_if_due("red", deadline + 10_000)
    assert again is clocks and events == []


def test_ending_a_turn_already_ended_by_its_flag_changes_nothing() -> None:
    clocks, _ = per_turn().start_turn("red", T0)
    clocks, _ = clocks.flag_if_due("red", T0 + 6 * MIN)
    same, events = clocks.end_turn("red", T0 + 6 * MIN)
    assert same is clocks and events == []


def test_next_deadline_is_the_earliest_of_the_running_clocks() -> None:
    clocks = per_turn()
    assert clocks.next_deadline_ms() is None
    clocks, _ = clocks.start_turn("red", T0)
    clocks, _ = clocks.start_turn("blue", T0 - 30_000)
    assert clocks.next_deadline_ms() == T0 - 30_000 + 5 * MIN


# --- Fischer ---------------------------------------------------------------------------------------------------------

def test_fischer_bank_is_spent_across_turns_and_gains_the_increment() -> None:
    clocks, _ = fischer().start_turn("red", T0)
    clocks, events = clocks.end_turn("red", T0 + 4 * MIN)
    assert events[0].data["increment_ms"] == 30_000
    assert clocks.remaining_ms("red", T0 + 5 * MIN) == 10 * MIN - 4 * MIN + 30_000
    clocks, _ = clocks.start_turn("red", T0 + 8 * MIN)
    assert clocks.deadline_ms("red") == T0 + 8 * MIN + 6 * MIN + 30_000
    view = clocks.view(T0 + 8 * MIN)["teams"]["red"]
    assert view["bank_ms"] == 6 * MIN + 30_000 and view["turn_budget_ms"] is None and view["reserve_ms"] is None


def test_a_flagged_fischer_clock_still_gets_its_increment_CLK_3() -> None:
    clocks, _ = fischer(initial_ms=MIN, increment_ms=10_000).start_turn("red", T0)
    clocks, events = clocks.flag_if_due("red", T0 + 2 * MIN)
    assert kinds(events) == ["clock_flagged"]
    clocks, _ = clocks.start_turn("red", T0 + 3 * MIN)
    assert clocks.remaining_ms("red", T0 + 3 * MIN) == 10_000


# --- per-turn limit with a reserve ------------------------------------------------------------------------------------

def test_reserve_is_drawn_on_only_after_the_turn_limit_is_spent() -> None:
    clocks, _ = reserve().start_turn("red", T0)
    assert clocks.deadline_ms("red") == T0 + 5 * MIN
    view = clocks.view(T0 + 2 * MIN)["teams"]["red"]
    assert view["turn_budget_ms"] == MIN and view["reserve_ms"] == 2 * MIN
    view = clocks.view(T0 + 3 * MIN + 30_000)["teams"]["red"]
    assert view["turn_budget_ms"] == 0 and view["reserve_ms"] == 90_000 and view["remaining_ms"] == 90_000
    clocks, _ = clocks.end_turn("red", T0 + 3 * MIN + 30_000)
    clocks, _ = clocks.start_turn("red", T0 + 10 * MIN)
    view = clocks.view(T0 + 10 * MIN)["teams"]["red"]
    assert view["turn_budget_ms"] == 3 * MIN and view["reserve_ms"] == 90_000
    assert clocks.deadline_ms("red") == T0 + 10 * MIN + 3 * MIN + 90_000


def test_unused_turn_time_does_not_grow_the_reserve_C_1_9() -> None:
    clocks, _ = reserve().start_turn("red", T0)
    clocks, _ = clocks.end_turn("red", T0 + 10_000)
    assert clocks.view(T0 + 10_000)["teams"]["red"]["reserve_ms"] == 2 * MIN


# --- pause, resume, adjust ------------------------------------------------------------------------------------------

def test_time_while_paused_is_charged_to_nobody_and_no_clock_flags() -> None:
    clocks, _ = per_turn().start_turn("red", T0)
    clocks, events = clocks.pause(T0 + MIN)
    assert kinds(events) == ["clock_paused"] and events[0].data["remaining_ms"]["red"] == 4 * MIN
    assert clocks.deadline_ms("red") is None and clocks.next_deadline_ms() is None
    assert clocks.flag_if_due("red", T0 + 60 * MIN)[1] == []
    assert clocks.remaining_ms("red", T0 + 60 * MIN) == 4 * MIN
    assert clocks.running() == {"red"}
    clocks, events = clocks.resume(T0 + 60 * MIN)
    assert kinds(events) == ["clock_resumed"] and events[0].data["running"] == ["red"]
    assert clocks.deadline_ms("red") == T0 + 64 * MIN


def test_a_turn_started_while_paused_ticks_from_the_resume() -> None:
    clocks, _ = per_turn().pause(T0)
    clocks, events = clocks.start_turn("blue", T0 + MIN)
    assert events[0].data["paused"] is True and clocks.deadline_ms("blue") is None
    clocks, _ = clocks.resume(T0 + 3 * MIN)
    assert clocks.deadline_ms("blue") == T0 + 8 * MIN


def test_pause_twice_or_resume_unpaused_is_a_typed_error() -> None:
    clocks, _ = per_turn().pause(T0)
    with pytest.raises(ClockError):
        clocks.pause(T0 + 1)
    with pytest.raises(ClockError):
        per_turn().resume(T0)


def test_moderator_adds_and_removes_time_of_a_running_turn() -> None:
    clocks, _ = per_turn().start_turn("red", T0)
    clocks, events = clocks.adjust("red", 2 * MIN, T0 + MIN)
    assert kinds(events) == ["clock_adjusted"] and events[0].data["delta_ms"] == 2 * MIN
    assert clocks.remaining_ms("red", T0 + MIN) == 6 * MIN
    clocks, events = clocks.adjust("red", -10 * MIN, T0 + MIN)
    assert events[0].data["delta_ms"] == -6 * MIN and events[0].data["requested_ms"] == -10 * MIN
    assert clocks.remaining_ms("red", T0 + MIN) == 0
    clocks, events = clocks.flag_if_due("red", T0 + MIN)
    assert kinds(events) == ["clock_flagged"]


def test_adjusting_a_waiting_reserve_clock_changes_its_reserve_and_running_turn_its_budget() -> None:
    clocks, _ = reserve().adjust("blue", MIN, T0)
    assert clocks.view(T0)["teams"]["blue"]["reserve_ms"] == 3 * MIN
    clocks, _ = clocks.start_turn("blue", T0)
    clocks, _ = clocks.adjust("blue", -4 * MIN, T0 + MIN)
    view = clocks.view(T0 + MIN)["teams"]["blue"]
    assert view["turn_budget_ms"] == 0 and view["reserve_ms"] == MIN


def test_a_waiting_per_turn_clock_has_nothing_to_adjust_C_1_9() -> None:
    with pytest.raises(ClockError) as err:
        per_turn().adjust("red", MIN, T0)
    assert err.value.rule == "C-1.9"


def test_adjust_of_absurd_amounts_or_unknown_teams_is_a_typed_error() -> None:
    clocks, _ = per_turn().start_turn("red", T0)
    for team, delta in [("red", 10**15), ("red", True), ("purple", MIN)]:
        with pytest.raises(RuleError):
            clocks.adjust(team, delta, T0)


# --- lag compensation -----------------------------------------------------------------------------------------------

def test_lag_credit_is_not_charged_but_is_capped() -> None:
    clocks, _ = per_turn(lag_cap_ms=800).start_turn("red", T0)
    _, events = clocks.end_turn("red", T0 + 10_000, lag_credit_ms=300)
    assert events[0].data["lag_credit_ms"] == 300 and events[0].data["used_ms"] == 9_700
    _, events = clocks.end_turn("red", T0 + 10_000, lag_credit_ms=60_000)
    assert events[0].data["lag_credit_ms"] == 800 and events[0].data["used_ms"] == 9_200
    _, events = clocks.end_turn("red", T0 + 10_000, lag_credit_ms=-5_000)
    assert events[0].data["lag_credit_ms"] == 0


def test_a_turn_ended_within_the_lag_cap_of_its_deadline_ends_in_time_CLK_5() -> None:
    clocks, _ = per_turn(lag_cap_ms=1_000).start_turn("red", T0)
    clocks, events = clocks.end_turn("red", T0 + 5 * MIN + 400, lag_credit_ms=600)
    assert kinds(events) == ["clock_stopped"] and events[0].data["used_ms"] == 5 * MIN - 200
    assert clocks.view(T0 + 5 * MIN + 400)["teams"]["red"]["flagged"] is False


def test_lag_credit_never_adds_time() -> None:
    clocks, _ = fischer(initial_ms=MIN, increment_ms=0).start_turn("red", T0)
    clocks, events = clocks.end_turn("red", T0 + 200, lag_credit_ms=1_000)
    assert events[0].data["used_ms"] == 0
    assert clocks.remaining_ms("red", T0 + 200) == MIN


# --- restarts ---------------------------------------------------------------------------------------------------------

def test_downtime_after_a_restart_is_charged_to_nobody() -> None:
    clocks, _ = per_turn().start_turn("red", T0)
    down, up = T0 + MIN, T0 + 30 * MIN
    restored = Clocks.load(clocks.dump())
    restored, events = restored.skip_downtime(down, up)
    assert kinds(events) == ["clock_downtime_skipped"]
    assert events[0].data == {"down_from_ms": down, "up_at_ms": up, "skipped_ms": 29 * MIN, "teams": ["red"]}
    assert restored.remaining_ms("red", up) == 4 * MIN
    assert restored.deadline_ms("red") == up + 4 * MIN


def test_downtime_must_not_end_before_it_starts() -> None:
    with pytest.raises(ClockError):
        per_turn().skip_downtime(T0, T0 - 1)


# --- simultaneous turns (level 3) -----------------------------------------------------------------------------------

def test_several_teams_run_at_once_at_level_3_C_1_7() -> None:
    clocks = Clocks.create(ClockSettings.for_level(3), ["red", "blue", "green"])
    for team in ("red", "blue", "green"):
        clocks, _ = clocks.start_turn(team, T0)
    assert clocks.running() == {"red", "blue", "green"}
    clocks, _ = clocks.end_turn("blue", T0 + 2 * MIN)
    clocks, events = clocks.flag_if_due("green", T0 + 10 * MIN)
    assert kinds(events) == ["clock_flagged"]
    assert clocks.running() == {"red"}
    assert clocks.remaining_ms("red", T0 + 10 * MIN) == 0


# --- misuse and settings ----------------------------------------------------------------------------------------------

def test_starting_a_running_clock_or_ending_a_stopped_one_is_a_typed_error() -> None:
    clocks, _ = per_turn().start_turn("red", T0)
    with pytest.raises(ClockError):
        clocks.start_turn("red", T0 + 1)
    with pytest.raises(ClockError):
        clocks.end_turn("blue", T0 + 1)
    with pytest.raises(ClockError):
        clocks.remaining_ms("purple", T0)


@pytest.mark.parametrize("data", [
    {"mode": "hourglass"},
    {"mode": "per_turn", "turn_ms": 0},
    {"mode": "per_turn", "turn_ms": -5},
    {"mode": "per_turn", "turn_ms": "300000"},
    {"mode": "fischer", "initial_ms": 0},
    {"mode": "per_turn", "lag_cap_ms": 3_600_000},
    {"mode": "per_turn", "turn_ms": 10**18},
    {"mode": "per_turn", "colour": "red"},
])
def test_hostile_settings_are_typed_errors(data: dict[str, object]) -> None:
    with pytest.raises(ClockError):
        ClockSettings.load(data)


def test_clocks_need_distinct_teams() -> None:
    with pytest.raises(ClockError):
        Clocks.create(ClockSettings(), ["red", "red"])
    with pytest.raises(ClockError):
        Clocks.create(ClockSettings(), [])


def test_view_carries_now_paused_settings_and_every_team() -> None:
    clocks, _ = per_turn().start_turn("red", T0)
    view = clocks.view(T0 + 1_000)
    assert view["now_ms"] == T0 + 1_000 and view["paused"] is False
    assert view["settings"]["turn_ms"] == 5 * MIN
    assert view["teams"]["red"] == {
        "remaining_ms": 5 * MIN - 1_000, "running": True, "ticking": True, "flagged": False,
        "deadline_ms": T0 + 5 * MIN, "turn_budget_ms": 5 * MIN - 1_000, "bank_ms": None, "reserve_ms": None,
    }
    assert view["teams"]["blue"]["running"] is False and view["teams"]["blue"]["deadline_ms"] is None


def test_dump_load_roundtrip_keeps_a_running_clock() -> None:
    clocks, _ = reserve().start_turn("red", T0)
    clocks, _ = clocks.adjust("red", 5_000, T0 + 1)
    assert Clocks.load(clocks.dump()) == clocks


def test_a_clock_given_many_days_by_the_moderator_still_round_trips() -> None:
    clocks = fischer()
    for _ in range(30):
        clocks, _ = clocks.adjust("red", 24 * 60 * MIN, T0)
    assert Clocks.load(clocks.dump()) == clocks
    assert clocks.remaining_ms("red", T0) == 10 * MIN + 30 * 24 * 60 * MIN
