"""Hostile orders and rulings against the pure engines — battle, siege (storm) and Napoleonic campaign — as the
campaign's own fuzzer does (tests/continental/test_properties.py): random and malformed order dicts (wrong types,
missing fields, unknown order types, cells off the map, huge and negative numbers, NaN, nested junk, the other
side's ids, orders out of phase, into a finished battle) get only typed `RuleError`s, never another exception, and
the state given to the engine is unchanged (its dump() is equal before and after). An order the engine accepts
leaves a state whose dump() packs as msgpack (the room logs and snapshots it)."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.core.engine import Actor, Engine
from server.core.errors import NotYourTurn, NotYourUnit, RuleError
from server.napoleonic.battle.engine import BattleEngine
from server.napoleonic.battle.state import BattleState
from server.napoleonic.campaign.battles import battle_setup
from server.napoleonic.campaign.engine import NapoleonicEngine
from server.napoleonic.campaign.state import NapoleonicState
from server.napoleonic.siege.engine import SiegeEngine, StormState
from tests.napoleonic.battle.helpers import battle, unit
from tests.napoleonic.campaign.helpers import army, game
from tests.napoleonic.siege.helpers import storm
from tests.napoleonic.siege.helpers import u as su

from .junk import JUNK, mutated, order_dicts

SETTINGS = settings(max_examples=int(os.environ.get("HOSTILE_EXAMPLES", "250")), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
"""HOSTILE_EXAMPLES=3000 for a longer hunt (about 2.5 minutes on two cores)."""
WIRE_DICT = st.dictionaries(st.text(max_size=6), JUNK, max_size=4)
"""Orders and rulings arrive as maps with string keys (shared/protocol/client.py); anything in them."""
ACTORS = [Actor("p-red", "red", 1), Actor("p-blue", "blue", 1), Actor("mod", None, moderator=True),
          Actor("spy", None), Actor("p-green", "green", 1)]


def deliverable(value: Any) -> bool:
    """Whether a client could send `value` at all: msgpack carries it (the codec refuses JSON integers beyond)."""
    try:
        msgpack.packb(value, use_bin_type=True)
    except (OverflowError, TypeError, ValueError):
        return False
    return True


def refuses_cleanly(engine: Engine[Any], state: Any, call: Callable[[], tuple[Any, Any]],
                    given: Any = None) -> Any:
    """Run one engine call on `state`: a RuleError or a new state; `state` itself never changes. When the engine
    accepts an order a client could send (`given`), the new state and the events pack for the room's log."""
    before = engine.dump(state)
    try:
        new, events = call()
    except RuleError as exc:
        assert isinstance(exc.code, str) and isinstance(exc.message, str)
        new = None
    else:
        if deliverable(given):
            msgpack.packb(engine.dump(new), use_bin_type=True)
            msgpack.packb([dict(e.data) for e in events], use_bin_type=True)
    assert engine.dump(state) == before
    return new


# --- battle -------------------------------------------------------------------------------------------------------

BATTLE = BattleEngine()
BATTLE_TYPES = ["move", "charge", "wheel", "about_face", "formation", "limber", "unlimber", "targets", "barrage",
                "leave_melee", "retreat"]
BATTLE_FIELDS = ["unit", "path", "degrees", "formation", "targets", "guns"]
BATTLE_RULINGS = ["end_battle", "adjust", "assign_fire"]
RULING_FIELDS = ["winner", "reason", "unit", "morale", "loss_tolerance", "guns", "shooter", "targets", "turns"]
BATTLE_IDS = ["r1", "r2", "r3", "r4", "b1", "b2", "b3", "nobody"]
BATTLE_WORDS = ["red", "blue", "line", "square", "attack_column", "march_column", "limbered", "deployed"]


@functools.cache
def battles() -> tuple[BattleState, ...]:
    """Red's order phase, blue's, and a battle that is over (N-VICTORY-1 by ruling)."""
    red = battle([unit("r1", "infantry", 20, 40, facing="N"), unit("r2", "light_cavalry", 30, 40, facing="N"),
                  unit("r3", "foot_artillery", 40, 40, facing="N"), unit("r4", "infantry", 25, 34, facing="N")],
                 [unit("b1", "infantry", 20, 30, facing="S"), unit("b2", "heavy_cavalry", 30, 31, facing="S"),
                  unit("b3", "horse_artillery", 40, 30, facing="S")])
    blue, _ = BATTLE.end_turn(red, "red", flagged=False)
    over, _ = BATTLE.moderate(blue, {"type": "end_battle", "winner": "red", "reason": "test"})
    return red, blue, over


