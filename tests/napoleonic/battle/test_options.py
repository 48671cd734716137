"""The battle's legal options (issue 14): every option offered is accepted by `apply`, moves outside them are
refused, what is not offered says why with its rule; the answer has the protocol's shape (shared/protocol/options.py)
and tells a side nothing of enemies it cannot see (D-N-7)."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.core.engine import MODERATOR, SPECTATOR, Actor
from server.core.errors import RuleError
from server.core.replay import Recorder
from server.napoleonic.battle.engine import BattleEngine
from server.napoleonic.battle.footprint import DIRECTIONS
from server.napoleonic.battle.state import BattleState
from shared.protocol.options import BattleOptions

from .driver import close_battle_config, play_phase, random_battle_config
from .helpers import ENGINE, battle, order, unit

ROWS = ["." * 70 for _ in range(70)]
for _y in range(30, 40):
    ROWS[_y] = "." * 10 + "ff" * 5 + "." * 10 + "SSSS" + "." * 6 + "~~" + "+" + "~~" + "." * 10 + "F" * 5 + "." * 10
ROWS = [r.ljust(70, ".")[:70] for r in ROWS]
ROWS = [r[:34] + "=" + r[35:] for r in ROWS]


def orders_of(opts: dict[str, Any]) -> list[dict[str, Any]]:
    """Every order the options offer, as a client would build it."""
    uid = opts["unit"]
    if uid is None:
        return [{"type": "retreat"}] if opts["retreat"] else []
    out: list[dict[str, Any]] = []
    for r in opts["moves"]:
        out.append({"type": "move", "unit": uid, "path": r["path"]})
        if opts["charge"] and r["contact"]:
            out.append({"type": "charge", "unit": uid, "path": r["path"]})
    out += [{"type": "leave_melee", "unit": uid, "path": r["path"]} for r in opts["leave_melee"]]
    out += [{"type": "wheel", "unit": uid, "degrees": w["degrees"]} for w in opts["wheels"]]
    if opts["about_face"]:
        out.append({"type": "about_face", "unit": uid})
    out += [{"type": "formation", "unit": uid, "formation": p["formation"]} for p in opts["formations"]]
    out += [{"type": "targets", "unit": uid, "targets": [{"unit": t["unit"], "guns": opts["guns"]}]}
            for t in opts["targets"]]
    if opts["barrage"]:
        out.append({"type": "barrage", "unit": uid})
    return out


def assert_all_accepted(state: BattleState, side: str, uid: str | None, rng: random.Random,
                        outside: int = 6) -> int:
    """Every offered order is accepted; a few straight moves to cells the options leave out are refused."""
    opts = ENGINE.options(state, f"team:{side}", uid)
    assert opts is not None
    BattleOptions.model_validate(opts)
    actor = Actor(f"p-{side}", side)
    offered = orders_of(opts)
    for o in offered:
        try:
            ENGINE.apply(state, actor, o)
        except RuleError as err:
            raise AssertionError(f"offered {o} refused: {err.code} {err.rule} {err.message}") from None
    if uid is not None and opts["active"] and not opts["leave_melee"]:
        u = state.units[uid]
        reach = {tuple(r["to"]) for r in opts["moves"]}
        for _ in range(outside):
            d = DIRECTIONS[rng.randrange(8)]
            n = rng.randint(1, 12)
            path = [[u.x + d[0] * i, u.y + d[1] * i] for i in range(1, n + 1)]
            if tuple(path[-1]) in reach:
                continue
            try:
                after, _ = ENGINE.apply(state, actor, {"type": "move", "unit": uid, "path": path})
            except RuleError:
                continue
            # accepted: only because the move stopped early at a contact (or fire), never at the cell asked
            assert after.units[uid].anchor != tuple(path[-1]) or not after.units[uid].on_field, \
                f"move to {path[-1]} accepted but not offered"
    return len(offered)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), close=st.booleans(), rnd=st.randoms(use_true_random=False))
def test_every_option_offered_is_accepted_and_moves_outside_are_refused_issue_14(seed: int, close: bool,
                                                                                 rnd: random.Random) -> None:
    cfg = close_battle_config(rnd, 8, turn_limit=8) if close else random_battle_config(rnd, 6, rows=ROWS,
                                                                                      turn_limit=8)
    cfg["hidden"] = rnd.random() < 0.3
    rec = Recorder(cfg, seed, BattleEngine())
    offered = 0
    while not rec.state.over:
        side = rec.state.active_side
        assert side is not None
        if not rec.state.hidden:  # with fog an unseen enemy may still refuse an order: that is the fog of war
            units = [u.id for u in rec.state.field_units(side)]
            for uid in rnd.sample(units, k=min(3, len(units))):
                offered += assert_all_accepted(rec.state, side, uid, rnd)
            offered += assert_all_accepted(rec.state, side, None, rnd)
        else:
            enemy = rec.state.enemy_of(side)
            for u in rec.state.field_units(side):
                opts = ENGINE.options(rec.state, f"team:{side}", u.id)
                assert opts is not None
                BattleOptions.model_validate(opts)
                seen = {x["id"] for x in ENGINE.view(rec.state, f"team:{side}")["units"] if x["side"] == enemy}
                told = {t["unit"] for t in opts["targets"]} | {c for r in opts["moves"] for c in r["contact"]}
                assert told <= seen, "the options name enemies the side cannot see (D-N-7)"
        play_phase(rec, rnd, retreat_chance=0.02)
    assert offered or rec.state.hidden or rec.state.turn <= 1


def test_what_is_not_offered_says_why_with_its_rule_issue_14() -> None:
    s = battle([unit("r1", "infantry", 10, 40, facing="N", formation="square"),
                unit("ra", "foot_artillery", 20, 40, facing="N"), unit("rc", "light_cavalry", 30, 40, facing="N")],
               [unit("b1", "infantry", 20, 30, facing="S", formation="line")])
    sq = ENGINE.options(s, "team:red", "r1")
    assert sq is not None and sq["active"] and not sq["moves"] and not sq["wheels"]
    why = {r["order"]: r for r in sq["refused"]}
    assert why["move"]["rule"] == "N-INF-4" and "square" in why["move"]["message"]
    assert why["wheel"]["rule"] == "N-INF-4"
    assert {p["formation"] for p in sq["formations"]} == {"line", "attack_column", "march_column"}
    guns = ENGINE.options(s, "team:red", "ra")
    assert guns is not None and why_of(guns, "move")["rule"] == "N-ART-4"
    assert [t["unit"] for t in guns["targets"]] == ["b1"] and guns["targets"][0]["distance"] == 10
    assert guns["guns"] > 0 and guns["barrage"] and [p["formation"] for p in guns["formations"]] == ["limbered"]
    cav = ENGINE.options(s, "team:red", "rc")
    assert cav is not None and cav["moves"] and not cav["charge"] and why_of(cav, "charge")["rule"] == "N-CHARGE-1"
    army = ENGINE.options(s, "team:red", None)
    assert army is not None and army["retreat"] and army["unit"] is None


def why_of(opts: dict[str, Any], order_type: str) -> dict[str, Any]:
    return next(r for r in opts["refused"] if r["order"] == order_type)


def test_out_of_phase_and_other_sides_are_refused_as_a_whole_D_N_1() -> None:
    s = battle([unit("r1", "infantry", 10, 40, facing="N")], [unit("b1", "infantry", 20, 30, facing="S")])
    assert s.active_side == "red"
    blue = ENGINE.options(s, "team:blue", "b1")
    assert blue is not None and not blue["active"] and blue["refused"][0]["order"] == "*"
    assert blue["refused"][0]["code"] == "not_your_turn" and blue["refused"][0]["rule"] == "D-N-1"
    theirs = ENGINE.options(s, "team:red", "b1")
    assert theirs is not None and not theirs["active"] and theirs["refused"][0]["code"] == "not_your_unit"
    nobody = ENGINE.options(s, "team:red", "zz")
    assert nobody is not None and nobody["refused"][0]["code"] == "not_your_unit"
    for viewer in (SPECTATOR, "public"):
        watcher = ENGINE.options(s, viewer, "r1")
        assert watcher is not None and not watcher["active"] and not watcher["moves"]
    mod = ENGINE.options(s, MODERATOR, "r1")
    assert mod is not None and mod["active"] and mod["moves"]


def test_move_costs_are_the_engines_and_a_contact_ends_the_path_D_GEN_2_D_N_6() -> None:
    s = battle([unit("rc", "light_cavalry", 20, 40, facing="N", formation="attack_column")],
               [unit("b1", "infantry", 20, 33, facing="S", formation="line")])
    opts = ENGINE.options(s, "team:red", "rc")
    assert opts is not None and opts["charge"]
    for r in opts["moves"]:
        after, events = order(s, {"type": "move", "unit": "rc", "path": r["path"]})
        assert after.units["rc"].anchor == tuple(r["to"])
        moved = next(e.data for e in events if e.kind == "moved")
        assert abs(moved["spent"] - r["cost"]) < 1e-9 and abs(moved["points"] - r["points_left"]) < 1e-9
        if r["contact"]:
            assert after.melees, "a move offered with contact ends in melee"
    charge = next(r for r in opts["moves"] if r["contact"])
    after, events = order(s, {"type": "charge", "unit": "rc", "path": charge["path"]})
    assert any(e.kind == "charge" for e in events)
