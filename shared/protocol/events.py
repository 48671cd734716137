"""The `data` of each event a battle or storm room's engine emits (issue 14), as typed models built from one table:
per event kind its fields, their types, and which are present only in some of its variants. Every event the
engines emit in random battles and storms validates against its kind's model (no field missing, none unknown), and
every kind their sources emit has one (tests/protocol/test_events.py). The room's own events (`room_opened`,
`turn`, the clocks', `chat`, `secret_module`) are in docs/protocol.md. The campaigns' events (Continental War and
Napoleonic), the drill's and the skirmish's are typed the same way, each kind's model named for its ruleset (`EVENTS`
by engine kind; tests/protocol checks them along played campaigns and skirmishes).

Names of units are their ids; `rule` the rule (or rules, comma separated) applied. Cells are [x, y]: in battle and
storm events y grows south; in campaign events y is the latitude and grows north (docs/protocol.md, Coordinates).
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


def _model(kind: str, spec: dict[str, Any], prefix: str = "") -> type[BaseModel]:
    fields: dict[str, Any] = {}
    for name, t in spec.items():
        fields[name] = (t[0], None) if isinstance(t, tuple) else (t, ...)
    name = prefix + "".join(p.title() for p in kind.split("_")) + "Data"
    return create_model(name, __base__=_Data, **fields)


BATTLE_EVENTS: dict[str, type[BaseModel]] = {kind: _model(kind, spec) for kind, spec in BATTLE_EVENT_FIELDS.items()}
"""The model of each battle and storm event kind's `data`."""

CONTINENTAL_EVENT_FIELDS: dict[str, dict[str, Any]] = {
    "answer": {"answer": Any, "cost": float, "left": float, "number": int, "question": dict[str, Any], "rule": str},
    "answer_truth": {"false": bool, "given": Any, "number": int, "rule": str, "team": str, "truth": Any},
    "army_formed": {"name": str, "rule": str, "units": list[str]},
    "army_group": {"armies": list[str], "name": str, "rule": str},
    "artillery_strike": {"fraction": float, "mode": str, "rule": str, "target": Cell, "team": str},
    "battle": {"advanced": (bool, Opt), "defender_retreated": (list[str], Opt), "form": list[str],
        "main_blow": str | None, "rounds": list[dict[str, Any]], "rule": str, "target": Cell},
    "campaign_created": {"house_rules": list[str], "level": int, "mediator": str, "module": int,
        "neutrals": list[str], "recon_deception": bool, "refused_order_fine": bool, "rules": str, "scenario": str,
        "teams": list[dict[str, Any]], "title": str},
    "campaign_over": {"end": str, "rule": str, "scores": dict[str, Any], "turn": int, "winner": str | None},
    "capitulated": {"name": str, "to": str, "unit": str},
    "capitulation": {"rule": str, "team": str},
    "corps_column": {"behind": str, "corps": str, "rule": str, "unit": str},
    "corps_formed": {"name": str, "rule": str, "turns": int, "units": list[str]},
    "corps_left": {"corps": str, "rule": str, "unit": str},
    "cutoff_fired": {"cell": Cell, "rule": str},
    "decisive_success": {"kinds": list[str], "rule": str, "team": str},
    "defeated": {"end": str, "rule": str, "team": str},
    "deployed": {"cell": Cell, "facing": str, "unit": str},
    "deployment_report": {"report": dict[str, Any], "rule": str},
    "destroyed": {"name": str, "unit": str},
    "frontage": {"unit": str, "width": int},
    "interventions_limited": {"on": bool, "rule": str},
    "losses": {"cause": str, "cell": Cell, "loss": float, "rating": float, "unit": str},
    "march_ended": {"at": Cell, "unit": str},
    "march_ordered": {"path": list[Cell], "unit": str},
    "mediator_message": {"rule": str, "text": str},
    "merged": {"into": str, "rule": str, "turns": int, "units": list[str]},
    "mobilization": {"rule": str, "team": str, "turn": int},
    "mobilization_points": {"cities": list[str], "rule": str},
    "mobilized": {"arm": str, "cell": Cell, "city": str, "rule": str, "unit": str},
    "moved": {"march": (bool, Opt), "path": list[Cell], "unit": str, "used": (float, Opt)},
    "order_adjusted": {"done": (list[Cell], Opt), "message": str, "ordered": (list[Cell], Opt), "rule": str,
        "unit": (str, Opt)},
    "order_amended": {"number": int, "order": dict[str, Any], "rule": str},
    "order_dropped": {"message": str, "rule": str, "team": str},
    "order_recorded": {"number": int, "order": dict[str, Any]},
    "order_withdrawn": {"number": int, "rule": str},
    "peace_concluded": {"between": list[str], "kind": str, "number": int, "rule": str},
    "peace_proposed": {"border": list[list[Any]], "by": str, "kind": str, "number": int, "rule": str, "to": str},
    "peace_rejected": {"by": str, "number": int, "rule": str},
    "penalty": {"points": int, "reason": str, "rule": str, "team": str},
    "phase": {"phase": str, "rule": str, "turn": (int, Opt)},
    "posture": {"on_attack": str, "rule": str, "unit": str | None},
    "rating_adjusted": {"rating": float, "rule": str, "unit": str},
    "reassigned": {"regiment": str, "rule": str, "to": str},
    "regrouping": {"cell": Cell, "rule": str, "units": list[str]},
    "regulation": {"name": str, "rule": str, "text": str},
    "resolution": {"rule": str, "turn": int},
    "roads_closed": {"cause": str, "cells": list[Cell], "rule": str, "turns": int},
    "roll": {"faces": int, "purpose": str, "result": int},
    "sighting": {"lost": list[str], "units": list[dict[str, Any]]},
    "sorted_out": {"at": Cell, "rule": str, "unit": str},
    "split": {"regiments": list[str], "rule": str, "unit": str},
    "transfer_begun": {"nodes": list[Cell], "to": str, "turns": int, "unit": str},
    "transfer_ended": {"at": Cell, "rule": str, "unit": str},
    "transfer_moved": {"at": Cell, "unit": str},
    "turn_begun": {"team": str, "turn": int},
    "turn_ended": {"flagged": bool, "team": str, "turn": int},
    "turned": {"facing": str, "unit": str, "used": float},
    "war_begun": {"by": str, "rule": str, "turn": int},
    "withdrawal": {"rule": str, "target": Cell, "units": list[str]},
    "cover_set": {"unit": str, "cover": bool, "rule": str},
    "formation": {"unit": str, "formation": str, "orientation": str},
    "march_halted": {"unit": str, "at": Cell, "rule": str},
    "roads_opened": {"cells": list[Cell], "rule": str},
    "zone": {"army": str, "rule": str, "zone": list[Cell]},
}
"""Per Continental War event kind (C-*): field → type, or (type, "optional"). Cells [x, y], y north."""

