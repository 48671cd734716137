"""Fire by order: the small-arms table, joint fire, targets, cover, hits and their allocation, lost weapons, tanks
and mortars (S-7.5, S-7.6, S-8.4, S-8.5; D-S-7, D-S-8, D-S-9, D-S-14)."""

from __future__ import annotations

from typing import Any

import pytest

from server.core.errors import BadOrder, IllegalOrder, NotYourTurn
from server.skirmish.state import DOWN, IN_ACTION, OUT, SkirmishState

from .helpers import (
    ATT,
    DEF,
    ENGINE,
    Scripted,
    element,
    fig,
    kinds,
    order,
    put,
    rifles,
    rolls,
    scenario,
    start,
    status,
    tank,
    unit,
)


def duel(attackers: list[dict[str, Any]], defenders: list[dict[str, Any]], at: dict[str, tuple[int, ...]],
         dice: list[int], terrain: list[dict[str, Any]] | None = None, **settings: Any) -> SkirmishState:
    """The attacker to give its order (with a spare unit `z` to order next, so the turn goes on); the defender has
    no order left. Every figure not in `at` is off the table."""
    scn = scenario([*attackers, rifles("z", 1)], defenders, terrain=terrain or [], settings=settings)
    s = start(scn, orders={ATT: 3, DEF: 0}, first=ATT)
    for f in s.figures.values():
        f.status = "out"
    for fid, spot in {**at, "z.1": (0, 29)}.items():
        put(s, fid, *spot)  # type: ignore[arg-type]
    s.dice = Scripted(tuple(dice))
    return s


def fire(s: SkirmishState, body: str, target: str, **kw: Any) -> tuple[SkirmishState, list[Any]]:
    return order(s, ATT, {"type": "fire", "body": body, "target": target, **kw})


def needs(events: list[Any]) -> list[tuple[str, int, int, list[int]]]:
    return [(r["figure"], r["need"], r["dice"], r["result"]) for r in rolls(events, "fire")]


@pytest.mark.parametrize(("weapon", "dist", "dice", "need"), [
    ("rifle", 10, 1, 4), ("rifle", 11, 1, 5), ("rifle", 30, 1, 5),
    ("self_loading_rifle", 10, 2, 4), ("self_loading_rifle", 20, 1, 5),
    ("submachine_gun", 4, 3, 4), ("submachine_gun", 10, 3, 6),
    ("pistol", 2, 1, 4), ("pistol", 4, 1, 6),
    ("light_machine_gun", 15, 3, 4), ("light_machine_gun", 40, 3, 5),  # alone: 3 dice
])
def test_the_small_arms_table_dice_and_needs_at_short_and_long_range_D_S_8(weapon: str, dist: int, dice: int,
                                                                          need: int) -> None:
    s = duel([unit("a", fig("rifleman", weapon))], [rifles("d", 1)], {"a.1": (0, 29 - 0), "d.1": (0, 29 - dist)},
             [6] * dice)
    s, ev = fire(s, "a.1", "d.1")
    assert needs(ev) == [("a.1", need, dice, [6] * dice)]


@pytest.mark.parametrize(("weapon", "dist"), [("rifle", 31), ("pistol", 5), ("submachine_gun", 11)])
def test_beyond_long_range_there_is_no_fire_D_S_8(weapon: str, dist: int) -> None:
    s = duel([unit("a", fig("rifleman", weapon))], [rifles("d", 1)], {"a.1": (0, 29), "d.1": (0, 29 - dist)}, [])
    with pytest.raises(IllegalOrder) as err:
        fire(s, "a.1", "d.1")
    assert err.value.rule == "D-S-8"


def test_the_light_machine_gun_rolls_5_dice_with_its_assistant_in_cohesion_D_S_8() -> None:
    mg = unit("a", fig("commander", "rifle"), fig("machine_gunner", "light_machine_gun"), fig("assistant", "rifle"))
    at = {"a.1": (20, 25), "a.2": (20, 24), "a.3": (21, 24), "d.1": (20, 14)}
    s = duel([mg], [rifles("d", 1)], at, [1, 1, 1, 1, 1, 1, 1])
    _s2, ev = fire(s, "a", "d.1")
    assert [(f, d) for f, _, d, _ in needs(ev)] == [("a.1", 1), ("a.2", 5), ("a.3", 1)]
    s.figures["a.3"].status = DOWN  # an assistant down is not serving the gun
    s.dice = Scripted((1, 1, 1, 1))
    _s3, ev = fire(s, "a", "d.1")
    assert [(f, d) for f, _, d, _ in needs(ev)] == [("a.1", 1), ("a.2", 3)]


