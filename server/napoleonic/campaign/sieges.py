"""Fortresses on the campaign map (N-SIEGE-1 … N-SIEGE-8, D-N-16): an army that enters a fortress held by an enemy
army lays siege instead of giving battle. The siege itself is
server.napoleonic.siege.sequence's state machine; this module
keeps it in the campaign state, freezes the armies, turns its battle calls (sortie, storm) into battles and its
end into the fortress's new holder, the garrison's fate and the captured general's lockout.
"""

from __future__ import annotations

from typing import Any

from server.continental.grid import Cell
from server.core.errors import BadOrder, NotYourUnit
from server.napoleonic.battle.units import ARTILLERY, UNIT_TYPES
from server.napoleonic.siege import sequence
from server.napoleonic.siege.deployment import convert_howitzers
from server.napoleonic.siege.fortress import Fortress
from server.napoleonic.siege.sequence import BATTLE, ENDED, INVESTED, TERMS, Siege, SiegeArmy

from . import retreats
from .battles import battle_setup, start_siege_battle
from .events import Ctx
from .fortify import fortress_at
from .movement import retreat_path
from .records import Army, Battle, SiegeRecord
from .state import BESIEGED, BESIEGING, CAPTURED, IN_BATTLE, READY, NapoleonicState, cell_of


def _siege_army(armies: list[Army]) -> SiegeArmy:
    guns = sum(1 for a in armies for u in a.units if UNIT_TYPES[u["type"]].arm == ARTILLERY)
    return SiegeArmy(armies[0].id, armies[0].team, guns, armies[0].general or "")


def lay(ctx: Ctx, mover: Army, cell: Cell, fortress: Fortress) -> None:
    """N-SIEGE-2: only an army with artillery may besiege; the siege lasts one campaign turn before the storm."""
    s = ctx.state
    garrison = [a for a in s.enemies_at(cell, mover.team)]
    siege, events = sequence.lay_siege(fortress, _siege_army([mover]), _siege_army(garrison), s.turn)
    s.sieges[fortress.city] = SiegeRecord(siege, list(cell), [mover.id], [a.id for a in garrison])
    mover.status = BESIEGING
    for a in garrison:
        a.status = BESIEGED
    ctx.events += events


def get(state: NapoleonicState, city: Any) -> tuple[SiegeRecord, Siege]:
    rec = state.sieges.get(str(city))
    if rec is None:
        raise BadOrder(f"no siege of {city!r}", rule="N-SIEGE-2", details={"fortress": city})
    return rec, rec.siege


def order(ctx: Ctx, team: str, city: Any, action: Any, howitzers: Any = None) -> None:
    rec, siege = get(ctx.state, city)
    if team not in (siege.besieger.side, siege.garrison.side):
        raise NotYourUnit(f"{team} takes no part in the siege of {city}", rule="N-SIEGE-2")
    chosen = None if howitzers is None else _howitzers(ctx.state, rec, team, action, howitzers)
    new, events = sequence.order(siege, team, str(action), ctx.state.turn)
    if chosen is not None:
        rec.howitzers = chosen
    ctx.events += events
    _advance(ctx, rec, new)


def _howitzers(s: NapoleonicState, rec: SiegeRecord, team: str, action: Any, raw: Any) -> list[str]:
    """N-SIEGE-9, D-N-15: with its storm order the besieger names the companies of its besieging army that become
    howitzers for the storm — foot or horse artillery, at most half its companies (rounded up)."""
    if str(action) != "storm" or team != rec.siege.besieger.side:
        raise BadOrder("howitzers are chosen with the besieger's storm order", rule="N-SIEGE-9",
                       details={"field": "howitzers"})
    if not isinstance(raw, (list, tuple)) or not all(isinstance(u, str) for u in raw):
        raise BadOrder("howitzers is a list of unit ids", rule="N-SIEGE-9", details={"field": "howitzers"})
    units = [u for aid in rec.besieger for u in s.armies[aid].units]
    convert_howitzers(units, raw)
    return [str(u) for u in raw]


def terms(ctx: Ctx, team: str | None, city: Any, proposal: Any, *, accept: bool = False) -> None:
    """N-SIEGE-8: the commanders settle the capitulation terms (or the moderator imposes them, team None)."""
    rec, siege = get(ctx.state, city)
    if team is None:
        new, events = sequence.impose_terms(siege, proposal)
    elif accept:
        new, events = sequence.accept_terms(siege, team)
    else:
        new, events = sequence.propose_terms(siege, team, proposal)
    ctx.events += events
    _advance(ctx, rec, new)


def terms_default(ctx: Ctx, city: str, team: str) -> None:
    """D-NAP-9: the terms of `city` waited for `team`, whose turn ended (or clock ran out) without its word."""
    rec, siege = get(ctx.state, city)
    new, events = sequence.terms_lapse(siege, team)
    ctx.events += events
    _advance(ctx, rec, new)


