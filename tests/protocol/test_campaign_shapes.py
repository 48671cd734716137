"""The campaigns' views and events have the protocol's shapes (issue 14): two computer commanders play a
Continental War campaign at each level and a Napoleonic campaign (its battles resolved quickly, D-L-2, or by a
battle room's result), and random moves play drills; every view each viewer class receives validates against
ContinentalView / NapoleonicView / DrillView (shared/protocol/campaign_views.py) and every event against its kind's
model (shared/protocol/events.py)."""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

from server.continental.engine import CampaignEngine
from server.core.engine import MODERATOR, PUBLIC, SPECTATOR, Actor, Event
from server.core.errors import RuleError
from server.drill.engine import DrillEngine
from server.napoleonic.campaign.engine import NapoleonicEngine
from server.napoleonic.campaign.state import RUNNING
from shared.protocol.campaign_views import ContinentalView, DrillView, NapoleonicView
from shared.protocol.events import CONTINENTAL_EVENTS, DRILL_EVENTS, NAPOLEONIC_EVENTS

VIEWERS = (MODERATOR, SPECTATOR, PUBLIC, "team:red", "team:blue")


def check(events: Iterable[Event], models: dict[str, type[BaseModel]], seen: set[str]) -> None:
    for e in events:
        assert e.kind in models, f"no model for {e.kind}"
        models[e.kind].model_validate(dict(e.data))
        seen.add(e.kind)


def play(engine: Any, state: Any, view_model: type[BaseModel], models: dict[str, type[BaseModel]], seen: set[str],
         turns: int, referee: Any = None) -> Any:
    """The engine's own commanders give every team's orders for `turns` rounds; `referee` settles what no
    commander may (a battle room's result)."""
    for step in range(turns * 2):
        for viewer in VIEWERS:
            view_model.model_validate(engine.view(state, viewer))
        if engine.is_over(state):
            break
        if referee is not None:
            state = referee(state, seen)
        for team in sorted(engine.active_teams(state)):
            for order in engine.commander(engine.view(state, f"team:{team}"), team, step) or []:
                try:
                    state, events = engine.apply(state, Actor(f"{team}-1", team, 1), order)
                except RuleError:
                    continue
                check(events, models, seen)
            if team in engine.active_teams(state):
                state, events = engine.end_turn(state, team, flagged=False)
                check(events, models, seen)
    return state


def test_continental_views_and_events_have_the_protocols_shapes_issue_14() -> None:
    engine = CampaignEngine()
    seen: set[str] = set()
    for level in (1, 2, 3):
        cfg = {"scenario": "continental", "level": level, "recon_deception": level == 3,
               "teams": [{"colour": "red", "seats": 1}, {"colour": "blue", "seats": 1}]}
        state, events = engine.setup(cfg, level)
        check(events, CONTINENTAL_EVENTS, seen)
        play(engine, state, ContinentalView, CONTINENTAL_EVENTS, seen, turns=8)
    assert {"campaign_created", "moved", "turn_ended", "sighting", "deployment_report"} <= seen


def test_napoleonic_views_and_events_have_the_protocols_shapes_issue_14() -> None:
    engine = NapoleonicEngine()
    seen: set[str] = set()

    def referee(state: Any, seen: set[str]) -> Any:
        for battle in sorted(state.battles.values(), key=lambda b: int(b.id)):
            if battle.status == RUNNING and battle.quick is None:
                try:
                    state, events = engine.moderate(state, {"type": "impose_quick", "battle": battle.id})
                except RuleError:
                    continue
                check(events, NAPOLEONIC_EVENTS, seen)
        return state

    for seed in (1, 2):
        state, events = engine.setup({"scenario": "napoleonic", "teams": ["red", "blue"]}, seed)
        check(events, NAPOLEONIC_EVENTS, seen)
        play(engine, state, NapoleonicView, NAPOLEONIC_EVENTS, seen, turns=12, referee=referee)
    assert {"campaign_created", "army_moved", "turn_begun", "turn_ended"} <= seen


def test_napoleonic_views_of_a_contact_a_battle_a_siege_and_its_terms_issue_14() -> None:
    from tests.hostile.test_engine_orders import NAP, campaigns

    for state in campaigns():
        for viewer in VIEWERS:
            NapoleonicView.model_validate(NAP.view(state, viewer))


