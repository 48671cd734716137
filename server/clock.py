"""Chess clocks of a room: one per team (campaign) or side (battle). Pure: every call is given `now_ms`.

Rule C-1.9: "[L2] the game may be played with clocks; time per turn is then limited to 3–5 minutes, with no
accumulation. [L3] recommended: 10 minutes per turn." Three modes (docs/clocks.md has the decisions CLK-1…):

- `per_turn`: each turn has `turn_ms`; unused time is not carried over (C-1.9 "no accumulation").
- `fischer`: one bank for the whole game (`initial_ms`), `increment_ms` credited whenever a turn ends.
- `per_turn_reserve`: each turn has `turn_ms` (not carried over); once it is spent the team draws on a reserve
  (`reserve_ms`) that lasts the whole game.

A clock *runs* while its team's turn is on and *ticks* while it runs and the room is not paused. Time is charged
from the pools of a mode in the order of `SPENDING_ORDER`. A clock whose pools are empty is due; the room arms a
timer at `deadline_ms` and calls `flag_if_due`, which stops the clock and emits `clock_flagged` exactly once; the
room then ends that team's turn with the orders it had given. Every change returns the new value and its events.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, cast, get_args

from server.core.engine import Event
from server.core.errors import RuleError

ClockMode = Literal["per_turn", "fischer", "per_turn_reserve"]
Pool = Literal["budget_ms", "bank_ms", "reserve_ms"]

MODES: tuple[ClockMode, ...] = get_args(ClockMode)
MINUTE_MS = 60_000
MAX_SETTING_MS = 7 * 24 * 60 * MINUTE_MS
MAX_LAG_CAP_MS = MINUTE_MS
MAX_ADJUST_MS = 24 * 60 * MINUTE_MS
MAX_POOL_MS = 2**53
"""Pools grow with increments and adjustments; this bound only keeps a loaded value a sane int64 for msgpack."""

SPENDING_ORDER: Mapping[ClockMode, tuple[Pool, ...]] = {
    "per_turn": ("budget_ms",),
    "fischer": ("bank_ms",),
    "per_turn_reserve": ("budget_ms", "reserve_ms"),
}
"""The pools a mode charges time to, first to last; the clock is due when all are empty."""

LEVEL_TURN_MS: Mapping[int, int] = {
    1: 5 * MINUTE_MS,
    2: 5 * MINUTE_MS,
    3: 10 * MINUTE_MS,
}
"""Default per-turn limit by campaign level. C-1.9 [L2] 3–5 min (we take 5), [L3] 10 min; level 1 has no figure of
its own and shares level 2's alternating turn (C-1.7 [L1, L2]), so it takes level 2's (decision CLK-1)."""

LEVEL_TURN_RANGE_MS: Mapping[int, tuple[int, int]] = {
    2: (3 * MINUTE_MS, 5 * MINUTE_MS),
    3: (10 * MINUTE_MS, 10 * MINUTE_MS),
}
"""C-1.9 as printed: the per-turn limits the rules name for a level (anything else is a house rule, C-0.3)."""


class ClockError(RuleError):
    """A clock command that does not fit the clocks' state, or malformed clock settings."""

    code = "clock_error"


def _ms(name: str, value: Any, *, low: int = 0, high: int = MAX_SETTING_MS) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ClockError(f"{name} must be an integer number of milliseconds", rule="C-1.9", details={name: value})
    if not low <= value <= high:
        raise ClockError(f"{name} must be between {low} and {high} ms", rule="C-1.9", details={name: value})
    return value


