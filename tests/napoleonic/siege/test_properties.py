"""Random storms: random commanders
(tests/napoleonic/battle/driver.py's, plus climbs and capitulations) play storms to their
end through the SiegeEngine; the siege's invariants hold after every command, and every storm replays identically
(N-SIEGE-10 … N-SIEGE-13, D-N-4, D-N-15, D-GEN-1)."""

from __future__ import annotations

import random

import pytest

from server.core.engine import Actor
from server.core.errors import RuleError
from server.core.replay import Recorder, event_lines, replay
from server.napoleonic.siege.engine import SiegeEngine, StormState

from ..battle.driver import army, candidates


def _invariants(s: StormState) -> None:
    b = s.battle
    seen: dict[tuple[int, int], str] = {}
    for unit in b.field_units():
        for c in unit.cells:
            assert b.map.on_map(*c)
            assert c not in seen, f"{unit.id} overlaps {seen[c]}"
            seen[c] = unit.id
            if s.field.is_wall(*c):
                assert unit.arm == "infantry" or unit.id in s.guns, f"{unit.id} ({unit.kind}) on the wall"
    for uid, turn in s.ladders.items():
        assert b.units[uid].side == s.besieger and turn <= b.turn


def _storm(seed: int) -> Recorder[StormState]:
    rng = random.Random(seed)
    cfg = {"fortress": "Dresden", "map_seed": seed, "turn_limit": 14,
           "besieger": {"name": "blue", "units": army("b", 12, rng), "howitzers": []},
           "garrison": {"name": "red", "units": army("r", 8, rng)}}
    rec = Recorder(cfg, seed, SiegeEngine())
    while not rec.state.battle.over:
        side = rec.state.battle.active_side or ""
        actor = Actor(f"p-{side}", side)
        if side == rec.state.garrison and rng.random() < 0.01:
            rec.order(actor, {"type": "capitulate"})
            break
        for uid in [x.id for x in rec.state.battle.field_units(side)]:
            unit = rec.state.battle.units[uid]
            if not unit.on_field or uid in rec.state.guns:
                continue
            orders = candidates(rec.state.battle, unit, rng)
            if unit.arm == "infantry":
                orders.insert(0, {"type": "climb", "unit": uid})
            for o in orders:
                try:
                    rec.order(actor, o)
                except RuleError:
                    continue
                _invariants(rec.state)
                if not rec.state.battle.units[uid].on_field or rec.state.battle.over:
                    break
            if rec.state.battle.over:
                break
        if not rec.state.battle.over:
            rec.end_turn(side)
            _invariants(rec.state)
    return rec


@pytest.mark.parametrize("seed", range(6))
def test_random_storms_keep_the_siege_invariants_and_replay_N_SIEGE_10_D_N_15(seed: int) -> None:
    rec = _storm(seed)
    assert rec.state.battle.over and "siege" in (rec.state.battle.result or {})
    _, events = replay(rec.export(), SiegeEngine())
    assert event_lines(events) == event_lines(rec.events)