def end_of_turn(ctx: Ctx) -> None:
    """N-SIEGE-2, N-SIEGE-5: a siege that has lasted its turn with nobody giving way ends in the storm. Before
    that, D-N-16 and D-NAP-8: a garrison whose supply the besieger has cut loses morale; a port's is resupplied
    by sea."""
    for rec in list(ctx.state.sieges.values()):
        siege = rec.siege
        if siege.phase == INVESTED:
            _supply(ctx, rec, siege)
        if siege.phase == INVESTED:
            new, events = sequence.turn_ended(siege, ctx.state.turn - 1)
            ctx.events += events
            _advance(ctx, rec, new)


def _supply(ctx: Ctx, rec: SiegeRecord, siege: Siege) -> None:
    s = ctx.state
    city = siege.fortress.city
    if siege.garrison_supplied:
        ctx.public("garrison_resupplied", fortress=city, by="sea", rule="D-N-16, D-NAP-8")
        return
    table = s.tables.get("siege_supply") or {}
    loss, floor = int(table.get("morale_loss", 1)), int(table.get("min_morale", 1))
    changed = []
    for aid in rec.garrison:
        for unit in s.armies[aid].units:
            if UNIT_TYPES[unit["type"]].arm != ARTILLERY and unit["morale"] > floor:
                unit["morale"] = max(floor, unit["morale"] - loss)
                changed.append({"unit": unit["id"], "morale": unit["morale"]})
    ctx.public("garrison_cut_off", fortress=city, units=changed, rule="D-N-16, D-NAP-8")


def battle_over(ctx: Ctx, battle: Battle, winner: str, capitulated: bool) -> bool:
    """The sortie or storm is over: the siege machine decides what follows. Returns whether the loser retreats
    (a beaten besieger does; a garrison beaten in a sortie goes back behind its walls, a stormed one awaits the
    terms)."""
    rec, siege = get(ctx.state, battle.siege)
    new, events = sequence.battle_ended(siege, winner, capitulated=capitulated)
    ctx.events += events
    rec.battle = None
    rec.siege = new
    return winner == siege.garrison.side


def after_battle(ctx: Ctx, battle: Battle) -> None:
    rec, siege = get(ctx.state, battle.siege)
    _advance(ctx, rec, siege)


def _advance(ctx: Ctx, rec: SiegeRecord, siege: Siege) -> None:
    s = ctx.state
    rec.siege = siege
    armies = {"besieger": [s.armies[a] for a in rec.besieger], "garrison": [s.armies[a] for a in rec.garrison]}
    if siege.phase == BATTLE and siege.battle is not None and rec.battle is None:
        call = siege.battle
        by_side = {siege.besieger.side: rec.besieger, siege.garrison.side: rec.garrison}
        rec.battle = start_siege_battle(ctx, siege.fortress.city, cell_of(rec.cell), call.kind,
                                           call.attacker, call.defender, by_side, siege.fortress.dump())
        return
    if siege.phase in (INVESTED, TERMS):
        for role, status in (("besieger", BESIEGING), ("garrison", BESIEGED)):
            for a in armies[role]:
                if a.status in (READY, IN_BATTLE):
                    a.status, a.battle = status, None
        return
    if siege.phase != ENDED:
        return
    result = siege.result()
    s.control[siege.fortress.city] = str(result["holder"])
    fates = []
    for a in armies["garrison"]:
        if a.status in (BESIEGED, IN_BATTLE):
            a.status = READY
        if a.status != READY:
            continue
        if result["garrison"] == "prisoners":
            for u in a.units:
                s.prisoners.setdefault(siege.besieger.side, []).append({**u, "team": a.team, "army": a.id})
            a.units, a.status = [], CAPTURED
        elif result["garrison"] == "marches_out":  # N-SIEGE-4, N-SIEGE-8: it retreats where its team chooses
            retreats.begin(ctx, a, siege.besieger.side, siege=siege.fortress.city)
    for a in armies["besieger"]:
        if a.status in (BESIEGING, IN_BATTLE):
            a.status = READY
        if siege.outcome == "lifted" and a.status == READY:
            off = retreat_path(s, a, cell_of(a.cell), 1)
            if off is not None:
                a.cell = list(off[-1])
    if result.get("general") == "captured":
        a = armies["garrison"][0]
        name = a.general
        if name:
            a.general = None
            fates.append({"army": a.id, "general": name, "team": a.team, "player": s.player_of(a),
                          "fate": "captured", "secret_module": {"player": s.player_of(a), "minutes": s.lockout_minutes,
                                                                "reason": f"general {name} captured at "
                                                                          f"{siege.fortress.city}"}})
    ctx.public("siege_ended", fortress=siege.fortress.city, outcome=siege.outcome, holder=result["holder"],
               garrison=result["garrison"], generals=fates,
               armies=[{"army": a.id, "status": a.status, "cell": a.cell, "units": len(a.units)}
                       for a in armies["besieger"] + armies["garrison"]],
               rule="N-SIEGE-4, N-SIEGE-7, N-SIEGE-8, D-N-14")
    del s.sieges[siege.fortress.city]


__all__ = ["after_battle", "battle_over", "battle_setup", "end_of_turn", "fortress_at", "lay", "order", "terms",
           "terms_default"]