@dataclass(frozen=True, slots=True)
class ClockSettings:
    mode: ClockMode = "per_turn"
    turn_ms: int = 5 * MINUTE_MS
    initial_ms: int = 0
    increment_ms: int = 0
    reserve_ms: int = 0
    lag_cap_ms: int = 1_000

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ClockError(f"unknown clock mode {self.mode!r}", rule="C-1.9", details={"modes": list(MODES)})
        _ms("turn_ms", self.turn_ms, low=1 if self.mode != "fischer" else 0)
        _ms("initial_ms", self.initial_ms, low=1 if self.mode == "fischer" else 0)
        _ms("increment_ms", self.increment_ms)
        _ms("reserve_ms", self.reserve_ms)
        _ms("lag_cap_ms", self.lag_cap_ms, high=MAX_LAG_CAP_MS)

    @classmethod
    def for_level(cls, level: int) -> ClockSettings:
        """C-1.9 defaults: a per-turn limit without accumulation, 5 minutes at levels 1–2, 10 at level 3."""
        if level not in LEVEL_TURN_MS:
            raise ClockError(f"no campaign level {level!r}", rule="C-0.2", details={"level": level})
        return cls(mode="per_turn", turn_ms=LEVEL_TURN_MS[level])

    def pools(self) -> tuple[Pool, ...]:
        return SPENDING_ORDER[self.mode]

    def dump(self) -> dict[str, Any]:
        return {
            "mode": self.mode, "turn_ms": self.turn_ms, "initial_ms": self.initial_ms,
            "increment_ms": self.increment_ms, "reserve_ms": self.reserve_ms, "lag_cap_ms": self.lag_cap_ms,
        }

    @classmethod
    def load(cls, data: Mapping[str, Any]) -> ClockSettings:
        unknown = set(data) - set(cls.__dataclass_fields__)
        if unknown:
            raise ClockError("unknown clock settings", rule="C-1.9", details={"unknown": sorted(map(str, unknown))})
        return cls(**dict(data))


@dataclass(frozen=True, slots=True)
class TeamClock:
    """One team's clock. `since_ms` is when it last started ticking (None unless running and not paused); the
    pools hold the time left as of `since_ms`. `flagged` says this turn ended because the time ran out."""

    budget_ms: int
    bank_ms: int
    reserve_ms: int
    running: bool = False
    since_ms: int | None = None
    flagged: bool = False

    @classmethod
    def fresh(cls, settings: ClockSettings) -> TeamClock:
        return cls(
            budget_ms=settings.turn_ms if settings.mode != "fischer" else 0,
            bank_ms=settings.initial_ms if settings.mode == "fischer" else 0,
            reserve_ms=settings.reserve_ms if settings.mode == "per_turn_reserve" else 0,
        )

    def left(self, settings: ClockSettings) -> int:
        """Time left in all pools as of `since_ms` (or now, when not ticking)."""
        return sum(getattr(self, pool) for pool in settings.pools())

    def drawn(self, pools: Sequence[Pool], amount_ms: int) -> tuple[TeamClock, int]:
        """`amount_ms` taken from `pools` in order, none below zero; returns the clock and the part not covered."""
        values: dict[Pool, int] = {}
        for pool in pools:
            have: int = getattr(self, pool)
            take = min(have, amount_ms)
            values[pool] = have - take
            amount_ms -= take
        return self.with_pools(values), amount_ms

    def with_pools(self, values: Mapping[Pool, int]) -> TeamClock:
        return replace(
            self, budget_ms=values.get("budget_ms", self.budget_ms), bank_ms=values.get("bank_ms", self.bank_ms),
            reserve_ms=values.get("reserve_ms", self.reserve_ms),
        )

    def deadline(self, settings: ClockSettings) -> int | None:
        return None if self.since_ms is None else self.since_ms + self.left(settings)

    def settled(self, settings: ClockSettings, now_ms: int) -> TeamClock:
        """The clock with the time since `since_ms` charged, ticking on from `now_ms` if it was ticking."""
        if self.since_ms is None:
            return self
        clock, _ = self.drawn(settings.pools(), max(0, now_ms - self.since_ms))
        return replace(clock, since_ms=max(now_ms, self.since_ms))

    def dump(self) -> dict[str, Any]:
        return {
            "budget_ms": self.budget_ms, "bank_ms": self.bank_ms, "reserve_ms": self.reserve_ms,
            "running": self.running, "since_ms": self.since_ms, "flagged": self.flagged,
        }

    @classmethod
    def load(cls, data: Mapping[str, Any]) -> TeamClock:
        since = data["since_ms"]
        return cls(
            budget_ms=_ms("budget_ms", data["budget_ms"], high=MAX_POOL_MS),
            bank_ms=_ms("bank_ms", data["bank_ms"], high=MAX_POOL_MS),
            reserve_ms=_ms("reserve_ms", data["reserve_ms"], high=MAX_POOL_MS),
            running=bool(data["running"]),
            since_ms=None if since is None else int(since),
            flagged=bool(data["flagged"]),
        )


