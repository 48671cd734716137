"""The Napoleonic campaign's legal options (issue 14): an army's marches this turn are priced as the move order
prices them and every one is accepted when ordered (D-NAP-1, N-START-1); a march to an enemy the team sees ends
there; what the team cannot do says why; the answer has the protocol's shape and names no enemy out of sight."""

from __future__ import annotations

import contextlib
import random

import pytest

from server.core.engine import Actor
from server.core.errors import RuleError
from server.napoleonic.campaign.engine import NapoleonicEngine
from server.napoleonic.campaign.options import known_enemies
from server.napoleonic.campaign.state import NapoleonicState
from shared.protocol.options import ArmyOptions

from .helpers import E, army, game

TEAMS = {"teams": [{"colour": "red", "seats": 2}, {"colour": "blue", "seats": 2}]}


def check_all_marches(state: NapoleonicState, team: str) -> list[dict[str, object]]:
    whole = E.options(state, f"team:{team}", None)
    assert whole is not None
    ArmyOptions.model_validate(whole)
    actor = Actor(f"{team}-1", team, 1)
    offered: list[dict[str, object]] = []
    fogged: list[dict[str, object]] = []
    for aid in whole["armies"]:
        opts = E.options(state, f"team:{team}", aid)
        assert opts is not None
        ArmyOptions.model_validate(opts)
        assert opts["active"] == whole["active"]
        for m in opts["marches"]:
            order = {"type": "move", "army": aid, "path": m["path"]}
            try:
                _after, events = E.apply(state, actor, order)
            except RuleError as err:
                # the fog of war (C-1.3): only an enemy army the team cannot see may stop an offered march
                hidden = (err.rule == "N-START-1" and state.enemies_at(tuple(err.details["cell"]), team)
                          and tuple(err.details["cell"]) not in known_enemies(state, team))
                assert hidden, f"offered {order} refused: {err.rule} {err.message}"
                fogged.append(order)
                continue
            moved = next(e.data for e in events if e.kind == "army_moved")
            assert moved["cell"] == m["to"]
            assert abs(float(state.armies[aid].points) - float(moved["points"]) - float(m["cost"])) < 0.011
            offered.append(order)
    assert len(fogged) <= len(offered), "the fog stops some marches, not most"
    return offered


@pytest.mark.parametrize("seed", range(3))
def test_every_march_offered_is_accepted_in_random_campaign_turns_issue_14_D_NAP_1(seed: int) -> None:
    rng = random.Random(seed)
    state, _ = E.setup(TEAMS, seed)
    total = 0
    for _ in range(6):
        active = sorted(E.active_teams(state))
        if not active:
            break
        team = active[0]
        offered = check_all_marches(state, team)
        total += len(offered)
        quiet = [o for o in offered if not state.enemies_at(tuple(o["path"][-1]), team)]  # type: ignore[arg-type]
        if quiet:
            state, _ = E.apply(state, Actor(f"{team}-1", team, 1), rng.choice(quiet))
        for t in sorted(E.active_teams(state)):
            with contextlib.suppress(RuleError):
                state, _ = E.end_turn(state, t, flagged=False)
    assert total


def test_a_march_meets_the_enemy_it_sees_and_out_of_turn_says_why_N_START_1_C_1_7() -> None:
    s = game([army("r1", (22, 20), points=6)], [army("b1", (22, 18), points=6)])
    red = E.options(s, "team:red", "r1")
    assert red is not None and red["active"] and red["points"] == 6
    meet = next(m for m in red["marches"] if m["to"] == [22, 18])
    assert meet["note"] == "battle"
    beyond = [m for m in red["marches"] if [22, 18] in m["path"][:-1]]
    assert beyond == [], "no march passes through the enemy"
    _after, events = E.apply(s, Actor("red-1", "red", 1), {"type": "move", "army": "r1", "path": meet["path"]})
    assert [e.kind for e in events] == ["army_moved", "contact"]  # the defender now decides (N-START-3)
    blue = E.options(s, "team:blue", "b1")
    assert blue is not None and not blue["active"] and blue["refused"][0]["rule"] == "C-1.7"
    theirs = E.options(s, "team:red", "b1")
    assert theirs is not None and theirs["refused"][0]["code"] == "not_your_unit"
    mod = NapoleonicEngine().options(s, "moderator", None)
    assert mod is not None and not mod["active"]


def test_an_enemy_out_of_sight_is_not_named_C_1_3() -> None:
    s = game([army("r1", (22, 20), points=6)], [army("b1", (30, 12), points=6)])
    assert all(a["id"] != "b1" for a in E.view(s, "team:red")["armies"])  # out of red's sight
    red = E.options(s, "team:red", "r1")
    assert red is not None and all(m["note"] is None for m in red["marches"])
    assert "b1" not in str(red)
