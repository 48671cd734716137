"""The storm on the battle engine (N-SIEGE-5, N-SIEGE-7 … N-SIEGE-13, D-N-15)."""

from __future__ import annotations

from typing import Any

import pytest

from server.core.errors import IllegalOrder, RuleError
from server.napoleonic.battle.fire import reach
from server.napoleonic.battle.log import Log
from server.napoleonic.siege.deployment import howitzer_limit
from server.napoleonic.siege.engine import StormState

from .helpers import ENGINE, act, kinds, north, play_turn, setup, south, storm, u

FAR_GARRISON = u("rg", "infantry", 64, 14)  # keeps the garrison on the field, far from everything


def rule_of(exc: pytest.ExceptionInfo[RuleError]) -> str | None:
    return exc.value.rule


# --- limits and setup -----------------------------------------------------------------------------------------------

def test_storm_limits_30_besieger_25_garrison_N_SIEGE_5() -> None:
    besieger = [u(f"b{i}", "infantry", formation="attack_column") for i in range(32)]
    garrison = [u(f"r{i}", "infantry", formation="attack_column") for i in range(27)]
    s, ev = storm(besieger, garrison)
    on = {side: [x for x in s.battle.units.values() if x.side == side and x.on_field and x.arm == "infantry"]
          for side in ("blue", "red")}
    assert len(on["blue"]) == 30 and len(on["red"]) == 25
    assert {x.id for x in s.battle.units.values() if x.status == "reserve" and x.side == "blue"} == {"b30", "b31"}
    assert s.in_town == ("r25", "r26") and s.battle.units["r25"].status == "reserve"
    assert kinds(ev, "storm_begun")[0]["in_town"] == ["r25", "r26"]
    guns = [x for x in s.battle.units.values() if x.kind == "fortress_artillery"]
    assert len(guns) == 6, "fortress guns are the fortress's, outside the 25 (D-N-15)"


def test_the_storm_limits_are_the_battle_engines_per_side_limits_N_SIEGE_5_N_START_6() -> None:
    """No siege code of its own: the battle holds 30/25 per side, the town is the garrison's reserve group coming up
    in the rows behind the wall, and the fortress guns count against no limit."""
    garrison = [u(f"r{i}", "infantry", formation="attack_column") for i in range(26)]
    s, _ = storm([u("bi", "infantry", 30, 50)], garrison)
    assert s.battle.field_limit == {"blue": 30, "red": 25}
    (town,) = [g for g in s.battle.reinforcements if g.side == "red"]
    assert (town.group, town.units, town.rows, town.status) == ("town", ("r25",), (28, 12), "coming")
    assert s.battle.counted("red") == 25 < sum(1 for _ in s.battle.field_units("red"))
    with pytest.raises(RuleError) as e:
        storm([u("bi", "infantry", 30, 50)], [*garrison, u("fortress-gun-1", "infantry")])
    assert rule_of(e) == "N-START-1"


def test_garrison_comes_up_from_the_town_as_places_free_N_SIEGE_5_N_START_6() -> None:
    garrison = [u(f"r{i}", "infantry") for i in range(27)]
    s, _ = storm([u("bi", "infantry", 30, 50)], garrison)
    s, _ = ENGINE.moderate(s, {"type": "adjust", "unit": "r3", "morale": 0})
    s, ev = play_turn(s)
    assert s.battle.units["r3"].status == "dispersed"
    arrived = kinds(ev, "arrived")
    assert [a["unit"] for a in arrived] == ["r25"] and arrived[0]["rule"] == "N-START-6"
    r25 = s.battle.units["r25"]
    assert r25.on_field and r25.points == 4 and s.field.in_zone("garrison", r25.x, r25.y)
    assert s.battle.units["r26"].status == "reserve"
    assert sum(1 for x in s.battle.field_units("red") if x.id not in s.guns) == 25


def test_units_deploy_in_their_siege_zone_N_START_7_D_N_15() -> None:
    with pytest.raises(IllegalOrder) as e:
        storm([u("b1", "infantry", 30, 40)], [FAR_GARRISON])
    assert rule_of(e) == "N-START-7"
    with pytest.raises(IllegalOrder) as e:
        storm([u("b1", "infantry", 30, 50)], [u("ra", "foot_artillery", 38, 31)])
    assert rule_of(e) == "N-SIEGE-10"
    s, _ = storm([u("b1", "infantry", 30, 50)], [u("ri", "infantry", 37, 32)])
    assert s.battle.units["ri"].y == 32, "the garrison may place infantry on the walls (N-SIEGE-10)"


# --- howitzers (N-SIEGE-9) -----------------------------------------------------------------------------------------

