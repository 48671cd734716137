"""Who an order reaches and what it does (S-5.3, S-5.5, S-6, S-7, S-8.1, S-8.2, S-8.7; D-S-5)."""

from __future__ import annotations

import pytest

from server.core.errors import BadOrder, IllegalOrder, NotYourUnit
from server.skirmish.command import body_of
from server.skirmish.state import SkirmishState

from .helpers import (
    ATT,
    DEF,
    ENGINE,
    MODERATOR,
    Scripted,
    fig,
    kinds,
    line,
    order,
    put,
    remove,
    rifles,
    rolls,
    scenario,
    start,
    tank,
    unit,
)


def _platoon() -> SkirmishState:
    """A German platoon (HQ: commander and messenger; squads g1 and g2 of 4) and two tanks of different units,
    against a Soviet squad far away (out of range)."""
    scn = scenario([unit("g", fig("commander", "submachine_gun"), fig("messenger", "rifle"),
                         units=[rifles("g1", 4), rifles("g2", 4)], kind="platoon"), tank("t1"), tank("t2")],
                   [rifles("d", 2)])
    s = start(scn, orders={ATT: 6, DEF: 0}, first=ATT)
    line(s, "g", 10, 28)
    line(s, "g1", 2, 28)
    line(s, "g2", 14, 28)
    put(s, "t1.1", 24, 26, "n")
    put(s, "t2.1", 30, 26, "n")
    put(s, "d.1", 39, 0)
    put(s, "d.2", 38, 0)
    return s


def _move(body: str, *moves: tuple[str, int, int]) -> dict[str, object]:
    return {"type": "move", "body": body, "moves": [{"figure": f, "to": [x, y]} for f, x, y in moves]}


def test_an_order_to_a_squad_reaches_its_commander_and_those_in_cohesion_S_5_3_S_6_1_D_S_5() -> None:
    s = _platoon()
    body = body_of(s, ATT, "g1")
    assert body.figures == ("g1.1", "g1.2", "g1.3", "g1.4") and body.units == ("g1",)
    s, ev = order(s, ATT, _move("g1", ("g1.1", 2, 26), ("g1.2", 3, 26)))
    assert (s.figures["g1.1"].y, s.figures["g1.2"].y) == (26, 26)
    assert all(s.figures[f].ordered for f in ("g1.1", "g1.2", "g1.3", "g1.4"))  # all took it, moving or not
    given = [e for e in ev if e.kind == "order_given"]
    assert given[0].data["body"] == "g1" and given[0].data["action"] == "move"


def test_a_split_squad_takes_orders_only_in_the_group_with_its_commander_S_7_3_S_7_4() -> None:
    s = _platoon()
    put(s, "g1.4", 2, 24)  # four cells away from the rest: a straggler
    assert body_of(s, ATT, "g1").figures == ("g1.1", "g1.2", "g1.3")
    with pytest.raises(IllegalOrder) as err:
        order(s, ATT, _move("g1", ("g1.4", 2, 22)))
    assert err.value.rule == "D-S-5"
    s, _ = order(s, ATT, _move("g1", ("g1.1", 2, 26)))
    s, _ = order(s, ATT, _move("g1.4", ("g1.4", 2, 22)))  # the straggler's own order (S-7.4)
    assert s.figures["g1.4"].y == 22 and s.sides[ATT].orders_left == 4


def test_a_group_without_its_commander_takes_an_order_per_figure_S_8_S_8_1_S_8_2_D_S_5() -> None:
    s = _platoon()
    remove(s, "g1.1")  # the squad commander is out of action: the rest is a group (S-8.1)
    with pytest.raises(IllegalOrder) as err:
        order(s, ATT, _move("g1", ("g1.2", 3, 26)))
    assert err.value.rule == "S-8.2"
    s, _ = order(s, ATT, _move("g1.2", ("g1.2", 3, 26)))
    s, _ = order(s, ATT, _move("g1.3", ("g1.3", 4, 26)))
    assert s.sides[ATT].orders_left == 4


def test_an_individual_soldier_takes_an_order_S_5_3_S_6_1() -> None:
    s = _platoon()
    s, _ = order(s, ATT, _move("g2.3", ("g2.3", 16, 27)))
    assert s.figures["g2.3"].y == 27 and s.figures["g2.3"].ordered
    # the rest of the squad may still be ordered (linked through g2.3, who has had his order)
    assert body_of(s, ATT, "g2").figures == ("g2.1", "g2.2", "g2.4")


