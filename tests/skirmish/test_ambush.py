"""Ambushes (S-9, S-9.1 … S-9.5; D-S-13): held back, hidden, placed by an order in broken ground near the
defender's edge and away from the enemy, firing with the same order."""

from __future__ import annotations

import json

import pytest

from server.core.errors import IllegalOrder
from server.skirmish.deployment import ambush_places
from server.skirmish.state import AMBUSH, DOWN, IN_ACTION, OUT, SkirmishState

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
    unit,
    visible_to,
)


def _game(**settings: object) -> SkirmishState:
    """The defender holds back `am` (3 figures); a wood at the west (rows 1-5), a house in the middle (rows 6-7),
    bushes far forward (rows 12-13)."""
    terrain = [element("wood", 1, 1, 6, 5), element("house", 18, 6, 3, 2), element("bushes", 30, 12, 3, 2)]
    scn = scenario([rifles("a", 3), rifles("b", 1)], [rifles("d", 1), rifles("am", 3)], terrain=terrain,
                   settings=dict(settings))
    s = start(scn, hold=["am"], orders={ATT: 0, DEF: 3}, first=DEF)
    put(s, "a.1", 10, 12)
    put(s, "a.2", 11, 12)
    put(s, "a.3", 12, 12)
    put(s, "b.1", 39, 29)
    put(s, "d.1", 39, 0)
    return s


def _spring(s: SkirmishState, cells: list[tuple[int, int]], **kw: object) -> tuple[SkirmishState, list[object]]:
    return order(s, DEF, {"type": "ambush", "unit": "am",
                          "figures": {f"am.{i + 1}": list(c) for i, c in enumerate(cells)}, **kw})


def test_held_back_units_are_off_the_table_hidden_from_the_attacker_not_even_their_number_S_9_S_9_2_D_S_13() -> None:
    s = _game()
    assert [f.status for f in s.figures.values() if f.unit == "am"] == [AMBUSH] * 3
    red = ENGINE.view(s, "team:red")
    text = json.dumps(red)
    assert "am" not in {f["unit"] for f in red["figures"]} and '"am.' not in text and '"am"' not in text
    assert {u["id"] for u in ENGINE.view(s, "team:blue")["units"]} >= {"am"}
    assert {f["id"] for f in ENGINE.view(s, "spectator")["figures"]} >= {"am.1", "am.2", "am.3"}
    lo = ENGINE.legal_orders(s, DEF)
    assert any(o.get("type") == "ambush" and o["unit"] == "am" for o in lo["orders"])


def test_only_the_defender_uses_the_ambush_rules_S_9_1() -> None:
    s = _game()
    s.sides[ATT].orders_left, s.next_side = 1, ATT
    with pytest.raises(IllegalOrder) as err:
        order(s, ATT, {"type": "ambush", "unit": "a", "figures": {"a.1": [2, 2]}})
    assert err.value.rule == "S-9.1"


def test_an_order_places_one_held_back_unit_in_broken_ground_S_9_3_S_9_4_D_S_13() -> None:
    s = _game()
    s2, ev = _spring(s, [(2, 2), (3, 2), (4, 2)])  # in the wood
    assert [s2.figures[f].status for f in ("am.1", "am.2", "am.3")] == [IN_ACTION] * 3
    assert s2.units["am"].ordered and s2.sides[DEF].orders_left == 2
    sprung = [e for e in ev if e.kind == "ambush_sprung"]
    assert sprung and not sprung[0].visible_to("team:red")
    with pytest.raises(IllegalOrder) as err:  # the open field
        _spring(s, [(10, 2), (11, 2), (12, 2)])
    assert err.value.rule == "S-9.4"
    with pytest.raises(IllegalOrder) as err:  # placing a unit is placing all of it (one unit an order)
        order(s, DEF, {"type": "ambush", "unit": "am", "figures": {"am.1": [2, 2]}})
    assert err.value.rule == "S-9.3"
    with pytest.raises(IllegalOrder) as err:  # in cohesion, as at deployment
        _spring(s, [(2, 2), (4, 2), (6, 2)])
    assert err.value.rule == "S-7.2"


def test_behind_a_house_counts_as_broken_ground_S_9_4_D_S_13() -> None:
    s = _game()
    s2, _ = _spring(s, [(18, 5), (19, 5), (20, 5)])  # the row north of the house (rows 6-7): behind it
    assert s2.figures["am.2"].cell == (19, 5)
    with pytest.raises(IllegalOrder):  # in front of the house is open ground
        _spring(s, [(18, 8), (19, 8), (20, 8)])


