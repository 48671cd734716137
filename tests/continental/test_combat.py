"""Combat (C-9.5, C-9.8, C-CRT with D-C-3, D-C-4, D-GEN-3) and artillery (C-9.7, D-C-5)."""

from __future__ import annotations

import pytest

from server.continental.combat import Fighter, crt, distribute
from server.continental.forces import CAPTURED
from server.continental.scenario import load_scenario
from server.continental.state import CampaignState
from server.core.engine import team_viewer
from server.core.errors import IllegalOrder
from tests.continental.helpers import BLUE, RED, end, kinds, next_turn, order, place, start

TABLES = load_scenario("continental").tables


def test_example_1_with_the_table_not_the_printed_numbers_C_CRT_EX1_D_GEN_3() -> None:
    """EX1 prints 4.5 : 5.33 ≈ 0.8 and then uses 0.75/0.3 swapped. By the table (D-GEN-3) at 0.8 P1 = 0.3 and
    P2 = 0.75: the weaker attacker loses 0.3 × 4.5 = 1.35, the defender 0.75 × 1.35 = 1.01."""
    out = crt(TABLES, 4.5, 5.33)
    assert out.ratio == pytest.approx(0.8) and out.attacker_weaker
    assert out.attacker_loss == pytest.approx(1.35)
    assert out.defender_loss == pytest.approx(1.0125)


def test_example_1_from_the_ratings_and_modifiers_C_CRT_EX1_C_9_8b() -> None:
    """The defender's rating derived from the rules: (RD 1 + ATD 0.9 × 3 against tanks) × hills 1.2 = 4.44;
    4.5 : 4.44 rounds to 1.0, where the attacker counts as weaker (D-C-3): P1 0.15, P2 0.9."""
    k2 = (1 + 0.9 * float(TABLES["antitank_factor"])) * float(TABLES["defender_terrain"]["hills"])
    out = crt(TABLES, 4.5, k2)
    assert out.ratio == pytest.approx(1.0) and out.attacker_weaker
    assert out.attacker_loss == pytest.approx(0.675)
    assert out.defender_loss == pytest.approx(0.6075)


def test_example_2_flank_strike_in_forest_C_CRT_EX2_D_C_3_D_GEN_3() -> None:
    """A TD (2) strikes a three-division rifle corps in forest on the flank: 3 × 1.1 × 0.5 = 1.65 (T9-1 RD
    flank 90 = 0.5). 2 : 1.65 = 1.21 → 1.2; the table's 1.2 column (the example used 1.3's numbers): the
    defender loses 0.22 × 1.65 = 0.363, the attacker 0.363 × 0.95 = 0.345. Step 6: each RD's share 0.121 over
    its multiplier 0.55 = 0.22 → 0.2 simple; the TD 0.345 → 0.3."""
    out = crt(TABLES, 2.0, 1.65)
    assert out.ratio == pytest.approx(1.2) and not out.attacker_weaker
    assert out.defender_loss == pytest.approx(0.363)
    assert out.attacker_loss == pytest.approx(0.34485)

    class U:
        def __init__(self, uid: str, rating: float) -> None:
            self.id, self.rating = uid, rating

    rds = [Fighter(U(f"rd{i}", 1.0), 1.1 * 0.5) for i in range(3)]  # type: ignore[arg-type]
    assert distribute(out.defender_loss, rds) == {"rd0": 0.2, "rd1": 0.2, "rd2": 0.2}
    assert distribute(out.attacker_loss, [Fighter(U("td", 2.0), 1.0)]) == {"td": 0.3}  # type: ignore[arg-type]


def test_example_3_river_forced_at_more_than_three_to_one_capitulates_C_CRT_EX3_D_C_3() -> None:
    """7 against (2 + 2/3) × 0.5 = 1.33 after the AD's strike; with the river × 1.7 (which the example forgot)
    2.27: 7 / 2.27 = 3.09 → 3.1: absolute — the defenders capitulate, the attackers lose nothing."""
    k2 = (2 + 2 / 3) * 0.5 * float(TABLES["defender_terrain"]["river"])
    out = crt(TABLES, 7.0, k2)
    assert out.ratio == pytest.approx(3.1) and out.defender_capitulates and out.attacker_loss == 0