def test_howitzers_up_to_half_the_companies_rounded_up_N_SIEGE_9_D_N_15() -> None:
    assert [howitzer_limit(n) for n in (1, 2, 3, 4, 5)] == [1, 1, 2, 2, 3]
    arts = [u(f"a{i}", "foot_artillery") for i in range(3)]
    with pytest.raises(IllegalOrder) as e:
        storm(arts, [FAR_GARRISON], howitzers=["a0", "a1", "a2"])
    assert rule_of(e) == "N-SIEGE-9"
    with pytest.raises(IllegalOrder) as e:
        storm([*arts, u("i1", "infantry")], [FAR_GARRISON], howitzers=["i1"])
    assert rule_of(e) == "N-SIEGE-9"
    s, _ = storm([*arts, u("h", "horse_artillery", accuracy=3)], [FAR_GARRISON], howitzers=["a0", "h"])
    a0, h = s.battle.units["a0"], s.battle.units["h"]
    assert a0.kind == "howitzer" and a0.type.range == 25 and a0.type.speed == 2
    assert h.kind == "horse_howitzer" and h.type.speed == 9 and h.accuracy == 3, "accuracy and speed stay"
    assert s.battle.units["a1"].kind == "foot_artillery"


def _howitzer_duel(kind: str, seed: int) -> tuple[object, list[dict[str, object]]]:
    """A company in the second parallel fires at a garrison regiment behind the wall, 21 cells away."""
    s, _ = storm([u("a1", kind, 36, 46, facing="N"), u("bi", "infantry", 30, 50)],
                 [u("ri", "infantry", 40, 25, facing="S")],
                 howitzers=["a1"] if kind == "foot_artillery" else [], seed=seed)
    if kind == "foot_artillery":
        s, _ = act(s, "blue", {"type": "targets", "unit": "a1", "targets": [{"unit": "ri", "guns": 4}]})
    s, ev = play_turn(s)
    return s, [e for e in kinds(ev, "fire") if e["unit"] == "a1"]


def test_howitzer_fires_over_the_wall_with_double_round_shot_N_SIEGE_9() -> None:
    hits = 0
    for seed in range(1, 40):
        _, fire = _howitzer_duel("foot_artillery", seed)
        assert len(fire) == 1 and fire[0]["distance"] == 21
        if fire[0]["hit"]:
            hits += 1
            assert fire[0]["losses"] == 4, "4 guns: 2 loss units, doubled (N-ART-7, N-SIEGE-9)"
    assert hits, "some seed must hit at 1/3"


def test_field_gun_cannot_see_over_the_wall_N_FIRE_5_N_SIEGE_9() -> None:
    s, _ = storm([u("a1", "foot_artillery", 36, 46, facing="N"), u("bi", "infantry", 30, 50)],
                 [u("ri", "infantry", 40, 25, facing="S")])
    with pytest.raises(IllegalOrder) as e:
        act(s, "blue", {"type": "targets", "unit": "a1", "targets": [{"unit": "ri", "guns": 4}]})
    assert rule_of(e) == "N-ART-7"


def test_howitzer_range_25_with_foot_hit_chances_N_SIEGE_9_N_HIT_2() -> None:
    s, _ = storm([u("a1", "foot_artillery", 36, 46, facing="N"), u("bi", "infantry", 20, 50)],
                 [u("near", "infantry", 40, 21, facing="S"), u("far", "infantry", 40, 20, facing="S")],
                 howitzers=["a1"])
    s2, _ = act(s, "blue", {"type": "targets", "unit": "a1", "targets": [{"unit": "near", "guns": 4}]})
    with pytest.raises(IllegalOrder):
        act(s, "blue", {"type": "targets", "unit": "a1", "targets": [{"unit": "far", "guns": 4}]})
    _, ev = play_turn(s2)
    roll = next(e for e in kinds(ev, "roll") if e["purpose"] == "round_shot")
    assert roll["distance"] == 25 and roll["need"] == 2, "foot artillery, accuracy 2, 21–25 cells: 1/3"


def test_howitzer_hits_fortress_gun_which_loses_guns_like_a_company_N_SIEGE_11_D_N_7() -> None:
    """A two-gun howitzer company: 1 loss unit for 1–2 guns in action (D-N-7), doubled (N-SIEGE-9): the fortress
    gun position loses two of its four guns, as a company would (N-ART-8)."""
    for seed in range(1, 20):
        s, _ = storm([u("a1", "foot_artillery", 33, 46, facing="N", guns=2), u("bi", "infantry", 20, 50)],
                     [u("ri", "infantry", 37, 32)], howitzers=["a1"], seed=seed)
        s, _ = act(s, "blue", {"type": "targets", "unit": "a1", "targets": [{"unit": "fortress-gun-4", "guns": 1}]})
        s, ev = play_turn(s)
        fire = [e for e in kinds(ev, "fire") if e["unit"] == "a1"]
        if fire and fire[0]["hit"]:
            assert fire[0]["losses"] == 2 and s.battle.units["fortress-gun-4"].guns == 2
            return
    pytest.fail("no hit in 19 seeds")


