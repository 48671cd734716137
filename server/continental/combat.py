"""Combat (C-9.5, C-9.8, C-CRT, D-C-3, D-C-4): a strike on the troops in one square, resolved by the main combat
table in its eight steps, with echelons, support fire, withdrawal and pursuit, retreat and the attacker's advance.

The pure core (`crt`, `distribute`) takes effective ratings and gives losses; `attack` builds the sides from the
map and the counters: the defender's terrain (forest 1.1, hills 1.2, swamp 1.5, mountains 2, river 1.7 when
forced, city 1.5, fortress 2 — the strongest one counts), from level 2 the direction of the main blow (T9/T10
through D-C-4), anti-tank
divisions ×3 against tanks and SP guns, half rating on the march (C-4.8), support ratings of neighbours (C-9.8c
[L2]).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from server.continental.context import Ctx
from server.continental.deployment import posture_of
from server.continental.events import for_teams
from server.continental.forces import (
    CAPTURED,
    MARCH,
    SECTORS,
    Unit,
    is_division,
    remove_losses,
    sector_factor,
    support_rating,
)
from server.continental.grid import (
    FACINGS,
    Cell,
    direction,
    is_adjacent,
    label,
    neighbours,
    opposite,
    round_half_up,
    shift,
    turn_angle,
)
from server.continental.losses import check_destroyed
from server.continental.movement import blocking, enforce_stacking, enter_cell, pursuit_move, step_cost
from server.continental.orders import Attack
from server.continental.state import CampaignState
from server.continental.war import act_of_war
from server.core.errors import BadOrder, IllegalOrder

EPS = 1e-9


@dataclass(frozen=True)
class Outcome:
    """One turn of combat contact on the table (C-CRT.S3–S5)."""

    ratio: float
    attacker_weaker: bool
    p1: float
    p2: float
    attacker_loss: float
    defender_loss: float
    attacker_capitulates: bool = False
    defender_capitulates: bool = False


def crt(tables: Any, k1: float, k2: float) -> Outcome:
    """C-CRT with D-C-3: K1:K2 rounded half up to 0.1; ≤0.3 the attacker's losses are absolute; 3.0 the weaker
    capitulates; ≥3.1 absolute; at exactly 1 the attacker counts as weaker. Losses in effective rating:
    the weaker side K·P1 (S4), the stronger K·P1·P2 (S5)."""
    t = tables["crt"]
    if k2 <= EPS:
        return Outcome(float("inf"), False, 1.0, 0.0, 0.0, 0.0, defender_capitulates=True)
    ratio = round_half_up(k1 / k2, 1)
    if ratio <= float(t["absolute_at_or_below"]) + EPS:
        return Outcome(ratio, True, 1.0, 0.0, k1, 0.0, attacker_capitulates=True)
    if ratio >= float(t["capitulation_at"]) - EPS:
        return Outcome(ratio, False, 1.0, 0.0, 0.0, k2, defender_capitulates=True)
    p1, p2 = (float(v) for v in t["rows"][f"{ratio:.1f}"])
    attacker_weaker = ratio <= 1.0 + EPS
    weak = k1 if attacker_weaker else k2
    weak_loss = weak * p1
    strong_loss = weak_loss * p2
    if attacker_weaker:
        return Outcome(ratio, True, p1, p2, weak_loss, strong_loss)
    return Outcome(ratio, False, p1, p2, strong_loss, weak_loss)


@dataclass
class Fighter:
    unit: Unit
    multiplier: float

    @property
    def effective(self) -> float:
        return self.unit.rating * self.multiplier


def distribute(loss: float, fighters: list[Fighter], extra: float = 0.0) -> dict[str, float]:
    """C-CRT.S6–S7, D-C-3: equal shares of the effective loss, each divided by the multiplier that made that
    unit's effective rating, rounded to tenths; `extra` is S8's additional simple loss per division."""
    if not fighters:
        return {}
    share = loss / len(fighters)
    out: dict[str, float] = {}
    for f in fighters:
        simple = share / f.multiplier if f.multiplier > EPS else 0.0
        out[f.unit.id] = round_half_up(simple + extra, 1)
    return out


def sector(state: CampaignState, defender: Unit, attacker_cell: Cell) -> str:
    """D-N-5 style: the attack's bearing against the defender's facing: 0° front, 45° flank45, 90° flank90,
    135°–180° rear (reversed front)."""
    angle = turn_angle(defender.facing, direction(defender.cell, attacker_cell))
    return SECTORS[min(angle // 45, 3)]


def terrain_multiplier(state: CampaignState, cell: Cell, attackers: list[Unit]) -> tuple[float, list[str]]:
    """C-9.8b, D-C-4: the defender's strongest terrain or place multiplier. A river counts when the attack
    crosses it (the defended cell is on the river and an attacker is not)."""
    table = state.tables["defender_terrain"]
    feats = state.map.defender_features(cell)
    if "river" in feats and all(a.cell in state.map.rivers for a in attackers):
        feats.remove("river")
    best, which = 1.0, []
    for f in feats:
        if f in table and float(table[f]) >= best:
            best = float(table[f])
            which = [f]
    return best, which


def encircled(state: CampaignState, unit: Unit) -> bool:
    """D-C-4: a force is encircled when no passable path free of the enemy leads to its own territory."""
    start = unit.cell
    seen = {start}
    queue = deque([start])
    while queue and len(seen) < 900:
        cur = queue.popleft()
        for nxt in neighbours(cur):
            if nxt in seen or not state.map.is_land(nxt):
                continue
            if any(state.enemies(unit.team, u.team) for u in state.units_at(nxt)):
                continue
            if state.controller(nxt) == unit.team:
                return False
            seen.add(nxt)
            queue.append(nxt)
    return True


def _retreat_cell(state: CampaignState, unit: Unit, attack_dir: str) -> Cell | None:
    if unit.arm == "FORT" or encircled(state, unit):
        return None
    back = opposite(attack_dir)
    options = [back, *(f for f in _around(back))]
    for facing in options:
        cell = shift(unit.cell, facing)
        if not state.map.is_land(cell) or blocking(state, unit, cell):
            continue
        if any(state.enemies(unit.team, u.team) for n in neighbours(cell) for u in state.units_at(n)
               if n != unit.cell) and facing != back:
            continue
        cost, _ = step_cost(state, unit, unit.cell, cell)
        if cost is not None and cost <= 1 + EPS:
            return cell
    return None


def _around(facing: str) -> list[str]:
    i = FACINGS.index(facing)
    return [FACINGS[(i + 1) % 8], FACINGS[(i - 1) % 8]]


def _capture(ctx: Ctx, units: list[Unit], by: str) -> None:
    """C-CRT.DEF: absolute losses mean capitulation; the divisions become the winner's prisoners (C-10.1)."""
    for u in units:
        if u.alive:
            u.status, u.second = CAPTURED, None
            if is_division(ctx.state.tables, u):
                ctx.state.prisoners[by] = ctx.state.prisoners.get(by, 0) + 1
            ctx.emit(for_teams(sorted({u.team, by}), "capitulated", unit=u.id, name=u.name, to=by))