def test_a_platoon_order_reaches_every_squad_under_its_commander_S_6_5_S_7_1_S_6_1() -> None:
    s = _platoon()
    body = body_of(s, ATT, "g")
    assert set(body.figures) == {"g.1", "g.2", "g1.1", "g1.2", "g1.3", "g1.4", "g2.1", "g2.2", "g2.3", "g2.4"}
    assert body.units == ("g", "g1", "g2")
    s, _ = order(s, ATT, _move("g", ("g1.1", 2, 26), ("g2.1", 14, 26), ("g.1", 10, 26)))
    assert [s.figures[f].y for f in ("g1.1", "g2.1", "g.1")] == [26, 26, 26]
    assert s.sides[ATT].orders_left == 5  # one order


def test_no_sub_unit_takes_two_orders_in_a_turn_S_6_3() -> None:
    s = _platoon()
    s, _ = order(s, ATT, _move("g1", ("g1.1", 2, 26)))
    for body in ("g1", "g"):  # again, or through its platoon
        with pytest.raises(IllegalOrder) as err:
            order(s, ATT, _move(body, ("g.1", 10, 26)))
        assert err.value.rule == "S-6.3"
    with pytest.raises(IllegalOrder) as err:  # a figure that took the squad's order
        order(s, ATT, _move("g1.2", ("g1.2", 3, 26)))
    assert err.value.rule == "S-6.3"
    s2, _ = order(s, ATT, _move("g2", ("g2.1", 14, 26)))  # another squad still may
    with pytest.raises(IllegalOrder):
        order(s2, ATT, _move("g", ("g.1", 10, 26)))


def test_two_tanks_under_different_commands_need_two_orders_S_6_5() -> None:
    s = _platoon()
    assert body_of(s, ATT, "t1").figures == ("t1.1",)
    with pytest.raises(IllegalOrder):  # t2 is not reached by t1's order
        order(s, ATT, _move("t1", ("t1.1", 24, 24), ("t2.1", 30, 24)))
    s, _ = order(s, ATT, _move("t1", ("t1.1", 24, 24)))
    s, _ = order(s, ATT, _move("t2", ("t2.1", 30, 24)))
    assert s.sides[ATT].orders_left == 4


def test_two_tanks_of_one_tank_platoon_take_one_order_S_6_5() -> None:
    scn = scenario([unit("tp", {"role": "tank", "vehicle": "medium_tank", "count": 2}, kind="tank_platoon")],
                   [rifles("d", 1)])
    s = start(scn, orders={ATT: 2, DEF: 0}, first=ATT)
    put(s, "tp.1", 20, 26, "n")
    put(s, "tp.2", 22, 26, "n")  # side by side: in cohesion
    put(s, "d.1", 39, 0)
    s, ev = order(s, ATT, _move("tp", ("tp.1", 20, 22), ("tp.2", 22, 22)))
    assert (s.figures["tp.1"].y, s.figures["tp.2"].y) == (22, 22)
    given = kinds(ev, "order_given")
    assert len(given) == 1 and given[0]["figures"] == ["tp.1", "tp.2"] and given[0]["orders_left"] == 1


def test_the_army_wide_order_moves_everything_and_is_the_only_order_that_turn_S_6_4_D_S_5() -> None:
    s = _platoon()
    body = body_of(s, ATT, "army")
    assert len(body.figures) == 12
    with pytest.raises(IllegalOrder) as err:
        order(s, ATT, {"type": "move_fire", "body": "army", "moves": [{"figure": "g.1", "to": [10, 27]}],
                       "target": "d.1"})
    assert err.value.rule == "S-6.4"
    s.sides[DEF].orders_left = 1
    s, _ = order(s, ATT, _move("army", ("g.1", 10, 26), ("t1.1", 24, 22), ("g2.4", 17, 26)))
    assert s.sides[ATT].orders_left == 0 and s.sides[ATT].army_order and s.next_side == DEF
    assert all(s.figures[f].ordered for f in body.figures)
    t = _platoon()
    t, _ = order(t, ATT, _move("g1", ("g1.1", 2, 26)))
    with pytest.raises(IllegalOrder) as err:
        order(t, ATT, _move("army", ("g.1", 10, 26)))
    assert err.value.rule == "S-6.4"


