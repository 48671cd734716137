"""When armies meet: contact and the defender's choice (N-START-1, N-START-3, D-N-13), reinforcements (N-START-4,
D-N-12), the battle setup handed to the battle room, and the result coming back (N-VICTORY-1 … N-VICTORY-4,
N-MORALE-7, D-N-14, D-L-1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from server.continental.grid import Cell, direction, label
from server.core.errors import BadOrder, IllegalOrder, NotYourUnit
from server.core.seeds import derived
from server.napoleonic.battle.mapgen import OPPOSITE, TOWN_PLACES, edge_from
from server.napoleonic.battle.units import ARTILLERY, UNIT_TYPES

from . import retreats
from .events import Ctx
from .movement import can_step_out, cells_apart, parse_path, path_cost, withdrawal_path
from .records import Army, Battle
from .state import (
    CAPTURED,
    CONTACT,
    DECLINED,
    DESTROYED,
    IN_BATTLE,
    OVER,
    READY,
    RUNNING,
    NapoleonicState,
    cell_of,
)

TURN_LIMIT = 40
MAX_VALUE = 1000
"""The largest morale, loss tolerance or gun count a battle result may bring back (anything more is junk)."""


def get_battle(state: NapoleonicState, battle_id: Any, *, statuses: Sequence[str] = (CONTACT, RUNNING)
               ) -> Battle:
    battle = state.battles.get(str(battle_id))
    if battle is None:
        raise BadOrder(f"no battle {battle_id!r}", rule="N-START-1", details={"battle": battle_id})
    if battle.status not in statuses:
        raise IllegalOrder(f"battle {battle_id} is {battle.status}", rule="D-L-1",
                           details={"battle": battle_id, "status": battle.status})
    return battle


def side_of(battle: Battle, team: str) -> str:
    if team == battle.attacker:
        return "attacker"
    if team == battle.defender:
        return "defender"
    raise NotYourUnit(f"{team} does not fight battle {battle.id}", rule="N-START-1")


def meet(ctx: Ctx, mover: Army, cell: Cell, came_from: Cell, *, kind: str = "field",
         rule: str = "N-START-1", target: Any = None) -> Battle:
    """N-START-1: enemy armies meet in one cell. Both sides are frozen (D-L-1); the defender chooses to withdraw
    with the points it has left, or to fight (N-START-3). D-NAP-6: when armies of several enemy powers hold the
    cell, the mover fights them one at a time — the power it names (`target`), else the first after its own in
    turn order (C-1.7); the others wait their turn in the cell (`waiting`)."""
    s = ctx.state
    present = [a for a in s.enemies_at(cell, mover.team) if a.status == READY]
    teams = in_turn_order_from(s, str(mover.team), {str(a.team) for a in present})
    if target is not None:
        if str(target) not in teams:
            raise IllegalOrder(f"no army of {target!r} stands in {label(cell)} to be attacked", rule="N-START-1",
                           details={"attack": target, "there": teams, "decision": "D-NAP-6"})
        teams.remove(str(target))
        teams.insert(0, str(target))
    defender_team = teams[0]
    defenders = [a for a in present if a.team == defender_team]
    battle_id = s.next_id()
    battle = Battle(battle_id, list(cell), kind, "battle", CONTACT, mover.team, defender_team, list(came_from),
                    armies={mover.team: [mover.id], defender_team: [a.id for a in defenders]},
                    reinforcements={mover.team: [], defender_team: []}, turn=s.turn, waiting=teams[1:])
    s.battles[battle_id] = battle
    for a in [mover, *defenders]:
        a.status, a.battle = IN_BATTLE, battle_id
    withdraw = all(can_step_out(s, a) for a in defenders)
    more = {"waiting": teams[1:]} if teams[1:] else {}
    ctx.public("contact", battle=battle_id, cell=list(cell), attacker=mover.team, defender=defender_team,
               armies=battle.armies, can_withdraw=withdraw, **more,
               rule=f"{rule}, N-START-3" + (", D-NAP-6" if more else ""))
    return battle


def in_turn_order_from(s: NapoleonicState, team: str, others: set[str]) -> list[str]:
    """`others` in turn order (C-1.7) starting after `team`."""
    order = list(s.order.teams)
    start = order.index(team) + 1 if team in order else 0
    ring = order[start:] + order[:start]
    return [t for t in ring if t in others] + sorted(others - set(ring))


def next_contact(ctx: Ctx, battle: Battle) -> None:
    """D-NAP-6: a battle fought (or declined) in a cell where other enemy powers wait: if the attacker still holds
    the cell, it meets the next of them there (a new contact; that power may withdraw or fight, N-START-3)."""
    s = ctx.state
    cell = cell_of(battle.cell)
    movers = [a for a in s.armies_at(cell) if a.team == battle.attacker and a.status == READY]
    waiting = [t for t in battle.waiting or []
               if any(a.team == t and a.status == READY for a in s.armies_at(cell))]
    if movers and waiting:
        meet(ctx, movers[0], cell, cell_of(battle.came_from), target=waiting[0], rule="N-START-1, D-NAP-6")

def answer(ctx: Ctx, team: str, battle_id: Any, choice: Any, paths: Any) -> None:
    """N-START-3, D-N-13: the defender withdraws (each army along a path it has the points for — its own, or the
    one toward its base that `withdrawal_path` finds when it gives none), accepts battle, or — when it has no points
    left to withdraw — accepts and may "retreat with battle"."""
    s = ctx.state
    battle = get_battle(s, battle_id, statuses=(CONTACT,))
    if team != battle.defender:
        raise NotYourUnit("only the side that was attacked answers", rule="N-START-3")
    defenders = [s.armies[a] for a in battle.armies[team]]
    able = all(can_step_out(s, a) for a in defenders)
    if choice == "withdraw":
        if not able:
            raise IllegalOrder("no movement points left to withdraw: battle must be accepted", rule="N-START-3")
        if paths is not None and not isinstance(paths, Mapping):
            raise BadOrder("withdraw takes a path for every army: {army: path}, or none", rule="N-START-3")
        moves = []
        for army in defenders:
            given = paths.get(army.id) if paths is not None else None
            path = parse_path(given) if given is not None else withdrawal_path(s, army)
            if path is None:
                raise IllegalOrder(f"{army.id} cannot step out", rule="N-START-3", details={"army": army.id})
            cost = path_cost(s, cell_of(army.cell), path, "N-START-3")
            if cost > float(army.points) + 1e-9:
                raise IllegalOrder(f"{army.id} has {army.points} points, the path costs {cost}",
                                   rule="N-START-3", details={"army": army.id})
            if any(s.enemies_at(c, team) for c in path):
                raise IllegalOrder("a withdrawal does not pass through the enemy", rule="N-START-3")
            moves.append((army, path, cost))
        for army, path, cost in moves:
            army.cell, army.points = list(path[-1]), round(float(army.points) - cost, 2)
        for a in [*defenders, *(s.armies[x] for x in battle.armies[battle.attacker])]:
            a.status, a.battle = READY, None
        battle.status = DECLINED
        ctx.public("battle_declined", battle=battle.id, by=team, rule="N-START-3")
        for army, path, _ in moves:
            ctx.team(team, "army_moved", army=army.id, path=[list(c) for c in path], cell=army.cell,
                     points=army.points, rule="N-START-3")
        next_contact(ctx, battle)
        return
    if choice == "retreat_with_battle":
        if able:
            raise IllegalOrder("a side with points left withdraws or fights; retreat with battle is for a side "
                               "that must fight", rule="N-START-3")
        battle.retreat_with_battle = True
    elif choice != "accept":
        raise BadOrder("choice is accept, withdraw or retreat_with_battle", rule="N-START-3")
    start(ctx, battle)


def reinforce(ctx: Ctx, team: str, battle_id: Any, army_id: Any) -> None:
    """N-START-4, D-N-12: an army of a side within seven cells is ordered to the battle (before it begins)."""
    s = ctx.state
    battle = get_battle(s, battle_id, statuses=(CONTACT,))
    side_of(battle, team)
    army = s.armies.get(str(army_id))
    if army is None or army.team != team:
        raise NotYourUnit(f"{army_id!r} is not one of your armies", rule="D-N-12")
    _join(ctx, battle, army)


def _join(ctx: Ctx, battle: Battle, army: Army) -> None:
    s = ctx.state
    reach = int(s.tables["reinforcement_range"])
    dist = cells_apart(cell_of(army.cell), cell_of(battle.cell))
    if army.status != READY:
        raise IllegalOrder(f"{army.id} is {army.status}", rule="D-L-1", details={"army": army.id})
    if dist > reach or dist == 0:
        raise IllegalOrder(f"{army.id} is {dist} cells from the battle (reinforcements come from 1 to {reach})",
                           rule="D-N-12", details={"army": army.id, "distance": dist})
    battle.reinforcements[army.team].append(army.id)
    army.status, army.battle = IN_BATTLE, battle.id
    ctx.public("reinforcement_ordered", battle=battle.id, army=army.id, team=army.team, distance=dist,
               rule="N-START-4, D-N-12")


def start(ctx: Ctx, battle: Battle) -> None:
    """N-START-1: the battle begins. Armies of both sides posted to support (and within reach) march to it
    (D-N-12); the event carries the battle room's setup."""
    s = ctx.state
    for team in (battle.attacker, battle.defender):
        for army in sorted(s.alive_armies(team), key=lambda a: a.id):
            if army.support and army.status == READY:
                dist = cells_apart(cell_of(army.cell), cell_of(battle.cell))
                if 0 < dist <= int(s.tables["reinforcement_range"]):
                    _join(ctx, battle, army)
    _begin(ctx, battle)