def attack(ctx: Ctx, team: str, cmd: Attack) -> None:
    """C-9.8: "I strike the troops in square x-y" with the troops and grouping (echelons) given."""
    state = ctx.state
    if state.phase != "operations":
        ctx.fail(IllegalOrder("battles happen in combat operations", rule="C-1.5"))
    target = cmd.target
    defenders = [u for u in state.units_at(target) if u.team != team]
    if not defenders:
        ctx.fail(IllegalOrder(f"there are no enemy troops in {label(target)}", rule="C-9.8"))
    if any(sorted((team, d.team)) in state.peace_pairs for d in defenders):
        ctx.fail(IllegalOrder("you have made peace with them", rule="C-10.2"))
    echelons: list[list[Unit]] = []
    named: set[str] = set()
    for n, ids in enumerate(cmd.echelons):
        units: list[Unit] = []
        for uid in ids:
            u = ctx.own_unit(team, uid)
            if uid in named:
                raise BadOrder(f"{u.name} is named twice in the grouping", details={"field": "echelons"})
            named.add(uid)
            problem = _attacker_problem(state, u, target, n, echelons)
            if problem is not None:
                ctx.adjusted(IllegalOrder(problem[0], rule=problem[1]), unit=u.id)
                continue
            units.append(u)
        if units:
            echelons.append(units)
    if not echelons:
        ctx.fail(IllegalOrder("no unit of the order can strike that square", rule="C-9.8"))
    supporters: list[Unit] = []
    if state.level >= 2:
        for uid in dict.fromkeys(cmd.support):
            u = ctx.own_unit(team, uid)
            if (u.struck or u.fought or not u.combat_capable or u in echelons[0]
                    or not any(is_adjacent(u.cell, a.cell) for a in echelons[0])):
                ctx.adjusted(IllegalOrder(f"{u.name} cannot support this strike", rule="C-9.8c"), unit=u.id)
                continue
            supporters.append(u)
    for d in defenders:
        act_of_war(ctx, team, d.team)
    attack_dir = direction(target, echelons[0][0].cell)
    first = defenders
    behind = _defender_echelons(state, first, target, attack_dir)
    form = _battle_form(state, first, echelons[0], target)
    # C-9.8a: accept battle or withdraw
    if all(posture_of(state, d) == "withdraw" and d.combat_capable and not d.neutral for d in first):
        cells = {d.id: _retreat_cell(state, d, attack_dir) for d in first}
        if all(c is not None for c in cells.values()):
            for d in first:
                d.cell, d.second = cells[d.id], None  # type: ignore[assignment]
                enter_cell(ctx, d, d.cell)
            ctx.emit(for_teams(sorted({team, *(d.team for d in first)}), "withdrawal",
                               target=list(target), units=[d.id for d in first], rule="C-9.8a"))
            enforce_stacking(ctx, [d.cell for d in first])
            pursue(ctx, team, echelons[0], target, cmd)
            return
    report: dict[str, Any] = {"target": list(target), "form": form, "rounds": [],
                              "main_blow": main_blow(state, first[0], echelons[0]) if state.level >= 2 else None}
    att_line = echelons.pop(0)
    def_line = first
    support_att = sum(support_rating(state.scen, u) for u in supporters)
    def_supporters = _defender_support(state, def_line, target, att_line) if state.level >= 2 else []
    support_def = sum(support_rating(state.scen, u) for u in def_supporters)
    for u in [*supporters, *def_supporters]:
        u.struck = True
    forcing = ("river" in form or state.map.is_pass(target))
    while True:
        att = [Fighter(u, 1.0 if u.combat_capable else 0.0) for u in att_line]
        dfd = [Fighter(d, _defender_multiplier(state, d, att_line) if d.combat_capable else 0.0) for d in def_line]
        k1 = sum(f.effective for f in att) + support_att
        k2 = sum(f.effective for f in dfd) + support_def
        out = crt(state.tables, k1, k2)
        extra = float(state.tables["forcing_loss_per_division"]) if forcing else 0.0
        att_losses = distribute(out.attacker_loss, att, extra)
        def_losses = distribute(out.defender_loss, dfd)
        rnd = {"attackers": [u.id for u in att_line], "defenders": [d.id for d in def_line],
               "initial": {"attacker": round(sum(f.unit.rating for f in att if f.multiplier), 3),
                           "defender": round(sum(f.unit.rating for f in dfd if f.multiplier), 3)},
               "k1": round(k1, 3), "k2": round(k2, 3), "ratio": out.ratio, "p1": out.p1, "p2": out.p2,
               "attacker_loss": round(out.attacker_loss, 3), "defender_loss": round(out.defender_loss, 3),
               "losses": {**att_losses, **def_losses}, "attacker_capitulates": out.attacker_capitulates,
               "defender_capitulates": out.defender_capitulates}
        report["rounds"].append(rnd)
        for u in [*att_line, *def_line]:
            u.fought = True
        if out.attacker_capitulates:
            _capture(ctx, att_line, def_line[0].team)
        else:
            for f in att:
                remove_losses(state.level, f.unit, att_losses[f.unit.id])
                check_destroyed(ctx, f.unit)
        if out.defender_capitulates:
            _capture(ctx, def_line, team)
        else:
            for f in dfd:
                remove_losses(state.level, f.unit, def_losses[f.unit.id])
                check_destroyed(ctx, f.unit)
        support_att = support_def = 0.0
        att_line = [u for u in att_line if u.alive]
        def_line = [d for d in def_line if d.alive]
        # C-9.8c, C-CRT.DEF: only when a side's losses are absolute (it capitulated: the battle lasted less than a
        # turn) does its next echelon enter on the same turn; a line destroyed by the table's P1 = 1.0 rows fought
        # the whole turn
        if out.attacker_capitulates and echelons:
            att_line = echelons.pop(0)
            continue
        if out.defender_capitulates and behind:
            def_line = behind.pop(0)
            continue
        break
    attackers_all = [u for r in report["rounds"] for u in r["attackers"]]
    absolute = bool(report["rounds"][-1]["defender_capitulates"])
    for uid in attackers_all:
        u = state.units[uid]
        if u.alive and not absolute:
            u.used = 1.0
    survivors = [d for d in first if d.alive]
    if survivors and att_line and all(posture_of(state, d) == "retreat" and not d.neutral for d in survivors):
        cells = {d.id: _retreat_cell(state, d, attack_dir) for d in survivors}
        if all(c is not None for c in cells.values()):
            for d in survivors:
                d.cell, d.second = cells[d.id], None  # type: ignore[assignment]
            report["defender_retreated"] = [d.id for d in survivors]
    if not state.units_at(target) and att_line:
        _advance(ctx, team, att_line, target, cmd.advance, step_cost, enter_cell, fraction=not absolute)
        report["advanced"] = any(u.cell == target for u in att_line)
    teams = sorted({team, *(d.team for d in first)} & set(state.player_teams))
    ctx.emit(for_teams(teams, "battle", rule="C-9.8, C-CRT", **report))
    enforce_stacking(ctx, [target])