NAPOLEONIC_EVENT_FIELDS: dict[str, dict[str, Any]] = {
    "army_moved": {"army": str, "cell": Cell, "path": list[Cell], "points": float, "rule": str},
    "army_retreated": {"army": str, "cell": Cell, "chosen": bool, "path": list[Cell], "rule": str},
    "battle_accepted": {"battle": str, "by": str, "flagged": bool, "rule": str},
    "battle_declined": {"battle": str, "by": str, "rule": str},
    "battle_ended": {"armies": list[dict[str, Any]], "battle": str, "cell": Cell, "destroyed": dict[str, Any],
        "general": dict[str, Any] | None, "how": str, "kind": str, "loser": str, "prisoners": dict[str, Any],
        "reason": str, "rule": str, "winner": str},
    "battle_started": {"attacker": str, "attacker_edge": str, "battle": str, "cell": Cell, "defender": str,
        "engine": str, "kind": str, "rule": str, "siege": str | None, "terrain": dict[str, Any]},
    "campaign_created": {"rules": str, "scenario": str, "teams": list[dict[str, Any]], "title": str},
    "contact": {"armies": dict[str, Any], "attacker": str, "battle": str, "can_withdraw": bool, "cell": Cell,
        "defender": str, "rule": str, "waiting": (list[str], Opt)},
    "fortifying_abandoned": {"army": str, "city": str, "done": int, "reason": str, "rule": str},
    "fortifying_begun": {"army": str, "city": str, "needed": int, "rule": str, "turn": int},
    "fortifying_progress": {"city": str, "done": int, "needed": int, "rule": str},
    "fortress_built": {"army": str, "city": str, "port": bool, "rule": str, "team": str},
    "fortress_captured": {"capitulated": bool, "fortress": str, "phase": str, "rule": str, "winner": str},
    "fortress_surrendered": {"fortress": str, "holder": str, "phase": str, "retreats": str, "rule": str, "turn": int},
    "garrison_cut_off": {"fortress": str, "rule": str, "units": list[dict[str, Any]]},
    "garrison_holds": {"fortress": str, "phase": str, "rule": str, "turn": int},
    "garrison_resupplied": {"by": str, "fortress": str, "rule": str},
    "general_appointed": {"army": str, "general": str, "rule": str, "team": str},
    "general_captured": {"fortress": str, "general": str, "phase": str, "rule": str, "secret_module_minutes": int,
        "side": str},
    "general_released": {"fortress": str, "general": str, "phase": str, "rule": str, "side": str},
    "intercepted": {"army": str, "cell": Cell, "rule": str, "target": str},
    "interception_possible": {"army": str, "cell": Cell, "distance": int, "rule": str, "target": str},
    "posture": {"army": str, "intercept": bool, "rule": str, "support": bool},
    "quick_offered": {"battle": str, "by": str, "rule": str},
    "quick_refused": {"battle": str, "by": str, "rule": str},
    "quick_resolution": {"battle": str, "by": str, "multipliers": dict[str, Any], "ratings": dict[str, Any],
        "rule": str},
    "quick_round": {"attacker_loss": float, "battle": str, "defender_loss": float, "hour": int, "k1": float,
        "k2": float, "ratio": float, "rule": str},
    "retreat_cut_off": {"army": str, "team": str, "cell": Cell, "rule": str},
    "reinforcement_ordered": {"army": str, "battle": str, "distance": int, "rule": str, "team": str},
    "retreat_made": {"army": str, "cell": Cell, "chosen": bool, "rule": str, "team": str},
    "roll": {"battle": str, "faces": int, "general": str, "need": int, "purpose": str, "result": int, "rule": str,
        "success": bool},
    "siege_ended": {"armies": list[dict[str, Any]], "fortress": str, "garrison": str, "generals": list[dict[str,
        Any]], "holder": str, "outcome": str, "rule": str},
    "siege_broken": {"fortress": str, "phase": str, "winner": str, "retreats": str, "rule": str},
    "siege_lifted": {"fortress": str, "phase": str, "turn": int, "rule": str},
    "sortie": {"fortress": str, "phase": str, "turn": int, "battle": dict[str, Any], "rule": str},
    "sortie_repulsed": {"fortress": str, "phase": str, "winner": str, "storm_from": int, "rule": str},
    "storm_repulsed": {"fortress": str, "phase": str, "winner": str, "retreats": str, "rule": str},
    "siege_laid": {"besieger": str, "fortress": str, "garrison": str, "phase": str, "resupplied_by_sea": bool,
        "rule": str, "storm_from": int, "turn": int},
    "storm": {"battle": dict[str, Any], "forced": bool, "fortress": str, "phase": str, "rule": str, "turn": int},
    "terms_agreed": {"by": str, "default": bool, "fortress": str, "imposed": bool, "phase": str, "result": dict[str,
        Any], "rule": str, "terms": dict[str, Any]},
    "terms_proposed": {"by": str, "fortress": str, "phase": str, "rule": str, "terms": dict[str, Any]},
    "turn_begun": {"teams": list[str], "turn": int},
    "turn_ended": {"flagged": bool, "passed": (bool, Opt), "team": str, "turn": int},
    "turn_passed": {"battles": list[str], "rule": str, "team": str, "turn": int},
}
"""Per Napoleonic campaign event kind (the campaign room; its battles and storms are BATTLE_EVENT_FIELDS)."""

