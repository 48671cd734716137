"""Before and after the fighting: the battle the campaign hands over after an interception or a refused battle,
starting morale from the campaign, and what the result tells the campaign (N-START-2, N-START-3, N-MORALE-1,
N-VICTORY-4; D-N-1, D-N-2, D-N-9, D-N-13)."""

from __future__ import annotations

from typing import Any

import pytest

from server.core.errors import IllegalOrder, NotYourTurn
from server.napoleonic.battle.deployment import RETREAT_ZONE_DEPTH, ZONE_DEPTH, ZONE_GAP, in_zone
from server.napoleonic.battle.state import BattleState

from .helpers import BLUE, ENGINE, config, kinds, order, run_turn, unit

ARMY = ["infantry"] * 12 + ["light_cavalry"] * 4 + ["heavy_cavalry"] * 3 + ["foot_artillery"] * 3 \
    + ["horse_artillery"] * 3


def _refused_battle(with_battle: bool = True, **extra: Any) -> BattleState:
    """As the campaign hands it over (N-START-2/3, D-N-13): red intercepted blue and entered its cell, so red is the
    attacker; blue had no movement points left to get away, accepted battle and retreats with battle."""
    cfg = config([unit(f"r{i}", k) for i, k in enumerate(ARMY)], [unit(f"b{i}", k) for i, k in enumerate(ARMY)],
                 **extra)
    cfg["sides"][1]["retreat_with_battle"] = with_battle
    state, _ = ENGINE.setup(cfg, 5)
    return state


def _rows_from_edge(state: BattleState, side: str) -> set[int]:
    """How far (rows) from its own edge each cell of the side's units stands."""
    h = state.map.height
    edge = state.sides[side].edge
    return {(h - 1 - y if edge == "south" else y) for u in state.field_units(side) for _, y in u.cells}


def test_the_intercepting_attacker_moves_first_N_START_2_D_N_1() -> None:
    """N-START-2 is the campaign's; what the battle owes it: the army that intercepted and entered the cell is the
    attacker and has the first order phase (D-N-1), whether or not the other side retreats with battle."""
    for with_battle in (False, True):
        s = _refused_battle(with_battle)
        assert ENGINE.active_teams(s) == {"red"}
        with pytest.raises(NotYourTurn):
            ENGINE.apply(s, BLUE, {"type": "retreat"})


def test_a_side_retreating_with_battle_deploys_nearer_its_own_edge_N_START_3_N_START_7_D_N_13() -> None:
    s = _refused_battle()
    blue_rows, red_rows = _rows_from_edge(s, "blue"), _rows_from_edge(s, "red")
    assert len(list(s.field_units("blue"))) == 25  # the whole army still finds room (N-START-1)
    assert min(blue_rows) >= ZONE_GAP and max(blue_rows) < ZONE_GAP + RETREAT_ZONE_DEPTH  # off the edge, further back
    assert max(red_rows) >= ZONE_GAP + RETREAT_ZONE_DEPTH  # the attacker keeps the usual 15-row zone
    normal = _rows_from_edge(_refused_battle(False), "blue")
    assert max(normal) >= ZONE_GAP + RETREAT_ZONE_DEPTH and max(normal) < ZONE_GAP + ZONE_DEPTH
    # a position given in the forward part of the usual zone is refused to the side that retreats with battle
    cfg = config([unit("r1", "infantry")], [unit("b1", "infantry", 37, ZONE_GAP + RETREAT_ZONE_DEPTH, facing="S")])
    ENGINE.setup(cfg, 1)
    cfg["sides"][1]["retreat_with_battle"] = True
    with pytest.raises(IllegalOrder) as err:
        ENGINE.setup(cfg, 1)
    assert err.value.rule == "N-START-7" and err.value.details["zone"] == "D-N-13"
    assert in_zone(s.map, "north", 37, ZONE_GAP + RETREAT_ZONE_DEPTH - 1, RETREAT_ZONE_DEPTH)