@SETTINGS
@given(which=st.integers(0, 2), actor=st.sampled_from(ACTORS),
       order=order_dicts(BATTLE_TYPES, BATTLE_FIELDS, BATTLE_IDS, BATTLE_WORDS))
def test_hostile_battle_orders_get_typed_errors_and_change_nothing_D_N_1(which: int, actor: Actor,
                                                                          order: dict[str, Any]) -> None:
    state = battles()[which]
    refuses_cleanly(BATTLE, state, lambda: BATTLE.apply(state, actor, order), order)


@SETTINGS
@given(which=st.integers(0, 2), ruling=order_dicts(BATTLE_RULINGS, RULING_FIELDS, BATTLE_IDS, BATTLE_WORDS)
       | WIRE_DICT)
def test_hostile_battle_rulings_get_typed_errors_and_change_nothing_N_FIRE_4(which: int, ruling: Any) -> None:
    state = battles()[which]
    refuses_cleanly(BATTLE, state, lambda: BATTLE.moderate(state, ruling), ruling)


@pytest.mark.parametrize("order", [{"type": "move", "unit": "b1", "path": [[20, 31]]},
                                   {"type": "about_face", "unit": "b2"}, {"type": "barrage", "unit": "b3"},
                                   {"type": "targets", "unit": "b3", "targets": []}])
def test_the_other_sides_unit_is_not_yours_D_N_1(order: dict[str, Any]) -> None:
    state = battles()[0]
    with pytest.raises(NotYourUnit) as err:
        BATTLE.apply(state, ACTORS[0], order)
    assert err.value.rule == "D-N-1"


def test_out_of_phase_and_finished_battle_orders_are_not_your_turn_D_N_1_D_N_2() -> None:
    red, blue, over = battles()
    with pytest.raises(NotYourTurn) as err:
        BATTLE.apply(red, ACTORS[1], {"type": "about_face", "unit": "b1"})
    assert err.value.rule == "D-N-1"
    with pytest.raises(NotYourTurn) as err:
        BATTLE.end_turn(blue, "red", flagged=False)
    assert err.value.rule == "D-N-1"
    with pytest.raises(NotYourTurn) as err:
        BATTLE.apply(over, ACTORS[0], {"type": "about_face", "unit": "r1"})
    assert err.value.rule == "D-N-2"


# --- siege (the storm) --------------------------------------------------------------------------------------------

SIEGE = SiegeEngine()
SIEGE_TYPES = [*BATTLE_TYPES, "climb", "capitulate"]
SIEGE_IDS = ["bi1", "bi2", "ba1", "ri1", "rg", "fortress-gun-4", "fortress-gun-5", "nobody"]


@functools.cache
def storms() -> tuple[StormState, ...]:
    """Blue besieges Dresden (map seed 7; helpers in tests/napoleonic/siege): blue's phase, red's, and a storm that is
    over."""
    blue, _ = storm([su("bi1", "infantry", 20, 50, facing="N"), su("bi2", "infantry", 30, 50, facing="N"),
                     su("ba1", "foot_artillery", 36, 46, facing="N")],
                    [su("ri1", "infantry", 37, 32), su("rg", "infantry", 64, 14)])
    side = blue.battle.active_side or ""
    other, _ = SIEGE.end_turn(blue, side, flagged=False)
    over, _ = SIEGE.moderate(other, {"type": "capitulation"})
    return blue, other, over


@SETTINGS
@given(which=st.integers(0, 2), actor=st.sampled_from(ACTORS),
       order=order_dicts(SIEGE_TYPES, BATTLE_FIELDS, SIEGE_IDS, BATTLE_WORDS))
def test_hostile_storm_orders_get_typed_errors_and_change_nothing_N_SIEGE_10_N_SIEGE_13(
        which: int, actor: Actor, order: dict[str, Any]) -> None:
    state = storms()[which]
    refuses_cleanly(SIEGE, state, lambda: SIEGE.apply(state, actor, order), order)


@SETTINGS
@given(which=st.integers(0, 2), ruling=order_dicts([*BATTLE_RULINGS, "capitulation"], RULING_FIELDS, SIEGE_IDS,
                                                   BATTLE_WORDS) | WIRE_DICT)
def test_hostile_storm_rulings_get_typed_errors_and_change_nothing_N_SIEGE_8(which: int, ruling: Any) -> None:
    state = storms()[which]
    refuses_cleanly(SIEGE, state, lambda: SIEGE.moderate(state, ruling), ruling)


# --- the Napoleonic campaign --------------------------------------------------------------------------------------

NAP = NapoleonicEngine()
NAP_TYPES = ["move", "posture", "intercept", "answer", "reinforce", "offer_quick", "answer_quick", "siege", "terms",
             "accept_terms", "appoint", "fortify"]
