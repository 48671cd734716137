"""Properties of the chess clocks (C-1.9) under any sequence of turns, pauses, adjustments, flags and restarts."""

from __future__ import annotations

from hypothesis import event, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from server.clock import MAX_ADJUST_MS, Clocks, ClockSettings

TEAMS = ["red", "blue", "green"]
team = st.sampled_from(TEAMS)
step_ms = st.integers(min_value=0, max_value=15 * 60_000)

clock_settings = st.one_of(
    st.builds(ClockSettings, mode=st.just("per_turn"), turn_ms=st.integers(1, 20 * 60_000),
              lag_cap_ms=st.integers(0, 5_000)),
    st.builds(ClockSettings, mode=st.just("fischer"), turn_ms=st.just(0), initial_ms=st.integers(1, 60 * 60_000),
              increment_ms=st.integers(0, 60_000), lag_cap_ms=st.integers(0, 5_000)),
    st.builds(ClockSettings, mode=st.just("per_turn_reserve"), turn_ms=st.integers(1, 20 * 60_000),
              reserve_ms=st.integers(0, 30 * 60_000), lag_cap_ms=st.integers(0, 5_000)),
)


class ClockMachine(RuleBasedStateMachine):
    """Drives one room's clocks through random moderator and turn commands, time only moving forward."""

    def __init__(self) -> None:
        super().__init__()
        self.clocks = Clocks.create(ClockSettings(), TEAMS)
        self.now = 0

    @initialize(s=clock_settings, start=st.integers(0, 2**41))
    def setup(self, s: ClockSettings, start: int) -> None:
        self.clocks = Clocks.create(s, TEAMS)
        self.now = start

    @rule(dt=step_ms)
    def time_passes(self, dt: int) -> None:
        """Between commands a ticking clock loses exactly the time that passed (down to zero); others keep theirs."""
        for t in TEAMS:
            before = self.clocks.remaining_ms(t, self.now)
            after = self.clocks.remaining_ms(t, self.now + dt)
            ticking = self.clocks.deadline_ms(t) is not None
            assert after == (max(0, before - dt) if ticking else before)
        self.now += dt

    @rule(t=team)
    def start(self, t: str) -> None:
        if t in self.clocks.running():
            return
        self.clocks, events = self.clocks.start_turn(t, self.now)
        assert [e.kind for e in events] == ["clock_started"]

    @rule(t=team, lag=st.integers(-10_000, 10_000))
    def end(self, t: str, lag: int) -> None:
        if t not in self.clocks.running():
            return
        before = self.clocks.remaining_ms(t, self.now)
        self.clocks, events = self.clocks.end_turn(t, self.now, lag_credit_ms=lag)
        event("a turn ended by command")
        assert events[0].data["lag_credit_ms"] <= self.clocks.settings.lag_cap_ms
        if self.clocks.settings.mode == "fischer":
            # The lag credit can give back at most what the turn cost: never more than the increment is gained.
            assert self.clocks.remaining_ms(t, self.now) <= before + self.clocks.settings.lag_cap_ms + (
                self.clocks.settings.increment_ms)

    @precondition(lambda self: not self.clocks.paused)
    @rule()
    def pause(self) -> None:
        self.clocks, _ = self.clocks.pause(self.now)

    @precondition(lambda self: self.clocks.paused)
    @rule(pause_ms=step_ms)
    def resume_after(self, pause_ms: int) -> None:
        """Time while paused is charged to nobody: every clock has the same time left after the pause."""
        before = {t: self.clocks.remaining_ms(t, self.now) for t in TEAMS}
        self.now += pause_ms
        assert {t: self.clocks.remaining_ms(t, self.now) for t in TEAMS} == before
        self.clocks, _ = self.clocks.resume(self.now)
        assert {t: self.clocks.remaining_ms(t, self.now) for t in TEAMS} == before

    @rule(t=team, delta=st.integers(-MAX_ADJUST_MS, MAX_ADJUST_MS))
    def adjust(self, t: str, delta: int) -> None:
        clocks = self.clocks
        if clocks.settings.mode == "per_turn" and t not in clocks.running():
            return
        before = clocks.remaining_ms(t, self.now)
        # Between turns, the next turn's limit is not the moderator's to take (C-1.9): only the reserve moves.
        floor = clocks.teams[t].budget_ms if t not in clocks.running() else 0
        self.clocks, events = clocks.adjust(t, delta, self.now)
        assert self.clocks.remaining_ms(t, self.now) == max(floor, before + delta)
        assert events[0].data["delta_ms"] == self.clocks.remaining_ms(t, self.now) - before

    @rule(t=team, late=st.integers(0, 5_000))
    def flag(self, t: str, late: int) -> None:
        deadline = self.clocks.deadline_ms(t)
        now = self.now if deadline is None else max(self.now, deadline + late)
        was_paused = self.clocks.paused
        clocks, events = self.clocks.flag_if_due(t, now)
        if was_paused:
            assert events == []
        if events:
            event("a clock flagged")
            assert [e.kind for e in events] == ["clock_flagged"] and deadline is not None
            assert clocks.flag_if_due(t, now + 1)[1] == []
        self.clocks, self.now = clocks, now

    @rule(down=step_ms, outage=st.integers(0, 10**9))
    def restart(self, down: int, outage: int) -> None:
        """The server dies `down` ms after the last command and comes back `outage` ms later."""
        before = {t: self.clocks.remaining_ms(t, self.now + down) for t in TEAMS}
        restored = Clocks.load(self.clocks.dump())
        up = self.now + down + outage
        self.clocks, _ = restored.skip_downtime(self.now + down, up)
        self.now = up
        assert {t: self.clocks.remaining_ms(t, up) for t in TEAMS} == before

    @invariant()
    def remaining_never_negative_in_the_view(self) -> None:
        view = self.clocks.view(self.now)
        for t, row in view["teams"].items():
            assert row["remaining_ms"] >= 0
            for pool in ("turn_budget_ms", "bank_ms", "reserve_ms"):
                assert row[pool] is None or row[pool] >= 0
            assert row["remaining_ms"] == self.clocks.remaining_ms(t, self.now)

    @invariant()
    def paused_clocks_have_no_deadline(self) -> None:
        if self.clocks.paused:
            assert self.clocks.next_deadline_ms() is None
            assert all(row["ticking"] is False for row in self.clocks.view(self.now)["teams"].values())

    @invariant()
    def a_flagged_clock_is_stopped(self) -> None:
        for t, clock in self.clocks.teams.items():
            assert not (clock.flagged and clock.running), t

    @invariant()
    def a_waiting_per_turn_clock_holds_a_full_limit_C_1_9(self) -> None:
        s = self.clocks.settings
        if s.mode == "fischer":
            return
        for clock in self.clocks.teams.values():
            if not clock.running and not clock.flagged:
                assert clock.budget_ms == s.turn_ms

    @invariant()
    def dump_load_round_trips(self) -> None:
        assert Clocks.load(self.clocks.dump()) == self.clocks


