"""Quick resolution of a battle on the combat results table (D-L-2, C-CRT, D-C-3): offered by a commander,
accepted or refused by the other, or imposed by the moderator.

Derivation (docs/napoleonic.md): a unit's rating is its type's full rating (scenario table; an infantry regiment
is a rifle regiment's 0.2) × what is left of it (loss tolerance, or guns for artillery, over the full value) ×
its morale over the type's starting morale (capped; artillery has no morale, factor 1). A side's rating is the sum;
the defender's is multiplied by its cell's city or fortress (D-C-4). One table round per tactical "hour": the CRT
gives each side's loss in rating, shared equally among its units and turned back into loss tolerance (or guns);
the side that lost the larger share of its rating loses a point of morale on every unit. It ends when a side's
losses are absolute (it capitulates: its units are the winner's prisoners), when a side falls below half its
starting rating (it retreats), or after `max_rounds` (the defender holds the field, as at the turn limit, D-N-2).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from server.continental.combat import crt
from server.continental.grid import round_half_up
from server.continental.scenario import load_scenario
from server.core.errors import IllegalOrder, NotYourUnit
from server.napoleonic.battle.units import UNIT_TYPES

from .battles import apply_result, get_battle, side_of
from .events import Ctx
from .records import Battle
from .state import RUNNING, NapoleonicState, cell_of


def unit_rating(tables: Mapping[str, Any], unit: Mapping[str, Any]) -> float:
    """D-L-2: full rating × strength left × morale factor."""
    q = tables["quick_resolution"]
    t = UNIT_TYPES[unit["type"]]
    base = float(q["ratings"][unit["type"]])
    strength = float(unit["guns"] / t.guns if t.guns else unit["loss_tolerance"] / t.loss_tolerance)
    morale = min(float(q["morale_cap"]), float(unit["morale"]) / t.morale) if t.morale else 1.0
    return base * max(0.0, strength) * max(0.0, morale)


def defender_multiplier(state: NapoleonicState, battle: Battle) -> float:
    place = state.map.place_at.get(cell_of(battle.cell))
    table = state.tables["quick_resolution"]["defender_multiplier"]
    return float(table.get(place.kind, 1.0)) if place is not None else 1.0


def offer(ctx: Ctx, team: str, battle_id: Any) -> None:
    battle = get_battle(ctx.state, battle_id, statuses=(RUNNING,))
    side_of(battle, team)
    if battle.quick is not None:
        raise IllegalOrder("a quick resolution is already offered", rule="D-L-2")
    battle.quick = {"offered_by": team}
    ctx.public("quick_offered", battle=battle.id, by=team, rule="D-L-2")


def answer(ctx: Ctx, team: str, battle_id: Any, accept: Any) -> None:
    battle = get_battle(ctx.state, battle_id, statuses=(RUNNING,))
    side_of(battle, team)
    if battle.quick is None:
        raise IllegalOrder("no quick resolution is offered", rule="D-L-2")
    if battle.quick["offered_by"] == team:
        raise NotYourUnit("the other commander answers the offer", rule="D-L-2")
    if accept is not True:
        battle.quick = None
        ctx.public("quick_refused", battle=battle.id, by=team, rule="D-L-2")
        return
    resolve(ctx, battle, "agreed")


def impose(ctx: Ctx, battle_id: Any) -> None:
    resolve(ctx, get_battle(ctx.state, battle_id, statuses=(RUNNING,)), "moderator")


def resolve(ctx: Ctx, battle: Battle, by: str) -> dict[str, Any]:
    s = ctx.state
    q = s.tables["quick_resolution"]
    crt_tables = load_scenario(str(q["crt_from"])).tables
    att, dfn = battle.attacker, battle.defender
    units: dict[str, list[dict[str, Any]]] = {}
    for team in (att, dfn):
        ids = battle.armies[team] + battle.reinforcements[team]
        units[team] = [dict(u) for a in ids for u in s.armies[a].units]
    mult = {att: 1.0, dfn: defender_multiplier(s, battle)}

    def rating(team: str) -> float:
        return sum(unit_rating(s.tables, u) for u in units[team] if _alive(u))

    start = {t: rating(t) for t in (att, dfn)}
    loser, reason, capitulated = att, "the defender holds the field", False
    ctx.public("quick_resolution", battle=battle.id, by=by, ratings=start, multipliers=mult, rule="D-L-2")
    for hour in range(1, int(q["max_rounds"]) + 1):
        k1, k2 = rating(att) * mult[att], rating(dfn) * mult[dfn]
        out = crt(crt_tables, k1, k2)
        ctx.public("quick_round", battle=battle.id, hour=hour, k1=round(k1, 3), k2=round(k2, 3), ratio=out.ratio,
                   attacker_loss=round(out.attacker_loss, 3), defender_loss=round(out.defender_loss, 3),
                   rule="D-L-2, C-CRT, D-C-3")
        if out.attacker_capitulates or out.defender_capitulates:
            loser, reason, capitulated = (att if out.attacker_capitulates else dfn), "capitulation", True
            break
        shares = {}
        for team, loss in ((att, out.attacker_loss), (dfn, out.defender_loss)):
            shares[team] = loss / (rating(team) * mult[team]) if rating(team) > 0 else 1.0
            _take_losses(s.tables, [u for u in units[team] if _alive(u)], loss / mult[team])
        worse = att if shares[att] > shares[dfn] else dfn if shares[dfn] > shares[att] else None
        if worse is not None:
            for u in units[worse]:
                if _alive(u) and UNIT_TYPES[u["type"]].morale:
                    u["morale"] -= int(q["morale_loss_per_round"])
        broken = [t for t in (att, dfn) if rating(t) < float(q["retreat_below"]) * start[t]]
        if broken:
            loser = min(broken, key=lambda t: (rating(t) / start[t] if start[t] else 0.0, t != att))
            reason = "retreat: below half its strength"
            break
    winner = dfn if loser == att else att
    result: dict[str, Any] = {"winner": winner, "loser": loser, "reason": reason,
              "retreats": None if capitulated else loser, "units": []}
    for team in (att, dfn):
        for u in units[team]:
            status = "in_line"
            if team == loser and capitulated:
                status = "prisoner"
            elif not _alive(u):
                status = "destroyed"
            elif UNIT_TYPES[u["type"]].morale and u["morale"] <= 0:
                status, u["morale"] = ("in_line", 1) if team == winner else ("destroyed", u["morale"])  # N-MORALE-7
            result["units"].append({"id": u["id"], "side": team, "type": u["type"], "status": status,
                                    "morale": u["morale"], "loss_tolerance": u["loss_tolerance"], "guns": u["guns"],
                                    "arrived": True})
    return apply_result(ctx, battle, result, how="capitulation" if capitulated else "quick")


def _alive(u: Mapping[str, Any]) -> bool:
    t = UNIT_TYPES[u["type"]]
    return bool(u["guns"] > 0 if t.guns else u["loss_tolerance"] > 0)


def _take_losses(tables: Mapping[str, Any], units: list[dict[str, Any]], loss: float) -> None:
    """C-CRT.S6–S7 (D-C-3): equal shares of the loss; each share turned back into loss tolerance (guns)."""
    if not units:
        return
    share = loss / len(units)
    for u in units:
        t = UNIT_TYPES[u["type"]]
        per_point = unit_rating(tables, u) / (u["guns"] if t.guns else u["loss_tolerance"])
        points = int(round_half_up(share / per_point)) if per_point > 0 else 10**6
        if t.guns:
            u["guns"] = max(0, u["guns"] - points)
        else:
            u["loss_tolerance"] = max(0, u["loss_tolerance"] - points)