def _begin(ctx: Ctx, battle: Battle) -> None:
    """The battle room opens with a seed the room derives from the campaign's (D-GEN-4): the campaign keeps none
    for it and the public `battle_started` says where, who and on what ground — not the forces (each side sees
    of the other's only what its fog shows) and no seed."""
    s = ctx.state
    _, s.dice = s.dice.next_u64()  # the campaign's dice advance as they did when they drew the battle's seed
    battle.status = RUNNING
    for team in battle.armies:
        for aid in battle.armies[team]:
            s.armies[aid].status, s.armies[aid].battle = IN_BATTLE, battle.id
    ctx.public("battle_started", **battle_announced(s, battle), rule="N-START-1, D-L-1, D-GEN-4")


def start_siege_battle(ctx: Ctx, city: str, cell: Cell, kind: str, attacker: str, defender: str,
                       by_side: Mapping[str, list[str]], fortress: Mapping[str, Any]) -> str:
    """N-SIEGE-3 (sortie: a field battle, the garrison attacking) and N-SIEGE-5 (storm: the siege map, played
    by the siege engine)."""
    s = ctx.state
    battle_id = s.next_id()
    battle = Battle(battle_id, list(cell), kind, "siege" if kind == "storm" else "battle", RUNNING, attacker,
                    defender, list(cell), armies={attacker: list(by_side[attacker]), defender: list(by_side[defender])},
                    reinforcements={attacker: [], defender: []}, turn=s.turn, siege=city, fortress=dict(fortress))
    s.battles[battle_id] = battle
    _begin(ctx, battle)
    return battle_id


