"""Musket losses by distance, the moderator's rulings on shared fire, losses to guns, and what counts as contact
(N-FIRE-2, N-FIRE-4, N-LOSSES-2, N-MORALE-8; D-N-7, D-N-8)."""

from __future__ import annotations

from typing import Any

import pytest

from server.core.engine import Event, team_viewer
from server.core.errors import BadOrder, IllegalOrder, RuleError
from server.core.replay import Recorder, event_lines, replay
from server.napoleonic.battle.state import BattleState
from server.napoleonic.battle.turn import in_contact

from .helpers import ENGINE, battle, config, kinds, order, run_turn, unit


def lost(events: list[Event], uid: str) -> int:
    return sum(e["amount"] for e in kinds(events, "losses") if e["unit"] == uid)


@pytest.mark.parametrize(("kind", "formation"), [("infantry", "march_column"), ("light_cavalry", "march_column"),
                                                 ("heavy_cavalry", "attack_column")])
@pytest.mark.parametrize(("d", "losses"), [(3, 2), (4, 1)])
def test_musket_losses_by_firepower_and_distance_whatever_the_target_N_FIRE_2(kind: str, formation: str, d: int,
                                                                             losses: int) -> None:
    """A line (firepower 4) inflicts half its firepower at 3 cells or less and a quarter from 4 cells, on any arm."""
    s = battle([unit("r1", "infantry", 30, 50)], [unit("b1", kind, 32, 50 - d, facing="S", formation=formation)])
    s, ev = run_turn(s)
    (shot,) = kinds(ev, "fire")
    assert (shot["unit"], shot["target"], shot["distance"], shot["firepower"]) == ("r1", "b1", d, 4)
    assert shot["rule"] == "N-FIRE-2" and lost(ev, "b1") == losses


def test_musket_fire_on_guns_puts_guns_out_of_action_and_the_last_gun_destroys_the_company_N_LOSSES_2_N_ART_8() -> None:
    s = battle([unit("r1", "infantry", 30, 50)], [unit("a1", "foot_artillery", 34, 47, facing="S")])
    s, ev = run_turn(s)
    a1 = s.units["a1"]
    assert lost(ev, "a1") == 2 and (a1.guns, a1.loss_tolerance, a1.on_field) == (2, 0, True)
    assert lost(ev, "r1") == 4  # canister of four guns in action (N-ART-6)
    s, ev = run_turn(s)
    assert lost(ev, "r1") == 2  # two guns left in action
    assert s.units["a1"].guns == 0 and s.units["a1"].status == "destroyed"
    assert {"unit": "a1", "status": "destroyed", "rule": "N-LOSSES-2", "taken_by": None} in kinds(ev, "fallen")


# --- N-FIRE-4: the moderator shares a regiment's musket losses between the enemies in its zone -----------------

def _two_in_zone() -> BattleState:
    """A red line with two blue march columns (they cannot fire back) in its zone: b1 at 2 cells, b2 at 5."""
    return battle([unit("r1", "infantry", 30, 50)],
                  [unit("b1", "infantry", 31, 48, facing="S", formation="march_column"),
                   unit("b2", "infantry", 36, 45, facing="S", formation="march_column")])


def _musket(events: list[Event]) -> dict[str, dict[str, Any]]:
    return {e["target"]: e for e in kinds(events, "fire") if e["weapon"] == "musket"}


def test_without_a_ruling_the_nearest_enemy_takes_the_fire_D_N_7() -> None:
    _, ev = run_turn(_two_in_zone())
    assert set(_musket(ev)) == {"b1"} and lost(ev, "b1") == 2 and lost(ev, "b2") == 0


def test_moderator_sends_a_regiments_fire_at_another_enemy_in_its_zone_N_FIRE_4() -> None:
    s, ev = ENGINE.moderate(_two_in_zone(), {"type": "assign_fire", "shooter": "r1", "targets": ["b2"]})
    assert kinds(ev, "fire_assigned") == [{"unit": "r1", "targets": {"b2": 1}, "turns": 1, "rule": "N-FIRE-4"}]
    s, ev = run_turn(s)
    shot = _musket(ev)
    assert set(shot) == {"b2"} and shot["b2"]["distance"] == 5 and shot["b2"]["rule"] == "N-FIRE-4"
    assert lost(ev, "b2") == 1 and lost(ev, "b1") == 0  # a quarter of 4 at 5 cells (N-FIRE-2)
    s, ev = run_turn(s)
    assert set(_musket(ev)) == {"b1"}  # the ruling held for one resolution; then the nearest again (D-N-7)


def test_the_ruling_shows_in_the_view_of_the_shooters_side_until_spent_N_FIRE_4() -> None:
    s, _ = ENGINE.moderate(_two_in_zone(), {"type": "assign_fire", "shooter": "r1", "targets": {"b2": 2}, "turns": 2})
    shown = {u["id"]: u for u in ENGINE.view(s, "team:red")["units"]}
    assert shown["r1"]["fire_ruling"] == {"targets": {"b2": 2}, "turns": 2} and shown["b1"]["fire_ruling"] is None
    s, _ = run_turn(s)
    assert {u["id"]: u for u in ENGINE.view(s, "moderator")["units"]}["r1"]["fire_ruling"]["turns"] == 1
    s, _ = run_turn(s)
    assert {u["id"]: u for u in ENGINE.view(s, "moderator")["units"]}["r1"]["fire_ruling"] is None