NAP_FIELDS = ["army", "path", "attack", "intercept", "support", "target", "battle", "choice", "paths", "accept",
              "fortress", "action", "terms", "general"]
NAP_RULINGS = ["battle_result", "impose_quick", "impose_terms"]
NAP_RULING_FIELDS = ["battle", "result", "fortress", "terms"]
NAP_IDS = ["r1", "r2", "b1", "b2", "1", "2", "Dresden", "Paris", "nobody"]
NAP_WORDS = ["red", "blue", "green", "accept", "withdraw", "retreat_with_battle", "storm", "lift", "sortie",
             "surrender", "hold", "prisoners", "march_out", "captured", "released"]


@functools.cache
def campaigns() -> tuple[NapoleonicState, ...]:
    """Red's turn; a contact (battle 1, blue to answer, N-START-3); a running battle (D-L-1); Dresden besieged
    (N-SIEGE-2); Dresden stormed and taken, the terms open (N-SIEGE-8)."""
    fresh = game([army("r1", (10, 17), units=(("infantry", 2), ("foot_artillery", 1))), army("r2", (13, 14))],
                 [army("b1", (12, 17)), army("b2", (14, 20))])
    contact, _ = NAP.apply(fresh, ACTORS[0], {"type": "move", "army": "r1", "path": [[11, 17], [12, 17]]})
    running, _ = NAP.apply(contact, ACTORS[1], {"type": "answer", "battle": "1", "choice": "accept"})
    dresden = game([army("r1", (22, 18), units=(("infantry", 3), ("foot_artillery", 1)))],
                   [army("b1", (24, 18), units=(("infantry", 2),), general="Saint-Cyr")])
    besieged, _ = NAP.apply(dresden, ACTORS[0], {"type": "move", "army": "r1", "path": [[23, 18], [24, 18]]})
    stormed = besieged
    for team in ("red", "blue"):
        stormed, _ = NAP.end_turn(stormed, team, flagged=False)
    stormed, events = NAP.apply(stormed, ACTORS[0], {"type": "siege", "fortress": "Dresden", "action": "storm"})
    public = next(e.data for e in events if e.kind == "battle_started")
    started = battle_setup(stormed, stormed.battles[public["battle"]], 1)  # the public event names no forces
    units = [{"id": x["id"], "side": side["name"], "type": x["type"], "status": "in_line", "morale": x["morale"],
              "loss_tolerance": x["loss_tolerance"], "guns": x.get("guns", 0), "arrived": True}
             for side in (started["config"]["besieger"], started["config"]["garrison"]) for x in side["units"]]
    terms, _ = NAP.moderate(stormed, {"type": "battle_result", "battle": started["battle"], "result": {
        "winner": "red", "loser": "blue", "reason": "x", "retreats": None, "general_killed": False, "units": units,
        "siege": {"capitulated": False}}})
    return fresh, contact, running, besieged, terms


def _results() -> st.SearchStrategy[Any]:
    """A battle room's result, mangled: junk units, unknown or repeated ids, junk statuses and values."""
    unit_rec = st.fixed_dictionaries({}, optional={
        "id": st.sampled_from(["r1-inf1", "r1-inf2", "r1-foo1", "b1-inf1", "b1-inf2", "x"]) | JUNK,
        "status": st.sampled_from(["in_line", "prisoner", "destroyed", "taken", "dispersed"]) | JUNK,
        "morale": JUNK, "loss_tolerance": JUNK, "guns": JUNK, "arrived": JUNK, "side": JUNK})
    return st.fixed_dictionaries({}, optional={
        "winner": st.sampled_from(["red", "blue"]) | JUNK, "loser": st.sampled_from(["red", "blue"]) | JUNK,
        "units": st.lists(unit_rec | JUNK, max_size=6) | JUNK, "retreats": JUNK | st.just("blue"),
        "general_killed": JUNK, "siege": JUNK | st.fixed_dictionaries({"capitulated": JUNK}), "reason": JUNK})


@SETTINGS
@given(which=st.integers(0, 4), actor=st.sampled_from(ACTORS[:2] + ACTORS[3:]),
       order=order_dicts(NAP_TYPES, NAP_FIELDS, NAP_IDS, NAP_WORDS))
def test_hostile_campaign_orders_get_typed_errors_and_change_nothing_C_1_7_N_START_3(
        which: int, actor: Actor, order: dict[str, Any]) -> None:
    state = campaigns()[which]
    refuses_cleanly(NAP, state, lambda: NAP.apply(state, actor, order), order)


