"""Writes the client's engaged-battle fixture from the real battle engine (run it when the view changes):

    python -m tests.webclient.fixtures

`client_web/test/fixtures/battle-engaged.json`: a 25-against-25 battle on a generated field (hills, a river with
its crossings, a village, woods), played by the random commanders of
tests/napoleonic/battle/driver.py until the armies are
in contact, as a spectator sees it just before a resolution with fire and melee (`before`), the resolution's events
as the room sends them (`events`), and the view after it (`after`). The preview page (`#preview=battle`), the
canvas tests and bench/client_frames.py draw it.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from server.core.engine import Actor
from server.core.errors import RuleError
from server.core.replay import Recorder
from server.napoleonic.battle.engine import BattleEngine
from server.napoleonic.battle.footprint import DIRECTIONS
from server.napoleonic.battle.mapgen import CellTerrain, generate
from tests.napoleonic.battle.driver import candidates

OUT = Path(__file__).resolve().parents[2] / "client_web" / "test" / "fixtures" / "battle-engaged.json"
ENGINE = BattleEngine()
ORDER_OF_BATTLE = ["infantry"] * 12 + ["light_cavalry"] * 4 + ["heavy_cavalry"] * 3 + ["foot_artillery"] * 4 + \
                  ["horse_artillery"] * 2


def config(seed: int) -> dict[str, Any]:
    field = generate(CellTerrain("hills", river=True, town=True, road=True), seed, "south")
    sides = []
    for name, edge, prefix in (("red", "south", "bulow"), ("blue", "north", "ney")):
        units = [{"id": f"{prefix}-{i + 1}", "type": kind} for i, kind in enumerate(ORDER_OF_BATTLE)]
        sides.append({"name": name, "edge": edge, "attacker": name == "red", "units": units})
    return {"sides": sides, "map": field.map.dump(), "turn_limit": 40}


def forward(u: Any, rng: random.Random) -> list[dict[str, Any]]:
    """Straight at the enemy, as far as the points go (then shorter, then a little aside), cavalry charging; guns
    stay and aim at the nearest enemy the random commander finds."""
    orders: list[dict[str, Any]] = []
    for turn in (0, rng.choice((-1, 1))):
        dx, dy = DIRECTIONS[(u.facing + turn) % 8]
        for steps in range(max(1, int(u.points)), 0, -1):
            path = [[u.x + dx * i, u.y + dy * i] for i in range(1, steps + 1)]
            if u.arm == "cavalry" and steps >= 4:
                orders.append({"type": "charge", "unit": u.id, "path": path})
            orders.append({"type": "move", "unit": u.id, "path": path})
    return orders


def advance(rec: Recorder[Any], rng: random.Random) -> None:
    """One order phase of the active side: every unit gives the first of its orders the engine accepts."""
    side = rec.state.active_side
    actor = Actor(f"p-{side}", side)
    for u in list(rec.state.field_units(side)):
        tries = candidates(rec.state, u, rng) if u.arm == "artillery" else forward(u, rng)
        for order in tries:
            try:
                rec.order(actor, order)
                break
            except RuleError:  # a refused order is simply not given
                continue
    rec.end_turn(side or "", flagged=False)


def build(seed: int = 11) -> dict[str, Any]:
    rng = random.Random(seed)
    rec = Recorder(config(seed), seed, ENGINE)
    while not rec.state.over and rec.state.turn < 30:
        if rec.state.phase == 1 and rec.state.turn >= 4 and len(rec.state.melees) >= 1:
            before = ENGINE.view(rec.state, "spectator")
            start = len(rec.events)
            advance(rec, rng)
            events = [{"kind": e.kind, "data": e.data} for e in rec.events[start:]]
            if sum(e["kind"] == "fire" for e in events) >= 3:
                return {"seed": seed, "before": before, "events": events,
                        "after": ENGINE.view(rec.state, "spectator")}
            continue
        advance(rec, rng)
    raise SystemExit(f"seed {seed}: no engaged resolution")


if __name__ == "__main__":
    OUT.write_text(json.dumps(build(), separators=(",", ":"), sort_keys=True) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")
