"""Set-up: the orders of battle, the terrain and the deployment (S-1, S-2, S-3, S-7.2, S-9.1, S-9.2; D-S-2, D-S-3)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from server.core.errors import BadOrder, IllegalOrder, NotYourTurn
from server.skirmish.state import AMBUSH, IN_ACTION, SkirmishState

from .helpers import ACTORS, ATT, DEF, ENGINE, Scripted, kinds, rifles, rolls, scenario, scenario_file, unit, visible_to


def _forces(name: str) -> dict[str, Counter[tuple[str, str]]]:
    s, _ = ENGINE.setup({"scenario": scenario_file(name)}, 1)
    out: dict[str, Counter[tuple[str, str]]] = {}
    for f in s.figures.values():
        out.setdefault(f"{s.sides[f.side].nation}:{f.unit}", Counter())[(f.role, f.model)] += 1
    return out


def test_the_1941_german_squad_has_ten_figures_with_their_weapons_S_2_S_2_1() -> None:
    squad = _forces("squad")["german:g1"]
    assert squad == Counter({("commander", "MP-40"): 1, ("machine_gunner", "MG-34"): 1,
                             ("assistant", "Mauser 98k"): 1, ("rifleman", "Mauser 98k"): 7})
    s, _ = ENGINE.setup({"scenario": scenario_file("squad")}, 1)
    weapons = Counter(f.weapon for f in s.figures.values() if f.unit == "g1")
    assert weapons == Counter({"rifle": 8, "submachine_gun": 1, "light_machine_gun": 1})


def test_the_1941_soviet_squad_has_eleven_figures_with_their_weapons_S_2_S_2_2() -> None:
    squad = _forces("squad")["soviet:s1"]
    assert squad == Counter({("commander", "SVT-40"): 1, ("machine_gunner", "DP-27"): 1,
                             ("assistant", "SVT-40"): 1, ("submachine_gunner", "PPD-40"): 2,
                             ("rifleman", "Mosin"): 6})
    s, _ = ENGINE.setup({"scenario": scenario_file("squad")}, 1)
    weapons = Counter(f.weapon for f in s.figures.values() if f.unit == "s1")
    assert weapons == Counter({"rifle": 6, "self_loading_rifle": 2, "submachine_gun": 2, "light_machine_gun": 1})


def test_the_platoons_are_squads_under_a_platoon_commander_S_7_S_7_1_S_6_1() -> None:
    s, _ = ENGINE.setup({"scenario": scenario_file("platoon")}, 1)
    assert s.units["g"].children == ("g1", "g2", "g3", "gm") and s.units["s"].children == ("s1", "s2", "s3")
    assert s.figures[s.units["g"].commander or ""].role == "commander"
    assert all(s.units[c].parent == "g" for c in s.units["g"].children)
    assert sum(1 for f in s.figures.values() if f.side == ATT) == 35
    assert sum(1 for f in s.figures.values() if f.side == DEF) == 35


def test_the_tank_scenario_gives_each_side_a_medium_tank_S_1_D_S_14() -> None:
    # S-1: the fragment begins in a force list naming a medium and a heavy tank
    s, _ = ENGINE.setup({"scenario": scenario_file("platoon_tanks")}, 1)
    tanks = {f.side: (f.vehicle, f.model) for f in s.figures.values() if f.vehicle}
    assert tanks == {ATT: ("medium_tank", "Pz.Kpfw. III Ausf. G"), DEF: ("medium_tank", "T-34 obr. 1941")}
    assert {f.vtype.name for f in s.figures.values() if f.vtype} == {"medium_tank"}


def test_every_scenario_sets_up_and_deploys_with_its_own_deployment_S_3_D_S_3() -> None:
    for name in ("squad", "platoon", "platoon_tanks"):
        s, _ = ENGINE.setup({"scenario": scenario_file(name)}, 5)
        if s.stage == "terrain":
            s, _ = ENGINE.apply(s, ACTORS[DEF], {"type": "auto_terrain"})
        s, _ = ENGINE.apply(s, ACTORS[DEF], {"type": "deploy"})
        s, _ = ENGINE.apply(s, ACTORS[ATT], {"type": "deploy"})
        assert s.stage == "orders" and s.turn == 1, name
        held = {f.unit for f in s.figures.values() if f.status == AMBUSH}
        assert held == ({"s3"} if name != "squad" else set())


# --- terrain (S-3.4, D-S-2) ----------------------------------------------------------------------------------------

def _terrain_game(dice: list[int] | None = None, **settings: Any) -> SkirmishState:
    scn = scenario([rifles("a", 1)], [rifles("d", 1)], settings={"terrain_count": "roll", **settings})
    s, _ = ENGINE.setup({"scenario": scn}, 3)
    if dice is not None:
        s.dice = Scripted(tuple(dice))
    return s


def test_each_player_rolls_a_d6_and_the_total_is_the_count_of_elements_S_3_4_D_S_2() -> None:
    scn = scenario([rifles("a", 1)], [rifles("d", 1)], settings={"terrain_count": "roll"})
    s, ev = ENGINE.setup({"scenario": scn}, 3)
    faces = [r["result"][0] for r in rolls(ev, "terrain_count")]
    assert [r["side"] for r in rolls(ev, "terrain_count")] == [DEF, ATT]
    assert s.terrain_left == sum(faces) == kinds(ev, "terrain_count")[0]["count"]
    assert ENGINE.active_teams(s) == {DEF}  # the defender places first


def test_an_agreed_count_replaces_the_roll_S_3_4_D_S_2() -> None:
    s = _terrain_game(terrain_count=3)
    assert s.terrain_left == 3


def test_players_place_alternately_defender_first_outside_5_cells_of_an_edge_S_3_4_D_S_2() -> None:
    s = _terrain_game(terrain_count=3)
    with pytest.raises(NotYourTurn):
        ENGINE.apply(s, ACTORS[ATT], {"type": "terrain", "kind": "wood", "x": 10, "y": 10, "w": 3, "h": 3})
    with pytest.raises(IllegalOrder) as err:  # row 4 is within 5 cells of the north edge
        ENGINE.apply(s, ACTORS[DEF], {"type": "terrain", "kind": "house", "x": 10, "y": 4, "w": 2, "h": 2})
    assert err.value.rule == "D-S-2"
    s, ev = ENGINE.apply(s, ACTORS[DEF], {"type": "terrain", "kind": "house", "x": 10, "y": 5, "w": 3, "h": 4})
    assert kinds(ev, "terrain_placed")[0]["element"]["id"] == "house-1"
    assert ENGINE.active_teams(s) == {ATT}
    with pytest.raises(IllegalOrder):  # overlapping the house
        ENGINE.apply(s, ACTORS[ATT], {"type": "terrain", "kind": "wood", "x": 12, "y": 8, "w": 3, "h": 3})
    with pytest.raises(IllegalOrder):  # a house is 2 × 2 to 3 × 4
        ENGINE.apply(s, ACTORS[ATT], {"type": "terrain", "kind": "house", "x": 20, "y": 10, "w": 4, "h": 4})
    s, _ = ENGINE.apply(s, ACTORS[ATT], {"type": "terrain", "kind": "hedge", "x": 20, "y": 10, "w": 6, "h": 1})
    s, _ = ENGINE.apply(s, ACTORS[DEF], {"type": "terrain", "kind": "bushes", "x": 30, "y": 20, "w": 2, "h": 2})
    assert s.stage == "deploy" and [e.kind for e in s.table.elements] == ["house", "hedge", "bushes"]
    assert [e.by for e in s.table.elements] == [DEF, ATT, DEF]
    assert s.table.kind((11, 6)) == "house" and s.table.kind((21, 10)) == "hedge"


def test_either_player_may_ask_the_server_to_place_the_rest_from_the_seed_D_S_2() -> None:
    s = _terrain_game(terrain_count=4)
    s, _ = ENGINE.apply(s, ACTORS[DEF], {"type": "terrain", "kind": "house", "x": 10, "y": 5, "w": 2, "h": 2})
    # the attacker asks although it is its turn; the defender could ask too (any time in this stage)
    assert "auto_terrain" in ENGINE.any_time_orders
    s2, ev = ENGINE.apply(s, ACTORS[DEF], {"type": "auto_terrain"})
    assert s2.stage == "deploy" and len(s2.table.elements) + len(kinds(ev, "terrain_skipped")) == 4
    assert all(r["purpose"] == "terrain" for r in kinds(ev, "roll"))  # every roll an event (D-GEN-1)
    for e in s2.table.elements[1:]:
        assert e.by == "server" and e.x >= 5 and e.x + e.w <= 35 and e.y >= 5 and e.y + e.h <= 25
    again, _ev2 = ENGINE.apply(s, ACTORS[ATT], {"type": "auto_terrain"})
    assert again.table == s2.table  # the room's dice: the same seed places the same terrain


def test_the_server_picks_kind_size_turn_and_place_by_dice_D_S_2() -> None:
    # kind d6=1 house; short side d2=2 → 3; long side (3..4) d2=1 → 3; turn d2=1; x 5..32 d28=6 → 10; y 5..22 d18=6 → 10
    s = _terrain_game([3, 4], terrain_count=None)
    s.terrain_left = 1
    s.dice = Scripted((1, 2, 1, 1, 6, 6))
    s2, _ = ENGINE.apply(s, ACTORS[DEF], {"type": "auto_terrain"})
    e = s2.table.elements[0]
    assert (e.kind, e.x, e.y, e.w, e.h) == ("house", 10, 10, 3, 3)
    assert isinstance(s2.dice, Scripted) and s2.dice.left == 0


# --- deployment (S-3.2, S-3.3, D-S-3, S-7.2, S-9.1, S-9.2) --------------------------------------------------------

def _deploy_game() -> SkirmishState:
    scn = scenario([rifles("a", 3)], [rifles("d", 3), rifles("e", 2)])
    s, _ = ENGINE.setup({"scenario": scn}, 1)
    return s


def test_the_defender_deploys_first_within_8_cells_of_its_edge_S_3_2_D_S_3() -> None:
    s = _deploy_game()
    assert ENGINE.active_teams(s) == {DEF}
    with pytest.raises(NotYourTurn) as err:
        ENGINE.apply(s, ACTORS[ATT], {"type": "deploy"})
    with pytest.raises(IllegalOrder) as err:  # row 8 is the ninth row from the north edge
        ENGINE.apply(s, ACTORS[DEF], {"type": "deploy", "units": {"d": {"at": [10, 8]}, "e": {"at": [20, 2]}}})
    assert err.value.rule == "D-S-3"
    s, ev = ENGINE.apply(s, ACTORS[DEF], {"type": "deploy", "units": {"d": {"at": [10, 7]}, "e": {"at": [20, 2]}}})
    assert [(f.x, f.y) for f in s.figures.values() if f.unit == "d"] == [(10, 7), (11, 7), (12, 7)]
    assert ENGINE.active_teams(s) == {ATT}
    deployed = kinds(ev, "deployed")[0]
    assert deployed["side"] == DEF
    assert not [e for e in visible_to(ev, "team:red") if e.kind == "deployed"]  # the attacker sees nothing yet


def test_the_defenders_figures_are_placed_within_5_cm_of_each_other_S_7_2() -> None:
    s = _deploy_game()
    with pytest.raises(IllegalOrder) as err:
        ENGINE.apply(s, ACTORS[DEF], {"type": "deploy", "units": {"e": {"at": [20, 2]}},
                                      "figures": {"d.1": [10, 5], "d.2": [11, 5], "d.3": [13, 5]}})
    assert err.value.rule == "S-7.2"
    ENGINE.apply(s, ACTORS[DEF], {"type": "deploy", "units": {"e": {"at": [20, 2]}},
                                  "figures": {"d.1": [10, 5], "d.2": [11, 6], "d.3": [12, 5]}})


def test_the_attacker_deploys_within_4_cells_of_its_edge_and_18_from_any_defender_S_3_3_D_S_3() -> None:
    s = _deploy_game()
    s, _ = ENGINE.apply(s, ACTORS[DEF], {"type": "deploy", "units": {"d": {"at": [10, 7]}, "e": {"at": [20, 2]}}})
    with pytest.raises(IllegalOrder) as err:  # row 25 is the fifth from the south edge
        ENGINE.apply(s, ACTORS[ATT], {"type": "deploy", "units": {"a": {"at": [30, 25]}}})
    assert err.value.rule == "D-S-3"
    # the deployment zones of D-S-3 keep 18 cells between the sides (rows 7 and 26: 19 apart); nearer defenders
    # (a scenario's house in the middle, say) would make the attacker keep its distance
    s.figures["e.2"].y = 9
    with pytest.raises(IllegalOrder) as err:
        ENGINE.apply(s, ACTORS[ATT], {"type": "deploy", "units": {"a": {"at": [20, 26]}}})
    assert err.value.rule == "S-3.3"
    s.figures["e.2"].y = 2
    s, _ev = ENGINE.apply(s, ACTORS[ATT], {"type": "deploy", "units": {"a": {"at": [10, 26]}}})
    assert s.stage == "orders"


def test_only_the_defender_holds_units_back_and_they_are_not_on_the_table_S_9_1_S_9_2_D_S_3() -> None:
    s = _deploy_game()
    with pytest.raises(IllegalOrder) as err:  # d is neither placed nor held
        ENGINE.apply(s, ACTORS[DEF], {"type": "deploy", "units": {"e": {"at": [20, 2]}}})
    assert err.value.rule == "S-9.2"
    with pytest.raises(BadOrder):
        ENGINE.apply(s, ACTORS[DEF], {"type": "deploy", "units": {"d": {"at": [10, 7]}, "e": {"at": [20, 2]}},
                                      "hold": ["e"]})
    s, _ = ENGINE.apply(s, ACTORS[DEF], {"type": "deploy", "units": {"d": {"at": [10, 7]}}, "hold": ["e"]})
    assert [f.status for f in s.figures.values() if f.unit == "e"] == [AMBUSH, AMBUSH]
    assert s.occupant((20, 2)) is None
    with pytest.raises(IllegalOrder) as err:
        ENGINE.apply(s, ACTORS[ATT], {"type": "deploy", "units": {"a": {"at": [10, 26]}}, "hold": ["a"]})
    assert err.value.rule == "S-9.1"


def test_each_side_sees_the_others_deployed_figures_once_both_have_deployed_D_S_3() -> None:
    s = _deploy_game()
    s, _ = ENGINE.apply(s, ACTORS[DEF], {"type": "deploy", "units": {"d": {"at": [10, 7]}}, "hold": ["e"]})
    red = ENGINE.view(s, "team:red")
    assert {f["side"] for f in red["figures"]} == {ATT}  # not yet
    s, ev = ENGINE.apply(s, ACTORS[ATT], {"type": "deploy", "units": {"a": {"at": [10, 26]}}})
    shown = {e.data["side"]: [f["id"] for f in e.data["figures"]] for e in ev if e.kind == "deployment_revealed"}
    assert shown == {DEF: ["d.1", "d.2", "d.3"], ATT: ["a.1", "a.2", "a.3"]}  # not the held-back e
    red = ENGINE.view(s, "team:red")
    assert {f["id"] for f in red["figures"] if f["side"] == DEF} == {"d.1", "d.2", "d.3"}
    assert all(f.status == IN_ACTION for f in s.figures.values() if f.unit in ("a", "d"))


def test_a_scenario_needs_one_attacker_and_one_defender_S_3_2() -> None:
    scn = scenario([rifles("a", 1)], [rifles("d", 1)])
    scn["sides"][1]["role"] = "attacker"
    with pytest.raises(BadOrder) as err:
        ENGINE.setup({"scenario": scn}, 1)
    assert err.value.rule == "S-3.2"
    with pytest.raises(BadOrder):
        ENGINE.setup({"scenario": scenario([unit("a")], [rifles("d", 1)])}, 1)
    with pytest.raises(BadOrder):
        ENGINE.setup({}, 1)