def _advance(ctx: Ctx, team: str, line: list[Unit], target: Cell, wanted: bool, step_cost: Any, enter_cell: Any,
             *, fraction: bool) -> None:
    """After a battle that emptied the square the first attacker that can moves in: after absolute losses of the
    defender it goes on moving in the same turn (C-CRT.EX3), otherwise it follows the beaten enemy into the
    square if that takes no more than 2/3 of its move (our reading of C-9.8a for a battle that lasted the turn)."""
    if not wanted:
        return
    state = ctx.state
    limit = float(state.tables["movement"]["advance_after_withdrawal"]) if fraction else 1.0
    for u in line:
        if not u.alive or u.status == MARCH:
            continue
        cost, _ = step_cost(state, u, u.cell, target)
        if cost is None or cost > limit + EPS or (not fraction and u.used + cost > 1 + EPS):
            continue
        u.cell, u.second = target, None
        if not fraction:
            u.used += cost
        enter_cell(ctx, u, target)
        return


def pursue(ctx: Ctx, team: str, line: list[Unit], target: Cell, cmd: Attack) -> None:
    """C-9.8a: the enemy withdrew — each attacker of the first echelon has used its turn striking, but may advance
    on the same turn by up to 2/3 of its arm's move in that terrain (`pursuit`: that part of a turn, spent like
    `used` by steps that are no withdrawal, C-4.4). The order's `pursue` paths are walked at once, each as far as
    it goes; then, with `advance`, the first that can moves into the vacated square; what is left of the
    allowance serves later `move` orders this turn (levels 1–2)."""
    allowance = float(ctx.state.tables["movement"]["advance_after_withdrawal"])
    for u in line:
        u.used, u.pursuit = 1.0, allowance
    paths = dict(cmd.pursue)
    for u in line:
        if u.id in paths:
            pursuit_move(ctx, team, u, paths[u.id])
    if cmd.advance and not ctx.state.units_at(target):
        for u in line:
            if u.alive and u.id not in paths and pursuit_move(ctx, team, u, (target,)):
                break


