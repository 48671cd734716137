"""The battle AI: ordinary orders the engine accepts, deterministic, and the behaviour issue 3 asks for
(advance in formation, fire, charge on favourable odds, square against cavalry, retreat when broken)."""

from __future__ import annotations

from typing import Any

import pytest

from server.core.engine import Actor
from server.napoleonic.battle.ai import BattleAI, Plan, run_battle
from server.napoleonic.battle.mapgen import CellTerrain, generate
from server.napoleonic.battle.state import BattleState

from .helpers import ENGINE, battle, config, unit

AI = BattleAI(ENGINE)
ARMY = ["infantry"] * 6 + ["light_cavalry", "heavy_cavalry", "foot_artillery", "horse_artillery"]


def _field_battle(seed: int, relief: str, **features: bool) -> BattleState:
    m = generate(CellTerrain(relief, **features), seed).map
    cfg = config([unit(f"r{i}", k) for i, k in enumerate(ARMY)], [unit(f"b{i}", k) for i, k in enumerate(ARMY)],
                 map=m.dump(), turn_limit=30)
    state, _ = ENGINE.setup(cfg, seed)
    return state


def _replays(state: BattleState, side: str, plan: Plan) -> None:
    """Every order of the plan passes the engine's validation from the state it was planned on, and leads to the
    same state (D-N-1: a room replays the AI's orders like a player's)."""
    actor = Actor("someone", side)
    for o in plan.orders:
        state, _ = ENGINE.apply(state, actor, o)
    assert plan.state is not None and ENGINE.dump(state) == ENGINE.dump(plan.state)


@pytest.mark.parametrize(("seed", "relief"), [(1, "plain"), (2, "hills"), (3, "forest"), (4, "swamp"),
                                              (5, "mountains")])
def test_ai_battles_end_within_the_turn_limit_and_every_order_is_legal_D_N_2(seed: int, relief: str) -> None:
    state = _field_battle(seed, relief, river=seed % 2 == 1, town=True, road=True)
    phases = 0
    while not state.over:
        side = state.active_side
        assert side is not None
        plan = AI.plan(state, side)
        _replays(state, side, plan)
        assert plan.state is not None
        state, _ = ENGINE.end_turn(plan.state, side, flagged=False)
        phases += 1
        assert phases <= 2 * state.turn_limit
    assert state.result is not None and state.turn <= state.turn_limit
    assert state.result["winner"] in state.sides


def test_ai_is_deterministic_given_the_state() -> None:
    a = run_battle(_field_battle(7, "plain", river=True), AI)
    b = run_battle(_field_battle(7, "plain", river=True), BattleAI())
    assert a[2] == b[2]
    assert [(e.kind, dict(e.data)) for e in a[1]] == [(e.kind, dict(e.data)) for e in b[1]]
    assert ENGINE.dump(a[0]) == ENGINE.dump(b[0])


def test_ai_fights_advances_fires_and_charges() -> None:
    """The attacker closes with the enemy: musket fire, round shot and melee all happen in an AI battle."""
    _, events, orders = run_battle(_field_battle(2, "plain"), AI)
    fired = {e.data.get("weapon") for e in events if e.kind == "fire" and e.data.get("losses")}
    assert "musket" in fired and ("round_shot" in fired or "canister" in fired)
    assert any(e.kind == "melee" for e in events)
    given = {o["type"] for _, o in orders}
    assert {"move", "formation", "targets", "charge"} <= given


def _full_plan(state: BattleState, side: str) -> Plan:
    while state.active_side != side:
        state, _ = ENGINE.end_turn(state, state.active_side or "", flagged=False)
    plan = AI.plan(state, side)
    _replays(state, side, plan)
    return plan


def _plan(state: BattleState, side: str) -> list[dict[str, Any]]:
    return _full_plan(state, side).orders


def test_infantry_forms_square_when_cavalry_threatens_N_INF_4_D_N_9() -> None:
    s = battle([unit("r1", "infantry", 30, 50)], [unit("b1", "heavy_cavalry", 33, 40, facing="S")])
    assert {"type": "formation", "unit": "r1", "formation": "square"} in _plan(s, "red")
    far = battle([unit("r1", "infantry", 30, 60)], [unit("b1", "heavy_cavalry", 33, 20, facing="S")])
    assert not any(o.get("formation") == "square" for o in _plan(far, "red"))


def test_square_reforms_when_the_threat_is_gone_N_INF_4() -> None:
    s = battle([unit("r1", "infantry", 30, 50, formation="square")], [unit("b1", "infantry", 33, 20, facing="S")])
    orders = _plan(s, "red")
    assert orders[0]["type"] == "formation" and orders[0]["formation"] in ("line", "attack_column")


