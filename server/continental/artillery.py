"""Artillery strikes (C-9.7a–d, D-C-5): destruction within 30 km, terrain losses, range effectiveness (C-T11 at
level 2, the formula at level 3), no fire into contact, road and bridge closures, cut-off (interdiction) fire."""

from __future__ import annotations

from server.continental.context import Ctx
from server.continental.events import for_team, public
from server.continental.forces import MARCH, REGROUPING, TRANSFER
from server.continental.grid import Cell, distance_km, label, round_half_up
from server.continental.losses import hit
from server.continental.orders import Strike
from server.continental.state import CampaignState
from server.continental.war import act_of_war
from server.core.engine import Event
from server.core.errors import IllegalOrder

EPS = 1e-9


def effectiveness(state: CampaignState, origin: Cell, target: Cell) -> float:
    """D-C-5: level 1 full effect; level 2 C-T11 by the offsets along the two axes; level 3 the formula
    −x²/15 − x/3 + 120 (%) of the distance x in km, clamped at 0."""
    art = state.tables["artillery"]
    if state.level == 1:
        return 1.0
    if state.level == 2:
        steps = [int(v) for v in art["range_table_km"]]
        dx, dy = abs(target[0] - origin[0]) * 10, abs(target[1] - origin[1]) * 10
        if dx not in steps or dy not in steps:
            return 0.0
        return float(art["range_table"][steps.index(dy)][steps.index(dx)]) / 100
    x = distance_km(origin, target)
    f = art["formula"]
    return max(0.0, float(f["a"]) * x * x + float(f["b"]) * x + float(f["c"])) / 100


def terrain_loss(state: CampaignState, cell: Cell) -> float:
    """C-9.7a: 0.5 on open ground; forest and hills 0.4; swamp and city 0.33; fortress 0.25; mountains 0.2 —
    the most protective feature of the cell counts."""
    table = state.tables["artillery"]["terrain_loss"]
    fractions = [float(table[f]) for f in state.map.defender_features(cell) if f in table]
    return min(fractions) if fractions else float(table["plain"])


def strike(ctx: Ctx, team: str, cmd: Strike) -> None:
    state = ctx.state
    unit = ctx.own_unit(team, cmd.unit)
    art = state.tables["artillery"]
    if state.phase != "operations":
        ctx.fail(IllegalOrder("artillery fires only in combat operations", rule="C-1.5"))
    if unit.arm != "AD":
        ctx.fail(IllegalOrder(f"{unit.name} is not an artillery division", rule="C-9.7"))
    if unit.status in (REGROUPING, TRANSFER, MARCH) or unit.struck:
        ctx.fail(IllegalOrder(f"{unit.name} cannot fire now", rule="C-9.7"))
    if unit.used > EPS:
        ctx.fail(IllegalOrder(f"{unit.name} has moved this turn and cannot fire", rule="C-9.7"))
    dist = round_half_up(distance_km(unit.cell, cmd.target))
    if not state.map.contains(cmd.target) or dist > float(art["range_km"]):
        ctx.fail(IllegalOrder(f"{label(cmd.target)} is {dist:g} km away; the limit is {art['range_km']} km",
                              rule="C-9.7a"))
    fraction = round(terrain_loss(state, cmd.target) * effectiveness(state, unit.cell, cmd.target), 4)
    gm = state.map
    if cmd.mode == "road":
        if cmd.target not in gm.roads:
            ctx.fail(IllegalOrder(f"there is no road at {label(cmd.target)}", rule="C-9.7c"))
        _close(state, cmd.target, movement=int(art["road_closed_turns_movement"]),
               transfer=int(art["road_closed_turns_transfer"]))
    elif cmd.mode == "bridge":
        if not (gm.is_bridge(cmd.target) or gm.is_pass(cmd.target)):
            ctx.fail(IllegalOrder(f"there is no bridge or pass at {label(cmd.target)}", rule="C-9.7c"))
        turns = int(art["bridge_closed_turns"])
        _close(state, cmd.target, movement=turns, transfer=turns)
    elif cmd.mode == "cutoff":
        state.interdictions.append({"cell": list(cmd.target), "team": team, "fraction": fraction, "by": unit.id,
                                    "turn": state.turn})
    else:
        targets = state.units_at(cmd.target)
        if any(t.fought for t in targets):
            if state.level < 2:
                ctx.fail(IllegalOrder("artillery does not fire on units in combat contact", rule="C-9.7b"))
            elif not cmd.confirm:
                ctx.fail(IllegalOrder("the units there are in combat contact: confirm to hit every side",
                                      rule="C-9.7b", details={"confirm_required": True}))
        for t in targets:
            if t.team != team:
                act_of_war(ctx, team, t.team)
        hit(ctx, targets, fraction, cause="artillery", cell=cmd.target)
    unit.struck, unit.used = True, 1.0
    strike_event = for_team if cmd.mode == "cutoff" else _public_strike
    ctx.emit(strike_event(team, "artillery_strike", team=team, target=list(cmd.target), mode=cmd.mode,
                          fraction=fraction, rule="C-9.7"))


def _public_strike(team: str, kind: str, /, **data: object) -> Event:
    """A destructive strike or a closure is seen by all; cut-off fire waits unseen for the enemy (C-9.7d)."""
    del team
    return public(kind, **data)


def _close(state: CampaignState, cell: Cell, *, movement: int, transfer: int) -> None:
    entry = state.closures.setdefault(label(cell), {})
    entry["movement"] = max(entry.get("movement", 0), state.turn + movement - 1)
    entry["transfer"] = max(entry.get("transfer", 0), state.turn + transfer - 1)


def expire_interdictions(state: CampaignState, team: str) -> None:
    """Cut-off fire waits only for the enemy's next move: it lapses when its own side's next turn begins (at
    level 3, after the next resolution)."""
    state.interdictions = [m for m in state.interdictions if m["team"] != team or m["turn"] >= state.turn]
