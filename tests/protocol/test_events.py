"""Every event kind the battle and storm engines emit has a model of its `data` (shared/protocol/events.py), and
every event they emit along random battles and storms validates against it — no field missing, none unknown
(issue 14)."""

from __future__ import annotations

import random
import re

from server.core.engine import Event
from server.core.replay import Recorder
from server.napoleonic.battle.engine import BattleEngine
from server.napoleonic.siege.engine import SiegeEngine
from shared.protocol.events import BATTLE_EVENTS, EVENTS
from tests.conftest import ROOT
from tests.napoleonic.battle.driver import army, candidates, close_battle_config, play_phase, random_battle_config

EMITTED = re.compile(r"""(?:log\.emit|\bEvent|\bpublic)\("([a-z_]+)\"""")
CAMPAIGN_SIDE = {"fortifying_begun", "fortifying_progress", "fortifying_abandoned", "fortress_built"}
"""Emitted from server/napoleonic/siege by the campaign (D-N-16), into the campaign room."""


EMITS = re.compile(r"""\b(?:public|team|teams|for_team|for_teams|umpire|moderator|Event|_event|emit)\(\s*"""
                   r"""(?:[^(),"]+(?:\([^()]*\))?,\s*)?"([a-z_]+)\"""")
"""A kind given to any of the event helpers (its audience, if any, first)."""
SOURCES = {
    "campaign": ("continental",),
    "napoleonic": ("napoleonic/campaign", "napoleonic/siege/sequence.py", "napoleonic/siege/fortress.py"),
    "drill": ("drill",),
    "skirmish": ("skirmish",),
}
"""Where each campaign-like engine's events come from (the Napoleonic campaign's sieges and fortresses are built
by server/napoleonic/siege for it)."""


def test_every_event_kind_of_every_room_kind_has_a_model_issue_14() -> None:
    for engine, places in SOURCES.items():
        kinds: set[str] = set()
        for place in places:
            path = ROOT / "server" / place
            for source in [path] if path.is_file() else path.rglob("*.py"):
                kinds |= set(EMITS.findall(source.read_text()))
        assert kinds, engine
        assert sorted(kinds - set(EVENTS[engine])) == [], engine
    assert EVENTS["battle"] is EVENTS["siege"] is BATTLE_EVENTS


def check(events: list[Event], seen: set[str]) -> None:
    for e in events:
        assert e.kind in BATTLE_EVENTS, f"no model for {e.kind}"
        BATTLE_EVENTS[e.kind].model_validate(dict(e.data))
        seen.add(e.kind)


def test_every_battle_event_kind_emitted_has_a_model_issue_14() -> None:
    kinds: set[str] = set()
    for pkg in ("battle", "siege"):
        for path in (ROOT / "server" / "napoleonic" / pkg).rglob("*.py"):
            kinds |= set(EMITTED.findall(path.read_text()))
    kinds -= CAMPAIGN_SIDE
    assert {"battle_turn", "moved", "fire", "storm_begun"} <= kinds
    assert sorted(kinds - set(BATTLE_EVENTS)) == []


def test_every_event_of_random_battles_and_a_storm_has_its_models_fields_issue_14() -> None:
    seen: set[str] = set()
    for seed, close in ((1, True), (2, False), (3, True)):
        rng = random.Random(seed)
        cfg = close_battle_config(rng, 8, turn_limit=12) if close else random_battle_config(rng, 6, turn_limit=12)
        rec = Recorder(cfg, seed, BattleEngine())
        check(list(rec.events), seen)
        while not rec.state.over:
            before = len(rec.events)
            play_phase(rec, rng, retreat_chance=0.03, ruling_chance=0.2)
            check(list(rec.events)[before:], seen)
    rng = random.Random(4)
    cfg = {"fortress": "Dresden", "map_seed": 4, "turn_limit": 6,
           "besieger": {"name": "blue", "units": army("b", 8, rng), "howitzers": []},
           "garrison": {"name": "red", "units": army("r", 5, rng)}}
    storm = Recorder(cfg, 4, SiegeEngine())
    check(list(storm.events), seen)
    from server.core.engine import Actor
    from server.core.errors import RuleError
    while not storm.state.battle.over:
        side = storm.state.battle.active_side or ""
        before = len(storm.events)
        for uid in [u.id for u in storm.state.battle.field_units(side)]:
            unit = storm.state.battle.units[uid]
            if not unit.on_field or uid in storm.state.guns:
                continue
            for o in [{"type": "climb", "unit": uid}, *candidates(storm.state.battle, unit, rng)]:
                try:
                    storm.order(Actor(f"p-{side}", side), o)
                except RuleError:
                    continue
        if not storm.state.battle.over:
            storm.end_turn(side)
        check(list(storm.events)[before:], seen)
    assert {"battle_turn", "moved", "fire", "losses", "storm_begun", "roll"} <= seen