def test_cavalry_charges_when_the_odds_favour_it_N_CHARGE_1_N_MELEE_1() -> None:
    s = battle([unit("r1", "heavy_cavalry", 30, 50)], [unit("b1", "infantry", 35, 42, facing="S")])
    plan = _full_plan(s, "red")
    assert plan.orders and plan.orders[-1]["type"] == "charge"
    assert len(plan.orders[-1]["path"]) >= 4
    assert plan.state is not None and plan.state.melees[("b1", "r1")].charge == {"r1": 4}


def test_cavalry_does_not_charge_a_square_N_INF_4() -> None:
    s = battle([unit("r1", "heavy_cavalry", 30, 50)], [unit("b1", "infantry", 30, 42, facing="S",
                                                             formation="square")])
    assert not any(o["type"] == "charge" for o in _plan(s, "red"))


def test_cavalry_charges_guns_N_ART_1() -> None:
    s = battle([unit("r1", "light_cavalry", 30, 50)], [unit("b1", "foot_artillery", 30, 41, facing="S")])
    orders = _plan(s, "red")
    assert orders and orders[-1]["type"] == "charge"


def test_infantry_advances_in_formation_and_deploys_into_line_N_INF_2_N_INF_3() -> None:
    s = battle([unit("r1", "infantry", 30, 60)], [unit("b1", "infantry", 30, 20, facing="S")])
    orders = _plan(s, "red")
    assert orders[0] == {"type": "formation", "unit": "r1", "formation": "attack_column"}
    assert orders[-1]["type"] == "move" and orders[-1]["path"][-1][1] < 60
    near = battle([unit("r1", "infantry", 30, 40)],
                  [unit("b1", "infantry", 30, 32, facing="S", formation="attack_column")])
    assert {"type": "formation", "unit": "b1", "formation": "line"} in _plan(near, "blue"), \
        "the defender deploys to fire; the attacker keeps its column to close (next test)"


def test_the_attacker_closes_in_attack_column_and_assaults_a_column_N_MELEE_1_D_N_2() -> None:
    """D-N-2: the attacker must clear the field, so it closes in attack column (melee 4, N-INF-2) and assaults
    an enemy column (4) — from a line (2) it could not (N-MELEE-1: the lower side loses three to one)."""
    blue = [unit("b1", "infantry", 30, 32, facing="S", formation="attack_column")]
    near = _full_plan(battle([unit("r1", "infantry", 30, 41, formation="attack_column")], blue), "red")
    assert near.orders and not any(o.get("formation") == "line" for o in near.orders)
    close = _full_plan(battle([unit("r1", "infantry", 30, 36, formation="attack_column")], blue), "red")
    assert close.state is not None and ("b1", "r1") in close.state.melees


def test_a_much_stronger_attacker_runs_down_cavalry_instead_of_forming_square_D_N_2_N_INF_4() -> None:
    """Four regiments against one squadron: no squares (they would wait out the turn limit, D-N-2); they close."""
    red = [unit(f"r{i}", "infantry", 10 + 9 * i, 50, formation="attack_column") for i in range(4)]
    s = battle(red, [unit("b1", "heavy_cavalry", 31, 42, facing="S")])
    orders = _plan(s, "red")
    assert not any(o.get("formation") == "square" for o in orders)
    assert any(o["type"] == "move" and o["unit"] == "r2" and o["path"][-1][1] < 49 for o in orders)
    alone = battle(red[:1], [unit("b1", "heavy_cavalry", 13, 42, facing="S")])
    assert {"type": "formation", "unit": "r0", "formation": "square"} in _plan(alone, "red"), \
        "one regiment against the squadron still forms square (N-INF-4)"


def test_a_line_with_a_friend_close_behind_steps_forward_to_form_column_D_N_4_N_INF_6() -> None:
    """In the deployment zone's rows the column's second rank would overlap the unit behind (D-N-4): the line
    takes a step first, then forms attack column (before, it stayed a line and blocked fords for good)."""
    s = battle([unit("r1", "infantry", 30, 50), unit("r2", "infantry", 30, 51)],
               [unit("b1", "infantry", 30, 20, facing="S")])
    orders = _plan(s, "red")
    i = orders.index({"type": "formation", "unit": "r1", "formation": "attack_column"})
    assert i > 0 and orders[i - 1]["type"] == "move" and orders[i - 1]["unit"] == "r1"


def test_artillery_designates_the_nearest_target_in_its_zone_N_ART_7_D_N_7() -> None:
    s = battle([unit("r1", "foot_artillery", 30, 50)],
               [unit("b1", "infantry", 29, 30, facing="S"), unit("b2", "infantry", 29, 20, facing="S")])
    assert {"type": "targets", "unit": "r1", "targets": [{"unit": "b1", "guns": 4}]} in _plan(s, "red")


def test_wavering_unit_falls_back_N_MORALE_5() -> None:
    s = battle([unit("r1", "infantry", 30, 40, morale=1)], [unit("b1", "infantry", 30, 30, facing="S")])
    orders = _plan(s, "red")
    moves = [o for o in orders if o["type"] == "move"]
    assert moves and moves[-1]["path"][-1][1] > 40, "it makes for its own (south) edge"


