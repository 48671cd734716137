"""The skirmish's views and events have the protocol's shapes (issue 14): random games of the engine's own legal
orders (tests/skirmish/driver.py) on each scenario, both fogs, hits chosen or by default, with the moderator's
rulings; every view each viewer class receives validates against SkirmishView (shared/protocol/skirmish_views.py)
and every event against its kind's model (shared/protocol/events.py: no field missing, none unknown)."""

from __future__ import annotations

import random
from collections.abc import Iterable

from server.core.engine import MODERATOR, PUBLIC, SPECTATOR, Actor, Event
from server.core.errors import RuleError
from server.core.replay import Recorder
from server.skirmish.state import SkirmishState
from shared.protocol.events import SKIRMISH_EVENTS
from shared.protocol.skirmish_views import SkirmishView
from tests.skirmish.driver import ENGINE, choose
from tests.skirmish.helpers import scenario_file

VIEWERS = (MODERATOR, SPECTATOR, PUBLIC, "team:red", "team:blue")


def check(events: Iterable[Event], seen: set[str]) -> None:
    for e in events:
        assert e.kind in SKIRMISH_EVENTS, f"no model for {e.kind}"
        SKIRMISH_EVENTS[e.kind].model_validate(dict(e.data))
        seen.add(e.kind)


def views(rec: Recorder[SkirmishState]) -> None:
    for viewer in VIEWERS:
        SkirmishView.model_validate(ENGINE.view(rec.state, viewer))


def test_skirmish_views_and_events_have_the_protocols_shapes_issue_14() -> None:
    seen: set[str] = set()
    games = [("squad", "sight", True), ("platoon", "table", False), ("platoon_tanks", "sight", False),
             ("platoon", "sight", True), ("platoon_tanks", "table", True)]
    for seed, (name, fog, hits) in enumerate(games):
        rng = random.Random(seed)
        house = {"fog": fog, "choose_hits": hits, "turns": 4}
        rec = Recorder({"scenario": scenario_file(name), "settings": house}, seed + 1, ENGINE)
        check(rec.events, seen)
        done = len(rec.events)
        steps = 0
        while not ENGINE.is_over(rec.state):
            steps += 1
            if steps % 3 == 0:
                views(rec)
            team = sorted(ENGINE.active_teams(rec.state))[0]
            order = choose(rec.state, team, rng)
            try:
                rec.order(Actor(f"p-{team}", team), order) if order else rec.end_turn(team, rng.random() < 0.5)
            except RuleError:
                rec.order(Actor(f"p-{team}", team), {"type": "pass"})
            if steps == 15:  # the moderator's rulings (D-S-9, S-5.2, D-S-12), mid-game
                figure = next(f.id for f in rec.state.figures.values() if f.side == "blue")
                unit = next(u.id for u in rec.state.units.values() if u.side == "red")
                for ruling in ({"type": "note", "text": "smoke on the road"},
                               {"type": "set_status", "figure": figure, "status": "down"},
                               {"type": "morale", "unit": unit, "demoralised": False}):
                    try:
                        rec.moderate(ruling)
                    except RuleError:
                        continue
            check(list(rec.events)[done:], seen)
            done = len(rec.events)
        views(rec)
    assert {"skirmish_started", "deployed", "figure_moved", "enemy_moved", "roll", "hits", "figure_hit",
            "game_over", "ruling"} <= seen
