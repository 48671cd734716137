"""Property tests: random legal order sequences, with the moderator's fire rulings now and then, keep the battle
sound (D-N-4, N-START-1, N-LOSSES, D-N-2, D-GEN-1, N-FIRE-4). Each example is a whole battle of random orders;
together they play thousands of orders."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.core.replay import Recorder, event_lines, replay
from server.napoleonic.battle.engine import BattleEngine
from server.napoleonic.battle.state import ON_FIELD, STATUSES, BattleState
from server.napoleonic.battle.terrain import TERRAIN

from .driver import close_battle_config, play_phase, random_battle_config

ROWS = ["." * 70 for _ in range(70)]
for _y in range(30, 40):
    ROWS[_y] = "." * 10 + "ff" * 5 + "." * 10 + "SSSS" + "." * 6 + "~~" + "+" + "~~" + "." * 10 + "F" * 5 + "." * 10
ROWS = [r.ljust(70, ".")[:70] for r in ROWS]
ROWS = [r[:34] + "=" + r[35:] for r in ROWS]
ELEVATION = ["0" * 70 for _ in range(70)]
for _y in range(42, 50):
    ELEVATION[_y] = "0" * 20 + "1" * 10 + "2" * 4 + "1" * 10 + "0" * 26


def check(state: BattleState) -> None:
    seen: dict[tuple[int, int], str] = {}
    m = state.map
    for u in state.units.values():
        assert u.status in STATUSES
        assert 0 <= u.facing < 8 and u.points >= 0
        assert 0 <= u.loss_tolerance <= max(u.type.loss_tolerance, 0)
        assert 0 <= u.guns <= u.type.guns
        assert u.formation in u.type.formations
        assert 0 <= u.fire_shares_turns <= state.turn_limit and bool(u.fire_shares) == bool(u.fire_shares_turns)
        if u.status != ON_FIELD:
            continue
        for x, y in u.cells:
            assert m.on_map(x, y), f"{u.id} off the map"
            assert u.arm in TERRAIN[m.cover[y * m.width + x]].passable, f"{u.id} on impassable ground"
            assert (x, y) not in seen, f"{u.id} overlaps {seen.get((x, y))}"
            seen[(x, y)] = u.id
            assert state.occ[y * m.width + x] == u.num
    assert sum(1 for v in state.occ if v) == len(seen)
    for side in state.sides:
        assert state.counted(side) <= state.limit(side)
    for a, b in state.melees:
        assert state.units[a].on_field and state.units[b].on_field and state.units[a].side != state.units[b].side


def play(seed: int, rng: random.Random, close: bool, units: int = 8, turns: int = 15) -> Recorder[BattleState]:
    cfg = close_battle_config(rng, units, turn_limit=turns) if close else random_battle_config(rng, 6, rows=ROWS,
                                                                                               turn_limit=turns)
    if not close:
        cfg["map"]["elevation"] = ELEVATION
        cfg["sides"][1]["retreat_with_battle"] = rng.random() < 0.3  # D-N-13: the smaller zone still holds them
    rec = Recorder(cfg, seed, BattleEngine())
    check(rec.state)
    phases = 0
    while not rec.state.over:
        play_phase(rec, rng, retreat_chance=0.01, ruling_chance=0.1)
        check(rec.state)
        phases += 1
        if phases % 5 == 0:
            assert BattleState.load(rec.state.dump()).dump() == rec.state.dump()
        assert phases <= 2 * turns, "a battle always ends by the turn limit (D-N-2)"
    assert rec.state.result is not None and not rec.engine.active_teams(rec.state)
    return rec


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), close=st.booleans(), rnd=st.randoms(use_true_random=False))
def test_random_battles_stay_sound_and_replay_identically_D_N_4_D_GEN_1(seed: int, close: bool,
                                                                        rnd: random.Random) -> None:
    rec = play(seed, rnd, close)
    state, events = replay(rec.export(), rec.engine)
    assert event_lines(events) == event_lines(rec.events)
    assert state.dump() == rec.state.dump()


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32))
def test_thousand_short_order_sequences_stay_sound_D_N_4_D_GEN_1(seed: int) -> None:
    rec = play(seed, random.Random(seed), True, units=3, turns=2)
    _, events = replay(rec.export(), rec.engine)
    assert event_lines(events) == event_lines(rec.events)