def test_moderator_splits_the_fire_each_share_at_its_own_distance_with_its_fraction_N_FIRE_4_D_N_8() -> None:
    s, _ = ENGINE.moderate(_two_in_zone(), {"type": "assign_fire", "shooter": "r1", "targets": {"b1": 1, "b2": 1},
                                            "turns": 2})
    s, ev = run_turn(s)
    shot = _musket(ev)
    assert shot["b1"]["firepower"] == 2 and shot["b2"]["firepower"] == 2
    assert lost(ev, "b1") == 1 and lost(ev, "b2") == 0  # 2/2 at 2 cells; 2/4 at 5 cells, carried
    assert s.units["r1"].fractions == {"b2": 0.5}
    s, ev = run_turn(s)
    assert lost(ev, "b1") == 1 and lost(ev, "b2") == 1  # the half point made whole on the second turn
    s, ev = run_turn(s)
    assert set(_musket(ev)) == {"b1"} and s.units["r1"].fractions == {}  # expired; only the nearest fires


def test_a_named_enemy_out_of_the_zone_gives_its_share_to_the_others_N_FIRE_4() -> None:
    s, _ = ENGINE.moderate(_two_in_zone(), {"type": "assign_fire", "shooter": "r1", "targets": {"b1": 1, "b2": 3}})
    s, _ = order(s, {"type": "move", "unit": "b2", "path": [[37, 44], [38, 43]]})  # out of the line's frontage
    s, ev = run_turn(s)
    shot = _musket(ev)
    assert set(shot) == {"b1"} and shot["b1"]["firepower"] == 4 and lost(ev, "b1") == 2
    s, _ = ENGINE.moderate(_two_in_zone(), {"type": "assign_fire", "shooter": "r1", "targets": ["b2"]})
    s, _ = order(s, {"type": "move", "unit": "b2", "path": [[37, 44], [38, 43]]})
    s, ev = run_turn(s)
    assert set(_musket(ev)) == {"b1"} and _musket(ev)["b1"]["rule"] == "N-FIRE-2"  # nothing left: the nearest


def test_a_ruling_can_be_withdrawn_and_is_replayed_N_FIRE_4() -> None:
    rec = Recorder(config([unit("r1", "infantry", 30, 50)],
                                  [unit("b1", "infantry", 31, 48, facing="S", formation="march_column"),
                                   unit("b2", "infantry", 36, 45, facing="S", formation="march_column")],
                                  deployment_zones=False), 9, ENGINE)
    rec.moderate({"type": "assign_fire", "shooter": "r1", "targets": ["b2"], "turns": 3})
    rec.end_turn("red")
    rec.end_turn("blue")
    assert rec.state.units["b2"].loss_tolerance == 9
    events = rec.moderate({"type": "assign_fire", "shooter": "r1", "targets": {}})
    assert kinds(list(events), "fire_assigned")[0]["turns"] == 0 and rec.state.units["r1"].fire_shares == ()
    first = rec.state.order[0]
    rec.end_turn(first)
    rec.end_turn(rec.state.enemy_of(first))
    assert rec.state.units["b1"].loss_tolerance == 8  # the nearest again
    state, events = replay(rec.export(), ENGINE)
    assert event_lines(events) == event_lines(rec.events) and state.dump() == rec.state.dump()


def test_in_a_hidden_battle_the_ruling_goes_to_the_shooters_side_only_N_FIRE_4() -> None:
    s = battle([unit("r1", "infantry", 30, 50)], [unit("b1", "infantry", 31, 48, facing="S", formation="march_column")],
               hidden=True)
    _, ev = ENGINE.moderate(s, {"type": "assign_fire", "shooter": "r1", "targets": ["b1"]})
    (e,) = [e for e in ev if e.kind == "fire_assigned"]
    assert e.audience is not None and team_viewer("red") in e.audience and team_viewer("blue") not in e.audience


