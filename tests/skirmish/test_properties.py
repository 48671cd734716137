"""Property tests: whole games of random legal orders (tests/skirmish/driver.py) never crash, keep the table sound,
never show the attacker a held-back ambush, and replay to the same events byte for byte (D-S-13, D-S-3, D-GEN-1,
S-9.2). Each example is a whole game; the orders come from the engine's own list of legal orders."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.core.engine import Actor, Event
from server.core.errors import RuleError
from server.core.replay import Recorder, event_lines, replay
from server.skirmish.state import AMBUSH, ON_TABLE, SkirmishState

from .driver import ENGINE, choose
from .helpers import scenario_file


def check(s: SkirmishState) -> None:
    seen: dict[tuple[int, int], str] = {}
    for f in s.figures.values():
        assert f.status in ("reserve", "ambush", "in_action", "down", "out")
        if f.status not in ON_TABLE:
            continue
        for c in f.cells():
            assert s.table.on_table(c), f"{f.id} off the table"
            assert c not in seen, f"{f.id} on {seen.get(c)}"
            seen[c] = f.id
            if f.vehicle:
                assert s.table.kind(c) != "house", f"{f.id} in a house"
    for side in s.sides.values():
        assert 0 <= side.orders_left <= 6 and side.points >= 0
    assert (s.decision is None) or s.decision.count < len(s.decision.candidates)
    assert ENGINE.load(ENGINE.dump(s)).dump() == s.dump()


def hidden_ids(s: SkirmishState) -> set[str]:
    held = {f.id for f in s.figures.values() if f.status == AMBUSH}
    return held | {f.unit for f in s.figures.values() if f.status == AMBUSH}


def leaks(s: SkirmishState, events: list[Event], attacker: str) -> list[str]:
    """Anything the attacker's view or events name of the units still held back (ids, and ambush orders)."""
    hidden = hidden_ids(s)
    if not hidden:
        return []
    words = {f'"{i}"' for i in hidden} | {f'"{i}.' for i in hidden if "." not in i}
    text = json.dumps(ENGINE.view(s, f"team:{attacker}"))
    text += json.dumps([dict(e.data) for e in events if e.visible_to(f"team:{attacker}")])
    return sorted(w for w in words if w in text)


def play_checked(name: str, seed: int, rng: random.Random, house: dict[str, Any]) -> Recorder[SkirmishState]:
    rec = Recorder({"scenario": scenario_file(name), "settings": house}, seed, ENGINE)
    attacker = rec.state.attacker.team
    steps = 0
    while not ENGINE.is_over(rec.state):
        steps += 1
        assert steps < 3000
        team = sorted(ENGINE.active_teams(rec.state))[0]
        o = choose(rec.state, team, rng)
        try:
            events = rec.order(Actor(f"p-{team}", team), o) if o else rec.end_turn(team, rng.random() < 0.5)
        except RuleError as exc:
            assert o is not None and o["type"] == "move_fire", (o, exc.rule, exc.message)
            events = rec.order(Actor(f"p-{team}", team), {"type": "pass"})
        assert not leaks(rec.state, list(events), attacker), leaks(rec.state, list(events), attacker)
        if steps % 7 == 0:
            check(rec.state)
    check(rec.state)
    assert rec.state.turn <= rec.state.settings.turns and not ENGINE.active_teams(rec.state)
    return rec


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**40), name=st.sampled_from(["squad", "platoon", "platoon_tanks"]),
       fog=st.sampled_from(["sight", "table"]), choose_hits=st.booleans(), rnd=st.randoms(use_true_random=False))
def test_random_games_stay_sound_hide_the_ambush_and_replay_identically_D_S_13_D_GEN_1(
        seed: int, name: str, fog: str, choose_hits: bool, rnd: random.Random) -> None:
    rec = play_checked(name, seed, rnd, {"fog": fog, "choose_hits": choose_hits})
    state, events = replay(rec.export(), ENGINE)
    assert event_lines(events) == event_lines(rec.events)
    assert state.dump() == rec.state.dump()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**40))
def test_short_games_of_squads_stay_sound_and_replay_S_9_2_D_GEN_1(seed: int) -> None:
    rec = play_checked("squad", seed, random.Random(seed), {"turns": 2})
    _, events = replay(rec.export(), ENGINE)
    assert event_lines(events) == event_lines(rec.events)
