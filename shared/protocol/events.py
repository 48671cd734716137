"""The `data` of each event a battle or storm room's engine emits (issue 14), as typed models built from one table:
per event kind its fields, their types, and which are present only in some of its variants. Every event the
engines emit in random battles and storms validates against its kind's model (no field missing, none unknown), and
every kind their sources emit has one (tests/protocol/test_events.py). The room's own events (`room_opened`,
`turn`, the clocks', `chat`, `secret_module`) are in docs/protocol.md; the campaigns' are not typed yet.

Names of units are their ids; cells [x, y] (y south); `rule` the rule (or rules, comma separated) applied.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, create_model

Cell = list[int]
Opt = "optional"  # a field only some of the kind's variants carry

BATTLE_EVENT_FIELDS: dict[str, dict[str, Any]] = {
    "battle_started": {"sides": list[dict[str, Any]], "units": list[dict[str, Any]], "rule": str},
    "battle_turn": {"turn": int, "order": list[str], "rule": str},
    "phase_over": {"side": str, "flagged": bool, "turn": int, "rule": str},
    "resolution": {"turn": int, "rule": str},
    "moved": {"unit": str, "to": Cell, "steps": int, "spent": float, "points": float, "road": bool,
              "stopped": str | None},
    "move_ended": {"unit": str, "rule": str, "terrain": (str, Opt), "reason": (str, Opt)},
    "wheeled": {"unit": str, "degrees": int, "facing": int, "points": float, "rule": str},
    "about_face": {"unit": str, "facing": int, "points": float, "rule": str},
    "formation": {"unit": str, "formation": str, "cost": float, "points": float, "rule": str},
    "order_carried": {"unit": str, "order": dict[str, Any], "owed": float, "rule": str},
    "order_failed": {"unit": str, "order": dict[str, Any], "reason": str, "rule": str | None},
    "targets": {"unit": str, "targets": list[list[Any]], "rule": str},
    "barrage": {"unit": str, "turns": int, "rule": str},
    "barrage_over": {"unit": str, "guns_lost": int, "rule": str},
    "retreat_ordered": {"side": str, "turn": int, "ends_after_turn": int, "rule": str},
    "contact": {"unit": str, "enemy": str, "sector": str, "charge": int, "rule": str},
    "charge": {"unit": str, "bonus": int, "run": int, "rule": str, "reason": (str, Opt)},
    "overrun": {"unit": str, "by": str, "guns": int, "rule": str},
    "left_melee": {"unit": str, "enemy": str, "rule": str},
    "melee": {"a": str, "b": str, "round": int, "values": list[Any], "losses": list[Any], "rule": str},
    "fire": {"unit": str, "target": str, "weapon": str, "distance": int | None, "losses": float, "rule": str,
             "note": (str, Opt), "guns": (int, Opt), "hit": (bool, Opt), "at": (Cell, Opt), "step": (int, Opt),
             "carried": (Any, Opt), "firepower": (float, Opt)},
    "fire_assigned": {"unit": str, "targets": dict[str, int], "turns": int, "rule": str},
    "losses": {"unit": str, "amount": float, "cause": str, "by": str | None, "left": float, "rule": str},
    "morale": {"unit": str, "delta": int, "morale": int, "reason": str, "rule": str},
    "dispersal": {"unit": str, "morale": int, "rule": str},
    "fallen": {"unit": str, "status": str, "taken_by": str | None, "rule": str},
    "arrived": {"unit": str, "group": str, "at": Cell, "facing": int, "rule": str},
    "adjusted": {"unit": str, "morale": int, "loss_tolerance": int, "guns": int, "rule": str},
    "capitulation": {"side": str, "turn": int, "rule": str},
    "battle_over": {"winner": str, "loser": str, "reason": str, "turn": int, "retreats": str, "retreat_cells": int,
                    "general": str, "general_killed": bool, "units": list[dict[str, Any]],
                    "prisoners": dict[str, list[str]], "guns_taken": dict[str, int]},
    "roll": {"purpose": str, "faces": int, "face": int, "unit": (str | None, Opt), "need": (int, Opt),
             "success": (bool, Opt), "rule": (str, Opt), "side": (str, Opt), "target": (str, Opt),
             "group": (str, Opt), "distance": (int, Opt), "accuracy": (int, Opt), "morale": (int, Opt)},
    # the storm (N-SIEGE-5 … 13)
    "storm_begun": {"fortress": dict[str, Any], "besieger": str, "garrison": str, "field": dict[str, Any],
                    "howitzers": list[str], "in_town": list[str], "rule": str},
    "storm_over": {"fortress": str, "winner_role": str, "capitulated": bool, "terms": Any, "in_town": list[str],
                   "howitzers": list[str], "prisoners": dict[str, list[str]], "rule": str},
    "fortress_gun": {"unit": str, "section": Any, "manned": bool, "rule": str},
    "ladders": {"unit": str, "turn": int, "climb_from": Any, "rule": str},
    "climbed": {"unit": str, "section": Any, "to": Cell, "cost": float, "points": float, "rule": str},
}
"""Per battle event kind: field → type, or (type, "optional") for a field of only some variants."""


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _model(kind: str, spec: dict[str, Any]) -> type[BaseModel]:
    fields: dict[str, Any] = {}
    for name, t in spec.items():
        fields[name] = (t[0], None) if isinstance(t, tuple) else (t, ...)
    name = "".join(p.title() for p in kind.split("_")) + "Data"
    return create_model(name, __base__=_Data, **fields)


BATTLE_EVENTS: dict[str, type[BaseModel]] = {kind: _model(kind, spec) for kind, spec in BATTLE_EVENT_FIELDS.items()}
"""The model of each battle and storm event kind's `data`."""