@SETTINGS
@given(which=st.integers(0, 4), battle_id=st.sampled_from(["1", "2", 1]) | JUNK, result=_results(),
       ruling=order_dicts(NAP_RULINGS, NAP_RULING_FIELDS, NAP_IDS, NAP_WORDS) | JUNK)
def test_hostile_campaign_rulings_get_typed_errors_and_change_nothing_D_L_1(
        which: int, battle_id: Any, result: Mapping[str, Any], ruling: Any) -> None:
    state = campaigns()[which]
    for r in (ruling, {"type": "battle_result", "battle": battle_id, "result": result}):
        refuses_cleanly(NAP, state, lambda r=r: NAP.moderate(state, r), r)  # type: ignore[misc]


@pytest.mark.parametrize(("which", "order", "error", "rule"), [
    (0, {"type": "move", "army": "b1", "path": [[11, 17]]}, NotYourUnit, None),
    (0, {"type": "appoint", "army": "b2", "general": "Murat"}, NotYourUnit, None),
    (1, {"type": "answer", "battle": "1", "choice": "accept"}, NotYourUnit, "N-START-3"),
    (1, {"type": "reinforce", "battle": "1", "army": "b2"}, NotYourUnit, "D-N-12"),
    (3, {"type": "siege", "fortress": "Dresden", "action": "sortie"}, NotYourUnit, "N-SIEGE-2"),
])
def test_the_other_powers_armies_and_choices_are_not_yours(which: int, order: dict[str, Any],
                                                           error: type[RuleError], rule: str | None) -> None:
    state = campaigns()[which]
    with pytest.raises(error) as err:
        NAP.apply(state, ACTORS[0], order)
    assert err.value.rule == rule


def test_campaign_orders_out_of_turn_and_from_nobody_C_1_7_C_1_2_D_L_1() -> None:
    fresh, _, running, *_ = campaigns()
    with pytest.raises(NotYourTurn) as err:
        NAP.apply(fresh, ACTORS[1], {"type": "move", "army": "b2", "path": [[14, 19]]})
    assert err.value.rule == "C-1.7"
    with pytest.raises(NotYourTurn) as err:
        NAP.apply(fresh, ACTORS[3], {"type": "move", "army": "r1", "path": [[11, 17]]})
    assert err.value.rule == "C-1.2"
    with pytest.raises(NotYourTurn) as err:  # red fights battle 1: its campaign turn waits
        NAP.apply(running, ACTORS[0], {"type": "move", "army": "r2", "path": [[13, 15]]})
    assert err.value.rule in ("C-1.7", "D-L-1")


def _result(**kw: Any) -> dict[str, Any]:
    return {"winner": "red", "loser": "blue", "reason": "x", "retreats": "blue", "general_killed": False,
            "units": [{"id": "b1-inf1", "status": "in_line", "morale": 2}], **kw}


@pytest.mark.parametrize("result", [
    _result(siege=True),  # once an AttributeError
    _result(units="b1-inf1"),  # a string is a sequence of junk
    _result(units=[{"id": "b1-inf1", "status": "in_line", "morale": 10**30}]),  # once kept: the log could not pack it
    _result(units=[{"id": "b1-inf1", "status": "in_line", "loss_tolerance": -(2**70)}]),
    _result(units=[7, {"id": "b1-inf1"}]),
])
def test_a_junk_battle_result_is_refused_and_changes_nothing_N_VICTORY_1(result: dict[str, Any]) -> None:
    state = campaigns()[2]
    before = NAP.dump(state)
    with pytest.raises(RuleError):
        NAP.moderate(state, {"type": "battle_result", "battle": "1", "result": result})
    assert NAP.dump(state) == before


def test_a_unit_listed_twice_in_a_result_counts_once_N_VICTORY_1_D_N_14() -> None:
    """Once a StopIteration: the second listing of a unit already taken prisoner found no unit."""
    state = campaigns()[2]
    twice = [{"id": "b1-inf1", "status": "prisoner"}, {"id": "b1-inf1", "status": "prisoner"}]
    new, events = NAP.moderate(state, {"type": "battle_result", "battle": "1", "result": _result(units=twice)})
    ended = next(e.data for e in events if e.kind == "battle_ended")
    assert ended["prisoners"]["red"].count("b1-inf1") == 1
    assert [p["id"] for p in new.prisoners["red"]].count("b1-inf1") == 1


