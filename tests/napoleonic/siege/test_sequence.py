"""The campaign-side siege state machine (N-SIEGE-1 … N-SIEGE-5, N-SIEGE-7, N-SIEGE-8, D-N-16)."""

from __future__ import annotations

import pytest

from server.core.errors import BadOrder, IllegalOrder, NotYourUnit, RuleError, UnknownOrder
from server.napoleonic.siege.fortress import NAMED_FORTRESSES, Fortress
from server.napoleonic.siege.sequence import (
    BATTLE,
    ENDED,
    INVESTED,
    TERMS,
    Siege,
    SiegeArmy,
    accept_terms,
    battle_ended,
    impose_terms,
    lay_siege,
    order,
    propose_terms,
    requires_siege,
    turn_ended,
)

DRESDEN = NAMED_FORTRESSES["Dresden"]
FRENCH = SiegeArmy("grande-armee", "blue", artillery=3, general="Davout")
GARRISON = SiegeArmy("dresden-garrison", "red", artillery=1, general="Kleist")


def laid(turn: int = 5) -> Siege:
    siege, _ = lay_siege(DRESDEN, FRENCH, GARRISON, turn)
    return siege


def raises(exc: type[RuleError], rule: str, fn, *args, **kw) -> RuleError:  # type: ignore[no-untyped-def]
    with pytest.raises(exc) as info:
        fn(*args, **kw)
    assert info.value.rule == rule
    return info.value


def test_named_fortresses_some_are_ports_N_SIEGE_1() -> None:
    assert set(NAMED_FORTRESSES) == {"Hamburg", "Danzig", "Dresden", "Badajoz", "Lisbon"}
    assert NAMED_FORTRESSES["Lisbon"].port and not NAMED_FORTRESSES["Dresden"].port


def test_an_army_in_a_fortress_must_be_besieged_N_SIEGE_2() -> None:
    assert requires_siege(DRESDEN, garrisoned=True)
    assert not requires_siege(DRESDEN, garrisoned=False)
    assert not requires_siege(None, garrisoned=True)


def test_only_an_army_with_artillery_may_besiege_N_SIEGE_2() -> None:
    no_guns = SiegeArmy("cossacks", "blue", artillery=0)
    raises(IllegalOrder, "N-SIEGE-2", lay_siege, DRESDEN, no_guns, GARRISON, 5)
    siege, events = lay_siege(DRESDEN, FRENCH, GARRISON, 5)
    assert siege.phase == INVESTED
    assert [e.kind for e in events] == ["siege_laid"]
    assert events[0].data["storm_from"] == 6


def test_cannot_besiege_own_side_N_SIEGE_2() -> None:
    raises(IllegalOrder, "N-SIEGE-2", lay_siege, DRESDEN, SiegeArmy("x", "red", 2), GARRISON, 5)


def test_siege_lasts_one_turn_before_the_storm_N_SIEGE_2() -> None:
    siege = laid(5)
    raises(IllegalOrder, "N-SIEGE-2", order, siege, "blue", "storm", 5)
    stormed, events = order(siege, "blue", "storm", 6)
    assert stormed.phase == BATTLE and stormed.battle is not None and stormed.battle.kind == "storm"
    assert events[0].data["forced"] is False


def test_storm_follows_when_nobody_gives_way_N_SIEGE_5() -> None:
    siege = laid(5)
    same, events = turn_ended(siege, 5)
    assert same is siege and events == []
    held, _ = order(siege, "red", "hold", 5)
    assert held.holds
    stormed, events = turn_ended(held, 6)
    assert stormed.phase == BATTLE and events[0].kind == "storm" and events[0].data["forced"] is True


def test_storm_limits_30_attacker_25_defender_N_SIEGE_5() -> None:
    stormed, _ = order(laid(5), "blue", "storm", 6)
    assert stormed.battle is not None
    assert stormed.battle.limits == {"blue": 30, "red": 25}
    assert stormed.battle.attacker == "blue" and stormed.battle.siege_map


def test_sortie_is_a_field_battle_with_25_each_N_SIEGE_3() -> None:
    sortie, events = order(laid(5), "red", "sortie", 5)
    assert sortie.battle is not None
    assert sortie.battle.kind == "sortie" and not sortie.battle.siege_map
    assert sortie.battle.limits == {"blue": 25, "red": 25}
    assert sortie.battle.attacker == "red", "the garrison attacks in a sortie (D-N-1: it acts first)"
    assert events[0].data["rule"] == "N-SIEGE-3"


def test_won_sortie_breaks_the_siege_N_SIEGE_3() -> None:
    sortie, _ = order(laid(5), "red", "sortie", 5)
    broken, events = battle_ended(sortie, "red")
    assert broken.phase == ENDED and broken.outcome == "relieved" and events[0].kind == "siege_broken"
    assert broken.result() == {"fortress": "Dresden", "outcome": "relieved", "holder": "red", "garrison": "stays",
                               "general": None, "retreats": "blue"}


def test_lost_sortie_goes_back_behind_the_walls_once_only_N_SIEGE_3() -> None:
    sortie, _ = order(laid(5), "red", "sortie", 5)
    back, events = battle_ended(sortie, "blue")
    assert back.phase == INVESTED and events[0].kind == "sortie_repulsed"
    raises(IllegalOrder, "N-SIEGE-3", order, back, "red", "sortie", 5)
    stormed, _ = turn_ended(back, 6)
    assert stormed.phase == BATTLE