DRILL_EVENT_FIELDS: dict[str, dict[str, Any]] = {
    "drill_started": {"teams": list[str], "width": int, "height": int},
    "counter_moved": {"id": str, "team": str, "x": int, "y": int},
    "counter_spotted": {"id": str, "team": str, "x": int, "y": int},
    "turn_ended": {"team": str, "flagged": bool, "turn": int, "active": list[str]},
    "drill_over": {"turn": int},
    "ruling": {"text": str},
}
"""The drill's events (the rooms' smoke-test ruleset)."""

_PLACED = list[dict[str, Any]]  # figures placed: {id, x, y, facing} (and unit, role, weapon, vehicle once revealed)
SKIRMISH_EVENT_FIELDS: dict[str, dict[str, Any]] = {
    "skirmish_started": {"scenario": str, "name": str, "sides": list[dict[str, Any]], "table": dict[str, Any],
                         "objective": str | None, "turns": int, "rule": str},
    "terrain_count": {"count": int, "placer": str | None, "rule": str},
    "terrain_placed": {"element": dict[str, Any], "rule": str},
    "terrain_skipped": {"kind": str, "rule": str},
    "terrain_by_server": {"count": int, "rule": str},
    "deployment": {"first": str, "rule": str},
    "deployed": {"side": str, "figures": _PLACED, "held": list[str], "rule": str},
    "side_deployed": {"side": str, "rule": str},
    "deployment_revealed": {"side": str, "figures": _PLACED, "rule": str},
    "ambush_sprung": {"side": str, "unit": str, "figures": _PLACED, "rule": str},
    "enemy_appeared": {"side": str, "figures": _PLACED, "rule": str},
    "ambush_fire": {"unit": str, "figures": list[str], "rule": str},
    "turn_started": {"turn": int, "turns": int, "rule": str},
    "initiative": {"turn": int, "first": str, "rule": str},
    "orders_rolled": {"orders": dict[str, int], "rule": str},
    "orders_lost": {"side": str, "orders": int, "reason": str, "rule": str},
    "next_order": {"side": str, "rolled": bool, "left": dict[str, int], "rule": str},
    "order_passed": {"side": str, "rule": str},
    "order_given": {"side": str, "action": str, "orders_left": int, "rule": str, "body": (str, Opt),
                    "kind": (str, Opt), "figures": (list[str], Opt)},
    "enemy_order": {"side": str, "action": str | None, "orders_left": int, "rule": str, "figures": list[str]},
    "group_formed": {"group": str, "commander": str, "members": list[str], "rule": str},
    "group_left": {"group": str, "figures": list[str], "rule": str},
    "group_dissolved": {"group": str, "reason": str, "rule": str},
    "figure_moved": {"figure": str, "side": str, "path": list[Cell], "facing": str, "from": Cell, "to": Cell,
                     "spent": float, "stopped": str | None, "rule": str},
    "enemy_moved": {"figure": str, "side": str, "from": Cell | None, "to": Cell | None, "facing": str | None,
                    "stopped": str | None, "rule": str},
    "fire_order": {"side": str, "body": str, "target": str, "group": bool, "penalty": int, "rule": str},
    "random_fire": {"turn": int, "volleys": int, "rule": str},
    "blast": {"cell": Cell, "cause": str, "rule": str},
    "hits": {"owner": str, "figures": list[str], "hits": int, "cause": str, "shooter": str, "rule": str},
    "hits_to_choose": {"owner": str, "candidates": list[str], "count": int, "tier": str, "default": list[str],
                       "rule": str},
    "hits_chosen": {"owner": str, "figures": list[str], "tier": str, "by": str, "rule": str},
    "hits_by_default": {"owner": str, "flagged": bool, "rule": str},
    "figure_hit": {"figure": str, "side": str, "status": str, "cause": str, "rule": str,
                   "points": (dict[str, int], Opt)},
    "weapon_dropped": {"weapon": str, "figure": str, "unit": str, "cell": Cell, "until_turn": int, "rule": str},
    "weapon_lost": {"weapon": str, "unit": str, "cell": Cell, "rule": str},
    "weapon_taken_up": {"figure": str, "weapon": str, "dropped": str, "rule": str},
    "hand_to_hand": {"turn": int, "fighters": int, "rule": str},
    "joins_fight": {"figure": str, "against": str, "rule": str},
    "survival_test": {"turn": int, "down": int, "rule": str},
    "figure_rallied": {"figure": str, "side": str, "rule": str},
    "morale": {"unit": str, "side": str, "outcome": str, "demoralised": bool, "rule": str},
    "game_over": {"winner": str | None, "reason": str, "turn": int, "points": dict[str, int], "rule": str},
    "ruling": {"text": (str, Opt), "rule": (str, Opt), "figure": (str, Opt), "status": (str, Opt),
               "side": (str, Opt), "orders_left": (int, Opt), "unit": (str, Opt), "demoralised": (bool, Opt)},
    "roll": {"purpose": str, "side": str | None, "figure": str | None, "unit": str | None, "faces": int,
             "dice": int, "result": list[int], "what": (str, Opt), "weapon": (str, Opt), "target": (str, Opt),
             "range": (int, Opt), "band": (str, Opt), "need": (int, Opt), "cover": (int, Opt), "hits": (int, Opt),
             "cause": (str, Opt), "bonus": (int, Opt), "against": (str, Opt), "aspect": (str, Opt),
             "lost": (int, Opt), "start": (int, Opt)},
}
"""Per skirmish event kind (S-*, D-S-*): field → type, or (type, "optional"). Cells [x, y] on the table, y south;
a figure's facing a compass point ("n" … "nw")."""

CONTINENTAL_EVENTS = {kind: _model(kind, spec, "Continental") for kind, spec in CONTINENTAL_EVENT_FIELDS.items()}
NAPOLEONIC_EVENTS = {kind: _model(kind, spec, "Napoleonic") for kind, spec in NAPOLEONIC_EVENT_FIELDS.items()}
DRILL_EVENTS = {kind: _model(kind, spec, "Drill") for kind, spec in DRILL_EVENT_FIELDS.items()}
SKIRMISH_EVENTS = {kind: _model(kind, spec, "Skirmish") for kind, spec in SKIRMISH_EVENT_FIELDS.items()}
EVENTS: dict[str, dict[str, type[BaseModel]]] = {
    "battle": BATTLE_EVENTS, "siege": BATTLE_EVENTS, "campaign": CONTINENTAL_EVENTS,
    "napoleonic": NAPOLEONIC_EVENTS, "drill": DRILL_EVENTS, "skirmish": SKIRMISH_EVENTS,
}
"""The models of each engine kind's event `data` (the engine's `kind`: "campaign" is the Continental War)."""