# --- walls (N-SIEGE-10) --------------------------------------------------------------------------------------------

def test_climbing_the_wall_costs_three_points_N_SIEGE_10() -> None:
    s, _ = storm([u("bi", "infantry", 20, 60)], [u("ri", "infantry", 37, 29, facing="S")])
    s, _ = play_turn(s, {"blue": []})  # turn 1 passes; now test in the garrison's own phase
    while s.battle.active_side != "red":
        s, _ = ENGINE.end_turn(s, s.battle.active_side or "", flagged=False)
    s, ev = act(s, "red", {"type": "climb", "unit": "ri"})
    ri = s.battle.units["ri"]
    assert (ri.x, ri.y) == (37, 32), "from inside the garrison climbs onto the parapet, facing out"
    assert ri.points == 1 and kinds(ev, "climbed")[0]["cost"] == 3
    s, _ = act(s, "red", {"type": "move", "unit": "ri", "path": [[38, 32]]})
    assert s.battle.units["ri"].x == 38, "along the wall with the point left"


def test_nobody_walks_onto_the_wall_D_N_15_N_SIEGE_10() -> None:
    s, _ = storm([u("bi", "infantry", 20, 60)], [u("ri", "infantry", 37, 29, facing="S")])
    s, _ = ENGINE.end_turn(s, "blue", flagged=False)
    with pytest.raises(IllegalOrder) as e:
        act(s, "red", {"type": "move", "unit": "ri", "path": [[37, 30]]})
    assert rule_of(e) == "N-SIEGE-10"


def test_only_infantry_climbs_N_SIEGE_10() -> None:
    s, _ = storm([u("bi", "infantry", 20, 60)], [u("rc", "light_cavalry", 37, 28, facing="S")])
    s, _ = ENGINE.end_turn(s, "blue", flagged=False)
    with pytest.raises(IllegalOrder) as e:
        act(s, "red", {"type": "climb", "unit": "rc"})
    assert rule_of(e) == "N-SIEGE-10"


def test_infantry_on_the_wall_fires_two_cells_further_N_SIEGE_10() -> None:
    s, _ = storm([u("bi", "infantry", 30, 44, facing="N")], [u("ri", "infantry", 37, 32)])
    assert reach(s.battle, s.battle.units["ri"]) == 8 and reach(s.battle, s.battle.units["bi"]) == 6
    s, ev = play_turn(s, {"blue": [lambda st: north(st, "bi", 4)]})
    fire = [e for e in kinds(ev, "fire") if e["unit"] == "ri"]
    assert fire and fire[0]["target"] == "bi" and fire[0]["distance"] == 8 and fire[0]["losses"] == 1


# --- fortress guns (N-SIEGE-11) -------------------------------------------------------------------------------------

def test_fortress_guns_silent_while_their_wall_section_is_empty_N_SIEGE_11() -> None:
    s, ev = storm([u("bi", "infantry", 28, 44, facing="N")], [u("ri", "infantry", 37, 29, facing="S")])
    assert s.battle.units["fortress-gun-4"].formation == "silent"
    assert {e["unit"] for e in kinds(ev, "fortress_gun")} == {f"fortress-gun-{i}" for i in range(1, 7)}
    target = {"type": "targets", "unit": "fortress-gun-4", "targets": [{"unit": "bi", "guns": 4}]}
    s, ev = play_turn(s, {"red": [target]})
    assert not [e for e in kinds(ev, "fire") if e["unit"] == "fortress-gun-4"]
    s, ev = play_turn(s, {"red": [{"type": "climb", "unit": "ri"}, target]})
    assert s.battle.units["fortress-gun-4"].formation == "deployed"
    assert next(e for e in kinds(ev, "fortress_gun") if e["unit"] == "fortress-gun-4")["manned"] is True
    fire = [e for e in kinds(ev, "fire") if e["unit"] == "fortress-gun-4"]
    assert fire and fire[0]["weapon"] == "round_shot" and fire[0]["distance"] == 13
    assert s.battle.units["fortress-gun-5"].formation == "deployed", "same section, also manned"
    assert s.battle.units["fortress-gun-3"].formation == "silent", "another section stays silent"