def test_a_unit_fires_jointly_at_one_target_and_its_hits_are_pooled_S_7_5_S_7_6() -> None:
    at = {"a.1": (10, 20), "a.2": (11, 20), "a.3": (12, 20), "d.1": (11, 12)}
    s = duel([rifles("a", 3)], [rifles("d", 1)], at, [4, 3, 5, 1])
    s, ev = fire(s, "a", "d.1")  # one figure target: two hits on it, the second puts it out of action
    assert [r["target"] for r in rolls(ev, "fire")] == ["d.1"] * 3
    assert kinds(ev, "hits")[0]["hits"] == 2 and status(s, "d.1") == [OUT]


def test_a_group_target_spreads_its_hits_over_the_figures_in_sight_S_7_6_S_8_4_D_S_9() -> None:
    terrain = [element("house", 12, 15, 2, 2)]
    at = {"a.1": (10, 20), "a.2": (11, 20), "d.1": (10, 12), "d.2": (11, 12), "d.3": (12, 12),
          "d.4": (13, 13)}
    s = duel([rifles("a", 2)], [rifles("d", 5)], {**at, "d.5": (16, 12)}, [4, 4], terrain)
    # d.4 is in the group but behind the house from both shooters; d.5, two cells away, is not in the group
    s, ev = fire(s, "a", "d.1", group=True)
    assert kinds(ev, "hits")[0]["figures"] == ["d.1", "d.2", "d.3"]
    choice = kinds(ev, "hits_to_choose")[0]
    assert choice["count"] == 2 and choice["tier"] == DOWN and choice["owner"] == DEF
    assert ENGINE.active_teams(s) == {DEF}  # the owner's clock runs while he chooses (D-S-9)
    with pytest.raises(NotYourTurn):
        order(s, ATT, {"type": "hits", "figures": ["d.1", "d.2"]})
    with pytest.raises(BadOrder) as err:
        order(s, DEF, {"type": "hits", "figures": ["d.1"]})
    assert err.value.rule == "D-S-9"
    with pytest.raises(BadOrder):  # d.4 was not in sight
        order(s, DEF, {"type": "hits", "figures": ["d.3", "d.4"]})
    s, ev = order(s, DEF, {"type": "hits", "figures": ["d.1", "d.3"]})
    assert status(s, "d.1", "d.2", "d.3", "d.4") == [DOWN, IN_ACTION, DOWN, IN_ACTION]
    assert ENGINE.active_teams(s) == {ATT} and kinds(ev, "hits_chosen")[0]["by"] == "owner"


def test_none_takes_a_second_hit_before_each_has_one_D_S_9_S_8_4() -> None:
    at = {"a.1": (10, 20), "a.2": (11, 20), "a.3": (12, 20), "d.1": (10, 12), "d.2": (11, 12), "d.3": (12, 12)}
    s = duel([rifles("a", 3)], [rifles("d", 3)], at, [6, 6, 6, 6])  # plus a.3: rifles roll one die each
    s.figures["a.3"].weapon = "self_loading_rifle"  # 2 dice at short range: 4 hits on 3 figures
    s, ev = fire(s, "a", "d.1", group=True)
    choice = kinds(ev, "hits_to_choose")[0]
    assert status(s, "d.1", "d.2", "d.3") == [DOWN, DOWN, DOWN]  # everyone first
    assert choice["tier"] == OUT and choice["count"] == 1
    s, _ = order(s, DEF, {"type": "hits", "figures": ["d.2"]})
    assert status(s, "d.1", "d.2", "d.3") == [DOWN, OUT, DOWN]


def test_when_his_time_runs_out_or_he_passes_the_default_order_decides_riflemen_first_D_S_9() -> None:
    squad = unit("d", fig("commander", "rifle"), fig("machine_gunner", "light_machine_gun"), fig("rifleman"),
                 fig("assistant"))
    at = {"a.1": (10, 20), "d.1": (10, 12), "d.2": (11, 12), "d.3": (12, 12), "d.4": (13, 12)}
    for flagged in (True, False):
        s = duel([unit("a", fig("rifleman", "self_loading_rifle"))], [squad], at, [5, 6])
        s, ev = fire(s, "a.1", "d.1", group=True)
        assert kinds(ev, "hits_to_choose")[0]["default"] == ["d.3", "d.4"]
        s, ev = ENGINE.end_turn(s, DEF, flagged=flagged)
        assert status(s, "d.1", "d.2", "d.3", "d.4") == [IN_ACTION, IN_ACTION, DOWN, DOWN]
        assert kinds(ev, "hits_chosen")[0]["by"] == "default" and ENGINE.active_teams(s) == {ATT}