def unit_spec(unit: Mapping[str, Any]) -> dict[str, Any]:
    spec = {"id": unit["id"], "type": unit["type"], "morale": unit["morale"],
            "loss_tolerance": unit["loss_tolerance"]}
    if UNIT_TYPES[unit["type"]].arm == ARTILLERY:
        spec["guns"], spec["accuracy"] = unit["guns"], unit["accuracy"]
    return spec


def cell_terrain(s: NapoleonicState, cell: Cell) -> dict[str, Any]:
    """What the battlefield generator needs of the campaign cell (D-N-3)."""
    gm = s.map
    place = gm.place_at.get(cell)
    return {"relief": gm.terrain[cell], "river": cell in gm.rivers, "road": cell in gm.roads,
            "town": place is not None and place.kind in TOWN_PLACES, "place": place.name if place else None}


def battle_announced(s: NapoleonicState, battle: Battle) -> dict[str, Any]:
    """What everyone learns when a battle begins (N-START-1): its id, cell, kind and engine, the sides, the
    campaign cell's terrain and the attacker's edge."""
    cell, came = cell_of(battle.cell), cell_of(battle.came_from)
    attacker_edge = edge_from(direction(cell, came)) if came != cell else "south"
    return {
        "battle": battle.id, "cell": list(cell), "kind": battle.kind, "engine": battle.engine,
        "attacker": battle.attacker, "defender": battle.defender,
        "terrain": cell_terrain(s, cell), "attacker_edge": attacker_edge, "siege": battle.siege,
    }


