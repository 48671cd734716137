"""Every view the battle and storm engines build, for every viewer class, has the protocol's shape
(shared/protocol/views.py), along random battles and a storm (issue 14)."""

from __future__ import annotations

import random

from server.core.engine import MODERATOR, PUBLIC, SPECTATOR
from server.core.replay import Recorder
from server.napoleonic.battle.engine import BattleEngine
from server.napoleonic.siege.engine import SiegeEngine
from shared.protocol.views import BattleView
from tests.napoleonic.battle.driver import army, close_battle_config, play_phase

VIEWERS = (MODERATOR, SPECTATOR, PUBLIC, "team:red", "team:blue")


def test_battle_views_have_the_protocols_shape_for_every_viewer_issue_14() -> None:
    for seed, hidden in ((1, False), (2, True)):
        rng = random.Random(seed)
        cfg = close_battle_config(rng, 8, turn_limit=5)
        cfg["hidden"] = hidden
        rec = Recorder(cfg, seed, BattleEngine())
        while True:
            for viewer in VIEWERS:
                BattleView.model_validate(rec.engine.view(rec.state, viewer))
            if rec.state.over:
                break
            play_phase(rec, rng, retreat_chance=0.05)


def test_storm_views_have_the_protocols_shape_issue_14() -> None:
    rng = random.Random(3)
    cfg = {"fortress": "Dresden", "map_seed": 3, "turn_limit": 3,
           "besieger": {"name": "blue", "units": army("b", 6, rng), "howitzers": []},
           "garrison": {"name": "red", "units": army("r", 4, rng)}}
    engine = SiegeEngine()
    state, _ = engine.setup(cfg, 3)
    for viewer in VIEWERS:
        view = BattleView.model_validate(engine.view(state, viewer))
        assert view.kind == "siege" and view.siege is not None


def test_a_stormed_fortress_result_has_the_protocols_shape_issue_14() -> None:
    """The golden storm of Dresden, replayed to the garrison's capitulation: the result with its siege outcome
    (N-SIEGE-7, N-SIEGE-8) validates for every viewer."""
    from server.core.replay import loads, replay
    from tests.napoleonic.siege.test_golden import GOLDEN

    engine = SiegeEngine()
    state, _ = replay(loads((GOLDEN / "storm.replay.json").read_text(encoding="utf-8")), engine)
    for viewer in VIEWERS:
        view = BattleView.model_validate(engine.view(state, viewer))
        assert view.result is not None and view.result.siege is not None and view.result.siege.capitulated