def test_fortress_guns_are_manned_by_any_friendly_unit_on_their_section_N_SIEGE_11() -> None:
    """N-SIEGE-11: "they may fire if there are units on that section of wall" — units of any arm, not only
    infantry. Only the garrison's infantry can get onto the wall in play (N-SIEGE-10), so a garrison company is put
    on wall_centre (x 35–38, rows 30–31, between fortress-gun-4 and fortress-gun-5) by hand; an enemy there mans
    nothing, and the gun positions do not man each other."""
    from server.napoleonic.siege.walls import man_the_guns

    s, _ = storm([u("bi", "infantry", 28, 44, facing="N")],
                 [u("ra", "foot_artillery", 38, 26, facing="S"), u("ri", "infantry", 60, 20, facing="S")])
    b = s.battle
    assert b.units["fortress-gun-4"].formation == b.units["fortress-gun-5"].formation == "silent"
    ra = b.units["ra"]
    b.lift(ra)
    ra.x, ra.y = 38, 31
    b.put(ra)
    log = Log(b)
    man_the_guns(b, s.field, s.guns, log)
    assert {e.data["unit"] for e in log.events if e.data.get("manned")} == {"fortress-gun-4", "fortress-gun-5"}
    assert b.units["fortress-gun-3"].formation == "silent"
    ra.side = "blue"  # the same cells held by the enemy
    log = Log(b)
    man_the_guns(b, s.field, s.guns, log)
    assert b.units["fortress-gun-4"].formation == b.units["fortress-gun-5"].formation == "silent"


def test_fortress_gun_cannot_move_range_35_accuracy_2_N_SIEGE_11() -> None:
    s, _ = storm([u("bi", "infantry", 28, 64, facing="N")], [u("ri", "infantry", 37, 32)])
    gun = s.battle.units["fortress-gun-4"]
    assert gun.type.range == 35 and gun.accuracy == 2 and gun.guns == 4 and gun.type.fires_over
    s, _ = ENGINE.end_turn(s, "blue", flagged=False)
    s2, _ = act(s, "red", {"type": "targets", "unit": "fortress-gun-4", "targets": [{"unit": "bi", "guns": 4}]})
    with pytest.raises(IllegalOrder):
        act(s, "red", {"type": "move", "unit": "fortress-gun-4", "path": [[33, 29]]})
    _, ev = play_turn(s2)
    roll = next(e for e in kinds(ev, "roll") if e["purpose"] == "round_shot")
    assert roll["distance"] == 33 and roll["need"] == 1, "26 cells to range: 1/6 at accuracy 2"


# --- ditch and ladders (N-SIEGE-12, N-SIEGE-13) ---------------------------------------------------------------------

def test_the_ditch_ends_any_move_that_enters_it_N_SIEGE_12() -> None:
    s, _ = storm([u("bc", "infantry", 6, 44, formation="attack_column", facing="N")], [FAR_GARRISON])
    s, ev = act(s, "blue", north(s, "bc", 5))
    bc = s.battle.units["bc"]
    assert bc.y == 40 and s.field.map.kind(6, 40).name == "ditch"
    assert kinds(ev, "moved")[0]["steps"] == 4 and bc.points == 1


def test_entering_the_ditch_ends_the_move_for_the_turn_N_SIEGE_12() -> None:
    """The move that enters the ditch ends, and so does the unit's moving this turn: a second move is refused; its
    points still pay for an order that moves it along no path."""
    s, _ = storm([u("bc", "infantry", 6, 44, formation="attack_column", facing="N")], [FAR_GARRISON])
    s, ev = act(s, "blue", north(s, "bc", 5))
    assert kinds(ev, "move_ended") == [{"unit": "bc", "terrain": "ditch", "rule": "N-SIEGE-12"}]
    with pytest.raises(IllegalOrder) as e:
        act(s, "blue", south(s, "bc", 1))
    assert rule_of(e) == "N-SIEGE-12"
    s, ev = act(s, "blue", {"type": "about_face", "unit": "bc"})
    assert kinds(ev, "about_face") and s.battle.units["bc"].points == 0


def shown(state: StormState, uid: str, viewer: str = "team:blue") -> dict[str, Any]:
    (unit,) = [x for x in ENGINE.view(state, viewer)["units"] if x["id"] == uid]
    return dict(unit)


def test_the_view_shows_the_move_the_ditch_ended_until_the_turn_is_over_N_SIEGE_12() -> None:
    s, _ = storm([u("bc", "infantry", 6, 44, formation="attack_column", facing="N")], [FAR_GARRISON])
    assert shown(s, "bc")["move_ended"] is None
    s, _ = act(s, "blue", north(s, "bc", 5))
    assert shown(s, "bc")["move_ended"] == shown(s, "bc", "spectator")["move_ended"] == "N-SIEGE-12"
    s, _ = play_turn(s)
    assert shown(s, "bc")["move_ended"] is None