def test_ratio_bounds_of_the_table_D_C_3() -> None:
    assert crt(TABLES, 1.0, 3.4).attacker_capitulates  # 0.29 → 0.3: the weaker attacker's losses are absolute
    assert crt(TABLES, 3.0, 1.0).defender_capitulates  # 3.0: capitulation
    assert not crt(TABLES, 2.9, 1.0).defender_capitulates
    assert crt(TABLES, 1.0, 1.0).attacker_weaker  # at 1:1 the attacker is the weaker side


def test_tank_attack_on_rifle_division_in_hills_engine_C_9_8_C_9_8b_D_C_3() -> None:
    """L2 (hills exist from level 2). TD 2 vs RD 1 × 1.2 = 1.2; 2/1.2 = 1.67 → 1.7: P1 0.55, P2 0.5. Defender
    loses 0.66 effective = 0.55 simple → 0.6; attacker 0.33 → 0.3. Level 2 removes whole regiments: the RD loses
    its artillery regiment (0.4), carrying 0.2... so one rifle regiment (0.2) too."""
    s = start(2)
    td = place(s, "red", "TD", (53, 26), facing="E")
    rd = place(s, "blue", "RD", (54, 26), facing="W")
    s, events = order(s, RED, type="attack", target=[54, 26], echelons=[[td]])
    battle = next(e for e in events if e.kind == "battle")
    rnd = battle.data["rounds"][0]
    assert rnd["k2"] == pytest.approx(1.2) and rnd["ratio"] == pytest.approx(1.7)
    assert rnd["losses"] == {td: 0.3, rd: 0.6}
    assert s.units[rd].rating == pytest.approx(0.4)
    assert len(s.units[rd].regiments) == 2
    assert battle.visible_to(team_viewer("blue")) and battle.visible_to(team_viewer("red"))


def test_level_1_losses_reduce_the_rating_directly_D_C_3() -> None:
    s = start(1)
    td = place(s, "red", "TD", (43, 18), facing="E")
    rd = place(s, "blue", "RD", (44, 18), facing="W")
    s, _ = order(s, RED, type="attack", target=[44, 18], echelons=[[td]])
    # 2 : 1 → 2.0: P1 0.9 → defender loses 0.9, attacker 0.27 → 0.3
    assert s.units[rd].rating == pytest.approx(0.1)
    assert s.units[td].rating == pytest.approx(1.7)
    assert s.war and s.aggressor == "red"


def test_direction_factors_are_a_level_2_rule_none_at_level_1_C_9_8b_C_0_2_D_C_4() -> None:
    """Revised D-C-4: Tables 9–10 are level-2 rules (C-0.2). At level 1 a rifle division struck in the flank keeps
    its whole rating (the strike is still reported as a flank strike, C-9.5)."""
    s = start(1)
    rd1 = place(s, "red", "RD", (44, 19), facing="S")
    place(s, "blue", "RD", (44, 18), facing="W")  # attacked from the north: its right flank (90°)
    s, events = order(s, RED, type="attack", target=[44, 18], echelons=[[rd1]])
    battle = next(e for e in events if e.kind == "battle").data
    assert battle["rounds"][0]["k2"] == pytest.approx(1.0) and battle["main_blow"] is None
    assert "flank" in battle["form"]


def test_flank_attack_uses_table_9_at_level_2_C_9_8b_C_T9_1_D_C_4() -> None:
    s = start(2)
    rd1 = place(s, "red", "RD", (44, 19), facing="S")
    place(s, "blue", "RD", (44, 18), facing="W")  # plain at level 2 too
    s, events = order(s, RED, type="attack", target=[44, 18], echelons=[[rd1]])
    battle = next(e for e in events if e.kind == "battle").data
    assert battle["rounds"][0]["k2"] == pytest.approx(0.5)  # RD flank 90 = 0.5 of its front rating
    assert battle["main_blow"] == "flank90" and "flank" in battle["form"]