def _attacker_problem(state: CampaignState, u: Unit, target: Cell, n: int,
                      earlier: list[list[Unit]]) -> tuple[str, str] | None:
    if u.arm in state.tables["no_regular_strike"]:
        return f"{u.name} cannot make this strike (artillery, anti-tank included; fortresses; HQs)", "C-9.8"
    if u.status == MARCH:
        return f"{u.name} is on the march and cannot attack", "C-4.8"
    if not u.combat_capable:
        return f"{u.name} is not combat-capable", "C-4.12"
    if u.fought or u.used >= 1 - EPS:
        return f"{u.name} has no time left to attack this turn", "C-9.8"
    if n == 0:
        if not any(is_adjacent(c, target) for c in u.cells()):
            return f"{u.name} is not next to {label(target)}", "C-9.8"
        if turn_angle(u.facing, direction(u.cell, target)) > 45:
            return f"{u.name} strikes with its front: turn it towards {label(target)} first", "C-9.8"
    elif not any(is_adjacent(u.cell, a.cell) or is_adjacent(u.cell, target) for e in earlier for a in e):
        return f"{u.name} is too far behind the first echelon", "C-9.8c"
    return None


def main_blow(state: CampaignState, defender: Unit, attackers: list[Unit]) -> str:
    """D-C-4 (revised): the direction of the main blow — the sector (seen from the defender's facing) from which
    the largest share of the attacking rating comes; on a tie the more frontal one."""
    shares: dict[str, float] = {}
    for a in attackers:
        where = sector(state, defender, a.cell)
        shares[where] = shares.get(where, 0.0) + (a.rating if a.combat_capable else 0.0)
    return max(shares, key=lambda where: (round(shares[where], 6), -SECTORS.index(where)))


