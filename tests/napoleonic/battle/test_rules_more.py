"""More rules at the edges: square fire, guns in settlements and on hills, canister crossing, variant hooks
(N-INF-4, N-TERRAIN-4, N-TERRAIN-5, N-ART-6, N-FIRE-5, N-SIEGE-9 hook)."""

from __future__ import annotations

from typing import Any

import pytest

from server.core.errors import IllegalOrder
from server.napoleonic.battle.state import BattleState
from server.napoleonic.battle.terrain import TerrainKind, register_terrain
from server.napoleonic.battle.units import ARTILLERY, UnitType, register_unit_type

from .helpers import ENGINE, ahead, battle, kinds, order, run_turn, unit


def lost(events: list, uid: str) -> int:  # type: ignore[type-arg]
    return sum(e["amount"] for e in kinds(events, "losses") if e["unit"] == uid)


def test_square_fires_to_every_side_N_INF_4() -> None:
    s = battle([unit("r1", "infantry", 30, 50, formation="square")],
               [unit("b1", "infantry", 28, 50, facing="E", formation="march_column")])  # to the square's left
    s, ev = run_turn(s)
    assert lost(ev, "b1") == 1  # firepower 2, close range: 1


def test_guns_cannot_fire_from_a_settlement_N_TERRAIN_5() -> None:
    rows = ["." * 70 for _ in range(70)]
    for y in (50, 51):
        rows[y] = ("." * 30 + "SSSS").ljust(70, ".")
    s = battle([unit("a1", "foot_artillery", 30, 50)],
               [unit("b1", "infantry", 31, 47, facing="S", formation="march_column")], map={"rows": rows})
    s, ev = run_turn(s)
    assert lost(ev, "b1") == 0


def test_guns_on_a_hill_fire_over_heads_and_reach_five_further_N_TERRAIN_4() -> None:
    elev = ["0" * 70 for _ in range(70)]
    for y in (50, 51):
        elev[y] = ("0" * 30 + "1111").ljust(70, "0")
    blocker = unit("r2", "light_cavalry", 30, 47)
    target = unit("b1", "infantry", 31, 45, facing="S", formation="march_column")
    s = battle([unit("a1", "foot_artillery", 30, 50), blocker], [target],
               map={"rows": ["." * 70] * 70, "elevation": elev})
    s, ev = run_turn(s)
    assert lost(ev, "b1") == 4  # canister over the heads of r2
    flat = battle([unit("a1", "foot_artillery", 30, 50), blocker], [target])
    flat, ev = run_turn(flat)
    assert lost(ev, "b1") == 0


def test_passing_through_a_canister_zone_costs_the_guns_N_ART_6_D_N_1() -> None:
    s = battle([unit("a1", "foot_artillery", 30, 50)], [unit("c1", "light_cavalry", 25, 46, facing="E")])
    s, ev = order(s, {"type": "move", "unit": "c1", "path": [[25 + i, 46] for i in range(1, 12)]})
    assert lost(ev, "c1") == 4 and s.units["c1"].status == "destroyed"


def test_variant_unit_types_and_terrain_plug_in_as_data_N_SIEGE_9_hook() -> None:
    howitzer = register_unit_type(UnitType(
        "test_howitzer", ARTILLERY, range=25, speed=2, guns=4, accuracy=2, hit_table="foot",
        formations=("deployed", "limbered"), default_formation="deployed", round_shot_multiplier=2,
        fires_over=True))
    ditch = register_terrain(TerrainKind(0, "test_ditch", "d", frozenset({"infantry"}), ends_move=True))
    assert register_terrain(ditch) is ditch
    s = battle([unit("h1", howitzer.name, 30, 50), unit("r2", "infantry", 30, 45, formation="attack_column")],
               [unit("b1", "infantry", 31, 40, facing="S", formation="march_column")])
    s, _ = order(s, {"type": "targets", "unit": "h1", "targets": [{"unit": "b1", "guns": 4}]})  # over r2's heads
    s, ev = run_turn(s)
    (shot,) = [e for e in kinds(ev, "fire") if e["weapon"] == "round_shot"]
    assert shot["losses"] in (0, 4)  # 3–4 guns: 2, doubled for a howitzer
    rows = ["." * 70 for _ in range(70)]
    rows[47] = "d" * 70
    s = battle([unit("r1", "infantry", 30, 50, formation="attack_column")],
               [unit("b1", "infantry", 37, 10, facing="S")], map={"rows": rows})
    s, ev = order(s, {"type": "move", "unit": "r1", "path": [[30, 49], [30, 48], [30, 47], [30, 46]]})
    assert kinds(ev, "moved")[0]["steps"] == 3  # entering the ditch ends the move


def _moat() -> TerrainKind:
    return register_terrain(TerrainKind(0, "test_moat", "o", frozenset({"infantry"}), ends_move=True,
                                        rule="N-SIEGE-12"))


def _shown(state: BattleState, uid: str, viewer: str = "spectator") -> dict[str, Any]:
    (shown,) = [u for u in ENGINE.view(state, viewer)["units"] if u["id"] == uid]
    return dict(shown)