@dataclass(frozen=True, slots=True)
class Clocks:
    """Every team's clock of one room, and whether the moderator has paused them all."""

    settings: ClockSettings
    teams: Mapping[str, TeamClock]
    paused: bool = False

    @classmethod
    def create(cls, settings: ClockSettings, teams: Sequence[str]) -> Clocks:
        if not teams or len(set(teams)) != len(teams):
            raise ClockError("clocks need one or more distinct teams", details={"teams": list(teams)})
        return cls(settings=settings, teams={team: TeamClock.fresh(settings) for team in teams})

    # --- reading -------------------------------------------------------------------------------------------------

    def _clock(self, team: str) -> TeamClock:
        clock = self.teams.get(team)
        if clock is None:
            raise ClockError(f"no clock for team {team!r}", details={"team": team, "teams": list(self.teams)})
        return clock

    def remaining_ms(self, team: str, now_ms: int) -> int:
        """Time left before `team` flags (this turn's budget plus bank or reserve), never negative."""
        return self._clock(team).settled(self.settings, now_ms).left(self.settings)

    def deadline_ms(self, team: str) -> int | None:
        """When `team` flags if nothing changes; None when its clock is not ticking (stopped, flagged, paused)."""
        return self._clock(team).deadline(self.settings)

    def next_deadline_ms(self) -> int | None:
        """The earliest deadline of all clocks: the one timer a room needs."""
        deadlines = [d for d in map(self.deadline_ms, self.teams) if d is not None]
        return min(deadlines, default=None)

    def running(self) -> frozenset[str]:
        """Teams whose turn is on (their clocks tick unless the room is paused)."""
        return frozenset(team for team, clock in self.teams.items() if clock.running)

    def view(self, now_ms: int) -> dict[str, Any]:
        """What clients render: per team the time left, its pools and whether it ticks; plus `now_ms` so a client
        can offset its own clock."""
        mode = self.settings.mode
        teams: dict[str, Any] = {}
        for team, clock in self.teams.items():
            now = clock.settled(self.settings, now_ms)
            teams[team] = {
                "remaining_ms": now.left(self.settings),
                "running": clock.running,
                "ticking": clock.since_ms is not None,
                "flagged": clock.flagged,
                "deadline_ms": self.deadline_ms(team),
                "turn_budget_ms": now.budget_ms if mode != "fischer" else None,
                "bank_ms": now.bank_ms if mode == "fischer" else None,
                "reserve_ms": now.reserve_ms if mode == "per_turn_reserve" else None,
            }
        return {"now_ms": now_ms, "paused": self.paused, "settings": self.settings.dump(), "teams": teams}

    # --- changing ------------------------------------------------------------------------------------------------

    def _with(self, team: str, clock: TeamClock) -> Clocks:
        return replace(self, teams={**self.teams, team: clock})

    def _event(self, kind: str, team: str, clock: TeamClock, now_ms: int, **data: Any) -> Event:
        return Event(kind, {
            "team": team, "at_ms": now_ms, "remaining_ms": clock.settled(self.settings, now_ms).left(self.settings),
            "deadline_ms": clock.deadline(self.settings), **data,
        })

    def start_turn(self, team: str, now_ms: int) -> tuple[Clocks, list[Event]]:
        """`team`'s turn begins: a fresh per-turn budget (C-1.9, no accumulation); it ticks unless paused."""
        clock = self._clock(team)
        if clock.running:
            raise ClockError(f"the clock of {team} is already running", details={"team": team})
        clock = replace(
            clock, running=True, flagged=False, since_ms=None if self.paused else now_ms,
            budget_ms=self.settings.turn_ms if self.settings.mode != "fischer" else 0,
        )
        return self._with(team, clock), [self._event("clock_started", team, clock, now_ms, paused=self.paused)]

    def end_turn(self, team: str, now_ms: int, lag_credit_ms: int = 0) -> tuple[Clocks, list[Event]]:
        """`team` ended its turn by command. Up to `settings.lag_cap_ms` of its last ticking stretch is not
        charged (the room's measure of the link's lag); the Fischer increment is credited; the per-turn budget is
        reset, unused time lost (C-1.9). Ending a turn already ended by a flag changes nothing."""
        clock = self._clock(team)
        if not clock.running:
            if clock.flagged:
                return self, []
            raise ClockError(f"the clock of {team} is not running", details={"team": team})
        credit = min(max(lag_credit_ms, 0), self.settings.lag_cap_ms)
        used = 0
        if clock.since_ms is not None:
            used = max(0, now_ms - clock.since_ms - credit)
            clock, _ = clock.drawn(self.settings.pools(), used)
        clock = self._stopped(clock)
        event = self._event(
            "clock_stopped", team, clock, now_ms, lag_credit_ms=credit, increment_ms=self.settings.increment_ms,
            used_ms=used,
        )
        return self._with(team, clock), [event]

    def _stopped(self, clock: TeamClock, *, flagged: bool = False) -> TeamClock:
        """A turn ends: the clock stops, the increment is credited (CLK-3), a per-turn budget resets (C-1.9)."""
        return replace(
            clock, running=False, since_ms=None, flagged=flagged,
            bank_ms=clock.bank_ms + self.settings.increment_ms if self.settings.mode == "fischer" else clock.bank_ms,
            budget_ms=self.settings.turn_ms if self.settings.mode != "fischer" and not flagged else clock.budget_ms,
        )

    def flag_due_ms(self, team: str) -> int | None:
        """CLK-5: when the room flags `team` — its deadline plus the lag allowance (`lag_cap_ms`), so that an
        `end_turn` sent in time over a slow link still arrives before the flag; None when not ticking."""
        deadline = self.deadline_ms(team)
        return None if deadline is None else deadline + self.settings.lag_cap_ms

    def late_ms(self, team: str, now_ms: int, lag_ms: int) -> int:
        """CLK-5: how late a command of `team` at `now_ms` is past its deadline after the link's measured lag
        (capped at `lag_cap_ms`) is allowed for; 0 when in time or not ticking."""
        deadline = self.deadline_ms(team)
        if deadline is None:
            return 0
        return max(0, now_ms - deadline - min(max(lag_ms, 0), self.settings.lag_cap_ms))

    def flag_if_due(self, team: str, now_ms: int, grace_ms: int = 0) -> tuple[Clocks, list[Event]]:
        """If `team`'s time has run out by `now_ms` (`grace_ms` past its deadline: the room passes the lag
        allowance, CLK-5), its clock stops flagged at the deadline: `clock_flagged`, once. A paused or stopped clock
        never flags."""
        deadline = self.deadline_ms(team)
        if deadline is None or now_ms < deadline + grace_ms:
            return self, []
        clock = self._stopped(self.teams[team].settled(self.settings, deadline), flagged=True)
        event = self._event("clock_flagged", team, clock, now_ms, flagged_at_ms=deadline)
        return self._with(team, clock), [event]

    def pause(self, now_ms: int) -> tuple[Clocks, list[Event]]:
        """The moderator stops every clock; time until `resume` is charged to nobody."""
        if self.paused:
            raise ClockError("the clocks are already paused")
        teams = {
            team: replace(clock.settled(self.settings, now_ms), since_ms=None) for team, clock in self.teams.items()
        }
        clocks = replace(self, teams=teams, paused=True)
        left = {team: clock.left(self.settings) for team, clock in teams.items()}
        return clocks, [Event("clock_paused", {"at_ms": now_ms, "remaining_ms": left})]

    def resume(self, now_ms: int) -> tuple[Clocks, list[Event]]:
        """The moderator restarts the clocks; the clocks of teams whose turn is on tick again from `now_ms`."""
        if not self.paused:
            raise ClockError("the clocks are not paused")
        teams = {
            team: replace(clock, since_ms=now_ms) if clock.running else clock for team, clock in self.teams.items()
        }
        clocks = replace(self, teams=teams, paused=False)
        return clocks, [Event("clock_resumed", {"at_ms": now_ms, "running": sorted(clocks.running())})]

    def adjust(self, team: str, delta_ms: int, now_ms: int) -> tuple[Clocks, list[Event]]:
        """The moderator gives (`delta_ms` > 0) or takes time (never below zero). Time given goes to the pool
        spent first now — the running turn's budget, else the bank or reserve; time taken comes out of the pools
        in spending order (CLK-4). A per-turn clock between turns has nothing that lasts to adjust (C-1.9)."""
        _ms("delta_ms", delta_ms, low=-MAX_ADJUST_MS, high=MAX_ADJUST_MS)
        clock = self._clock(team).settled(self.settings, now_ms)
        pools = [p for p in self.settings.pools() if clock.running or p != "budget_ms"]
        if not pools:
            raise ClockError(
                f"{team}'s per-turn clock is between turns; its next turn starts with a fresh limit",
                rule="C-1.9", details={"team": team},
            )
        before = clock.left(self.settings)
        if delta_ms >= 0:
            clock = clock.with_pools({pools[0]: getattr(clock, pools[0]) + delta_ms})
        else:
            clock, _ = clock.drawn(pools, -delta_ms)
        applied = clock.left(self.settings) - before
        event = self._event("clock_adjusted", team, clock, now_ms, delta_ms=applied, requested_ms=delta_ms)
        return self._with(team, clock), [event]

    def skip_downtime(self, down_from_ms: int, up_at_ms: int) -> tuple[Clocks, list[Event]]:
        """The server was down from `down_from_ms` (its last logged moment) to `up_at_ms`: ticking clocks are
        charged up to `down_from_ms` and tick on from `up_at_ms`, so the outage costs nobody time."""
        if up_at_ms < down_from_ms:
            raise ClockError("downtime ends before it starts", details={"from": down_from_ms, "to": up_at_ms})
        teams = {
            team: replace(clock.settled(self.settings, down_from_ms), since_ms=max(up_at_ms, clock.since_ms))
            if clock.since_ms is not None else clock
            for team, clock in self.teams.items()
        }
        ticking = sorted(team for team, clock in self.teams.items() if clock.since_ms is not None)
        event = Event("clock_downtime_skipped", {
            "down_from_ms": down_from_ms, "up_at_ms": up_at_ms, "skipped_ms": up_at_ms - down_from_ms,
            "teams": ticking,
        })
        return replace(self, teams=teams), [event]

    # --- persistence ---------------------------------------------------------------------------------------------

    def dump(self) -> dict[str, Any]:
        return {
            "settings": self.settings.dump(), "paused": self.paused,
            "teams": {team: clock.dump() for team, clock in self.teams.items()},
        }

    @classmethod
    def load(cls, data: Mapping[str, Any]) -> Clocks:
        teams = cast(Mapping[str, Mapping[str, Any]], data["teams"])
        return cls(
            settings=ClockSettings.load(data["settings"]),
            teams={str(team): TeamClock.load(clock) for team, clock in teams.items()},
            paused=bool(data["paused"]),
        )