def test_an_order_moves_its_full_move_or_fires_or_moves_half_and_fires_at_minus_one_S_5_5_D_S_5() -> None:
    scn = scenario([rifles("a", 2), rifles("b", 1)], [rifles("d", 1)])
    s = start(scn, {"a.1": (10, 20), "a.2": (11, 20), "d.1": (10, 12), "b.1": (0, 29)}, orders={ATT: 3, DEF: 0},
              first=ATT)
    with pytest.raises(IllegalOrder) as err:  # three cells is more than half a move
        order(s, ATT, {"type": "move_fire", "body": "a", "moves": [{"figure": "a.1", "to": [10, 17]}],
                       "target": "d.1"})
    assert err.value.rule == "D-S-6"
    s.dice = Scripted((4, 5))
    s2, ev = order(s, ATT, {"type": "move_fire", "body": "a", "moves": [{"figure": "a.1", "to": [10, 18]}],
                            "target": "d.1"})
    # a.1 at 6 cells, a.2 at 8: short range, rifle needs 4, +1 after moving half: 5. Faces 4 and 5: one hit
    fired = rolls(ev, "fire")
    assert [(r["figure"], r["need"], r["result"]) for r in fired] == [("a.1", 5, [4]), ("a.2", 5, [5])]
    assert s2.figures["d.1"].status == "down"
    _s3, ev = order(s, ATT, {"type": "fire", "body": "a", "target": "d.1"})  # standing: needs 4
    assert [r["need"] for r in rolls(ev, "fire")] == [4, 4]
    s4, _ = order(s, ATT, {"type": "move", "body": "a", "moves": [{"figure": "a.1", "to": [10, 16]}]})
    assert s4.figures["a.1"].y == 16  # a full move: four cells


def test_the_orders_example_five_orders_the_rest_only_random_fire_S_6_2_S_5_4() -> None:
    """S-6.2: a Soviet platoon with 2 mortars and a tank, 5 orders: the tank moves, the mortars fire, the 2nd squad
    moves, a single soldier moves, the 3rd squad fires; everything else only fires at random."""
    crew = [fig("commander", "pistol"), fig("gunner", "mortar")]
    soviet = [unit("s", fig("commander", "submachine_gun"), kind="platoon",
                   units=[rifles("s1", 3), rifles("s2", 3), rifles("s3", 3),
                          unit("m", fig("commander", "pistol"), units=[unit("m1", *crew), unit("m2", *crew)],
                               kind="mortar_section")]), tank("t")]
    scn = scenario(soviet, [rifles("g", 4)])  # here the Soviets attack from the south
    s = start(scn, orders={ATT: 5, DEF: 1}, first=ATT, seed=9)
    line(s, "s", 20, 27)
    line(s, "s1", 4, 27)
    line(s, "s2", 10, 27)
    line(s, "s3", 14, 27)
    line(s, "m", 26, 27)
    line(s, "m1", 25, 28)
    line(s, "m2", 27, 28)
    put(s, "t.1", 34, 26, "n")
    line(s, "g", 12, 5)  # 22 rows away: in rifle range
    steps = [
        ("t", _move("t", ("t.1", 34, 22))),
        ("m", {"type": "fire", "body": "m", "target": "g.2"}),
        ("s2", _move("s2", ("s2.1", 10, 25))),
        ("s1.3", _move("s1.3", ("s1.3", 6, 25))),
        ("s3", {"type": "fire", "body": "s3", "target": "g.1", "group": True}),
    ]
    events = []
    for _body, o in steps:
        s.next_side = ATT
        s, ev = order(s, ATT, o)
        events += ev
        while s.decision is not None:
            s, ev = ENGINE.end_turn(s, s.decision.owner, flagged=True)
            events += ev
    fired = {r["figure"] for r in rolls(events, "fire")}
    assert fired == {"m1.2", "m2.2", "s3.1", "s3.2", "s3.3"}  # both mortars on one order; the 3rd squad
    assert [g["orders_left"] for g in kinds(events, "order_given")] == [4, 3, 2, 1, 0]
    if s.sides[DEF].orders_left:
        s, ev = ENGINE.end_turn(s, DEF, flagged=False)
        events += ev
    random = {r["figure"] for r in rolls(events, "random_fire") if r["side"] == ATT}
    assert random and random <= {"s.1", "s1.1", "s1.2"}  # only those without an order fire at random
    assert "s3.1" not in random and "s1.3" not in random


