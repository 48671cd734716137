"""Regenerate the golden storm (only when the rules change on purpose; review the diff of the events file).

    /work/venv/bin/python -m tests.napoleonic.siege.golden.make_golden

A scripted storm of Dresden: the besieger's columns go through the two breaches and up ladders against the wall
between them, its guns (one converted to howitzers) firing from the parallels; the garrison holds the parapet and the
forts, its fortress guns firing while their sections are manned, and capitulates when it is down to one regiment
(N-SIEGE-8). Every order is recorded, refused ones are not (they change nothing).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from server.core.engine import Actor
from server.core.errors import RuleError
from server.core.replay import Recorder, dumps, event_lines
from server.napoleonic.battle.fire import round_shot_distance
from server.napoleonic.siege.engine import SiegeEngine, StormState

HERE = Path(__file__).parent
SEED = 1813
LADDER_COLUMNS = ("b-col3", "b-col4", "b-col5")


def storm_config() -> dict[str, Any]:
    col = {"type": "infantry", "formation": "attack_column", "facing": "N"}
    besieger = [
        {"id": "b-col1", "x": 20, "y": 44, **col}, {"id": "b-col2", "x": 46, "y": 44, **col},
        {"id": "b-col3", "x": 35, "y": 44, **col}, {"id": "b-col4", "x": 26, "y": 44, **col},
        {"id": "b-col5", "x": 38, "y": 50, **col}, {"id": "b-col6", "x": 20, "y": 50, **col},
        {"id": "b-col7", "x": 46, "y": 50, **col}, {"id": "b-line1", "type": "infantry", "x": 28, "y": 58},
        {"id": "b-art1", "type": "foot_artillery", "x": 30, "y": 46}, {"id": "b-art2", "type": "foot_artillery",
                                                                      "x": 40, "y": 46},
        {"id": "b-hus", "type": "light_cavalry", "x": 12, "y": 60},
    ]
    garrison = [
        {"id": "r-wall1", "type": "infantry", "x": 37, "y": 32, "facing": "S"},
        {"id": "r-wall2", "type": "infantry", "x": 59, "y": 32, "facing": "S"},
        {"id": "r-fort", "type": "infantry", "x": 15, "y": 38, "facing": "S"},
        {"id": "r-res1", "type": "infantry", "formation": "attack_column", "x": 24, "y": 24, "facing": "S"},
        {"id": "r-res2", "type": "infantry", "formation": "attack_column", "x": 49, "y": 24, "facing": "S"},
        {"id": "r-art", "type": "foot_artillery", "x": 38, "y": 22, "facing": "S"},
    ]
    return {"fortress": "Dresden", "map_seed": 7, "turn_limit": 30,
            "besieger": {"name": "blue", "general": "Davout", "units": besieger, "howitzers": ["b-art1"]},
            "garrison": {"name": "red", "general": "Kleist", "units": garrison}}


def _try(rec: Recorder[StormState], actor: Actor, order: dict[str, Any]) -> bool:
    try:
        rec.order(actor, order)
        return True
    except RuleError:
        return False


def _aim(rec: Recorder[StormState], actor: Actor, side: str) -> None:
    """Every gun of `side` aims all its guns at the nearest enemy it can reach with round shot."""
    st = rec.state.battle
    for gun in [x for x in st.field_units(side) if x.arm == "artillery"]:
        best = None
        for enemy in st.field_units():
            if enemy.side == side:
                continue
            d = round_shot_distance(st, gun, enemy)
            if d is not None and (best is None or (d, enemy.num) < best[0]):
                best = ((d, enemy.num), enemy.id)
        if best is not None and gun.guns > 0:
            _try(rec, actor, {"type": "targets", "unit": gun.id, "targets": [{"unit": best[1], "guns": gun.guns}]})


def besieger_phase(rec: Recorder[StormState]) -> None:
    actor = Actor("davout", "blue")
    _aim(rec, actor, "blue")
    for uid in [x.id for x in rec.state.battle.field_units("blue") if x.arm != "artillery"]:
        unit = rec.state.battle.units[uid]
        if not unit.on_field:
            continue
        if uid in rec.state.ladders and rec.state.ladders[uid] < rec.state.battle.turn:
            _try(rec, actor, {"type": "climb", "unit": uid})
            continue
        for n in range(int(unit.points + 1e-9), 0, -1):
            path = [[unit.x, unit.y - i] for i in range(1, n + 1)]
            if _try(rec, actor, {"type": "move", "unit": uid, "path": path}):
                break
    rec.end_turn("blue")


def garrison_phase(rec: Recorder[StormState]) -> None:
    actor = Actor("kleist", "red")
    infantry = [x for x in rec.state.battle.field_units("red") if x.arm == "infantry"]
    if len(infantry) <= 1 or rec.state.battle.turn >= 20:
        rec.order(actor, {"type": "capitulate"})
        return
    _aim(rec, actor, "red")
    for unit in infantry:
        if unit.id.startswith("r-res") and rec.state.battle.turn >= 3:
            for n in range(int(unit.points + 1e-9), 0, -1):
                if _try(rec, actor, {"type": "move", "unit": unit.id,
                                     "path": [[unit.x, unit.y + i] for i in range(1, n + 1)]}):
                    break
    rec.end_turn("red")


def play() -> Recorder[StormState]:
    rec = Recorder(storm_config(), SEED, SiegeEngine())
    while not rec.state.battle.over:
        if rec.state.battle.active_side == "blue":
            besieger_phase(rec)
        else:
            garrison_phase(rec)
    return rec


def main() -> None:
    rec = play()
    (HERE / "storm.replay.json").write_text(dumps(rec.export()), encoding="utf-8")
    (HERE / "storm.events.jsonl").write_text("\n".join(event_lines(rec.events)) + "\n", encoding="utf-8")
    result = rec.state.battle.result or {}
    print(f"{len(rec.commands)} commands, {len(rec.events)} events, turn {rec.state.battle.turn}, "
          f"winner {result.get('winner')}, reason {result.get('reason')}, siege {result.get('siege')}")


if __name__ == "__main__":
    main()