@pytest.mark.parametrize(("front", "flank", "blow", "k2"), [
    ("TD", "RD", "front", 1.0),    # 2 from the front against 1 on the flank
    ("RD", "TD", "flank90", 0.5),  # the main blow comes on the flank
    ("RD", "RD", "front", 1.0),    # a tie: the more frontal direction
])
def test_the_defender_is_rated_for_the_direction_of_the_main_blow_C_9_8b_D_C_4(front: str, flank: str, blow: str,
                                                                               k2: float) -> None:
    """Revised D-C-4: not the worst direction of any attacker — the direction the largest share of the attacking
    rating comes from (ties: the more frontal). A rifle division (1.0 at level 2) facing west, struck from the
    west (front) and from the north (its flank, 90°)."""
    s = start(2)
    a = place(s, "red", front, (43, 18), facing="E")
    b = place(s, "red", flank, (44, 19), facing="S")
    place(s, "blue", "RD", (44, 18), facing="W")
    s, events = order(s, RED, type="attack", target=[44, 18], echelons=[[a, b]])
    battle = next(e for e in events if e.kind == "battle").data
    assert battle["main_blow"] == blow and battle["rounds"][0]["k2"] == pytest.approx(k2)
    assert "combined" in battle["form"]


def test_antitank_division_triples_against_tanks_C_9_8b() -> None:
    s = start(1)
    td = place(s, "red", "TD", (43, 18), facing="E")
    place(s, "blue", "ATD", (44, 18), facing="W")
    s, events = order(s, RED, type="attack", target=[44, 18], echelons=[[td]])
    assert next(e for e in events if e.kind == "battle").data["rounds"][0]["k2"] == pytest.approx(2.7)


@pytest.mark.parametrize("arm", ["AD", "ATD", "AHQ", "CHQ"])
def test_artillery_and_headquarters_cannot_make_a_regular_strike_C_9_8_C_T1(arm: str) -> None:
    s = start(1)
    ad = place(s, "red", arm, (43, 18), facing="E")
    place(s, "blue", "RD", (44, 18), facing="W")
    with pytest.raises(IllegalOrder) as err:
        order(s, RED, type="attack", target=[44, 18], echelons=[[ad]])
    assert err.value.rule == "C-9.8"


def test_attack_strikes_with_the_front_C_9_8() -> None:
    s = start(1)
    rd = place(s, "red", "RD", (43, 18), facing="N")
    place(s, "blue", "RD", (44, 18), facing="W")
    with pytest.raises(IllegalOrder):
        order(s, RED, type="attack", target=[44, 18], echelons=[[rd]])


def test_defender_withdraws_and_attacker_advances_C_9_8a() -> None:
    s = start(1)
    rd = place(s, "red", "RD", (43, 18), facing="E")
    bd = place(s, "blue", "RD", (44, 18), facing="W")
    s.regulations["blue"] = {"on_attack": {bd: "withdraw"}}
    s, events = order(s, RED, type="attack", target=[44, 18], echelons=[[rd]])
    assert "withdrawal" in kinds(events) and "battle" not in kinds(events)
    assert s.units[bd].cell == (45, 18) and s.units[bd].rating == 1.0
    assert s.units[rd].cell == (44, 18)  # 10 km of 30 ≤ 2/3 of the move


def _withdrawing(level: int) -> tuple[CampaignState, tuple[str, str, str]]:
    """A red RD and TD, both facing east beside a blue RD at 44-18 that withdraws when attacked."""
    s = start(level)
    rd = place(s, "red", "RD", (43, 18), facing="E")
    td = place(s, "red", "TD", (43, 19), facing="E")
    bd = place(s, "blue", "RD", (44, 18), facing="W")
    s.regulations["blue"] = {"on_attack": {bd: "withdraw"}}
    return s, (rd, td, bd)