@pytest.mark.parametrize(("turn", "cost"), [(1, 0), (3, 0), (4, 1)])
def test_retreat_with_battle_is_free_of_morale_for_three_turns_N_START_3_N_VICTORY_2_D_N_13(turn: int,
                                                                                            cost: int) -> None:
    s = _refused_battle()
    while s.turn < turn:
        s, _ = run_turn(s)
    before = {u.id: u.morale for u in s.units.values() if u.on_field and u.arm != "artillery"}
    points = {u.id: u.points for u in s.field_units("blue")}
    while ENGINE.active_teams(s) != {"blue"}:
        s, _ = ENGINE.end_turn(s, "red", flagged=False)
    s, ev = ENGINE.apply(s, BLUE, {"type": "retreat"})
    assert kinds(ev, "retreat_ordered")[0]["side"] == "blue"
    for u in s.field_units("blue"):
        assert u.points == points[u.id] + 2  # +2 speed all the same (N-VICTORY-2)
        if u.id in before:
            assert u.morale == before[u.id] - cost
    assert all(u.morale == before[u.id] + 1 for u in s.field_units("red") if u.id in before)  # N-MORALE-3
    s, _ = run_turn(s)
    s, _ = run_turn(s)
    assert s.result is not None and s.result["loser"] == "blue" and s.result["reason"] == "retreat"


def test_without_retreat_with_battle_the_order_costs_morale_at_once_N_VICTORY_2_D_N_13() -> None:
    s = _refused_battle(False)
    s, _ = ENGINE.end_turn(s, "red", flagged=False)
    s, _ = ENGINE.apply(s, BLUE, {"type": "retreat"})
    assert all(u.morale == u.type.morale - 1 for u in s.field_units("blue") if u.arm != "artillery")


def test_units_bring_their_campaign_morale_N_MORALE_1_D_N_9() -> None:
    """N-MORALE-1: morale as changed in the campaign, above or below the base of N-INF-1/N-CAV-2 (no cap, D-N-9);
    the formation's bonus comes on top; a unit that arrives already at 2 has had its roll: none until it falls."""
    cfg = config([unit("r1", "infantry", 30, 50, morale=9), unit("r2", "light_cavalry", 20, 50, morale=3),
                  unit("r3", "infantry", 45, 50, formation="attack_column", morale=0)],
                 [unit("b1", "infantry", 37, 10, facing="S", morale=2), unit("b2", "heavy_cavalry", 20, 10,
                                                                          facing="S")],
                 deployment_zones=False)
    s, _ = ENGINE.setup(cfg, 3)
    assert [s.units[i].morale for i in ("r1", "r2", "r3", "b1", "b2")] == [9, 3, 0, 2, 6]
    s, ev = run_turn(s)
    assert not kinds(ev, "roll") or all(e["purpose"] == "initiative" for e in kinds(ev, "roll"))
    assert s.units["r3"].on_field and s.units["b1"].on_field  # r3 stands at 0 + 2 from its attack column
    s, _ = order(s, {"type": "formation", "unit": "r3", "formation": "line"})
    s, _ = run_turn(s)
    assert s.units["r3"].status == "dispersed"  # the column's +2 lost at once: its own morale 0 (N-MORALE-5)


def test_the_loser_may_retreat_seven_campaign_cells_N_VICTORY_4() -> None:
    s = _refused_battle(False, turn_limit=2)
    s, _ = run_turn(s)
    s, ev = run_turn(s)
    (over,) = kinds(ev, "battle_over")
    assert over["loser"] == "red" and over["retreats"] == "red" and over["retreat_cells"] == 7
    assert s.result == over
    s = _refused_battle(True)
    s, _ = ENGINE.end_turn(s, "red", flagged=False)
    s, _ = ENGINE.apply(s, BLUE, {"type": "retreat"})
    s, _ = run_turn(s)
    s, _ = run_turn(s)
    assert s.result is not None and (s.result["retreats"], s.result["retreat_cells"]) == ("blue", 7)