def test_broken_army_orders_the_retreat_N_VICTORY_2_D_N_2() -> None:
    red = [unit(f"r{i}", "infantry", 10 + 9 * i, 50) for i in range(4)]
    blue = [unit(f"b{i}", "infantry", 10 + 9 * i, 20, facing="S") for i in range(4)]
    s = battle(red, blue)
    for uid in ("r0", "r1", "r2"):
        s.lift(s.units[uid])
        s.units[uid].status = "destroyed"
    orders = _plan(s, "red")
    assert orders[0] == {"type": "retreat"}
    whole = battle(red, blue)
    assert {"type": "retreat"} not in _plan(whole, "red")


def test_a_side_retreating_with_battle_takes_its_free_retreat_unless_stronger_D_N_13_N_START_3() -> None:
    def refused(blue_units: int) -> BattleState:
        red = [unit(f"r{i}", "infantry", 10 + 9 * i, 50) for i in range(4)]
        blue = [unit(f"b{i}", "infantry", 10 + 9 * i, 20, facing="S") for i in range(blue_units)]
        cfg = config(red, blue, deployment_zones=False)
        cfg["sides"][1]["retreat_with_battle"] = True
        state, _ = ENGINE.setup(cfg, 4)
        state, _ = ENGINE.end_turn(state, "red", flagged=False)
        return state

    s = refused(4)
    orders = _plan(s, "blue")
    assert orders[0] == {"type": "retreat"}
    after = AI.plan(s, "blue").state
    assert after is not None and all(u.morale == 6 for u in after.field_units("blue"))  # free on turn 1
    assert {"type": "retreat"} not in _plan(refused(5), "blue")  # the stronger stays to fight


def test_ai_in_a_hidden_battle_sees_only_what_its_side_sees_D_N_7() -> None:
    """Behind a wood the enemy is unseen: the AI cannot aim its guns at it."""
    rows = ["." * 70] * 70
    rows[35] = "." * 20 + "F" * 30 + "." * 20
    rows[36] = rows[35]
    m = {"rows": rows}
    s = battle([unit("r1", "foot_artillery", 33, 50)], [unit("b1", "infantry", 33, 20, facing="S")], map=m,
               hidden=True)
    assert not any(o["type"] == "targets" for o in _plan(s, "red"))


def test_full_armies_on_a_turned_field_end_within_the_turn_limit_N_START_1_D_N_2() -> None:
    """25 units a side (N-START-1), the attacker coming from the east (D-N-3)."""
    kinds = ["infantry"] * 15 + ["light_cavalry"] * 3 + ["heavy_cavalry"] * 3 + ["foot_artillery"] * 2 + \
        ["horse_artillery"] * 2
    f = generate(CellTerrain("hills", river=True, town=True, road=True), 11, "east")
    cfg: dict[str, Any] = {
        "map": f.map.dump(),
        "sides": [{"name": "red", "edge": "east", "attacker": True,
                   "units": [unit(f"r{i}", k) for i, k in enumerate(kinds)]},
                  {"name": "blue", "edge": "west", "units": [unit(f"b{i}", k) for i, k in enumerate(kinds)]}],
    }
    state, _ = ENGINE.setup(cfg, 11)
    final, events, orders = run_battle(state, AI)
    assert final.result is not None and final.turn <= final.turn_limit == 40
    assert any(e.kind == "fire" for e in events) and orders


@pytest.mark.parametrize("facing", range(8))
def test_ai_formation_precheck_matches_the_engine_D_N_4(facing: int) -> None:
    """The AI's look-ahead for a formation change uses the engine's own target (movement.formation_target): for
    units crowded against each other and the map edge, `_fits` says yes exactly when the engine accepts."""
    from server.core.errors import RuleError
    from server.napoleonic.battle.ai import _fits

    names = {0: "N", 1: "NE", 2: "E", 3: "SE", 4: "S", 5: "SW", 6: "W", 7: "NW"}
    checked = 0
    for formation in ("line", "attack_column", "march_column", "square"):
        for x, y in ((1, 1), (2, 66), (66, 3), (60, 60), (33, 35)):
            try:
                s = battle([unit("r1", "infantry", x, y, facing=names[facing], formation=formation),
                            unit("r2", "infantry", 33, 38, formation="square")],
                           [unit("b1", "infantry", 40, 5, facing="S")])
            except RuleError:
                continue
            for new in ("line", "attack_column", "march_column", "square"):
                if new == formation:
                    continue
                o = {"type": "formation", "unit": "r1", "formation": new}
                try:
                    ENGINE.apply(s, Actor("p", "red"), o)
                    accepted = True
                except RuleError:
                    accepted = False
                assert _fits(s, o) == accepted, (formation, new, x, y)
                checked += 1
    assert checked > 20