@pytest.mark.parametrize("winner", [["red"], {"red": 1}, None, 7, "green"])
def test_end_battle_names_one_of_the_two_sides_N_VICTORY_1(winner: Any) -> None:
    """Once a TypeError for an unhashable winner (an `internal` error on the wire)."""
    pairs: list[tuple[Engine[Any], Any]] = [(BATTLE, battles()[0]), (SIEGE, storms()[0])]
    for engine, state in pairs:
        before = engine.dump(state)
        with pytest.raises(RuleError) as err:
            engine.moderate(state, {"type": "end_battle", "winner": winner})
        assert err.value.rule == "N-VICTORY-1"
        assert engine.dump(state) == before


@pytest.mark.parametrize(("field", "value"), [("morale", 10**30), ("morale", 2**64 + 1), ("loss_tolerance", 11),
                                              ("guns", 5), ("guns", -1), ("morale", 1.5), ("morale", True)])
def test_adjust_keeps_values_in_range_N_FIRE_4(field: str, value: Any) -> None:
    """Once accepted: morale 10**30 (the room's log then could not pack the record), loss tolerance above the
    type's (against the battle's own invariant)."""
    state = battles()[0]
    uid = "r3" if field == "guns" else "r1"
    before = BATTLE.dump(state)
    with pytest.raises(RuleError) as err:
        BATTLE.moderate(state, {"type": "adjust", "unit": uid, field: value})
    assert err.value.rule == "N-FIRE-4" and BATTLE.dump(state) == before
    BATTLE.moderate(state, {"type": "adjust", "unit": uid, field: 1})


@pytest.mark.parametrize("cell", [[float("inf"), 0], [0, float("-inf")], [float("nan"), 1]])
def test_a_cell_of_infinity_is_a_bad_order(cell: list[float]) -> None:
    """Once an OverflowError (int(inf)) out of the campaign's path parser: an `internal` error on the wire."""
    state = campaigns()[0]
    before = NAP.dump(state)
    with pytest.raises(RuleError) as err:
        NAP.apply(state, ACTORS[0], {"type": "move", "army": "r1", "path": [cell]})
    assert err.value.code == "bad_order" and NAP.dump(state) == before


# --- legal orders with hostile fields: past the first checks, into the rules behind them -------------------------

BATTLE_SEEDS: list[dict[str, Any]] = [
    {"type": "move", "unit": "r1", "path": [[20, 39], [20, 38]]}, {"type": "charge", "unit": "r2", "path": [[30, 39]]},
    {"type": "wheel", "unit": "r1", "degrees": 45}, {"type": "about_face", "unit": "r4"},
    {"type": "formation", "unit": "r1", "formation": "square"}, {"type": "limber", "unit": "r3"},
    {"type": "targets", "unit": "r3", "targets": [{"unit": "b3", "guns": 2}, {"unit": "b1", "guns": 2}]},
    {"type": "barrage", "unit": "r3"}, {"type": "leave_melee", "unit": "r1", "path": [[20, 41]]}, {"type": "retreat"},
    {"type": "move", "unit": "b1", "path": [[20, 31]]}, {"type": "wheel", "unit": "b2", "degrees": -90},
    {"type": "targets", "unit": "b3", "targets": [{"unit": "r3", "guns": 4}]}]
BATTLE_RULING_SEEDS: list[dict[str, Any]] = [
    {"type": "end_battle", "winner": "red", "reason": "x"},
    {"type": "adjust", "unit": "r1", "morale": 3, "loss_tolerance": 5, "guns": 0},
    {"type": "assign_fire", "shooter": "r1", "targets": {"b1": 1, "b2": 2}, "turns": 2},
    {"type": "assign_fire", "shooter": "b1", "targets": ["r1", "r4"]}]
SIEGE_SEEDS: list[dict[str, Any]] = [
    {"type": "move", "unit": "bi1", "path": [[20, 49], [20, 48]]}, {"type": "climb", "unit": "bi1"},
    {"type": "capitulate"}, {"type": "targets", "unit": "ba1", "targets": [{"unit": "ri1", "guns": 2}]},
    {"type": "formation", "unit": "bi2", "formation": "attack_column"}, {"type": "about_face", "unit": "ri1"},
    {"type": "move", "unit": "ri1", "path": [[37, 33]]}, {"type": "retreat"}]
SIEGE_RULING_SEEDS: list[dict[str, Any]] = [{"type": "capitulation"}, {"type": "end_battle", "winner": "blue"},
                      {"type": "adjust", "unit": "fortress-gun-4", "guns": 1},
                      {"type": "assign_fire", "shooter": "ri1", "targets": {"bi1": 1}}]