def test_within_6_cells_of_the_defenders_edge_and_no_closer_than_4_to_the_enemy_S_9_4_D_S_13() -> None:
    s = _game()
    with pytest.raises(IllegalOrder) as err:  # the bushes at rows 12-13 are too far forward
        _spring(s, [(30, 12), (31, 12), (32, 12)])
    assert err.value.rule == "S-9.4"
    s2, _ = _spring(s, [(4, 5), (5, 5), (6, 5)])  # row 5: the sixth from the edge
    assert s2.figures["am.1"].cell == (4, 5)
    put(s, "b.1", 6, 9)  # an attacker 4 rows below (6, 5): exactly 4 cells is allowed, 3 is not
    _spring(s, [(4, 5), (5, 5), (6, 5)])
    put(s, "b.1", 6, 8)
    with pytest.raises(IllegalOrder) as err:
        _spring(s, [(4, 5), (5, 5), (6, 5)])
    assert err.value.rule == "S-9.4"


def test_the_ambush_fires_with_the_same_order_and_its_victims_have_no_random_fire_at_it_S_9_5_D_S_13() -> None:
    s = _game(choose_hits=False)
    s.dice = Scripted((5, 4, 6))  # am.1, am.2, am.3 at a.1 (10 cells from (2, 5)... short): needs 4
    s2, ev = _spring(s, [(4, 5), (5, 5), (6, 5)], target="a.1", group=True)
    assert [r["figure"] for r in rolls(ev, "fire")] == ["am.1", "am.2", "am.3"]
    assert [r["need"] for r in rolls(ev, "fire")] == [4, 4, 4]  # no penalty: the same order places and fires
    assert sorted(f for f in ("a.1", "a.2", "a.3") if s2.figures[f].status == DOWN) == ["a.1", "a.2", "a.3"]
    assert s2.figures["a.1"].no_fire_at == ("am",)
    assert kinds(ev, "ambush_fire")[0]["figures"] == ["a.1", "a.2", "a.3"]
    # the attacker sees the ambushers that fired on it
    red = {f["id"] for f in ENGINE.view(s2, "team:red")["figures"]}
    assert {"am.1", "am.2", "am.3"} <= red


def test_random_fire_passes_over_the_ambush_that_fired_on_them_that_turn_D_S_13() -> None:
    s = _game(choose_hits=False)
    s.dice = Scripted((1, 1, 1))  # all miss: a.1 … a.3 stay in action
    s, _ = _spring(s, [(4, 5), (5, 5), (6, 5)], target="a.1", group=True)
    s.sides[DEF].orders_left = 0
    s.sides[ATT].orders_left, s.next_side = 1, ATT
    put(s, "d.1", 12, 4)  # the other enemy in sight, 8 cells from a.1; the ambush is nearer (about 7)
    s.dice = Scripted((1, 2) * 20)  # every shot misses; no tie for the next initiative
    s2, ev = order(s, ATT, {"type": "pass"})
    attacker_targets = {r["target"] for r in rolls(ev, "random_fire") if r["side"] == ATT}
    assert attacker_targets == {"d.1"}  # not the ambushers
    assert {r["target"] for r in rolls(ev, "random_fire") if r["side"] == DEF} <= {"a.1", "a.2", "a.3", "b.1"}
    assert s2.turn == 2 and s2.figures["a.1"].no_fire_at == ()  # only that turn


def test_the_attackers_view_and_events_never_show_the_ambush_until_it_is_sprung_and_seen_D_S_13_D_S_3() -> None:
    s = _game()
    s2, ev = order(s, DEF, {"type": "move", "body": "d", "moves": [{"figure": "d.1", "to": [38, 1]}]})
    s3, ev3 = _spring(s2, [(2, 2), (3, 2), (4, 2)])  # deep in the wood: the attacker cannot see them
    for e in visible_to([*ev, *ev3], "team:red"):
        text = json.dumps(dict(e.data))
        assert '"am' not in text and "ambush" not in text, e  # no id of it, not even that it came on
    assert not {f["id"] for f in ENGINE.view(s3, "team:red")["figures"]} & {"am.1", "am.2", "am.3"}
    assert ambush_places(s, DEF, "am") is not None and ambush_places(s3, DEF, "am") is None


def test_a_held_back_unit_takes_no_other_order_S_9_3() -> None:
    s = _game()
    with pytest.raises(IllegalOrder) as err:
        order(s, DEF, {"type": "move", "body": "am", "moves": [{"figure": "am.1", "to": [2, 2]}]})
    assert err.value.rule == "S-9.3"
    with pytest.raises(IllegalOrder):
        order(s, DEF, {"type": "move", "body": "am.1", "moves": [{"figure": "am.1", "to": [2, 2]}]})
    assert OUT != AMBUSH and fig and unit  # the helpers used above