def test_after_a_withdrawal_every_attacker_may_advance_two_thirds_of_its_move_C_9_8a() -> None:
    """The defender withdraws: each attacker of the first echelon may advance on the same turn by up to 2/3 of its
    arm's move in that terrain — the TD (40 km a turn on the plain) along its `pursue` path two cells (20 km, the
    third would make 30 > 26.7), the RD (30 km) into the vacated square and then, by a later move, one more
    (2 × 10 = 20 km = 2/3 of 30). Not backwards (C-4.4), and no new strike: the strike took their turn."""
    s, (rd, td, bd) = _withdrawing(1)
    s, events = order(s, RED, type="attack", target=[44, 18], echelons=[[rd, td]],
                      pursue={td: [[44, 19], [45, 19], [46, 19], [47, 19]]})
    assert "withdrawal" in kinds(events) and s.units[bd].cell == (45, 18)
    assert s.units[td].cell == (45, 19) and s.units[td].pursuit == pytest.approx(1 / 6)
    assert s.units[rd].cell == (44, 18) and s.units[rd].pursuit == pytest.approx(1 / 3)
    with pytest.raises(IllegalOrder) as err:
        order(s, RED, type="move", unit=rd, path=[[43, 18]])
    assert err.value.rule == "C-9.8a"
    with pytest.raises(IllegalOrder):
        order(s, RED, type="attack", target=[45, 18], echelons=[[rd]])
    s, _ = order(s, RED, type="move", unit=rd, path=[[44, 17]])
    assert s.units[rd].cell == (44, 17) and s.units[rd].pursuit == pytest.approx(0.0, abs=1e-6)
    with pytest.raises(IllegalOrder):
        order(s, RED, type="move", unit=rd, path=[[45, 17]])
    s = next_turn(s)
    assert all(u.pursuit == 0 for u in s.units.values())


def test_pursuit_paths_are_carried_out_at_level_3_C_9_8a_C_1_7() -> None:
    """At level 3 the strikes are carried out after the moves (C-1.7): the pursuit is in the attack order."""
    s, (rd, td, _) = _withdrawing(3)
    s, _ = order(s, RED, type="attack", target=[44, 18], echelons=[[rd, td]],
                 pursue={td: [[44, 19], [45, 19], [46, 19]]})
    s, _ = end(s, "red")
    s, events = end(s, "blue")
    assert "withdrawal" in kinds(events)
    assert s.units[td].cell == (45, 19) and s.units[rd].cell == (44, 18)


def test_second_echelon_enters_when_the_first_capitulates_C_9_8c_C_CRT_DEF() -> None:
    """The ATD (0.2 × 3 against tanks) faces 5: over 3.1, its losses are absolute (it capitulates, the battle lasts
    less than a turn), and the second echelon behind it fights on the same turn."""
    s = start(1)
    a1 = place(s, "red", "SPD", (43, 18), facing="E")
    a2 = place(s, "red", "TD", (43, 17), facing="NE")
    d1 = place(s, "blue", "ATD", (44, 18), facing="W", rating=0.2)
    d2 = place(s, "blue", "RD", (45, 18), facing="W")
    s, events = order(s, RED, type="attack", target=[44, 18], echelons=[[a1, a2]])
    battle = next(e for e in events if e.kind == "battle")
    assert len(battle.data["rounds"]) == 2
    assert battle.data["rounds"][1]["defenders"] == [d2]
    assert s.units[d1].status == CAPTURED


def test_a_line_destroyed_by_the_table_brings_no_echelon_that_turn_C_9_8c_C_CRT_DEF() -> None:
    """2.5 : 1 — the table's P1 is 1.0: the rifle division loses its whole rating and is destroyed, but its losses
    are not absolute (no capitulation; the battle took the turn): the division behind it does not enter, and the
    attackers have used their turn (one follows into the empty square, C-9.8a)."""
    s = start(1)
    a1 = place(s, "red", "TD", (43, 18), facing="E")
    a2 = place(s, "red", "CavD", (43, 17), facing="NE")
    d1 = place(s, "blue", "RD", (44, 18), facing="W")
    d2 = place(s, "blue", "RD", (45, 18), facing="W")
    s, events = order(s, RED, type="attack", target=[44, 18], echelons=[[a1, a2]])
    battle = next(e for e in events if e.kind == "battle").data
    (rnd,) = battle["rounds"]
    assert rnd["ratio"] == pytest.approx(2.5) and rnd["p1"] == 1.0 and not rnd["defender_capitulates"]
    assert s.units[d1].status == "destroyed" and s.units[d2].rating == 1.0 and not s.units[d2].fought
    assert s.units[a1].cell == (44, 18) and s.units[a1].used == 1.0


def test_the_attackers_next_echelon_enters_when_the_first_capitulates_C_9_8c() -> None:
    """1 : 3 rounds to 0.3: the attacking rifle division's losses are absolute; the tank division behind it strikes
    on the same turn (2 : 3 → 0.7)."""
    s = start(1)
    a1 = place(s, "red", "RD", (43, 18), facing="E")
    a2 = place(s, "red", "TD", (42, 18), facing="E")
    d1 = place(s, "blue", "SPD", (44, 18), facing="W")
    s, events = order(s, RED, type="attack", target=[44, 18], echelons=[[a1], [a2]])
    rounds = next(e for e in events if e.kind == "battle").data["rounds"]
    assert [r["attackers"] for r in rounds] == [[a1], [a2]] and rounds[0]["attacker_capitulates"]
    assert rounds[1]["ratio"] == pytest.approx(0.7) and s.units[a1].status == CAPTURED
    assert s.units[d1].fought


