"""The battle rooms of a Napoleonic campaign, as the engine interface's child-room hooks (server.core.engine): a
battle or storm is fought in a room of its own while it runs (N-START-1, D-L-1), set up from the campaign's state
(the forces, the field drawn from the campaign cell, D-N-3), and its result comes back as one ruling (D-L-1); a
general killed or captured sends its player to the secret module (N-VICTORY-3, D-N-14), and a battle settled on
the campaign map (quick resolution, capitulation: D-L-2) is ended in its room."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from server.continental.grid import label
from server.core.engine import ChildRoom, ChildSetup, FollowUp

from .battles import battle_setup, cell_terrain
from .field import room_engine_config
from .state import RUNNING, NapoleonicState, cell_of

SIDES = ("attacker", "defender")


def child_rooms(s: NapoleonicState, status: str = RUNNING) -> list[ChildRoom]:
    """The battles being fought (or, `status` OVER, fought to their end, with their winners), in the order they
    began."""
    out = []
    for b in sorted(s.battles.values(), key=lambda b: int(b.id)):
        if b.status != status:
            continue
        cell = cell_of(b.cell)
        place = cell_terrain(s, cell)["place"] or label(cell)
        result = b.result
        winner = str(result.get("winner") or "") or None if isinstance(result, Mapping) else None
        out.append(ChildRoom(str(b.id), str(b.engine), ((b.attacker, "attacker"), (b.defender, "defender")),
                             f"{b.kind} at {place}", winner))
    return out


def child_opened(kind: str, data: Mapping[str, Any]) -> str | None:
    return str(data["battle"]) if kind == "battle_started" else None


def child_setup(s: NapoleonicState, key: str, seed: int) -> ChildSetup:
    """N-START-1, D-N-3: the battle room's engine and config (a field battle's 70×70 field generated from the
    cell's terrain and a value derived from the battle's seed, D-GEN-4), its seed (the room's, derived from the
    campaign's), the sides (attacker first) and the battle's id, cell, kind."""
    started = battle_setup(s, s.battles[key], seed)
    engine, config = room_engine_config(started)
    return ChildSetup(engine, config, seed, (str(started["attacker"]), str(started["defender"])),
                      {"battle": str(started["battle"]), "cell": list(started["cell"]), "kind": started.get("kind")})


def result_ruling(key: str, result: Mapping[str, Any]) -> dict[str, Any]:
    """D-L-1: a battle room's result, as the ruling that applies it to the campaign."""
    return {"type": "battle_result", "battle": key, "result": dict(result)}


def follow_ups(kind: str, data: Mapping[str, Any]) -> Sequence[FollowUp]:
    """N-VICTORY-3, D-N-14: each killed or captured general's player goes to the secret module; D-L-2: a battle
    settled on the campaign map is ended in its room (its result is the campaign's already)."""
    if kind == "battle_ended":
        generals = [data.get("general")]
    elif kind == "siege_ended":
        generals = list(data.get("generals") or [])
    else:
        return ()
    out = []
    for fate in generals:
        lock = (fate or {}).get("secret_module")
        if lock:
            out.append(FollowUp("lock", {"player": lock["player"], "reason": lock["reason"],
                                         "minutes": lock["minutes"]}))
    if kind == "battle_ended" and data.get("how") in ("quick", "capitulation"):
        ruling = {"type": "end_battle", "winner": data["winner"], "reason": "quick resolution (D-L-2)"}
        out.append(FollowUp("ruling", {"ruling": ruling}, child=str(data["battle"]), settles_child=True))
    return out
