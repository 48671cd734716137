"""The storm's legal options (issue 14): the battle's, judged by the SiegeEngine's own `apply` (walls, ladders,
D-N-15, N-SIEGE-13) — every option offered in random storms is accepted when ordered."""

from __future__ import annotations

import random

import pytest

from server.core.engine import Actor
from server.core.errors import RuleError
from server.core.replay import Recorder
from server.napoleonic.siege.engine import SiegeEngine
from shared.protocol.options import BattleOptions

from ..battle.driver import army, candidates
from ..battle.test_options import orders_of


@pytest.mark.parametrize("seed", range(2))
def test_every_option_offered_in_a_storm_is_accepted_issue_14_D_N_15(seed: int) -> None:
    rng = random.Random(seed)
    cfg = {"fortress": "Dresden", "map_seed": seed, "turn_limit": 4,
           "besieger": {"name": "blue", "units": army("b", 10, rng), "howitzers": []},
           "garrison": {"name": "red", "units": army("r", 6, rng)}}
    engine = SiegeEngine()
    rec = Recorder(cfg, seed, engine)
    offered = 0
    while not rec.state.battle.over:
        side = rec.state.battle.active_side or ""
        actor = Actor(f"p-{side}", side)
        units = [u.id for u in rec.state.battle.field_units(side)]
        for uid in rng.sample(units, k=min(3, len(units))):
            opts = engine.options(rec.state, f"team:{side}", uid)
            assert opts is not None
            BattleOptions.model_validate(opts)
            for o in orders_of(opts):
                try:
                    engine.apply(rec.state, actor, o)
                except RuleError as err:
                    raise AssertionError(f"offered {o} refused: {err.rule} {err.message}") from None
                offered += 1
        for uid in units:
            unit = rec.state.battle.units[uid]
            if not unit.on_field or uid in rec.state.guns:
                continue
            for o in candidates(rec.state.battle, unit, rng):
                try:
                    rec.order(actor, o)
                except RuleError:
                    continue
                if not rec.state.battle.units[uid].on_field or rec.state.battle.over:
                    break
            if rec.state.battle.over:
                break
        if not rec.state.battle.over:
            rec.end_turn(side)
    assert offered