def test_without_the_owners_choice_the_default_order_applies_at_once_D_S_9() -> None:
    at = {"a.1": (10, 20), "d.1": (10, 12), "d.2": (11, 12), "d.3": (12, 12)}
    s = duel([rifles("a", 1)], [rifles("d", 3)], at, [5], choose_hits=False)
    s, _ev = fire(s, "a", "d.1", group=True)
    assert s.decision is None and status(s, "d.1", "d.2", "d.3") == [IN_ACTION, DOWN, IN_ACTION]


def test_cover_adds_to_the_need_and_a_six_always_hits_at_short_range_D_S_7() -> None:
    terrain = [element("bushes", 10, 10, 1, 1), element("house", 20, 10, 2, 2)]
    at = {"a.1": (10, 15), "a.2": (20, 15), "d.1": (10, 10), "d.2": (20, 11)}
    s = duel([unit("a", fig("rifleman"), fig("rifleman")), rifles("b", 1)], [rifles("d", 2)], at, [4],
             terrain)
    s2, ev = order(s, ATT, {"type": "fire", "body": "a.1", "target": "d.1"})
    assert needs(ev) == [("a.1", 5, 1, [4])] and status(s2, "d.1") == [IN_ACTION]  # soft cover: 5
    s.dice = Scripted((6,))
    s3, ev = order(s, ATT, {"type": "move_fire", "body": "a.2", "moves": [{"figure": "a.2", "to": [20, 14]}],
                            "target": "d.2"})
    assert needs(ev) == [("a.2", 7, 1, [6])] and status(s3, "d.2") == [DOWN]  # 4 + 2 hard + 1: the six hits
    put(s, "a.2", 20, 25)  # at 14 cells (long range): needs 5 + 2 = 7; the six misses
    s.dice = Scripted((6,))
    s4, ev = order(s, ATT, {"type": "fire", "body": "a.2", "target": "d.2"})
    assert needs(ev) == [("a.2", 7, 1, [6])] and status(s4, "d.2") == [IN_ACTION]


def test_small_arms_cannot_harm_a_tank_D_S_8_S_7_6() -> None:
    s = duel([rifles("a", 2)], [tank("t")], {"a.1": (10, 20), "a.2": (11, 20), "t.1": (10, 10, "s")}, [])
    with pytest.raises(IllegalOrder) as err:
        fire(s, "a", "t.1")
    assert err.value.rule == "D-S-8"


def test_the_machine_gunner_falls_and_the_gun_is_lost_unless_the_assistant_takes_it_up_S_8_5_D_S_8() -> None:
    mg = unit("d", fig("machine_gunner", "light_machine_gun"), fig("assistant", "rifle"), fig("rifleman"))
    at = {"a.1": (10, 20), "d.1": (10, 12), "d.2": (11, 12), "d.3": (20, 12)}
    s = duel([unit("a", fig("rifleman", "self_loading_rifle"))], [mg], at, [6, 6])
    s, ev = fire(s, "a.1", "d.1")  # two hits on the gunner: out of action
    assert status(s, "d.1") == [OUT] and kinds(ev, "weapon_dropped")[0]["weapon"] == "light_machine_gun"
    s.sides[DEF].orders_left, s.sides[ATT].orders_left, s.next_side = 2, 0, DEF
    with pytest.raises(IllegalOrder) as err:  # a rifleman cannot
        order(s, DEF, {"type": "take_up", "figure": "d.3"})
    assert err.value.rule == "S-8.5"
    put(s, "d.2", 12, 12)  # two cells from where the gunner fell: too far
    with pytest.raises(IllegalOrder):
        order(s, DEF, {"type": "take_up", "figure": "d.2"})
    put(s, "d.2", 11, 12)
    s2, ev = order(s, DEF, {"type": "take_up", "figure": "d.2"})
    assert s2.figures["d.2"].weapon == "light_machine_gun" and s2.figures["d.2"].ordered
    assert not s2.dropped and s2.sides[DEF].orders_left == 1


