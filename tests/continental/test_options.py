"""The Continental War's legal options (issue 14): a counter's marches this turn are judged by the move order's
own preconditions and step price, and every one is carried out in full when ordered (C-4.3, C-4.12, C-9.8a) —
but where an enemy counter out of sight stops it (C-1.3); what is not offered says why; the answer has the
protocol's shape."""

from __future__ import annotations

import contextlib
import random

import pytest

from server.continental.fog import visible_units
from server.continental.state import CampaignState
from server.core.engine import Actor
from server.core.errors import RuleError
from shared.protocol.options import ArmyOptions
from tests.continental.helpers import BLUE, ENGINE, RED, next_turn, place, start


def check_marches(state: CampaignState, team: str) -> list[dict[str, object]]:
    whole = ENGINE.options(state, f"team:{team}", None)
    assert whole is not None
    ArmyOptions.model_validate(whole)
    actor = Actor(f"{team[0]}1", team, 0)
    done: list[dict[str, object]] = []
    for uid in whole["armies"]:
        opts = ENGINE.options(state, f"team:{team}", uid)
        assert opts is not None
        ArmyOptions.model_validate(opts)
        for m in opts["marches"]:
            order = {"type": "move", "unit": uid, "path": m["path"]}
            try:
                _after, events = ENGINE.apply(state, actor, order)
            except RuleError as err:
                seen = set(visible_units(state, team))
                unseen = [u for u in state.units.values() if u.alive and u.team != team and u.id not in seen]
                assert unseen and err.rule in ("C-4.12", "C-4.6"), f"offered {order} refused: {err.rule} {err}"
                continue
            if state.level < 3:
                moved = next(e.data for e in events if e.kind == "moved" and e.data["unit"] == uid)
                assert moved["path"] == m["path"], "carried out in full"
            done.append(order)
    return done


@pytest.mark.parametrize(("level", "seed"), [(1, 1), (2, 2), (3, 3)])
def test_every_march_offered_is_carried_out_in_random_turns_issue_14_C_4_3(level: int, seed: int) -> None:
    rng = random.Random(seed)
    state = start(level, seed=seed, clear=False)
    total = 0
    for _ in range(3):
        for team in sorted(ENGINE.active_teams(state), key=state.order.teams.index):
            done = check_marches(state, team)
            total += len(done)
            actor = Actor(f"{team[0]}1", team, 0)
            for order in rng.sample(done, k=min(4, len(done))):
                with contextlib.suppress(RuleError):
                    state, _ = ENGINE.apply(state, actor, order)
        state = next_turn(state)
    assert total


def test_a_counter_s_marches_never_end_on_another_and_what_is_refused_says_why_C_4_12() -> None:
    state = start(1)
    r = place(state, "red", "RD", (40, 20))
    b = place(state, "blue", "RD", (41, 20))
    opts = ENGINE.options(state, "team:red", r)
    assert opts is not None and opts["active"] and opts["marches"] and opts["points"] == 1
    assert all(m["to"] != [41, 20] for m in opts["marches"])  # counters never share a cell (C-4.12)
    assert all(0 < m["cost"] <= 1 for m in opts["marches"])
    far = max(opts["marches"], key=lambda m: m["cost"])
    after, _ = ENGINE.apply(state, RED, {"type": "move", "unit": r, "path": far["path"]})
    assert list(after.units[r].cell) == far["to"]
    again = ENGINE.options(after, "team:red", r)
    assert again is not None and (not again["marches"] or all(m["cost"] <= 1 - far["cost"] + 1e-9
                                                              for m in again["marches"]))
    theirs = ENGINE.options(state, "team:red", b)
    assert theirs is not None and theirs["refused"][0]["code"] == "not_your_unit"
    waiting = ENGINE.options(state, "team:blue", b)
    assert waiting is not None and not waiting["active"] and waiting["refused"][0]["rule"] == "C-1.7"
    assert BLUE.team == "blue"


def test_a_fortress_is_offered_neither_a_march_nor_a_split_and_refused_both_C_3_6() -> None:
    """A fortress's garrison stays in its fortress (C-3.6): its options offer no order, saying why, and the orders
    that would move it or break it into regiments (C-4.9, C-4.10) are refused by the same rule."""
    state = start(level=2, clear=False)
    fort = next(u for u in state.units.values() if u.arm == "FORT" and u.team == "red")
    opts = ENGINE.options(state, "team:red", fort.id)
    assert opts is not None
    ArmyOptions.model_validate(opts)
    assert opts["orders"] == [] and opts["marches"] == []
    assert [(r["order"], r["rule"]) for r in opts["refused"]] == [("*", "C-3.6")]
    whole = ENGINE.options(state, "team:red", None)
    assert whole is not None and fort.id not in whole["armies"]
    for o in ({"type": "split", "unit": fort.id}, {"type": "turn", "unit": fort.id, "facing": "E"}):
        with pytest.raises(RuleError) as refused:
            ENGINE.apply(state, RED, o)
        assert refused.value.rule == "C-3.6", o