def test_garrison_may_surrender_and_march_out_N_SIEGE_4() -> None:
    gone, events = order(laid(5), "red", "surrender", 5)
    assert gone.over and gone.outcome == "surrendered" and events[0].data["rule"] == "N-SIEGE-4"
    assert gone.result()["holder"] == "blue" and gone.result()["retreats"] == "red"
    assert gone.result()["garrison"] == "marches_out"
    raises(IllegalOrder, "N-SIEGE-5", order, gone, "blue", "storm", 6)


def test_besieger_may_lift_the_siege_N_SIEGE_2() -> None:
    lifted, events = order(laid(5), "blue", "lift", 5)
    assert events[0].kind == "siege_lifted"
    assert lifted.outcome == "lifted" and lifted.result()["holder"] == "red" and lifted.result()["retreats"] is None


def test_each_side_gives_only_its_own_orders_N_SIEGE_2() -> None:
    siege = laid(5)
    raises(NotYourUnit, "N-SIEGE-2", order, siege, "red", "storm", 6)
    raises(NotYourUnit, "N-SIEGE-2", order, siege, "blue", "surrender", 6)
    raises(NotYourUnit, "N-SIEGE-2", order, siege, "green", "lift", 6)
    raises(UnknownOrder, "N-SIEGE-2", order, siege, "blue", "bombard", 6)


def test_repulsed_storm_ends_the_siege_N_SIEGE_7() -> None:
    stormed, _ = order(laid(5), "blue", "storm", 6)
    over, events = battle_ended(stormed, "red")
    assert events[0].kind == "storm_repulsed"
    assert over.outcome == "repulsed" and over.result()["retreats"] == "blue" and over.result()["holder"] == "red"


def stormed_and_taken(capitulated: bool = False) -> Siege:
    stormed, _ = order(laid(5), "blue", "storm", 6)
    taken, events = battle_ended(stormed, "blue", capitulated=capitulated)
    assert taken.phase == TERMS and events[0].kind == "fortress_captured"
    return taken


def test_capitulation_opens_the_terms_N_SIEGE_8() -> None:
    taken = stormed_and_taken(capitulated=True)
    assert taken.talk is not None and taken.talk.agreed is None
    sortie, _ = order(laid(5), "red", "sortie", 5)
    raises(IllegalOrder, "N-SIEGE-8", battle_ended, sortie, "blue", capitulated=True)


def test_terms_exchange_between_commanders_N_SIEGE_8_D_N_14() -> None:
    taken = stormed_and_taken()
    raises(IllegalOrder, "N-SIEGE-8", accept_terms, taken, "red")
    p1, _ = propose_terms(taken, "blue", {"garrison": "prisoners", "general": "captured"})
    raises(IllegalOrder, "N-SIEGE-8", accept_terms, p1, "blue")
    p2, _ = propose_terms(p1, "red", {"garrison": "march_out", "general": "captured"})
    done, events = accept_terms(p2, "blue")
    assert done.over and done.outcome == "captured"
    assert [e.kind for e in events] == ["terms_agreed", "general_captured"]
    assert events[1].data["secret_module_minutes"] == 20 and events[1].data["general"] == "Kleist"
    assert done.result() == {"fortress": "Dresden", "outcome": "captured", "holder": "blue",
                             "garrison": "marches_out", "general": "captured", "retreats": "red"}
    raises(IllegalOrder, "N-SIEGE-8", propose_terms, done, "red", {"garrison": "prisoners", "general": "released"})


def test_moderator_imposes_terms_N_SIEGE_8() -> None:
    p1, _ = propose_terms(stormed_and_taken(), "blue", {"garrison": "prisoners", "general": "captured"})
    done, events = impose_terms(p1, {"garrison": "prisoners", "general": "released"})
    assert events[0].data["imposed"] is True and events[1].kind == "general_released"
    assert done.result()["garrison"] == "prisoners" and done.result()["retreats"] is None


def test_bad_terms_are_refused_N_SIEGE_8() -> None:
    taken = stormed_and_taken()
    raises(BadOrder, "N-SIEGE-8", propose_terms, taken, "blue", {"garrison": "shot", "general": "captured"})
    raises(BadOrder, "N-SIEGE-8", propose_terms, taken, "blue", "surrender!")
    raises(IllegalOrder, "N-SIEGE-8", propose_terms, laid(5), "blue", {"garrison": "prisoners", "general": "released"})


def test_ports_keep_their_supply_unless_blockaded_D_N_16() -> None:
    hamburg, events = lay_siege(NAMED_FORTRESSES["Hamburg"], FRENCH, GARRISON, 5)
    assert hamburg.garrison_supplied and events[0].data["resupplied_by_sea"] is True
    blockaded, _ = lay_siege(Fortress("Hamburg", port=True, blockade=True), FRENCH, GARRISON, 5)
    assert not blockaded.garrison_supplied
    assert not laid(5).garrison_supplied


def test_siege_round_trips_through_dump_N_SIEGE_8() -> None:
    p1, _ = propose_terms(stormed_and_taken(), "blue", {"garrison": "prisoners", "general": "captured"})
    assert Siege.load(p1.dump()) == p1
    assert Siege.load(laid(3).dump()) == laid(3)