def battle_setup(s: NapoleonicState, battle: Battle, seed: int) -> dict[str, Any]:
    """The setup for the battle room: BattleEngine's config (both sides' forces, the attacker = the side that
    entered the cell, D-N-1; retreat with battle, D-N-13; reinforcements with distance and edge, D-N-12) and the
    campaign cell's terrain, the battle room's `seed` and the attacker's edge for the field generator (D-N-3).
    The field is drawn from a value derived one-way from the seed (D-GEN-4: a field's layout is public)."""
    announced = battle_announced(s, battle)
    cell, attacker_edge = cell_of(battle.cell), str(announced["attacker_edge"])
    edges = {battle.attacker: attacker_edge, battle.defender: OPPOSITE[attacker_edge]}
    sides = []
    for team in (battle.attacker, battle.defender):
        armies = [s.armies[a] for a in battle.armies[team]]
        reinf = []
        for aid in battle.reinforcements[team]:
            army = s.armies[aid]
            where = cell_of(army.cell)
            reinf.append({"group": aid, "distance": cells_apart(where, cell), "edge": edge_from(direction(cell, where)),
                          "units": [unit_spec(u) for u in army.units]})
        sides.append({
            "name": team, "edge": edges[team], "attacker": team == battle.attacker,
            "general": armies[0].general or "", "commander": s.player_of(armies[0]),
            "retreat_with_battle": team == battle.defender and bool(battle.retreat_with_battle),
            "units": [unit_spec(u) for a in armies for u in a.units], "reinforcements": reinf,
        })
    map_seed = derived(seed, "map")
    config: dict[str, Any] = {"sides": sides, "turn_limit": TURN_LIMIT}
    if battle.engine == "siege":
        config = {"fortress": battle.fortress, "map_seed": map_seed, "turn_limit": TURN_LIMIT,
                  "besieger": {**sides[0], "howitzers": _howitzers(s, battle)}, "garrison": sides[1]}
    return {**announced, "seed": seed, "map_seed": map_seed, "config": config}


def _howitzers(s: NapoleonicState, battle: Battle) -> list[str]:
    """N-SIEGE-9: the companies the besieger chose to turn into howitzers for this storm (none unless it chose)."""
    rec = s.sieges.get(str(battle.siege)) if battle.kind == "storm" else None
    return list(rec.howitzers) if rec is not None else []


