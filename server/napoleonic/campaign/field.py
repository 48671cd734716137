"""From a campaign battle's setup (`battles.battle_setup`) to the battle room's engine and setup config (D-N-3): a
field battle gets its 70×70 field from the battlefield generator (campaign cell terrain, the map seed derived from
the battle's seed, D-GEN-4, the attacker's edge facing the cell it came from); a storm is the siege engine's, which
draws its own siege map (N-SIEGE-6)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from server.napoleonic.battle.mapgen import CellTerrain, generate


def room_engine_config(started: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """(engine name, setup config) for the battle room of a battle's setup."""
    engine = str(started.get("engine", "battle"))
    config = dict(started["config"])
    if engine == "battle":
        t = started["terrain"]
        cell = CellTerrain.from_campaign(str(t["relief"]), ["river"] if t.get("river") else [], road=bool(t["road"]))
        if t.get("town"):
            cell = CellTerrain(cell.relief, cell.river, True, cell.road)
        field = generate(cell, int(started["map_seed"]), str(started["attacker_edge"]))
        config["map"] = field.map.dump()
    return engine, config