def test_a_unit_in_the_ditch_moves_on_through_a_breach_N_SIEGE_12() -> None:
    """Only entering the ditch ends a move: next turn the column crosses the rest of the ditch and the breach in one
    move (it used to crawl a cell a turn while any of it was in the ditch)."""
    s, _ = storm([u("bc", "infantry", 20, 44, formation="attack_column", facing="N")], [FAR_GARRISON])
    for _ in range(2):
        s, ev = play_turn(s, {"blue": [lambda st: north(st, "bc", 5)]})
    assert s.battle.units["bc"].y == 34 and kinds(ev, "move_ended")[0]["rule"] == "N-SIEGE-12"
    s, ev = play_turn(s, {"blue": [lambda st: north(st, "bc", 5)]})
    moved = kinds(ev, "moved")[0]
    assert moved["steps"] == 5 and moved["to"] == [20, 29] and not kinds(ev, "move_ended")


def test_a_unit_in_the_ditch_moves_along_it_and_out_of_it_N_SIEGE_12() -> None:
    s, _ = storm([u("bc", "infantry", 20, 44, formation="attack_column", facing="N")], [FAR_GARRISON])
    for _ in range(2):
        s, _ = play_turn(s, {"blue": [lambda st: north(st, "bc", 5)]})
    along = {"type": "move", "unit": "bc", "path": [[21, 34], [22, 34], [23, 34]]}
    s, ev = play_turn(s, {"blue": [along, lambda st: south(st, "bc", 2)]})
    assert [m["steps"] for m in kinds(ev, "moved")[:2]] == [3, 2] and not kinds(ev, "move_ended")
    bc = s.battle.units["bc"]
    assert (bc.x, bc.y) == (23, 36) and not any(s.field.map.kind(x, y).name == "ditch" for x, y in bc.cells)


def _to_the_wall() -> tuple[object, list[object]]:
    """A besieging column marches to the main wall at x 35–38, away from the guns, in four turns."""
    s, _ = storm([u("bc", "infantry", 35, 44, formation="attack_column", facing="N")], [FAR_GARRISON])
    log = []
    for steps in (5, 5):
        s, ev = play_turn(s, {"blue": [lambda st, n=steps: north(st, "bc", n)]})
        log += ev
    return s, log


def test_three_turn_ladder_sequence_N_SIEGE_13_D_N_15() -> None:
    s, _ = _to_the_wall()
    bc = s.battle.units["bc"]
    assert bc.y == 34 and not s.ladders, "in the ditch, not yet at the wall"
    # turn A: reaching the wall ends the move and sets up the ladders
    while s.battle.active_side != "blue":
        s, _ = ENGINE.end_turn(s, s.battle.active_side or "", flagged=False)
    s, ev = act(s, "blue", north(s, "bc", 3))
    assert s.battle.units["bc"].y == 33 and kinds(ev, "ladders")[0]["unit"] == "bc"
    turn_a = s.battle.turn
    assert s.ladders == {"bc": turn_a}
    with pytest.raises(IllegalOrder) as e:
        act(s, "blue", {"type": "climb", "unit": "bc"})
    assert rule_of(e) == "N-SIEGE-13"
    s, _ = play_turn(s)
    # turn B: the climb; nothing more that turn
    while s.battle.active_side != "blue":
        s, _ = ENGINE.end_turn(s, s.battle.active_side or "", flagged=False)
    s, ev = act(s, "blue", {"type": "climb", "unit": "bc"})
    bc = s.battle.units["bc"]
    assert (bc.y, bc.points) == (30, 0) and all(s.field.is_wall(x, y) for x, y in bc.cells)
    with pytest.raises(IllegalOrder) as e:
        act(s, "blue", north(s, "bc", 1))
    assert rule_of(e) == "N-SIEGE-13"
    s, _ = play_turn(s)
    # turn C: it moves on, down into the fortress
    while s.battle.active_side != "blue":
        s, _ = ENGINE.end_turn(s, s.battle.active_side or "", flagged=False)
    s, _ = act(s, "blue", north(s, "bc", 3))
    assert s.battle.units["bc"].y == 27 and s.battle.turn == turn_a + 2


def test_reaching_the_wall_ends_the_move_for_the_turn_N_SIEGE_13() -> None:
    s, _ = _to_the_wall()
    while s.battle.active_side != "blue":
        s, _ = ENGINE.end_turn(s, s.battle.active_side or "", flagged=False)
    s, ev = act(s, "blue", north(s, "bc", 1))
    assert kinds(ev, "move_ended") == [{"unit": "bc", "reason": "reached the wall", "rule": "N-SIEGE-13"}]
    assert shown(s, "bc")["move_ended"] == "N-SIEGE-13"
    with pytest.raises(IllegalOrder) as e:
        act(s, "blue", {"type": "move", "unit": "bc", "path": [[34, 33]]})
    assert rule_of(e) == "N-SIEGE-13"