NAP_SEEDS: list[dict[str, Any]] = [
    {"type": "move", "army": "r1", "path": [[11, 17], [12, 17]], "attack": "blue"},
    {"type": "move", "army": "r2", "path": ["13-15"]}, {"type": "posture", "army": "r1", "intercept": True},
    {"type": "intercept", "army": "b2", "target": "r2"}, {"type": "answer", "battle": "1", "choice": "accept"},
    {"type": "answer", "battle": "1", "choice": "withdraw", "paths": {"b1": [[13, 17]]}},
    {"type": "reinforce", "battle": "1", "army": "r2"}, {"type": "offer_quick", "battle": "1"},
    {"type": "answer_quick", "battle": "1", "accept": True}, {"type": "siege", "fortress": "Dresden", "action": "hold"},
    {"type": "siege", "fortress": "Dresden", "action": "sortie"},
    {"type": "terms", "fortress": "Dresden", "terms": {"garrison": "prisoners", "general": "captured"}},
    {"type": "accept_terms", "fortress": "Dresden"}, {"type": "appoint", "army": "r1", "general": "Gneisenau"},
    {"type": "fortify", "army": "r1"}]
NAP_RULING_SEEDS: list[dict[str, Any]] = [
    {"type": "battle_result", "battle": "1", "result": {
        "winner": "red", "loser": "blue", "reason": "x", "retreats": "blue", "general_killed": False,
        "siege": {"capitulated": False}, "units": [
            {"id": "b1-inf1", "status": "prisoner", "morale": 2, "loss_tolerance": 3, "guns": 0, "arrived": True},
            {"id": "r1-inf1", "status": "in_line", "morale": 1, "loss_tolerance": 1, "guns": 0, "arrived": True}]}},
    {"type": "impose_quick", "battle": "1"},
    {"type": "impose_terms", "fortress": "Dresden", "terms": {"garrison": "march_out", "general": "released"}}]


@SETTINGS
@given(which=st.integers(0, 2), actor=st.sampled_from(ACTORS[:3]),
       order=mutated(BATTLE_SEEDS, BATTLE_IDS, BATTLE_WORDS))
def test_legal_battle_orders_with_hostile_fields_D_N_1(which: int, actor: Actor, order: dict[str, Any]) -> None:
    state = battles()[which]
    refuses_cleanly(BATTLE, state, lambda: BATTLE.apply(state, actor, order), order)


@SETTINGS
@given(which=st.integers(0, 2), ruling=mutated(BATTLE_RULING_SEEDS, BATTLE_IDS, BATTLE_WORDS))
def test_legal_battle_rulings_with_hostile_fields_N_FIRE_4(which: int, ruling: dict[str, Any]) -> None:
    state = battles()[which]
    refuses_cleanly(BATTLE, state, lambda: BATTLE.moderate(state, ruling), ruling)


@SETTINGS
@given(which=st.integers(0, 2), actor=st.sampled_from(ACTORS[:3]),
       order=mutated(SIEGE_SEEDS + BATTLE_SEEDS[:4], SIEGE_IDS, BATTLE_WORDS),
       ruling=mutated(SIEGE_RULING_SEEDS, SIEGE_IDS, BATTLE_WORDS))
def test_legal_storm_orders_and_rulings_with_hostile_fields_N_SIEGE_8_N_SIEGE_13(
        which: int, actor: Actor, order: dict[str, Any], ruling: dict[str, Any]) -> None:
    state = storms()[which]
    refuses_cleanly(SIEGE, state, lambda: SIEGE.apply(state, actor, order), order)
    refuses_cleanly(SIEGE, state, lambda: SIEGE.moderate(state, ruling), ruling)


def _for_state(seeds: list[dict[str, Any]], which: int) -> list[dict[str, Any]]:
    """The seeds that fit campaign state `which` (see campaigns()), so that most mutants reach deep rule code."""
    fits = [("move", "posture", "intercept", "appoint", "fortify"), ("answer", "reinforce"),
            ("offer_quick", "answer_quick", "battle_result", "impose_quick"), ("siege",),
            ("terms", "accept_terms", "impose_terms")][which]
    return [o for o in seeds if o["type"] in fits] or seeds


@SETTINGS
@given(which=st.integers(0, 4), actor=st.sampled_from(ACTORS[:2]), data=st.data())
def test_legal_campaign_orders_and_rulings_with_hostile_fields_N_START_3_D_L_1(
        which: int, actor: Actor, data: st.DataObject) -> None:
    state = campaigns()[which]
    order = data.draw(mutated(_for_state(NAP_SEEDS, which), NAP_IDS, NAP_WORDS))
    ruling = data.draw(mutated(_for_state(NAP_RULING_SEEDS, which), NAP_IDS, NAP_WORDS))
    refuses_cleanly(NAP, state, lambda: NAP.apply(state, actor, order), order)
    refuses_cleanly(NAP, state, lambda: NAP.moderate(state, ruling), ruling)


