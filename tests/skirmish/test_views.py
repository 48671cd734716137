"""Views and event audiences: fog by line of sight, what each viewer class sees, every roll an event, no dice
state leaving the engine (D-S-7, D-S-3, D-S-13, D-GEN-1, D-GEN-4)."""

from __future__ import annotations

import json

from server.core.dice import Dice
from server.engines import ENGINES
from server.skirmish.state import DOWN, SkirmishState

from .helpers import (
    ACTORS,
    ATT,
    DEF,
    ENGINE,
    Scripted,
    element,
    kinds,
    order,
    put,
    rifles,
    scenario,
    scenario_file,
    start,
    visible_to,
)


def _fogged(**settings: object) -> SkirmishState:
    terrain = [element("house", 14, 10, 4, 3)]
    s = start(scenario([rifles("a", 2), rifles("b", 1)], [rifles("d", 2), rifles("e", 1)], terrain=terrain,
                       settings=dict(settings)), orders={ATT: 3, DEF: 0}, first=ATT)
    put(s, "a.1", 15, 20)
    put(s, "a.2", 16, 20)
    put(s, "b.1", 17, 21)
    put(s, "d.1", 15, 5)  # behind the house from a's squad and from b.1
    put(s, "d.2", 30, 5)  # in the open
    put(s, "e.1", 15, 2)  # behind the house too
    return s


def test_a_side_sees_the_enemies_in_line_of_sight_of_its_figures_D_S_7() -> None:
    s = _fogged()
    red = ENGINE.view(s, "team:red")
    assert {f["id"] for f in red["figures"] if f["side"] == DEF} == {"d.2"}
    enemy = next(f for f in red["figures"] if f["id"] == "d.2")
    own = next(f for f in red["figures"] if f["id"] == "a.1")
    assert "ordered" not in enemy and "ordered" in own  # the enemy's orders taken are not shown
    assert {u["id"] for u in red["units"]} == {"a", "b"}
    everyone = {"a.1", "a.2", "b.1", "d.1", "d.2", "e.1"}
    assert {f["id"] for f in ENGINE.view(s, "spectator")["figures"]} == everyone
    assert {f["id"] for f in ENGINE.view(s, "moderator")["figures"]} == everyone
    public = ENGINE.view(s, "public")
    assert public["figures"] == [] and public["units"] == [] and public["table"]["elements"]
    assert red["last_seen"] == {"d.1": {"x": 20, "y": 0, "turn": 1},  # where the deployment showed them
                                "e.1": {"x": 19, "y": 0, "turn": 1}}


def test_with_fog_table_every_deployed_enemy_is_seen_D_S_3() -> None:
    s = _fogged(fog="table")
    assert {f["id"] for f in ENGINE.view(s, "team:red")["figures"] if f["side"] == DEF} == {"d.1", "d.2", "e.1"}


def test_an_unseen_enemys_move_is_not_told_a_seen_one_is_from_where_it_was_seen_D_S_7() -> None:
    s = _fogged()
    s.sides[ATT].orders_left, s.sides[DEF].orders_left, s.next_side = 0, 3, DEF
    s.dice = Scripted(())
    s2, ev = order(s, DEF, {"type": "move", "body": "d.1", "moves": [{"figure": "d.1", "to": [16, 6]}]})
    assert not [e for e in visible_to(ev, "team:red") if "d.1" in json.dumps(dict(e.data))]
    assert [e.kind for e in visible_to(ev, "spectator") if e.kind == "figure_moved"] == ["figure_moved"]
    _s3, ev = order(s2, DEF, {"type": "move", "body": "d.2", "moves": [{"figure": "d.2", "to": [30, 9]}]})
    told = [dict(e.data) for e in visible_to(ev, "team:red") if e.kind == "enemy_moved"]
    assert told == [{"figure": "d.2", "side": DEF, "from": [30, 5], "to": [30, 9], "facing": "n",
                     "stopped": None, "rule": "D-S-6"}]


def test_where_an_enemy_was_last_seen_stays_on_the_sides_view_D_S_7() -> None:
    s = _fogged()
    s.sides[ATT].orders_left, s.sides[DEF].orders_left, s.next_side = 0, 3, DEF
    s, _ = order(s, DEF, {"type": "move", "body": "d.2", "moves": [{"figure": "d.2", "to": [30, 9]}]})
    assert "d.2" not in ENGINE.view(s, "team:red")["last_seen"]  # seen now: a figure, not a mark
    put(s, "d.2", 15, 8)  # now behind the house (a test's move, not an order)
    assert ENGINE.view(s, "team:red")["last_seen"]["d.2"] == {"x": 30, "y": 9, "turn": 1}


def test_the_survival_roll_of_a_figure_the_enemy_cannot_see_goes_to_its_own_side_only_D_GEN_1() -> None:
    s = _fogged()
    s.figures["d.1"].status = DOWN
    for f in s.figures.values():
        f.ordered = True
    s.sides[ATT].orders_left, s.sides[DEF].orders_left = 1, 0
    s.dice = Scripted((5, 1, 2, 1, 1))
    _s2, ev = order(s, ATT, {"type": "pass"})
    survival = [e for e in ev if e.kind == "roll" and e.data["purpose"] == "survival"]
    assert len(survival) == 1 and survival[0].audience == frozenset({"spectator", "team:blue"})
    initiative = [e for e in ev if e.kind == "roll" and e.data["purpose"] == "initiative"]
    assert initiative and all(e.audience is None for e in initiative)  # public dice