@pytest.mark.parametrize(("ruling", "error", "rule"), [
    ({"shooter": "nobody", "targets": ["b1"]}, BadOrder, "N-FIRE-4"),
    ({"shooter": "a1", "targets": ["b1"]}, IllegalOrder, "N-FIRE-4"),  # canister needs no ruling (D-N-7)
    ({"shooter": "c1", "targets": ["b1"]}, IllegalOrder, "N-FIRE-4"),  # cavalry has no muskets (N-CAV-1)
    ({"shooter": "r1", "targets": ["r2"]}, IllegalOrder, "N-FIRE-4"),
    ({"shooter": "r1", "targets": ["ghost"]}, IllegalOrder, "N-FIRE-4"),
    ({"shooter": "r1", "targets": {"b1": 0}}, BadOrder, "N-FIRE-4"),
    ({"shooter": "r1", "targets": {"b1": True}}, BadOrder, "N-FIRE-4"),
    ({"shooter": "r1", "targets": {"b1": "1"}}, BadOrder, "N-FIRE-4"),
    ({"shooter": "r1", "targets": "b1"}, BadOrder, "N-FIRE-4"),
    ({"shooter": "r1", "targets": ["b1"], "turns": 0}, BadOrder, "N-FIRE-4"),
    ({"shooter": "r1", "targets": ["b1"], "turns": 41}, BadOrder, "N-FIRE-4"),
    ({"shooter": "r1", "targets": [["b1"]]}, RuleError, "N-FIRE-4"),
])
def test_bad_fire_rulings_are_refused_and_change_nothing_N_FIRE_4(ruling: dict[str, Any], error: type[RuleError],
                                                                   rule: str) -> None:
    s = battle([unit("r1", "infantry", 30, 50), unit("r2", "infantry", 10, 60), unit("a1", "foot_artillery", 50, 55),
                unit("c1", "light_cavalry", 45, 60)],
               [unit("b1", "infantry", 31, 48, facing="S", formation="march_column")])
    before = s.dump()
    with pytest.raises(error) as err:
        ENGINE.moderate(s, {"type": "assign_fire", **ruling})
    assert err.value.rule == rule and s.dump() == before


# --- N-MORALE-8: contact is melee, or standing inside an enemy infantry fire zone ----------------------------

def test_contact_is_melee_or_an_infantry_fire_zone_N_MORALE_8() -> None:
    s = battle([unit("r1", "infantry", 30, 50), unit("a1", "foot_artillery", 50, 50),
                unit("r3", "infantry", 10, 50, formation="march_column"),
                unit("c1", "light_cavalry", 20, 51)],
               [unit("b1", "infantry", 31, 47, facing="S", formation="march_column"),   # in r1's musket zone
                unit("b2", "infantry", 51, 46, facing="S", formation="march_column"),   # in a1's canister zone only
                unit("b3", "infantry", 11, 47, facing="S", formation="march_column"),   # ahead of a march column
                unit("b4", "infantry", 21, 45, facing="S", formation="attack_column"),  # ahead of cavalry
                unit("b5", "infantry", 60, 10, facing="S")])                            # nowhere near
    assert [u.id for u in in_contact(s, s.units["b1"])] == ["r1"]
    for uid in ("b2", "b3", "b4", "b5"):
        assert in_contact(s, s.units[uid]) == [], uid
    s, _ = order(s, {"type": "move", "unit": "c1", "path": [[20, 50 - i] for i in range(5)]})
    assert ("b4", "c1") in s.melees and [u.id for u in in_contact(s, s.units["b4"])] == ["c1"]


@pytest.mark.parametrize(("uid", "status"), [("b1", "surrendered"), ("b2", "dispersed"), ("b4", "surrendered")])
def test_a_broken_unit_surrenders_only_when_in_contact_N_MORALE_8_N_MORALE_6(uid: str, status: str) -> None:
    s = battle([unit("r1", "infantry", 30, 50), unit("a1", "foot_artillery", 50, 50),
                unit("c1", "light_cavalry", 20, 51), unit("r9", "infantry", 5, 65)],
               [unit("b1", "infantry", 31, 47, facing="S", formation="march_column"),
                unit("b2", "infantry", 51, 46, facing="S", formation="march_column"),
                unit("b4", "infantry", 21, 45, facing="S", formation="march_column"),
                unit("b5", "infantry", 60, 10, facing="S")])
    s, _ = order(s, {"type": "move", "unit": "c1", "path": [[20, 50 - i] for i in range(5)]})
    s, _ = ENGINE.moderate(s, {"type": "adjust", "unit": uid, "morale": 0})
    s, ev = run_turn(s)
    assert s.units[uid].status == status
    fallen = [e for e in kinds(ev, "fallen") if e["unit"] == uid]
    assert fallen and fallen[0]["rule"] == ("N-MORALE-6" if status == "surrendered" else "N-MORALE-5")


def test_a_regiment_busy_in_melee_puts_nobody_in_contact_by_its_fire_zone_N_MORALE_8() -> None:
    """Units in melee do not fire (docs/battle.md), so their zone holds nobody in contact: a broken unit standing
    in front of a line that is fighting cavalry on its flank gets away (dispersed), where it would otherwise be
    taken (surrendered)."""
    def broken_in_front(with_melee: bool) -> str:
        s = battle([unit("r1", "infantry", 30, 50), unit("r9", "infantry", 5, 65)],
                   [unit("b1", "infantry", 31, 48, facing="S", formation="march_column"),
                    unit("b3", "light_cavalry", 25, 49, facing="E"), unit("b9", "infantry", 60, 5, facing="S")])
        if with_melee:
            s, _ = order(s, {"type": "move", "unit": "b3", "path": [[26 + i, 49] for i in range(4)]})
            assert ("b3", "r1") in s.melees
        s, _ = ENGINE.moderate(s, {"type": "adjust", "unit": "b1", "morale": 0})
        s, _ = run_turn(s)
        return s.units["b1"].status

    assert broken_in_front(False) == "surrendered"
    assert broken_in_front(True) == "dispersed"