def test_a_platoon_commander_forms_an_improvised_group_from_his_squads_S_8_7_D_S_5() -> None:
    s = _platoon()
    put(s, "g1.4", 9, 27)
    put(s, "g2.1", 11, 27)  # next to the platoon commander (10, 28)
    group = {"type": "move", "body": "g", "form_group": ["g1.4", "g2.1"],
             "moves": [{"figure": "g.1", "to": [10, 26]}, {"figure": "g1.4", "to": [9, 25]},
                       {"figure": "g2.1", "to": [11, 25]}]}
    with pytest.raises(IllegalOrder) as err:  # a squad leader forms no group
        order(s, ATT, {**group, "body": "g1"})
    assert err.value.rule == "S-8.7"
    s, ev = order(s, ATT, group)
    assert kinds(ev, "group_formed")[0]["members"] == ["g1.4", "g2.1"]
    assert s.figures["g1.4"].group == "group:g.1" and s.units["g"].ordered is False
    assert "g1.4" not in body_of(s, ATT, "g1").figures  # away from its squad while in the group
    assert body_of(s, ATT, "g1").figures == ("g1.1", "g1.2", "g1.3")
    # next turn the group takes orders through its commander
    s = _next_turn(s)
    assert body_of(s, ATT, "group:g.1").figures == ("g.1", "g1.4", "g2.1")
    s, _ = order(s, ATT, {"type": "move", "body": "group:g.1", "moves": [{"figure": "g.1", "to": [10, 23]},
                                                                      {"figure": "g2.1", "to": [11, 23]}]})
    assert s.figures["g1.4"].group == ""  # left behind, out of cohesion: back with its squad
    s.figures["g.1"].status = "out"
    s.next_side = ATT
    s, ev = order(s, ATT, {"type": "pass"})
    assert kinds(ev, "group_dissolved")[0]["group"] == "group:g.1" and not s.groups
    assert s.figures["g2.1"].group == ""


def _next_turn(s: SkirmishState) -> SkirmishState:
    s.sides[ATT].orders_left = 0
    s.sides[DEF].orders_left = 0
    s.next_side = ATT
    s.sides[ATT].orders_left = 1
    s, _ = order(s, ATT, {"type": "pass"})
    while s.decision is not None:
        s, _ = ENGINE.end_turn(s, s.decision.owner, flagged=True)
    assert s.turn == 2
    s.sides[ATT].orders_left, s.sides[DEF].orders_left, s.next_side = 3, 1, ATT
    return s


def test_a_group_forms_only_from_his_own_squads_figures_in_cohesion_with_him_S_8_7_S_8_1() -> None:
    s = _platoon()
    put(s, "g1.4", 9, 27)
    with pytest.raises(IllegalOrder) as err:  # g2.4 is far away
        order(s, ATT, {"type": "move", "body": "g", "form_group": ["g1.4", "g2.4"],
                       "moves": [{"figure": "g.1", "to": [10, 26]}]})
    assert err.value.rule == "S-8.1"
    with pytest.raises(IllegalOrder) as err:  # the tank is not under the platoon commander
        order(s, ATT, {"type": "move", "body": "g", "form_group": ["t1.1"], "moves": [{"figure": "g.1",
                                                                                        "to": [10, 26]}]})
    assert err.value.rule == "S-8.7"


def test_an_order_names_one_of_the_sides_own_bodies_S_6_S_5_3() -> None:
    s = _platoon()
    with pytest.raises(NotYourUnit):
        order(s, ATT, _move("d", ("d.1", 39, 1)))
    with pytest.raises(BadOrder):
        order(s, ATT, _move("nobody", ("g.1", 10, 26)))
    s, _ev = ENGINE.apply(s, MODERATOR, _move("g2", ("g2.1", 14, 26)))  # the moderator orders for the side to act
    assert s.figures["g2.1"].y == 26
    assert DEF in s.sides