def test_a_unit_at_the_wall_moves_along_it_and_sets_up_its_ladders_again_N_SIEGE_13() -> None:
    """Already at the wall's foot, a step along it does not "reach" the wall: the move goes on; where it stops the
    ladders go up again and the move is over."""
    s, _ = _to_the_wall()
    while s.battle.active_side != "blue":
        s, _ = ENGINE.end_turn(s, s.battle.active_side or "", flagged=False)
    s, _ = act(s, "blue", north(s, "bc", 1))
    s, _ = play_turn(s)
    while s.battle.active_side != "blue":
        s, _ = ENGINE.end_turn(s, s.battle.active_side or "", flagged=False)
    s, ev = act(s, "blue", {"type": "move", "unit": "bc", "path": [[36, 33], [37, 33], [38, 33]]})
    assert kinds(ev, "moved")[0]["steps"] == 3 and s.ladders == {"bc": s.battle.turn}
    assert kinds(ev, "move_ended")[0]["rule"] == "N-SIEGE-13"


def test_moving_along_or_away_from_the_wall_moves_the_ladders_N_SIEGE_13() -> None:
    s, _ = _to_the_wall()
    while s.battle.active_side != "blue":
        s, _ = ENGINE.end_turn(s, s.battle.active_side or "", flagged=False)
    s, _ = act(s, "blue", north(s, "bc", 1))
    first = s.battle.turn
    s, _ = play_turn(s)
    while s.battle.active_side != "blue":
        s, _ = ENGINE.end_turn(s, s.battle.active_side or "", flagged=False)
    s, ev = act(s, "blue", {"type": "move", "unit": "bc", "path": [[34, 33]]})
    assert s.ladders == {"bc": first + 1} and kinds(ev, "ladders"), "set up again where it now stands"
    with pytest.raises(IllegalOrder):
        act(s, "blue", {"type": "climb", "unit": "bc"})
    s, _ = play_turn(s)
    while s.battle.active_side != "blue":
        s, _ = ENGINE.end_turn(s, s.battle.active_side or "", flagged=False)
    s, _ = act(s, "blue", {"type": "move", "unit": "bc", "path": [[34, 34]]})
    assert s.ladders == {}, "away from the wall's foot the ladders are gone"


# --- the end (N-SIEGE-7, N-SIEGE-8) --------------------------------------------------------------------------------

def test_garrison_capitulates_instead_of_retreating_N_SIEGE_8() -> None:
    s, _ = storm([u("bi", "infantry", 30, 50)], [u("ri", "infantry", 37, 29, facing="S")])
    with pytest.raises(IllegalOrder) as e:
        act(s, "blue", {"type": "capitulate"})
    assert rule_of(e) == "N-SIEGE-8"
    s, _ = ENGINE.end_turn(s, "blue", flagged=False)
    with pytest.raises(IllegalOrder) as e:
        act(s, "red", {"type": "retreat"})
    assert rule_of(e) == "N-SIEGE-8"
    s, ev = act(s, "red", {"type": "capitulate"})
    assert ENGINE.is_over(s) and kinds(ev, "capitulation")
    r = s.battle.result
    assert r is not None and r["winner"] == "blue" and r["retreats"] is None
    assert r["siege"]["capitulated"] is True and r["siege"]["terms"] == "pending"
    assert kinds(ev, "storm_over")[0]["winner_role"] == "besieger"


def test_besieger_may_still_retreat_N_VICTORY_2_N_SIEGE_8() -> None:
    s, _ = storm([u("bi", "infantry", 30, 50)], [u("ri", "infantry", 37, 29, facing="S")])
    s, ev = act(s, "blue", {"type": "retreat"})
    assert kinds(ev, "retreat_ordered")


def test_routed_defenders_become_prisoners_when_the_besieger_wins_N_SIEGE_7() -> None:
    s, _ = storm([u("bi", "infantry", 30, 50)],
                 [u("ri", "infantry", 37, 29, facing="S"), u("rout", "infantry", 60, 20, facing="S")],
                 howitzers=[])
    s, _ = ENGINE.moderate(s, {"type": "adjust", "unit": "rout", "morale": 0})
    s, ev = play_turn(s)
    assert s.battle.units["rout"].status == "dispersed"
    s, ev = play_turn(s, {"red": [{"type": "capitulate"}]})
    assert kinds(ev, "storm_over")[0]["prisoners"]["blue"] == ["rout"]
    r = s.battle.result
    assert r is not None
    rout = next(x for x in r["units"] if x["id"] == "rout")
    assert rout["status"] == "prisoner" and "rout" in r["prisoners"]["blue"]
    gun = next(x for x in r["units"] if x["id"] == "fortress-gun-1")
    assert gun["status"] == "taken" and r["guns_taken"]["blue"] >= 24