def test_capitulation_makes_prisoners_C_CRT_DEF_C_10_1() -> None:
    s = start(1)
    a = place(s, "red", "SPD", (43, 18), facing="E")
    d = place(s, "blue", "RD", (44, 18), facing="W")
    s, _events = order(s, RED, type="attack", target=[44, 18], echelons=[[a]])
    assert s.units[d].status == CAPTURED and s.prisoners == {"red": 1}
    assert s.units[a].cell == (44, 18)  # the battle lasted less than a turn: the attacker moves on
    assert s.units[a].used < 1


def test_support_fire_of_neighbours_at_level_2_C_9_8c() -> None:
    s = start(2)
    a = place(s, "red", "RD", (43, 18), facing="E")
    sup = place(s, "red", "AD", (43, 19), facing="E")
    place(s, "blue", "TD", (44, 18), facing="W")
    s, events = order(s, RED, type="attack", target=[44, 18], echelons=[[a]], support=[sup])
    assert next(e for e in events if e.kind == "battle").data["rounds"][0]["k1"] == pytest.approx(3.0)


def test_forcing_a_river_multiplies_defender_and_adds_losses_C_9_8b_C_CRT_S8() -> None:
    s = start(2)
    a = place(s, "red", "TD", (47, 25), facing="E")
    place(s, "blue", "RD", (48, 25), facing="W")
    s, events = order(s, RED, type="attack", target=[48, 25], echelons=[[a]])
    battle = next(e for e in events if e.kind == "battle").data
    assert "river" in battle["form"]
    rnd = battle["rounds"][0]
    assert rnd["k2"] == pytest.approx(1.7)
    # 2 / 1.7 = 1.18 → 1.2: attacker loses 0.22 × 1.7 × 0.95 = 0.355 → 0.36 + 0.1 forcing → 0.5
    assert rnd["losses"][a] == pytest.approx(0.5)


def test_artillery_strike_destroys_half_on_open_ground_at_level_1_C_9_7a() -> None:
    s = start(1)
    ad = place(s, "red", "AD", (41, 18), facing="E")
    d = place(s, "blue", "TD", (44, 18), facing="W")
    s, _events = order(s, RED, type="strike", unit=ad, target=[44, 18])
    assert s.units[d].rating == pytest.approx(1.0)
    with pytest.raises(IllegalOrder) as err:
        order(s, RED, type="strike", unit=ad, target=[44, 18])
    assert err.value.rule == "C-9.7"


def test_artillery_range_is_30km_C_9_7a() -> None:
    s = start(1)
    ad = place(s, "red", "AD", (40, 18), facing="E")
    place(s, "blue", "TD", (44, 18), facing="W")
    with pytest.raises(IllegalOrder) as err:
        order(s, RED, type="strike", unit=ad, target=[44, 18])
    assert err.value.rule == "C-9.7a"


def test_range_effectiveness_table_at_level_2_and_formula_at_level_3_C_T11_D_C_5() -> None:
    s2 = start(2)
    ad = place(s2, "red", "AD", (43, 18), facing="E")
    d = place(s2, "blue", "RD", (44, 18), facing="W")
    s2, _ = order(s2, RED, type="strike", unit=ad, target=[44, 18])
    assert s2.units[d].rating == pytest.approx(0.45)  # 0.5 × 110 % = 0.55 lost
    s3 = start(3)
    ad = place(s3, "red", "AD", (41, 18), facing="E")
    d = place(s3, "blue", "RD", (44, 18), facing="W")
    s3, _ = order(s3, RED, type="strike", unit=ad, target=[44, 18])
    s3 = _resolve(s3)
    # x = 30 km: −900/15 − 10 + 120 = 50 % → 0.25 lost
    assert s3.units[d].rating == pytest.approx(0.75)


