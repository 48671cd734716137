"""The room's own rules as a pure step (server/rooms/rules.py): state in, state and events out, time passed in — no
room, no store, no loop."""

from __future__ import annotations

from typing import Any

import pytest

from server.core.errors import IllegalOrder
from server.engines import ENGINES
from server.rooms import rules
from server.rooms.errors import RoomError
from server.rooms.members import Member
from server.rooms.state import RoomSpec, RoomState

SETUP: dict[str, Any] = {"engine": "drill", "campaign": "k", "teams": ["red", "blue"],
                         "players": {"red-1": "red", "blue-1": "blue"}, "seed": 1, "lockout_ms": 60_000,
                         "clock": {"mode": "per_turn", "turn_ms": 60_000, "lag_cap_ms": 0},  # flags at its deadline
                         "config": {"teams": ["red", "blue"]}}
RED, BLUE = Member("k", "player", "red-1", "red", 1), Member("k", "player", "blue-1", "blue", 1)
MOD, SPECTATOR = Member("k", "moderator", "moderator"), Member("k", "spectator", "spectator")


def _room(room_id: str = "c-k") -> tuple[RoomSpec, RoomState]:
    spec = RoomSpec.of(room_id, SETUP, ENGINES)
    outcome = rules.step(spec, RoomState(None, None), "setup", SETUP, None, 1_000)
    assert outcome is not None
    return spec, outcome[0]


def _step(spec: RoomSpec, state: RoomState, kind: str, body: dict[str, Any], member: Member | None,
          at: int = 2_000) -> RoomState:
    outcome = rules.step(spec, state, kind, body, member, at)
    assert outcome is not None
    return outcome[0]


def test_setup_starts_the_first_teams_clock_and_says_whose_turn_it_is_C_1_8_C_1_9() -> None:
    spec = RoomSpec.of("c-k", SETUP, ENGINES)
    outcome = rules.step(spec, RoomState(None, None), "setup", SETUP, None, 1_000)
    assert outcome is not None
    state, events = outcome
    assert [e.kind for e in events][:2] == ["room_opened", "drill_started"] and events[-1].kind == "turn"
    assert state.clocks is not None and state.clocks.running() == {"red"}
    assert rules.next_due(state) == 61_000


def test_a_refusal_leaves_the_state_as_it_was_and_a_spectator_delay_is_part_of_the_state() -> None:
    spec, state = _room()
    with pytest.raises(RoomError) as err:
        rules.step(spec, state, "ruling", {"ruling": {"type": "spectator_delay", "ms": 5}}, RED, 2_000)
    assert err.value.code == "forbidden"
    delayed = _step(spec, state, "ruling", {"ruling": {"type": "spectator_delay", "ms": 30_000}}, MOD)
    assert delayed.spectator_delay_ms == 30_000 and state.spectator_delay_ms == 0  # a new value; the old one stays


def test_the_secret_module_locks_out_and_its_timer_brings_the_player_back_D_N_14() -> None:
    spec, state = _room()
    away = _step(spec, state, "lock", {"player": "red-1", "reason": "captured"}, MOD, at=2_000)
    assert away.away["red-1"].until_ms == 62_000 and rules.next_due(away) == 61_000  # red's clock flags first
    with pytest.raises(RoomError) as err:
        rules.step(spec, away, "order", {"order": {"type": "move", "counter": "r1", "to": [1, 1]}}, RED, 3_000)
    assert (err.value.code, err.value.rule) == ("locked_out", "D-N-14")
    with pytest.raises(RoomError) as err:
        rules.step(spec, away, "chat", {"channel": "team", "text": "psst"}, RED, 3_000)
    assert err.value.code == "locked_out"
    assert rules.step(spec, away, "release", {"player": "red-1", "by": "time"}, None, 61_999) is None  # not yet
    assert rules.timers_due(spec, away, 62_000) == [("release", {"player": "red-1", "by": "time"}),
                                                   ("flag", {"team": "red"})]
    back = _step(spec, away, "release", {"player": "red-1", "by": "time"}, None, at=62_000)
    assert back.away == {}


def test_the_secret_module_room_speaks_to_its_player_only_D_N_14() -> None:
    spec, state = _room("s-k")
    said = rules.step(spec, state, "chat", {"channel": "secret", "text": "a recount"}, RED, 2_000)
    assert said is not None and said[1][0].data["channel"] == "secret:red-1"
    assert said[1][0].audience == frozenset({"secret:red-1"})
    with pytest.raises(RoomError):
        rules.step(spec, state, "chat", {"channel": "secret", "text": "hello"}, SPECTATOR, 2_000)


def test_a_flag_not_due_is_nothing_to_log_and_one_due_ends_the_turn_C_1_9() -> None:
    spec, state = _room()
    assert rules.step(spec, state, "flag", {"team": "red"}, None, 60_999) is None
    outcome = rules.step(spec, state, "flag", {"team": "red"}, None, 61_000)
    assert outcome is not None
    flagged, events = outcome
    assert events[0].kind == "clock_flagged" and spec.active(flagged.game) == {"blue"}


def test_a_refused_order_asks_the_engine_for_its_consequence_D_C_6() -> None:
    spec, state = _room()
    error = IllegalOrder("too far", rule="D-GEN-2")
    body = rules.after_refusal("order", RED, error)
    assert body == {"team": "red", "error": "IllegalOrder", "message": "too far", "rule": "D-GEN-2"}
    assert rules.after_refusal("order", SPECTATOR, error) is None and rules.after_refusal("chat", RED, error) is None
    assert rules.step(spec, state, "refused", body, RED, 2_000) is None  # the drill attaches none (the default)


def test_only_the_server_reports_a_child_rooms_result_D_L_1() -> None:
    spec, state = _room()
    with pytest.raises(RoomError) as err:
        rules.step(spec, state, "child_over", {"child": "1", "result": {}}, MOD, 2_000)
    assert err.value.code == "forbidden"


def test_downtime_is_the_outages_and_a_dead_owners_silence_merged_issue_2_5() -> None:
    assert rules.downtime(100, [(50, 150), (200, 300)], None, 1_000) == [(100, 150), (200, 300)]
    assert rules.downtime(100, [(200, 300)], 250, 1_000) == [(200, 1_000)]  # the dead owner's silence overlaps
    assert rules.downtime(100, [], None, 1_000) == []