def test_routed_defenders_are_not_prisoners_when_the_storm_fails_N_SIEGE_7_N_MORALE_7() -> None:
    s, _ = storm([u("bi", "infantry", 30, 50)],
                 [u("ri", "infantry", 37, 29, facing="S"), u("rout", "infantry", 60, 20, facing="S")])
    s, _ = ENGINE.moderate(s, {"type": "adjust", "unit": "rout", "morale": 0})
    s, _ = play_turn(s)
    s, _ = ENGINE.moderate(s, {"type": "end_battle", "winner": "red", "reason": "storm beaten off"})
    r = s.battle.result
    assert r is not None and r["siege"]["winner_role"] == "garrison" and r["retreats"] == "blue"
    assert next(x for x in r["units"] if x["id"] == "rout")["status"] == "in_line"


def test_moderator_imposes_capitulation_N_SIEGE_8() -> None:
    s, _ = storm([u("bi", "infantry", 30, 50)], [u("ri", "infantry", 37, 29, facing="S")])
    s, ev = ENGINE.moderate(s, {"type": "capitulation"})
    assert kinds(ev, "capitulation") and s.battle.result is not None and s.battle.result["siege"]["capitulated"]


def test_howitzers_return_to_their_own_type_after_the_storm_N_SIEGE_9_D_N_15() -> None:
    s, _ = storm([u("a1", "foot_artillery"), u("bi", "infantry", 30, 50)], [u("ri", "infantry", 37, 29)],
                 howitzers=["a1"])
    s, _ = ENGINE.moderate(s, {"type": "capitulation"})
    r = s.battle.result
    assert r is not None
    a1 = next(x for x in r["units"] if x["id"] == "a1")
    assert a1["type"] == "foot_artillery" and a1["howitzer"] is True


def test_storm_state_round_trips_and_views_D_N_15() -> None:
    s, _ = storm([u("bi", "infantry", 30, 50)], [u("ri", "infantry", 37, 29, facing="S")])
    again = ENGINE.load(ENGINE.dump(s))
    assert ENGINE.dump(again) == ENGINE.dump(s)
    view = ENGINE.view(s, "spectator")
    assert view["kind"] == "siege" and view["siege"]["garrison"] == "red" and len(view["siege"]["guns"]) == 6
    legend = view["siege"]["legend"]
    assert {legend[c] for row in view["map"]["rows"] for c in row} >= {"wall", "fort", "ditch", "breach", "parallel"}
    assert ENGINE.setup(setup([u("bi", "infantry", 30, 50)], [u("ri", "infantry")]), 3)[0].field.seed == 7


def test_parallels_cover_the_besiegers_guns_D_N_15() -> None:
    s, _ = storm([u("a1", "foot_artillery", 36, 46, facing="N"), u("a2", "foot_artillery", 36, 50, facing="N")],
                 [u("ri", "infantry", 37, 32)])
    s, _ = ENGINE.end_turn(s, "blue", flagged=False)
    for target, accuracy in (("a1", 1), ("a2", 2)):
        s2, _ = act(s, "red", {"type": "targets", "unit": "fortress-gun-4", "targets": [{"unit": target, "guns": 4}]})
        _, ev = play_turn(s2)
        roll = next(e for e in kinds(ev, "roll") if e["purpose"] == "round_shot" and e["unit"] == "fortress-gun-4")
        assert roll["accuracy"] == accuracy, f"{target}: in the parallel −1 accuracy"


def test_storm_result_drives_the_campaign_siege_N_SIEGE_5_N_SIEGE_8() -> None:
    from server.napoleonic.siege.fortress import NAMED_FORTRESSES
    from server.napoleonic.siege.sequence import SiegeArmy, accept_terms, battle_ended, lay_siege, order, propose_terms

    siege, _ = lay_siege(NAMED_FORTRESSES["Dresden"], SiegeArmy("davout", "blue", 2, "Davout"),
                         SiegeArmy("kleist", "red", 1, "Kleist"), 5)
    siege, ev = order(siege, "blue", "storm", 6)
    call = siege.battle
    assert call is not None and call.limits == {"blue": 30, "red": 25}
    s, _ = storm([u("bi", "infantry", 30, 50)], [u("ri", "infantry", 37, 29, facing="S")])
    s, _ = ENGINE.end_turn(s, "blue", flagged=False)
    s, _ = act(s, "red", {"type": "capitulate"})
    r = s.battle.result
    assert r is not None
    siege, ev = battle_ended(siege, r["winner"], capitulated=r["siege"]["capitulated"])
    siege, _ = propose_terms(siege, "red", {"garrison": "march_out", "general": "released"})
    siege, ev = accept_terms(siege, "blue")
    assert [e.kind for e in ev] == ["terms_agreed", "general_released"]
    assert siege.result()["holder"] == "blue" and siege.result()["garrison"] == "marches_out"