TestClockMachine = ClockMachine.TestCase
TestClockMachine.settings = settings(max_examples=150, stateful_step_count=30, deadline=None)


@given(s=clock_settings, run_ms=step_ms, paused_ms=st.integers(0, 10**10), start=st.integers(0, 2**41))
def test_a_clock_never_flags_while_paused(s: ClockSettings, run_ms: int, paused_ms: int, start: int) -> None:
    clocks, _ = Clocks.create(s, ["red", "blue"]).start_turn("red", start)
    clocks, _ = clocks.pause(start + run_ms)
    for now in (start + run_ms, start + run_ms + paused_ms):
        assert clocks.flag_if_due("red", now)[1] == []
        assert clocks.deadline_ms("red") is None


@given(s=clock_settings, used=step_ms, paused_ms=st.integers(0, 10**10))
def test_the_deadline_moves_by_exactly_the_pause(s: ClockSettings, used: int, paused_ms: int) -> None:
    clocks, _ = Clocks.create(s, ["red", "blue"]).start_turn("blue", 0)
    deadline = clocks.deadline_ms("blue")
    assert deadline is not None
    paused, _ = clocks.pause(used)
    resumed, _ = paused.resume(used + paused_ms)
    assert resumed.deadline_ms("blue") == max(deadline, used) + paused_ms
