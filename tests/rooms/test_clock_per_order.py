"""A clock per order (D-S-4): in the skirmish the dice before each order say which side gives it, so the side to
act may stay the same from one order to the next. The room's clock follows the engine's turn mark: every order
carried out ends the acting side's clock and starts a fresh one for the next order, even when the side is the
same (per-turn budgets are not carried over, C-1.9). Pure room rules: time passed in."""

from __future__ import annotations

from typing import Any

import pytest

from server.core.engine import Event
from server.core.errors import RuleError
from server.engines import ENGINES
from server.rooms import rules
from server.rooms.members import Member
from server.rooms.state import RoomSpec, RoomState

TURN_MS = 60_000
SETUP: dict[str, Any] = {"engine": "skirmish", "campaign": "k", "teams": ["red", "blue"],
                         "players": {"red-1": "red", "blue-1": "blue"}, "seed": 7, "lockout_ms": 60_000,
                         "clock": {"mode": "per_turn", "turn_ms": TURN_MS},
                         "config": ENGINES.config("skirmish", {"teams": ["red", "blue"]})}
PLAYERS = {"red": Member("k", "player", "red-1", "red", 1), "blue": Member("k", "player", "blue-1", "blue", 1)}


def _step(spec: RoomSpec, state: RoomState, kind: str, body: dict[str, Any], team: str | None,
          at: int) -> tuple[RoomState, list[Event]]:
    outcome = rules.step(spec, state, kind, body, PLAYERS[team] if team else None, at)
    assert outcome is not None
    return outcome


def _to_the_orders(seed: int) -> tuple[RoomSpec, RoomState, int]:
    setup = {**SETUP, "seed": seed}
    spec = RoomSpec.of("c-k", setup, ENGINES)
    state, _ = _step(spec, RoomState(None, None), "setup", setup, None, 1_000)
    at = 1_000
    while spec.engine is not None and state.game.stage != "orders":
        at += 1_000
        (team,) = spec.active(state.game)
        order = {"type": "auto_terrain"} if state.game.stage == "terrain" else {"type": "deploy"}
        state, _ = _step(spec, state, "order", {"order": order}, team, at)
    return spec, state, at


def test_the_same_side_ordering_twice_running_gets_a_fresh_clock_for_its_second_order_D_S_4_C_1_9() -> None:
    for seed in range(1, 40):
        spec, state, at = _to_the_orders(seed)
        for _ in range(12):
            (team,) = spec.active(state.game)
            at += 10_000  # ten seconds spent on each order
            assert state.clocks is not None and state.clocks.remaining_ms(team, at) == TURN_MS - 10_000
            after, events = _step(spec, state, "order", {"order": {"type": "pass"}}, team, at)
            if spec.active(after.game) == {team} and after.game.stage == "orders":
                kinds = [(e.kind, e.data.get("team")) for e in events]
                assert ("clock_stopped", team) in kinds and ("clock_started", team) in kinds
                assert kinds.index(("clock_stopped", team)) < kinds.index(("clock_started", team))
                assert events[-1].kind == "turn" and events[-1].data["active"] == [team]
                assert after.clocks is not None and after.clocks.remaining_ms(team, at) == TURN_MS
                assert after.clocks.deadline_ms(team) == at + TURN_MS  # the timer is armed for the new order
                return
            state = after
            if spec.active(state.game) != {team} and state.game.stage != "orders":
                break
    raise AssertionError("no seed gave a side two orders running")


def test_a_refused_order_or_a_chat_line_leaves_the_clock_running_on_C_1_9() -> None:
    spec, state, at = _to_the_orders(3)
    (team,) = spec.active(state.game)
    other = next(t for t in spec.teams if t != team)
    # a refused order changes nothing: the step raises and the clock runs on from where it was
    with pytest.raises(RuleError):
        rules.step(spec, state, "order", {"order": {"type": "fire", "body": "nobody", "target": "x"}},
                   PLAYERS[team], at + 5_000)
    assert state.clocks is not None and state.clocks.remaining_ms(team, at + 5_000) == TURN_MS - 5_000
    # a chat line is no order: no restart
    after, events = _step(spec, state, "chat", {"channel": "players", "text": "hello"}, team, at + 6_000)
    assert not [e for e in events if e.kind.startswith("clock_")]
    assert after.clocks is not None and after.clocks.remaining_ms(team, at + 6_000) == TURN_MS - 6_000
    assert other not in after.clocks.running()


def test_engines_without_a_turn_mark_keep_their_clocks_as_before() -> None:
    drill = {**SETUP, "engine": "drill"}
    spec = RoomSpec.of("c-k", drill, ENGINES)
    assert spec.engine is not None and spec.engine.turn_mark(None) is None