def test_fortress_guns_alone_do_not_hold_the_fortress_N_SIEGE_7_D_N_2() -> None:
    s, _ = storm([u("bi", "infantry", 30, 50)], [u("ri", "infantry", 37, 29, facing="S")])
    s, _ = ENGINE.moderate(s, {"type": "adjust", "unit": "ri", "morale": 0})
    s, ev = play_turn(s)
    r = s.battle.result
    assert r is not None and r["winner"] == "blue" and "no garrison troops" in r["reason"]
    assert "ri" in r["prisoners"]["blue"], "dispersed, then taken (N-SIEGE-7)"
    assert kinds(ev, "storm_over")


def test_hidden_storm_keeps_the_ladders_to_the_besieger_N_SIEGE_13() -> None:
    s, _ = storm([u("bc", "infantry", 35, 44, formation="attack_column", facing="N")], [FAR_GARRISON], hidden=True)
    for steps in (5, 5):
        s, _ = play_turn(s, {"blue": [lambda st, n=steps: north(st, "bc", n)]})
    while s.battle.active_side != "blue":
        s, _ = ENGINE.end_turn(s, s.battle.active_side or "", flagged=False)
    s, ev = act(s, "blue", north(s, "bc", 1))
    ladders = next(e for e in ev if e.kind == "ladders")
    assert not ladders.visible_to("team:red") and ladders.visible_to("team:blue")
    assert "ladders" not in ENGINE.view(s, "team:red")["siege"]
    assert ENGINE.view(s, "team:blue")["siege"]["ladders"] == {"bc": s.battle.turn}


@pytest.mark.parametrize("bad", [
    {"fortress": 5},
    {"fortress": "Atlantis"},
    {"fortress": {"city": "X", "gun_positions": 100}},
    {"map_seed": "seven"},
    {"besieger": {"name": "blue", "units": [{"id": "b", "type": "infantry", "x": "a", "y": 50}]}},
    {"besieger": {"name": "blue", "units": [{"id": "b", "type": "dragon"}]}},
    {"besieger": {"name": "red", "units": []}},
    {"garrison": "nobody"},
])
def test_hostile_storm_setups_get_typed_errors_N_SIEGE_5(bad: dict[str, object]) -> None:
    cfg = {**setup([u("bi", "infantry", 30, 50)], [u("ri", "infantry")]), **bad}
    with pytest.raises(RuleError):
        ENGINE.setup(cfg, 1)


@pytest.mark.parametrize("order", [
    {"type": "climb"}, {"type": "climb", "unit": 5}, {"type": "climb", "unit": "nobody"},
    {"type": "climb", "unit": "ri"}, {"type": "move", "unit": "bi", "path": "north"}, {"type": "capitulate!"},
])
def test_hostile_storm_orders_get_typed_errors_N_SIEGE_10(order: dict[str, object]) -> None:
    s, _ = storm([u("bi", "infantry", 30, 50)], [u("ri", "infantry", 37, 29, facing="S")])
    with pytest.raises(RuleError):
        act(s, "blue", order)


def test_a_wheel_carried_into_next_turn_cannot_swing_onto_the_wall_D_N_10_D_N_15() -> None:
    s, _ = storm([u("bi", "infantry", 20, 60)], [u("ri", "infantry", 41, 29, facing="S"), FAR_GARRISON])
    s, _ = ENGINE.end_turn(s, "blue", flagged=False)
    with pytest.raises(IllegalOrder) as e:
        act(s, "red", {"type": "wheel", "unit": "ri", "degrees": 90})
    assert rule_of(e) == "N-SIEGE-10", "a wheel paid at once"
    s, _ = act(s, "red", {"type": "move", "unit": "ri", "path": [[40, 29], [39, 29]]})
    assert s.battle.units["ri"].points == 2
    with pytest.raises(IllegalOrder) as e:
        act(s, "red", {"type": "wheel", "unit": "ri", "degrees": 90})
    assert rule_of(e) == "N-SIEGE-10", "a wheel carried into next turn (D-N-10)"
    s, _ = act(s, "red", {"type": "move", "unit": "rg", "path": [[63, 14], [62, 14]]})
    s2, _ = act(s, "red", {"type": "wheel", "unit": "rg", "degrees": 90})
    assert s2.battle.units["rg"].busy is not None, "away from the wall the wheel is carried as usual"