@pytest.mark.parametrize("kind", [{}, [], ["close_road"], None, 3])
def test_a_campaign_ruling_of_no_known_type_is_unknown_C_9_4(kind: Any) -> None:
    """Once a TypeError (an unhashable type looked up among the interventions): the moderator's `internal` error."""
    from tests.continental.helpers import ENGINE as CAMPAIGN
    from tests.continental.test_properties import _cfg

    state, _ = CAMPAIGN.setup(_cfg(2, True), 3)
    before = CAMPAIGN.dump(state)
    with pytest.raises(RuleError) as err:
        CAMPAIGN.moderate(state, {"type": kind})
    assert err.value.code == "unknown_order" and CAMPAIGN.dump(state) == before


@pytest.mark.parametrize("ruling", [{"type": "close_road", "cells": None}, {"type": "open_road", "cells": True},
                                    {"type": "close_road", "cells": 7},
                                    {"type": "adjust_rating", "unit": "r5RD", "rating": float("nan")},
                                    {"type": "adjust_rating", "unit": "r5RD", "rating": float("inf")}])
def test_campaign_rulings_with_junk_values_are_bad_orders_C_9_4(ruling: dict[str, Any]) -> None:
    """Once a TypeError (cells that are no list) or accepted (a NaN or infinite rating)."""
    from tests.continental.helpers import ENGINE as CAMPAIGN
    from tests.continental.test_properties import _cfg

    state, _ = CAMPAIGN.setup(_cfg(2, True), 3)
    before = CAMPAIGN.dump(state)
    with pytest.raises(RuleError) as err:
        CAMPAIGN.moderate(state, ruling)
    assert err.value.code == "bad_order" and CAMPAIGN.dump(state) == before


@pytest.mark.parametrize("cell", [{"a": 1, "b": 2}, [float("inf"), 0], [0, float("-inf")]])
def test_a_campaign_cell_that_is_a_map_or_infinite_is_a_bad_order(cell: Any) -> None:
    """Once a KeyError (a map of two keys read as [x, y]) or an OverflowError (int(inf)): an `internal` error."""
    from tests.continental.helpers import ENGINE as CAMPAIGN
    from tests.continental.test_properties import _cfg

    state, _ = CAMPAIGN.setup(_cfg(2, True), 3)
    for team in ("red", "blue"):
        state, _ = CAMPAIGN.end_turn(state, team, flagged=False)
    before = CAMPAIGN.dump(state)
    for order in ({"type": "move", "unit": "r5RD", "path": [cell]},
                  {"type": "strike", "unit": "r5RD", "target": cell, "mode": "destroy"}):
        with pytest.raises(RuleError) as err:
            CAMPAIGN.apply(state, Actor("p", "red"), order)
        assert err.value.code == "bad_order" and CAMPAIGN.dump(state) == before



@functools.cache
def continental(level: int, planning: bool) -> Any:
    from tests.continental.helpers import ENGINE as CAMPAIGN
    from tests.continental.test_properties import _cfg

    state, _ = CAMPAIGN.setup(_cfg(level, True), 3)
    if not planning:
        for team in ("red", "blue"):
            state, _ = CAMPAIGN.end_turn(state, team, flagged=False)
    return state


@SETTINGS
@given(level=st.sampled_from([1, 2, 3]), planning=st.booleans(), data=st.data())
def test_legal_continental_orders_with_hostile_fields_C_1_7(level: int, planning: bool, data: st.DataObject) -> None:
    """The campaign's own fuzzer (tests/continental/test_properties.py) sends random orders; this one mutates its
    legal candidates, as above."""
    from tests.continental.helpers import ENGINE as CAMPAIGN
    from tests.continental.test_properties import _candidate

    state = continental(level, planning)
    team = data.draw(st.sampled_from(sorted(CAMPAIGN.active_teams(state))))
    seed = next((c for c in (_candidate(state, team, data) for _ in range(5)) if c), None)
    if seed is None:
        return
    units = sorted(state.units)
    order = data.draw(mutated([seed], units[:6] + units[-6:], ["red", "blue", "accept", "withdraw", "retreat"]))
    refuses_cleanly(CAMPAIGN, state, lambda: CAMPAIGN.apply(state, Actor("p", team), order), order)


# --- level-3 recorded orders: what is kept is the command, not the client's dict -----------------------------------