def test_drill_views_and_events_have_the_protocols_shapes_issue_14() -> None:
    engine = DrillEngine()
    seen: set[str] = set()
    for seed, level in ((1, 1), (2, 3)):
        rng = random.Random(seed)
        state, events = engine.setup({"level": level, "width": 6, "height": 5, "counters": 3, "max_turns": 6}, seed)
        check(events, DRILL_EVENTS, seen)
        while True:
            for viewer in VIEWERS:
                DrillView.model_validate(engine.view(state, viewer))
            if engine.is_over(state):
                break
            for team in sorted(engine.active_teams(state)):
                for counter in [c for c in state.counters if c.team == team]:
                    to = [counter.x + rng.choice((-1, 0, 1)), counter.y + rng.choice((-1, 1))]
                    try:
                        state, events = engine.apply(state, Actor(f"{team}-1", team, 1),
                                                     {"type": "move", "counter": counter.id, "to": to})
                    except RuleError:
                        continue
                    check(events, DRILL_EVENTS, seen)
                state, events = engine.end_turn(state, team, flagged=False)
                check(events, DRILL_EVENTS, seen)
        state, events = engine.moderate(state, {"type": "note", "text": "well drilled"})
        check(events, DRILL_EVENTS, seen)
    assert set(DRILL_EVENTS) - {"counter_spotted"} <= seen


def test_continental_views_of_peace_proposals_a_cutoff_fire_and_a_capitulation_issue_14() -> None:
    """What the played campaigns rarely reach: a compromise proposal with its border (C-10.3), a cut-off fire
    (C-9.7d), penalties (C-10.5) and a defeated team (C-10.1)."""
    from tests.continental.helpers import BLUE, ENGINE, RED, end, order, place, start

    def views(state: Any) -> None:
        for viewer in VIEWERS:
            ContinentalView.model_validate(ENGINE.view(state, viewer))

    s = start(1)
    ad = place(s, "red", "AD", (41, 22), facing="E")
    place(s, "red", "RD", (43, 18), facing="E", uid="rA")
    place(s, "blue", "RD", (56, 20), uid="bA")
    s, _ = order(s, RED, type="strike", unit=ad, target=[44, 22], mode="cutoff")
    s, _ = order(s, RED, type="move", unit="rA", path=[[44, 18]])  # red is the aggressor
    s, _ = order(s, RED, type="propose_peace", to="blue", kind="compromise",
                 border=[[[44, 18], "blue"], [[45, 19], "red"]])
    views(s)
    view = ContinentalView.model_validate(ENGINE.view(s, "team:blue"))
    assert view.proposals and view.proposals[0].border[0] == ([44, 18], "blue")
    assert ContinentalView.model_validate(ENGINE.view(s, MODERATOR)).interdictions
    assert view.penalties
    s, _ = end(s, "red")
    s, _ = order(s, BLUE, type="capitulate")
    views(s)
    over = ContinentalView.model_validate(ENGINE.view(s, PUBLIC))
    assert over.defeated and over.result is not None and over.result.end == "capitulation"


def test_napoleonic_views_of_a_quick_resolution_offered_D_L_2_issue_14() -> None:
    engine = NapoleonicEngine()
    seen: set[str] = set()
    offered: list[str] = []

    def referee(state: Any, seen: set[str]) -> Any:
        for battle in sorted(state.battles.values(), key=lambda b: int(b.id)):
            if battle.status == RUNNING and battle.quick is None:
                try:
                    state, events = engine.apply(state, Actor(f"{battle.attacker}-1", battle.attacker, 1),
                                                 {"type": "offer_quick", "battle": battle.id})
                except RuleError:
                    continue
                check(events, NAPOLEONIC_EVENTS, seen)
                for viewer in VIEWERS:
                    view = NapoleonicView.model_validate(engine.view(state, viewer))
                    offered.extend(b.quick.offered_by for b in view.battles if b.quick is not None)
        return state

    state, _ = engine.setup({"scenario": "napoleonic", "teams": ["red", "blue"]}, 1)
    play(engine, state, NapoleonicView, NAPOLEONIC_EVENTS, seen, turns=8, referee=referee)
    assert offered