def test_every_roll_is_an_event_with_purpose_side_faces_and_result_D_GEN_1() -> None:
    s, _events = ENGINE.setup({"scenario": scenario_file("platoon")}, 11)
    faces: list[int] = []
    counted = 0

    class Counting(Dice):
        def roll(self, faces_: int = 6) -> tuple[int, Dice]:  # type: ignore[override]
            nonlocal counted
            counted += 1
            v, nxt = Dice.roll(self, faces_)
            return v, Counting(nxt.state)

    s.dice = Counting(s.dice.state)
    s, ev = ENGINE.apply(s, ACTORS[DEF], {"type": "deploy"})
    s, ev2 = ENGINE.apply(s, ACTORS[ATT], {"type": "deploy"})
    for _ in range(12):
        team = next(iter(ENGINE.active_teams(s)))
        s, more = ENGINE.end_turn(s, team, flagged=True)
        ev2 = [*ev2, *more]
    rolled = [e for e in [*ev, *ev2] if e.kind == "roll"]
    for e in rolled:
        assert {"purpose", "side", "faces", "result", "dice"} <= set(e.data) and len(e.data["result"]) == e.data["dice"]
        faces += e.data["result"]
    assert counted == sum(e.data["dice"] for e in rolled if e.audience is None or "spectator" in e.audience)


def test_no_seed_or_dice_state_ever_leaves_the_engine_D_GEN_4() -> None:
    seed = 987654321987
    s, events = ENGINE.setup({"scenario": scenario_file("platoon_tanks")}, seed)
    s, ev = ENGINE.apply(s, ACTORS[DEF], {"type": "deploy"})
    s, ev2 = ENGINE.apply(s, ACTORS[ATT], {"type": "deploy"})
    secrets = {str(seed), str(s.dice.state)}
    for viewer in ("team:red", "team:blue", "spectator", "moderator", "public"):
        text = json.dumps(ENGINE.view(s, viewer)) + json.dumps([dict(e.data) for e in [*events, *ev, *ev2]])
        assert not any(x in text for x in secrets)
    assert "dice" in ENGINE.dump(s)  # the snapshot keeps it, server-side only
    assert kinds(events, "skirmish_started")


def test_the_side_to_order_sees_its_figures_move_range_and_the_terrain_table_D_S_6_D_S_7() -> None:
    engine = ENGINES.find("skirmish")
    s, _ = engine.setup(ENGINES.config("skirmish", {"teams": ["red", "blue"]}), 4)
    while s.stage != "orders":
        (team,) = engine.active_teams(s)
        s, _ = engine.apply(s, ACTORS[team], {"type": "auto_terrain"} if s.stage == "terrain" else {"type": "deploy"})
    (team,) = engine.active_teams(s)
    other = next(t for t in s.sides if t != team)
    mine, theirs = engine.view(s, f"team:{team}"), engine.view(s, f"team:{other}")
    assert theirs["reach"] is None and engine.view(s, "spectator")["reach"] is None
    assert set(mine["reach"]) == {f["id"] for f in mine["figures"] if f["side"] == team and f["status"] == "in_action"}
    fid, cells = next(iter(mine["reach"].items()))
    assert cells["half"] and set(map(tuple, cells["half"])) <= set(map(tuple, cells["full"]))
    fig = next(f for f in mine["figures"] if f["id"] == fid)
    x, y = cells["full"][-1]
    _, events = engine.apply(s, ACTORS[team], {"type": "move", "body": fid, "moves": [{"figure": fid, "to": [x, y]}]})
    assert any(e.kind == "figure_moved" for e in events) and (fig["x"], fig["y"]) != (x, y)
    assert mine["terrain"]["house"]["cover"] == 2 and mine["terrain"]["wood"]["cover"] == 1


def test_the_defender_to_order_sees_where_its_ambush_could_spring_and_that_place_is_taken_S_9_4_D_S_13() -> None:
    engine = ENGINES.find("skirmish-platoon")
    for seed in range(1, 30):
        s, _ = engine.setup(ENGINES.config("skirmish-platoon", {"teams": ["red", "blue"]}), seed)
        while s.stage != "orders":
            (team,) = engine.active_teams(s)
            s, _ = engine.apply(s, ACTORS[team], {"type": "deploy"})
        (team,) = engine.active_teams(s)
        if team == "blue":  # the defender (the Soviet platoon) gives the first order
            break
    else:
        raise AssertionError("the defender never had the first order")
    mine, theirs = engine.view(s, "team:blue"), engine.view(s, "team:red")
    assert theirs["ambushes"] is None and engine.view(s, "spectator")["ambushes"] is None
    (unit, spots), = mine["ambushes"].items()
    s, events = engine.apply(s, ACTORS["blue"], {"type": "ambush", "unit": unit, "figures": spots})
    assert any(e.kind == "ambush_sprung" for e in events)
    assert {f.id for f in s.figures.values() if f.unit == unit and f.status == "in_action"} == set(spots)