def _resolve(s):  # type: ignore[no-untyped-def]
    from tests.continental.helpers import end

    s, _ = end(s, "red")
    s, _ = end(s, "blue")
    return s


def test_no_artillery_fire_into_combat_contact_C_9_7b() -> None:
    s = start(1)
    a = place(s, "red", "RD", (43, 18), facing="E")
    ad = place(s, "red", "AD", (42, 18), facing="E")
    place(s, "blue", "RD", (44, 18), facing="W")
    s, _ = order(s, RED, type="attack", target=[44, 18], echelons=[[a]])
    with pytest.raises(IllegalOrder) as err:
        order(s, RED, type="strike", unit=ad, target=[44, 18])
    assert err.value.rule == "C-9.7b"


def test_fire_into_contact_at_level_2_needs_confirmation_and_hits_all_C_9_7b() -> None:
    s = start(2)
    a = place(s, "red", "RD", (43, 18), facing="E")
    ad = place(s, "red", "AD", (42, 18), facing="E")
    d = place(s, "blue", "RD", (44, 18), facing="W")
    s, _ = order(s, RED, type="attack", target=[44, 18], echelons=[[a]])
    with pytest.raises(IllegalOrder):
        order(s, RED, type="strike", unit=ad, target=[44, 18])
    before = s.units[d].rating
    s, _ = order(s, RED, type="strike", unit=ad, target=[44, 18], confirm=True)
    assert s.units[d].rating < before


def test_strike_on_a_road_closes_it_to_movement_for_two_turns_C_9_7c() -> None:
    s = start(1)
    ad = place(s, "red", "AD", (40, 21), facing="E")
    s, _ = order(s, RED, type="strike", unit=ad, target=[42, 20], mode="road")
    assert s.closures["42-20"] == {"movement": 2, "transfer": 5}


def test_strike_on_a_bridge_closes_it_for_seven_turns_C_9_7c() -> None:
    s = start(1)
    ad = place(s, "red", "AD", (46, 21), facing="E")
    s, _ = order(s, RED, type="strike", unit=ad, target=[48, 20], mode="bridge")
    assert s.closures["48-20"]["movement"] == 7


def test_cutoff_fire_hits_the_first_enemy_to_enter_C_9_7d_D_C_5() -> None:
    s = start(1)
    ad = place(s, "red", "AD", (41, 22), facing="E")
    b = place(s, "blue", "TD", (46, 22), facing="W")
    s, _ = order(s, RED, type="strike", unit=ad, target=[44, 22], mode="cutoff")
    from tests.continental.helpers import end

    s, _ = end(s, "red")
    s, events = order(s, BLUE, type="move", unit=b, path=[[45, 22], [44, 22]])
    assert s.units[b].rating == pytest.approx(1.0)
    assert "cutoff_fired" in kinds(events)
    assert s.interdictions == []


def test_cutoff_fire_at_level_3_waits_for_the_next_resolution_C_9_7d_D_C_5() -> None:
    from tests.continental.helpers import end

    s = start(3)
    ad = place(s, "red", "AD", (41, 22), facing="E")
    b = place(s, "blue", "TD", (46, 22), facing="W")
    s, _ = order(s, RED, type="strike", unit=ad, target=[44, 22], mode="cutoff")
    s, _ = end(s, "red")
    s, _ = end(s, "blue")
    assert len(s.interdictions) == 1
    s, _ = order(s, BLUE, type="move", unit=b, path=[[45, 22], [44, 22]])
    s, _ = end(s, "red")
    s, _events = end(s, "blue")
    assert s.units[b].rating == pytest.approx(1.5) and s.interdictions == []  # 0.5 × 50 % at 30 km (D-C-5)


def test_cutoff_fire_is_not_shown_to_the_enemy_C_9_7d() -> None:
    s = start(1)
    ad = place(s, "red", "AD", (41, 22), facing="E")
    s, events = order(s, RED, type="strike", unit=ad, target=[44, 22], mode="cutoff")
    strike = next(e for e in events if e.kind == "artillery_strike")
    assert not strike.visible_to(team_viewer("blue"))