def test_a_recorded_order_keeps_only_its_command_C_1_7_C_9_3() -> None:
    """C-1.7 [L3], C-9.3: the mediator records the order it read; junk fields beside it (up to a frame's
    worth each) once went into `pending`, the snapshot and the order_recorded event verbatim, growing them."""
    from server.continental.orders import parse
    from tests.continental.helpers import ENGINE as CAMPAIGN
    from tests.continental.helpers import RED, place, start

    s = start(3)
    uid = place(s, "red", "RD", (40, 20))
    plain = {"type": "move", "unit": uid, "path": [[41, 20]]}
    junk = {**plain, "path": ["41-20"], "memo": "x" * 100_000, "extra": [[0] * 1000] * 10}
    kept, _ = CAMPAIGN.apply(s, RED, plain)
    new, events = CAMPAIGN.apply(s, RED, junk)
    assert new.pending == kept.pending == {"red": [{**plain, "number": 1}]}  # the number to amend it by (C-1.7)
    assert CAMPAIGN.dump(new) == CAMPAIGN.dump(kept)
    assert [e.data for e in events] == [e.data for e in CAMPAIGN.apply(s, RED, plain)[1]]
    assert parse(new.pending["red"][0]) == parse(junk)


@pytest.mark.parametrize("given", [
    {"type": "move", "unit": "u", "path": [[1, 2], "2-3"]}, {"type": "march", "unit": "u", "path": [[1, 2]]},
    {"type": "turn", "unit": "u", "facing": "NE"}, {"type": "frontage", "unit": "u", "width": 2},
    {"type": "transfer", "unit": "u", "to": "a"}, {"type": "split", "unit": "u"},
    {"type": "merge", "units": ["a", "b"]},
    {"type": "corps", "name": "I", "units": ["a"]}, {"type": "reassign", "regiment": "r", "to": "a"},
    {"type": "formation", "unit": "u", "formation": "support"},
    {"type": "attack", "target": "4-5", "echelons": [["a", "b"], ["c"]], "support": ["d"]},
    {"type": "strike", "unit": "u", "target": [4, 5], "mode": "bridge", "confirm": 1},
    {"type": "posture", "on_attack": "withdraw"}, {"type": "deploy", "unit": "u", "cell": [3, 3]},
    {"type": "army", "name": "A", "units": ["a"], "zone": [[0, 0], [9, 9]]}, {"type": "cover", "unit": "u"},
    {"type": "question", "kind": "locate", "unit": "x"}, {"type": "question", "kind": "count", "cell": [1, 1]},
    {"type": "propose_peace", "to": "blue", "border": [[[1, 1], "red"]]}, {"type": "capitulate"},
])
def test_the_recorded_form_reads_back_as_the_same_command_C_1_7(given: dict[str, Any]) -> None:
    """What `pending` keeps replays exactly: the wire form of a parsed command parses to that command."""
    from server.continental.orders import parse

    cmd = parse({**given, "junk": "x" * 1000})
    assert parse(cmd.wire_form()) == cmd and "junk" not in cmd.wire_form()
    assert deliverable(cmd.wire_form())


NOT_WHOLE = [[1.5, 2.5], [10, 17.5], [True, 17], ["10", "17.5"], "10.5-17"]


@pytest.mark.parametrize("cell", NOT_WHOLE)
def test_a_path_cell_of_fractions_is_a_bad_order_D_NAP_1(cell: Any) -> None:
    """D-NAP-1: paths are cells of the grid; [1.5, 2.5] was read as [1, 2] (int() rounds toward zero)."""
    state = campaigns()[0]
    before = NAP.dump(state)
    with pytest.raises(RuleError) as err:
        NAP.apply(state, ACTORS[0], {"type": "move", "army": "r1", "path": [cell]})
    assert err.value.code == "bad_order" and NAP.dump(state) == before


@pytest.mark.parametrize("cell", NOT_WHOLE)
def test_a_campaign_cell_of_fractions_is_a_bad_order_C_4_3(cell: Any) -> None:
    """C-4.3: the Continental campaign's cells are whole too; its parser rounded the same way."""
    from server.continental.orders import parse
    from server.core.errors import BadOrder

    with pytest.raises(BadOrder):
        parse({"type": "move", "unit": "u", "path": [cell]})
    with pytest.raises(BadOrder):
        parse({"type": "strike", "unit": "u", "target": cell})


@pytest.mark.parametrize("cell", [[10, 16], (10, 16), "10-16", ["10", "16"], [10.0, 16.0]])
def test_whole_cells_in_every_written_form_are_read_D_NAP_1_C_4_3(cell: Any) -> None:
    from server.continental.orders import parse
    from server.napoleonic.campaign.movement import parse_path

    assert parse_path([cell]) == [(10, 16)]
    assert parse({"type": "move", "unit": "u", "path": [cell]}).path == ((10, 16),)