def direction_factor(state: CampaignState, defender: Unit, attackers: list[Unit]) -> float:
    """C-9.8b, Tables 9–10 through D-C-4 (revised): a level-2 rule (C-0.2) — none at level 1; from level 2 the
    defender's rating is taken for the direction of the main blow. A fortress has no flank."""
    if state.level < 2 or defender.arm == "FORT" or not attackers:
        return 1.0
    return sector_factor(state.scen, state.level, defender, main_blow(state, defender, attackers))


def _defender_multiplier(state: CampaignState, d: Unit, attackers: list[Unit]) -> float:
    terrain, _ = terrain_multiplier(state, d.cell, attackers)
    mult = terrain * direction_factor(state, d, attackers)
    if d.arm == "ATD" and any(a.arm in state.tables["antitank_targets"] for a in attackers):
        mult *= float(state.tables["antitank_factor"])
    if d.status == MARCH:
        mult *= float(state.tables["march_defence_factor"])
    return mult


def _defender_echelons(state: CampaignState, first: list[Unit], target: Cell, attack_dir: str) -> list[list[Unit]]:
    """C-9.8c: the defender's second echelon is its troops in the squares right behind the one attacked."""
    team = first[0].team
    back = opposite(attack_dir)
    cells = [shift(target, back), *(shift(target, f) for f in _around(back))]
    second = [u for c in cells for u in state.units_at(c) if u.team == team and u.combat_capable
              and u.arm not in ("AD",) and not u.fought]
    return [second] if second else []


def _defender_support(state: CampaignState, line: list[Unit], target: Cell, attackers: list[Unit]) -> list[Unit]:
    """C-9.8c [L2]: unattacked divisions no further than 10 km away add their support rating; each supports one
    battle a turn."""
    team = line[0].team
    out = []
    for c in neighbours(target):
        for u in state.units_at(c):
            if (u.team == team and u not in line and not u.fought and not u.struck and u.combat_capable
                    and support_rating(state.scen, u) > 0):
                out.append(u)
    return sorted(out, key=lambda u: u.id)


def _battle_form(state: CampaignState, defenders: list[Unit], attackers: list[Unit], target: Cell) -> list[str]:
    """C-9.5: the kinds of combat this strike is — regular, flank, reversed front (rear), combined strikes,
    encirclement, fortress, settlement, forcing a river or pass."""
    d = defenders[0]
    sectors = {sector(state, d, a.cell) for a in attackers}
    form: list[str] = []
    if sectors == {"front"}:
        form.append("regular")
    if sectors & {"flank45", "flank90"}:
        form.append("flank")
    if "rear" in sectors:
        form.append("reversed_front")
    if len(sectors) > 1 or len({direction(target, a.cell) for a in attackers}) > 1:
        form.append("combined")
    if encircled(state, d):
        form.append("encirclement")
    place = state.map.place_at.get(target)
    if place is not None:
        form.append("fortress" if place.kind == "fortress" else "settlement")

    if target in state.map.rivers and any(a.cell not in state.map.rivers for a in attackers):
        form.append("river")
    if state.map.is_pass(target):
        form.append("pass")
    return form


__all__ = ["Fighter", "Outcome", "attack", "check_destroyed", "crt", "direction_factor", "distribute", "encircled",
           "main_blow"]