def apply_result(ctx: Ctx, battle: Battle, result: Mapping[str, Any], *, how: str,
                 retreat: bool | None = None) -> dict[str, Any]:
    """D-L-1: a battle's result applies at once, as one campaign event (`battle_ended`). Units come back with their
    losses, morale and status; the winner's routed and surrendered units return to the ranks with morale 1 and the
    loser's routed units are destroyed (N-MORALE-7); the loser's surrendered units and those in melee at the end
    are the winner's prisoners (D-N-14); the loser must retreat — up to seven cells whatever its points, where its
    team chooses (N-VICTORY-4, `retreats`); the loser's general may be killed (N-VICTORY-3) or captured (D-N-14)
    and its player then goes to the secret module."""
    s = ctx.state
    winner, loser = str(result.get("winner")), str(result.get("loser"))
    if {winner, loser} != {battle.attacker, battle.defender}:
        raise BadOrder("the result's winner and loser are the battle's two sides", rule="N-VICTORY-1")
    if not isinstance(result.get("units"), (list, tuple)) or not all(isinstance(r, Mapping) for r in result["units"]):
        raise BadOrder("the result lists the units", rule="N-VICTORY-1")
    army_ids = [a for t in battle.armies.values() for a in t] + [a for t in battle.reinforcements.values()
                                                                    for a in t]
    owner = {u["id"]: s.armies[a] for a in army_ids for u in s.armies[a].units}
    lost: dict[str, list[str]] = {winner: [], loser: []}
    taken: dict[str, list[str]] = {winner: [], loser: []}
    for r in result["units"]:
        army = owner.get(str(r.get("id")))
        unit = next((u for u in army.units if u["id"] == str(r.get("id"))), None) if army is not None else None
        if army is None or unit is None or not r.get("arrived", True):  # not in the battle, or listed twice
            continue
        status = str(r.get("status"))
        for key in ("morale", "loss_tolerance", "guns"):
            value = r.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                if abs(value) > MAX_VALUE:
                    raise BadOrder(f"{key} {value} is out of range", rule="N-VICTORY-1", details={"unit": unit["id"]})
                unit[key] = value
        arty = UNIT_TYPES[unit["type"]].arm == ARTILLERY
        spent = unit["guns"] <= 0 if arty else unit["loss_tolerance"] <= 0
        if status == "prisoner":
            army.units.remove(unit)
            other = winner if army.team == loser else loser
            s.prisoners.setdefault(other, []).append({**unit, "team": army.team, "army": army.id})
            taken[other].append(unit["id"])
        elif status in ("destroyed", "taken") or spent:
            army.units.remove(unit)
            lost[army.team].append(unit["id"])
    must_retreat = result.get("retreats") is not None if retreat is None else retreat
    armies_after = []
    for aid in army_ids:
        army = s.armies[aid]
        army.battle = None
        if army.status in (IN_BATTLE,):
            army.status = READY
        before = army.cell
        if not army.units:
            army.status = CAPTURED if any(aid == p.get("army") for p in s.prisoners.get(winner, [])) else DESTROYED
        elif army.team == loser and must_retreat and army.status == READY:
            units = [u["id"] for u in army.units]
            if not retreats.begin(ctx, army, winner, battle=battle.id):
                taken[winner] += units  # no way out: captured (D-NAP-3)
        armies_after.append({"army": aid, "team": army.team, "status": army.status, "from": before,
                             "cell": army.cell, "units": len(army.units)})
    general = general_fate(ctx, battle, loser, result, how)
    battle.status = OVER
    summary = {"winner": winner, "loser": loser, "reason": result.get("reason", ""), "how": how,
               "destroyed": lost, "prisoners": taken, "armies": armies_after, "general": general}
    battle.result = summary
    ctx.public("battle_ended", battle=battle.id, cell=battle.cell, kind=battle.kind, **summary,
               rule="D-L-1, N-MORALE-7, N-VICTORY-3, N-VICTORY-4, D-N-14")
    if not battle.siege:
        next_contact(ctx, battle)
    return summary


def general_fate(ctx: Ctx, battle: Battle, loser: str, result: Mapping[str, Any], how: str
                 ) -> dict[str, Any] | None:
    """N-VICTORY-3, D-N-14: only the loser's general rolls (1/2 killed); a general whose army was taken is
    captured. Either way the player goes to the secret module and the army awaits a replacement general."""
    s = ctx.state
    army = s.armies[battle.armies[loser][0]]
    name = army.general
    if not name:
        return None
    killed = result.get("general_killed")
    if not isinstance(killed, bool):
        killed = ctx.roll("general_death", int(s.tables["general_death_sixths"]), "N-VICTORY-3, D-N-14",
                          general=name, battle=battle.id)
    captured = army.status == CAPTURED or how == "capitulation"
    fate = "killed" if killed else "captured" if captured else "survived"
    out: dict[str, Any] = {"army": army.id, "general": name, "team": loser, "player": s.player_of(army),
                           "fate": fate}
    if fate != "survived":
        army.general = None
        # the web client reads this form and says it in the player's language (i18n/words.ts lockoutReason)
        out["secret_module"] = {"player": s.player_of(army), "minutes": s.lockout_minutes,
                                "reason": f"general {name} {fate} ({label(cell_of(battle.cell))})"}
    return out