def test_a_dropped_gun_nobody_takes_up_is_lost_after_the_next_turn_S_8_5() -> None:
    mg = unit("d", fig("machine_gunner", "light_machine_gun"), fig("assistant", "rifle"))
    s = duel([unit("a", fig("rifleman", "self_loading_rifle"))], [mg],
             {"a.1": (10, 20), "d.1": (10, 12), "d.2": (30, 0)}, [6, 6])
    s, _ = fire(s, "a.1", "d.1")
    assert s.dropped and s.dropped[0].until == 2
    s.turn = 2
    s.dice = Scripted((1, 1, 1, 1, 1, 2, 1, 1))
    s.sides[ATT].orders_left = 0
    s.sides[DEF].orders_left, s.next_side = 1, DEF
    s, ev = order(s, DEF, {"type": "pass"})  # turn 2 ends
    assert kinds(ev, "weapon_lost")[0]["weapon"] == "light_machine_gun" and not s.dropped


def test_a_tank_fires_its_gun_and_machine_gun_the_gun_blasts_the_cell_and_its_neighbours_D_S_14() -> None:
    at = {"t.1": (20, 22, "n"), "d.1": (20, 10), "d.2": (21, 11), "d.3": (23, 10), "e.1": (19, 9)}
    s = duel([tank("t")], [rifles("d", 3), rifles("e", 1)], at, [4, 1, 1, 1, 1, 1])
    s, ev = fire(s, "t", "d.1")
    gun, mg = rolls(ev, "fire")
    assert (gun["weapon"], gun["need"], gun["dice"]) == ("tank_gun", 4, 1)  # 12 cells: short for the gun
    assert (mg["weapon"], mg["need"], mg["dice"]) == ("tank_machine_gun", 4, 5)
    assert kinds(ev, "blast")[0]["cell"] == [20, 10]
    assert status(s, "d.1", "d.2", "e.1", "d.3") == [DOWN, DOWN, DOWN, IN_ACTION]  # any unit, in the 3 × 3


def test_a_tank_gun_hit_knocks_out_a_tank_on_4_6_in_front_3_6_on_a_side_D_S_14() -> None:
    at = {"t.1": (20, 22, "n"), "u.1": (20, 10, "s")}
    s = duel([tank("t")], [tank("u")], at, [4, 3])
    s2, ev = fire(s, "t", "u.1")  # u faces south, towards t: its front
    assert rolls(ev, "knock_out")[0]["aspect"] == "front" and rolls(ev, "knock_out")[0]["need"] == 4
    assert status(s2, "u.1") == [IN_ACTION]  # 3 < 4
    put(s, "u.1", 20, 10, "e")  # broadside on
    s.dice = Scripted((4, 3))
    s3, ev = fire(s, "t", "u.1")
    assert rolls(ev, "knock_out")[0]["aspect"] == "side" and status(s3, "u.1") == [OUT]
    assert s3.sides[ATT].points == 5  # its crew (D-S-15)


def test_a_tank_may_aim_its_machine_gun_at_another_target_D_S_14() -> None:
    at = {"t.1": (20, 22, "n"), "u.1": (20, 10, "s"), "d.1": (30, 15)}
    s = duel([tank("t")], [tank("u"), rifles("d", 1)], at, [1, 1, 1, 1, 1, 1])
    s, ev = fire(s, "t", "u.1", mg_target="d.1")
    assert [(r["weapon"], r["target"]) for r in rolls(ev, "fire")] == [("tank_gun", "u.1"),
                                                                        ("tank_machine_gun", "d.1")]


def test_a_mortar_needs_no_sight_of_its_own_when_a_friend_sees_the_target_and_not_under_8_cells_D_S_14() -> None:
    crew = unit("m", fig("commander", "pistol"), fig("gunner", "mortar"))
    terrain = [element("house", 18, 18, 4, 2)]
    at = {"m.1": (20, 22), "m.2": (21, 22), "s.1": (30, 12), "d.1": (20, 10)}
    s = duel([crew, rifles("s", 1)], [rifles("d", 1)], at, [5], terrain)
    s2, ev = fire(s, "m", "d.1")  # behind the house; the spotter s.1 sees d.1
    shot = rolls(ev, "fire")[0]
    assert (shot["weapon"], shot["need"]) == ("mortar", 5) and status(s2, "d.1") == [DOWN]
    s.figures["s.1"].status = s.figures["z.1"].status = OUT  # nobody else sees it: the mortar cannot fire
    with pytest.raises(BadOrder) as bad:
        fire(s, "m", "d.1")
    assert bad.value.rule == "S-7.6"
    put(s, "s.1", 30, 12)
    put(s, "d.1", 20, 16)
    put(s, "s.1", 24, 17)
    with pytest.raises(IllegalOrder) as err:  # 6 cells: under the mortar's 8
        fire(s, "m", "d.1")
    assert err.value.rule == "D-S-8"
