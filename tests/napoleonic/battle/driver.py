"""A random commander for property tests and benchmarks: it proposes plausible orders at random and keeps the
ones the engine accepts. Not the battle AI (server/napoleonic/battle/ai.py) — it has no plan, only a bias to advance."""

from __future__ import annotations

import random
from typing import Any

from server.core.engine import Actor
from server.core.errors import RuleError
from server.core.replay import Recorder
from server.napoleonic.battle.fire import round_shot_distance
from server.napoleonic.battle.footprint import DIRECTIONS
from server.napoleonic.battle.state import BattleState, Unit

FORMATIONS = {"infantry": ["line", "attack_column", "square", "march_column"],
              "cavalry": ["attack_column", "march_column"], "artillery": ["deployed", "limbered"]}


def candidates(state: BattleState, u: Unit, rng: random.Random) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    steps = rng.randint(1, max(1, int(u.points) + 2))
    forward = u.facing if rng.random() < 0.7 else rng.randrange(8)
    dx, dy = DIRECTIONS[forward]
    path = [[u.x + dx * i, u.y + dy * i] for i in range(1, steps + 1)]
    kind = "charge" if u.arm == "cavalry" and rng.random() < 0.3 else "move"
    out.append({"type": kind, "unit": u.id, "path": path})
    r = rng.random()
    if r < 0.15:
        out.append({"type": "wheel", "unit": u.id, "degrees": rng.choice([45, 90, -45, -90])})
    elif r < 0.2:
        out.append({"type": "about_face", "unit": u.id})
    elif r < 0.3:
        out.append({"type": "formation", "unit": u.id, "formation": rng.choice(FORMATIONS[u.arm])})
    if u.arm == "artillery" and u.form.fires:
        enemies = [e for e in state.field_units() if e.side != u.side]
        rng.shuffle(enemies)
        for e in enemies[:4]:
            if round_shot_distance(state, u, e) is not None:
                out.append({"type": "targets", "unit": u.id, "targets": [{"unit": e.id, "guns": max(1, u.guns)}]})
                break
        if rng.random() < 0.05:
            out.append({"type": "barrage", "unit": u.id})
    if rng.random() < 0.3:
        back = DIRECTIONS[(u.facing + 4) % 8]
        out.append({"type": "leave_melee", "unit": u.id, "path": [[u.x + back[0] * i, u.y + back[1] * i]
                                                                 for i in range(1, 3)]})
    return out


def fire_ruling(state: BattleState, side: str, rng: random.Random) -> dict[str, Any] | None:
    """A random N-FIRE-4 ruling for one of `side`'s regiments: shares among up to three enemies, near or not."""
    shooters = [u.id for u in state.field_units(side) if u.arm == "infantry"]
    enemies = [u.id for u in state.field_units(state.enemy_of(side))]
    if not shooters or not enemies:
        return None
    picks = rng.sample(enemies, k=min(len(enemies), rng.randint(0, 3)))
    return {"type": "assign_fire", "shooter": rng.choice(shooters), "targets": {e: rng.randint(1, 3) for e in picks},
            "turns": rng.randint(1, 3)}


def play_phase(rec: Recorder[BattleState], rng: random.Random, retreat_chance: float = 0.002,
               ruling_chance: float = 0.0) -> int:
    """Give random orders for the active side, then end its phase. Returns the number of accepted orders. With
    `ruling_chance` the moderator now and then shares a regiment's fire (N-FIRE-4)."""
    side = rec.state.active_side
    if side is None:
        return 0
    actor = Actor(f"p-{side}", side)
    accepted = 0
    if ruling_chance and rng.random() < ruling_chance:
        ruling = fire_ruling(rec.state, side, rng)
        try:
            if ruling is not None:
                rec.moderate(ruling)
        except RuleError:
            pass
    if rng.random() < retreat_chance:
        try:
            rec.order(actor, {"type": "retreat"})
            accepted += 1
        except RuleError:
            pass
    for uid in [u.id for u in rec.state.field_units(side)]:
        u = rec.state.units[uid]
        if not u.on_field:
            continue
        for o in candidates(rec.state, u, rng):
            try:
                rec.order(actor, o)
                accepted += 1
            except RuleError:
                pass
            if not rec.state.units[uid].on_field:
                break
    rec.end_turn(side, flagged=rng.random() < 0.05)
    return accepted


def army(prefix: str, n: int, rng: random.Random) -> list[dict[str, Any]]:
    kinds = ["infantry"] * 5 + ["light_cavalry", "heavy_cavalry", "foot_artillery", "horse_artillery"]
    return [{"id": f"{prefix}{i}", "type": rng.choice(kinds)} for i in range(n)]


def random_battle_config(rng: random.Random, n: int, *, rows: list[str] | None = None,
                         turn_limit: int = 40) -> dict[str, Any]:
    cfg: dict[str, Any] = {
        "sides": [{"name": "red", "edge": "south", "attacker": True, "units": army("r", n, rng),
                   "reinforcements": [{"group": "red-2", "distance": 1, "edge": "west",
                                       "units": army("rx", 2, rng)}]},
                  {"name": "blue", "edge": "north", "units": army("b", n, rng)}],
        "turn_limit": turn_limit,
    }
    if rows is not None:
        cfg["map"] = {"rows": rows}
    return cfg


def close_battle_config(rng: random.Random, n: int, turn_limit: int = 40) -> dict[str, Any]:
    """Both armies placed freely a few rows apart, so that fire and melee start at once (benchmarks)."""
    def line_up(side: str, y0: int, facing: str) -> list[dict[str, Any]]:
        units = []
        for i, spec in enumerate(army(side[0], n, rng)):
            row, col = divmod(i, 7)
            x = 3 + col * 9 + (8 if facing == "S" else 0)
            units.append({**spec, "x": x, "y": y0 + (row * 4 if facing == "N" else -row * 4), "facing": facing,
                          "formation": {"infantry": "line"}.get(spec["type"])})
        return units
    return {"sides": [{"name": "red", "edge": "south", "attacker": True, "units": line_up("red", 38, "N")},
                      {"name": "blue", "edge": "north", "units": line_up("blue", 31, "S")}],
            "turn_limit": turn_limit, "deployment_zones": False}