def test_encircled_defender_may_not_withdraw_D_C_4() -> None:
    s = start(1)
    bd = place(s, "blue", "RD", (45, 18), facing="W")
    s.regulations["blue"] = {"on_attack": {bd: "withdraw"}}
    ring = [(44, 17), (44, 19), (45, 17), (45, 19), (46, 17), (46, 18), (46, 19)]
    for i, cell in enumerate(ring):
        place(s, "red", "RD", cell, facing="E", uid=f"ring{i}")
    a = place(s, "red", "TD", (44, 18), facing="E")
    s, events = order(s, RED, type="attack", target=[45, 18], echelons=[[a]])
    battle = next(e for e in events if e.kind == "battle").data
    assert "withdrawal" not in kinds(events) and "encirclement" in battle["form"]


def test_defender_retreats_after_the_battle_and_the_attacker_follows_C_9_8a() -> None:
    s = start(1)
    a = place(s, "red", "TD", (43, 18), facing="E")
    bd = place(s, "blue", "RD", (44, 18), facing="W")
    s.regulations["blue"] = {"on_attack": {"*": "retreat"}}
    s, events = order(s, RED, type="attack", target=[44, 18], echelons=[[a]])
    battle = next(e for e in events if e.kind == "battle").data
    assert battle["defender_retreated"] == [bd] and s.units[bd].cell == (45, 18)
    assert s.units[a].cell == (44, 18) and battle["advanced"]


def test_marching_division_defends_at_half_and_cannot_attack_C_4_8() -> None:
    s = start(2)
    m = place(s, "blue", "RD", (46, 20), facing="W", status="march", route=[[47, 20]])
    a = place(s, "red", "TD", (45, 20), facing="E")
    s, events = order(s, RED, type="attack", target=[46, 20], echelons=[[a]])
    assert next(e for e in events if e.kind == "battle").data["rounds"][0]["k2"] == pytest.approx(0.5)
    del m
    s2 = start(2)
    mr = place(s2, "red", "RD", (43, 18), facing="E", status="march", route=[[44, 18]])
    place(s2, "blue", "RD", (44, 18), facing="W")
    with pytest.raises(IllegalOrder) as err:
        order(s2, RED, type="attack", target=[44, 18], echelons=[[mr]])
    assert err.value.rule in ("C-4.8", "C-4.5")


def test_fortress_doubles_and_city_multiplies_the_defender_D_C_4() -> None:
    s = start(2)
    place(s, "blue", "FORT", (49, 20), uid="fort-blau")
    a = place(s, "red", "TD", (48, 21), facing="SE")
    s, events = order(s, RED, type="attack", target=[49, 20], echelons=[[a]])  # Fort Blau's garrison
    battle = next(e for e in events if e.kind == "battle").data
    assert "fortress" in battle["form"] and battle["rounds"][0]["k2"] == pytest.approx(1.1 * 2)
    s = start(1)
    a = place(s, "red", "TD", (51, 27), facing="E")
    place(s, "blue", "RD", (52, 27), facing="W")  # Blauhafen
    s, events = order(s, RED, type="attack", target=[52, 27], echelons=[[a]])
    battle = next(e for e in events if e.kind == "battle").data
    assert "settlement" in battle["form"] and battle["rounds"][0]["k2"] == pytest.approx(1.5)


def test_transfer_hit_by_cutoff_fire_ends_there_C_4_5_C_9_7d() -> None:
    from tests.continental.helpers import end

    s = start(1)
    ad = place(s, "blue", "AD", (39, 18), facing="W")
    t = place(s, "red", "RD", (33, 20), facing="E")
    s, _ = order(s, RED, type="transfer", unit=t, to="Nordstadt")
    s, _ = end(s, "red")
    s, _ = order(s, BLUE, type="strike", unit=ad, target=[38, 20], mode="cutoff")
    s, _ = end(s, "blue")
    assert s.units[t].cell == (38, 20) and s.units[t].status == "restoring"
    assert s.units[t].rating == pytest.approx(0.5)


def test_a_unit_named_twice_in_the_grouping_is_refused_C_9_8() -> None:
    from server.core.errors import BadOrder

    s = start(1)
    a = place(s, "red", "TD", (43, 18), facing="E")
    place(s, "blue", "RD", (44, 18), facing="W")
    with pytest.raises(BadOrder):
        order(s, RED, type="attack", target=[44, 18], echelons=[[a, a]])
    with pytest.raises(BadOrder):
        order(s, RED, type="attack", target=[44, 18], echelons=[[a], [a]])