def test_ground_that_ends_a_move_stops_only_the_step_that_enters_it_N_SIEGE_12_hook() -> None:
    """Entering: a step from no such cell to one. The unit's move is over for the turn (no second move), its points
    stay for orders that move it along no path; next turn, already in it, it moves on like on any ground."""
    _moat()
    rows = ["." * 70 for _ in range(70)]
    rows[46] = rows[47] = "o" * 70
    s = battle([unit("r1", "infantry", 30, 50, formation="attack_column")],
               [unit("b1", "infantry", 37, 10, facing="S")], map={"rows": rows})
    s, ev = order(s, {"type": "move", "unit": "r1", "path": ahead(s, "r1", 4)})
    r1 = s.units["r1"]
    assert kinds(ev, "moved")[0]["steps"] == 3 and r1.y == 47 and r1.points == 2
    assert kinds(ev, "move_ended") == [{"unit": "r1", "terrain": "test_moat", "rule": "N-SIEGE-12"}]
    assert _shown(s, "r1")["move_ended"] == "N-SIEGE-12"
    with pytest.raises(IllegalOrder) as e:
        order(s, {"type": "move", "unit": "r1", "path": ahead(s, "r1", 1)})
    assert e.value.rule == "N-SIEGE-12"
    s, ev = order(s, {"type": "about_face", "unit": "r1"})
    assert kinds(ev, "about_face") and not kinds(ev, "move_ended")
    s, _ = order(s, {"type": "about_face", "unit": "r1"})
    s, _ = run_turn(s)
    assert _shown(s, "r1")["move_ended"] is None
    s, ev = order(s, {"type": "move", "unit": "r1", "path": ahead(s, "r1", 5)})
    assert kinds(ev, "moved")[0]["steps"] == 5 and s.units["r1"].y == 42, "through the two moat rows and out"
    assert not kinds(ev, "move_ended")


def test_a_wheel_onto_ground_that_ends_a_move_ends_it_N_SIEGE_12_hook() -> None:
    _moat()
    rows = ["." * 70 for _ in range(70)]
    rows[46] = rows[47] = "o" * 70
    s = battle([unit("r1", "infantry", 30, 48)], [unit("b1", "infantry", 37, 10, facing="S")], map={"rows": rows})
    s, ev = order(s, {"type": "wheel", "unit": "r1", "degrees": 45})
    assert kinds(ev, "move_ended")[0]["rule"] == "N-SIEGE-12"
    with pytest.raises(IllegalOrder) as e:
        order(s, {"type": "move", "unit": "r1", "path": [[s.units["r1"].x, s.units["r1"].y + 1]]})
    assert e.value.rule == "N-SIEGE-12"


def test_a_side_sees_its_own_ended_moves_the_enemy_does_not_N_SIEGE_12_hook() -> None:
    """The full view of a unit shows `move_ended` (the rule) for the client to draw; a hidden battle's enemy view of
    the unit does not (the `move_ended` event of an order phase goes to the own side only)."""
    _moat()
    rows = ["." * 70 for _ in range(70)]
    rows[46] = rows[47] = "o" * 70
    s = battle([unit("r1", "infantry", 30, 50, formation="attack_column")],
               [unit("b1", "infantry", 30, 30, facing="S")], map={"rows": rows}, hidden=True)
    s, _ = order(s, {"type": "move", "unit": "r1", "path": ahead(s, "r1", 4)})
    assert _shown(s, "r1", "team:red")["move_ended"] == _shown(s, "r1", "moderator")["move_ended"] == "N-SIEGE-12"
    assert "move_ended" not in _shown(s, "r1", "team:blue")


def test_retreat_with_battle_costs_no_morale_in_the_first_turns_D_N_13() -> None:
    from .helpers import RED

    s = battle([unit("r1", "infantry", 30, 50)], [unit("b1", "infantry", 37, 20, facing="S")])
    s.sides["red"].retreat_free_turns = 3
    s, _ = ENGINE.apply(s, RED, {"type": "retreat"})
    assert s.units["r1"].morale == 6 and s.units["b1"].morale == 7


def test_rear_attack_costs_one_and_rewards_the_attacker_N_MORALE_2_N_MORALE_3_D_N_5() -> None:
    s = battle([unit("r1", "infantry", 32, 40, formation="attack_column")],
               [unit("b1", "infantry", 34, 46, facing="S", formation="attack_column")])  # red behind blue
    s, _ = order(s, {"type": "about_face", "unit": "r1"})
    u = s.units["r1"]
    s, ev = order(s, {"type": "move", "unit": "r1", "path": [[u.x, u.y + i] for i in range(1, 4)]})
    assert kinds(ev, "contact")[0]["sector"] == "rear"
    assert s.units["b1"].morale == 5 and s.units["r1"].morale == 7


def test_guns_moving_into_touch_with_infantry_are_lost_N_ART_1() -> None:
    s = battle([unit("a1", "horse_artillery", 32, 50, formation="limbered")],
               [unit("b1", "infantry", 37, 46, facing="S")])
    s, ev = order(s, {"type": "move", "unit": "a1", "path": [[32, 49], [32, 48], [32, 47]]})
    assert s.units["a1"].status == "destroyed" and kinds(ev, "overrun")[0]["by"] == "b1"
