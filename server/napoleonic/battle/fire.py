"""Fire: musket and artillery zones, line of sight, musket fire, canister, round shot, fire into a unit on the move
(N-FIRE-1 … N-FIRE-5, N-ART-6 … N-ART-8, N-HIT-1 … N-HIT-3, N-BARRAGE-1, N-CHARGE-2, N-TERRAIN-4; D-N-7, D-N-8,
D-N-17).

Zones (D-N-7): a musket zone is the band straight ahead of the front rank, as wide as the frontage, up to the range;
an artillery zone starts as wide as the company's front and widens one cell each side per three cells of distance.
Both are precomputed per (frontage, facing, reach) as offsets from the anchor, sorted by distance (D-GEN-2: from
the nearest front-rank cell), so finding the nearest enemy is a walk down a short list.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from server.core.engine import MODERATOR, SPECTATOR, team_viewer
from server.core.errors import BadOrder, IllegalOrder

from .footprint import DIRECTIONS, Cell, line_between
from .formation import can_fire, firepower
from .log import Log
from .losses import apply_losses
from .state import BattleState, Unit
from .terrain import TERRAIN
from .units import ARTILLERY, CANISTER_RANGE, CAVALRY, CLOSE_RANGE, HILL_RANGE_BONUS, HIT_TABLES, INFANTRY

ZoneEntry = tuple[int, int, int, int, int]  # dx, dy, distance, front dx, front dy


@dataclass(frozen=True, slots=True)
class Zone:
    entries: tuple[ZoneEntry, ...]
    lookup: dict[Cell, tuple[int, int, int]]


@cache
def zone_table(width: int, facing: int, reach: int, widen: bool) -> Zone:
    """Offsets (from the anchor) of the cells ahead of a front `width` cells wide, within `reach` (D-N-7)."""
    fx, fy = DIRECTIONS[facing]
    lx, ly = DIRECTIONS[(facing + 2) % 8]
    norm = math.hypot(fx, fy)
    span = (width - 1) * norm
    fronts = [(i * lx, i * ly) for i in range(width)]
    box = reach + width + reach // 3 + 2
    entries: list[ZoneEntry] = []
    for dy in range(-box, box + 1):
        for dx in range(-box, box + 1):
            a = (dx * fx + dy * fy) / norm
            if a < 0.5:
                continue
            extra = math.floor(a / 3 + 1e-9) if widen else 0
            b = (dx * lx + dy * ly) / norm
            if b < -0.5 - extra or b > span + 0.5 + extra:
                continue
            best = min(fronts, key=lambda c: (dx - c[0]) ** 2 + (dy - c[1]) ** 2)
            dist = math.floor(math.hypot(dx - best[0], dy - best[1]) + 0.5)
            if dist <= reach:
                entries.append((dx, dy, dist, best[0], best[1]))
    entries.sort(key=lambda e: (e[2], e[1], e[0]))
    return Zone(tuple(entries), {(e[0], e[1]): (e[2], e[3], e[4]) for e in entries})


def sides_of(unit: Unit) -> list[tuple[int, int, int, int]]:
    """(anchor x, anchor y, width, facing) of every front that fires: one, or four for a square (N-INF-4)."""
    form = unit.form
    if not form.all_round:
        return [(unit.x, unit.y, form.width, unit.facing)]
    lattice = unit.cells[: form.width * form.depth]
    out = []
    for turn in (0, 2, 4, 6):
        d = (unit.facing + turn) % 8
        fx, fy = DIRECTIONS[d]
        lx, ly = DIRECTIONS[(d + 2) % 8]
        top = max(c[0] * fx + c[1] * fy for c in lattice)
        edge = sorted((c for c in lattice if c[0] * fx + c[1] * fy == top), key=lambda c: c[0] * lx + c[1] * ly)
        out.append((edge[0][0], edge[0][1], len(edge), d))
    return out


def on_hill(state: BattleState, unit: Unit) -> bool:
    """D-N-7: the hill bonus applies when the shooter's front rank stands on a hill."""
    m = state.map
    return all(m.is_hill(x, y) for x, y in unit.front)


def fires_over(state: BattleState, unit: Unit) -> bool:
    """N-TERRAIN-4, N-FIRE-5: artillery on a hill (and howitzers, N-SIEGE-9) fire over heads and obstacles."""
    return unit.arm == ARTILLERY and (unit.type.fires_over or on_hill(state, unit))


def reach(state: BattleState, unit: Unit) -> int:
    """The unit's range: + the hill bonus (N-TERRAIN-4) + a terrain's bonus under the whole front rank (hook)."""
    m = state.map
    kinds = {m.kind(x, y).name: m.kind(x, y) for x, y in unit.front}
    terrain = min(k.range_bonus.get(unit.arm, 0) for k in kinds.values())
    return unit.type.range + terrain + (HILL_RANGE_BONUS.get(unit.arm, 0) if on_hill(state, unit) else 0)


def clear_line(state: BattleState, src: Cell, dst: Cell, shooter: int, target: int) -> bool:
    """D-N-7: sight is blocked by units of any side, woods, settlements and higher ground between."""
    m, occ, w = state.map, state.occ, state.map.width
    cover, elev = m.cover, m.elevation
    top = max(elev[src[1] * w + src[0]], elev[dst[1] * w + dst[0]])
    sx, sy = src
    for dx, dy in line_between(dst[0] - sx, dst[1] - sy):
        i = (sy + dy) * w + sx + dx
        n = occ[i]
        if (n and n != shooter and n != target) or TERRAIN[cover[i]].blocks_sight or elev[i] > top:
            return False
    return True


def able_to_fire(state: BattleState, unit: Unit) -> bool:
    if not unit.on_field or not can_fire(unit) or in_melee(state, unit):
        return False
    if unit.arm == ARTILLERY:
        m = state.map
        return unit.guns > 0 and not any(m.kind(x, y).no_artillery_fire for x, y in unit.cells)
    return unit.arm == INFANTRY


def in_melee(state: BattleState, unit: Unit) -> bool:
    return any(unit.id in k for k in state.melees)


def targets_in_zone(state: BattleState, unit: Unit, max_dist: int, *, nearest_only: bool,
                    exclude: int = 0) -> dict[str, tuple[Unit, int]]:
    """Enemies with a visible cell in the unit's zone within `max_dist`: id → (unit, distance). With
    `nearest_only`, only the nearest one (D-N-7: musket losses go to the nearest enemy)."""
    m, occ, w, units, by_num = state.map, state.occ, state.map.width, state.units, state.by_num
    over = fires_over(state, unit)
    widen = unit.arm == ARTILLERY
    found: dict[str, tuple[Unit, int]] = {}
    best = max_dist + 1
    for ax, ay, width, facing in sides_of(unit):
        for dx, dy, dist, fdx, fdy in zone_table(width, facing, max_dist, widen).entries:
            if dist > max_dist or (nearest_only and dist >= best):
                break
            x, y = ax + dx, ay + dy
            if not (0 <= x < m.width and 0 <= y < m.height):
                continue
            n = occ[y * w + x]
            if not n or n == unit.num or n == exclude:
                continue
            other = units[by_num[n]]
            if other.side == unit.side or (other.id in found and found[other.id][1] <= dist):
                continue
            if over or clear_line(state, (ax + fdx, ay + fdy), (x, y), unit.num, n):
                found[other.id] = (other, dist)
                if nearest_only:
                    best = dist
                    break
    if nearest_only and found:
        nearest = min(found.values(), key=lambda t: (t[1], t[0].num))
        return {nearest[0].id: nearest}
    return found


def distance_in_zone(state: BattleState, unit: Unit, target: Unit, max_dist: int, beyond: int = 0) -> int | None:
    """The shortest distance, over `beyond` and up to `max_dist`, at which `target` has a visible cell in the
    unit's zone (every side of a square), or None (D-N-7, D-GEN-2)."""
    over = fires_over(state, unit)
    widen = unit.arm == ARTILLERY
    best: int | None = None
    for ax, ay, width, facing in sides_of(unit):
        zone = zone_table(width, facing, max_dist, widen).lookup
        for x, y in target.cells:
            hit = zone.get((x - ax, y - ay))
            if hit is None or hit[0] <= beyond or (best is not None and hit[0] >= best):
                continue
            if over or clear_line(state, (ax + hit[1], ay + hit[2]), (x, y), unit.num, target.num):
                best = hit[0]
    return best


def round_shot_distance(state: BattleState, gun: Unit, target: Unit) -> int | None:
    """The distance at which `gun` sees `target` in its zone at round-shot range (N-ART-7), or None."""
    return distance_in_zone(state, gun, target, reach(state, gun), beyond=CANISTER_RANGE)


def musket_amount(fp: float, dist: int) -> float:
    """N-FIRE-2: half the firepower at 3 cells or less, a quarter further."""
    return fp / 2 if dist <= CLOSE_RANGE else fp / 4


def resolve_fire(state: BattleState, log: Log) -> dict[str, list[Unit]]:
    """Step 1 of the resolution (D-N-1): every unit fires from the state at the start; losses land together.
    Returns, per target, the infantry that had it in their zone (contact for N-MORALE-8)."""
    hits: list[tuple[Unit, int, str, Unit, str]] = []
    contacts: dict[str, list[Unit]] = {}
    for unit in list(state.field_units()):
        if not able_to_fire(state, unit):
            unit.fractions = {}
            continue
        if unit.arm == INFANTRY:
            _musket(state, log, unit, hits, contacts)
        else:
            _artillery(state, log, unit, hits)
    for unit in state.units.values():
        if unit.fire_shares_turns > 0:
            unit.fire_shares_turns -= 1
            if not unit.fire_shares_turns:
                unit.fire_shares = ()
    for target, amount, cause, shooter, rule in hits:
        apply_losses(state, log, target, amount, cause, shooter, rule)
    return contacts


def _musket(state: BattleState, log: Log, unit: Unit, hits: list[tuple[Unit, int, str, Unit, str]],
            contacts: dict[str, list[Unit]]) -> None:
    """D-N-7: the whole firepower at the nearest enemy in the zone — or, by a moderator's ruling (N-FIRE-4), split
    between the enemies it names that are in the zone at this resolution."""
    fp = firepower(unit)
    shares = assigned_shares(state, unit) if unit.fire_shares else []
    if shares:
        total_weight = sum(weight for _, _, weight in shares)
        aims = [(target, dist, fp * weight / total_weight, "N-FIRE-4") for target, dist, weight in shares]
    else:
        found = targets_in_zone(state, unit, reach(state, unit), nearest_only=True)
        aims = [(target, dist, float(fp), "N-FIRE-2") for target, dist in found.values()]
    fractions: dict[str, float] = {}
    for target, dist, share, rule in aims:
        contacts.setdefault(target.id, []).append(unit)
        total = musket_amount(share, dist) + unit.fractions.get(target.id, 0.0)
        whole = math.floor(total + 1e-9)
        rest = total - whole
        if rest > 1e-9:
            fractions[target.id] = rest
        log.emit("fire", weapon="musket", unit=unit.id, target=target.id, distance=dist,
                 firepower=share if rule == "N-FIRE-4" else fp, losses=whole, carried=rest, rule=rule)
        if whole:
            hits.append((target, whole, "musket", unit, rule))
    unit.fractions = fractions


MAX_SHARE = 100
"""Shares in an N-FIRE-4 ruling are proportions (1:1, 1:3, …); this bounds them."""


def assign_fire(state: BattleState, log: Log, ruling: Mapping[str, Any]) -> None:
    """N-FIRE-4: several enemies in a regiment's musket zone — the moderator decides how its losses are shared.
    The ruling holds for the next `turns` resolutions (default 1): the regiment's firepower is split between the
    named enemies in proportion to their shares, each at its own distance (N-FIRE-2) with its own carried fraction
    (D-N-8); named units that are out of the zone by then drop out and their share goes to the others; with none
    left the nearest enemy takes it all as usual (D-N-7). `"targets": {}` withdraws a ruling. Canister needs no
    ruling: it hits every enemy in its zone in full (D-N-7). Losses already dealt are not moved: the dice and
    morale that followed them stand; `adjust` corrects values by hand."""
    if state.over:
        raise BadOrder("the battle is over", rule="N-FIRE-4")
    shooter = state.units.get(str(ruling.get("shooter")))
    if shooter is None:
        raise BadOrder("assign_fire needs the shooting unit", rule="N-FIRE-4")
    if not shooter.on_field or shooter.arm != INFANTRY:
        raise IllegalOrder("only infantry on the field fires muskets; canister hits every enemy in its zone",
                           rule="N-FIRE-4", details={"unit": shooter.id, "decision": "D-N-7"})
    raw = ruling.get("targets")
    if isinstance(raw, list) and all(isinstance(t, str) for t in raw):
        raw = dict.fromkeys(raw, 1)
    if not isinstance(raw, Mapping) or len(raw) > state.limit(state.enemy_of(shooter.side)):
        raise BadOrder("targets: {unit id: share} or a list of unit ids", rule="N-FIRE-4")
    turns = ruling.get("turns", 1)
    if isinstance(turns, bool) or not isinstance(turns, int) or not 1 <= turns <= state.turn_limit:
        raise BadOrder(f"turns must be an integer from 1 to {state.turn_limit}", rule="N-FIRE-4")
    shares: list[tuple[str, int]] = []
    for tid, share in raw.items():
        target = state.units.get(str(tid))
        if isinstance(share, bool) or not isinstance(share, int) or not 1 <= share <= MAX_SHARE:
            raise BadOrder(f"a share is an integer from 1 to {MAX_SHARE}", rule="N-FIRE-4",
                           details={"unit": str(tid)})
        if target is None or not target.on_field or target.side == shooter.side:
            raise IllegalOrder("fire goes only to enemy units on the field", rule="N-FIRE-4",
                               details={"unit": str(tid)})
        shares.append((target.id, share))
    shooter.fire_shares = tuple(shares)
    shooter.fire_shares_turns = turns if shares else 0
    if state.hidden:  # the units it names are news to nobody but the shooter's side, spectators and the moderator
        log.audience = frozenset({team_viewer(shooter.side), SPECTATOR, MODERATOR})
    log.emit("fire_assigned", unit=shooter.id, targets=dict(shares), turns=shooter.fire_shares_turns,
             rule="N-FIRE-4")


def assigned_shares(state: BattleState, unit: Unit) -> list[tuple[Unit, int, int]]:
    """N-FIRE-4: the moderator's targets (with their shares) that are enemies on the field with a visible cell in
    the unit's musket zone now; the shares of the others go to these. Empty: the rule of D-N-7 applies."""
    out = []
    r = reach(state, unit)
    for tid, weight in unit.fire_shares:
        target = state.units.get(tid)
        if target is None or not target.on_field or target.side == unit.side:
            continue
        dist = distance_in_zone(state, unit, target, r)
        if dist is not None:
            out.append((target, dist, weight))
    return out


def _artillery(state: BattleState, log: Log, unit: Unit, hits: list[tuple[Unit, int, str, Unit, str]]) -> None:
    canister = targets_in_zone(state, unit, CANISTER_RANGE, nearest_only=False)
    if canister:
        for target, dist in sorted(canister.values(), key=lambda t: (t[1], t[0].num)):
            log.emit("fire", weapon="canister", unit=unit.id, target=target.id, distance=dist, losses=unit.guns,
                     rule="N-ART-6")
            hits.append((target, unit.guns, "canister", unit, "N-ART-6"))
        return
    guns_left = unit.guns
    for tid, aimed in unit.targets:
        aimed = min(aimed, guns_left)
        aimed_at = state.units.get(tid)
        if aimed <= 0 or aimed_at is None or not aimed_at.on_field:
            continue
        target = aimed_at
        shot = round_shot_distance(state, unit, target)
        if shot is None:
            log.emit("fire", weapon="round_shot", unit=unit.id, target=tid, distance=None, losses=0,
                     rule="N-ART-7", note="target not in the zone or out of sight")
            continue
        dist = shot
        guns_left -= aimed
        m = state.map
        penalty = max(m.kind(x, y).accuracy_penalty for x, y in target.cells)
        accuracy = max(1, unit.accuracy - penalty)
        need = HIT_TABLES[unit.type.hit_table].chance(accuracy, dist)
        ok, _ = log.roll("round_shot", need, unit.id, target=tid, distance=dist, accuracy=accuracy, rule="N-HIT-1")
        damage = round_shot_damage(unit)
        log.emit("fire", weapon="round_shot", unit=unit.id, target=tid, distance=dist, guns=aimed, hit=ok,
                 losses=damage if ok else 0, rule="N-ART-7")
        if ok:
            hits.append((target, damage, "round_shot", unit, "N-ART-7"))


WATCH_MARGIN = 12
"""Chebyshev cells beyond a shooter's reach in which a mover's anchor can still have a cell in its zone (the widest
footprint and zone widening); shooters farther from every cell of the path are not looked at."""


@dataclass(frozen=True, slots=True)
class Entered:
    """D-N-17: a mover entered `shooter`'s zone at step `step` of its move (anchor `at`, `distance` cells away)."""

    step: int
    at: Cell
    shooter: Unit
    distance: int


def watch_distance(state: BattleState, shooter: Unit, mover: Unit) -> int | None:
    """Where the mover stands now: the distance of its nearest visible cell in `shooter`'s canister zone (a
    battery) or musket zone (a regiment), or None when it is outside (D-N-7, D-N-17)."""
    limit = CANISTER_RANGE if shooter.arm == ARTILLERY else reach(state, shooter)
    return distance_in_zone(state, shooter, mover, limit)


def zone_watchers(state: BattleState, mover: Unit, path: tuple[Cell, ...]) -> list[Unit]:
    """D-N-17: the enemies whose fire may catch `mover` on this move — batteries able to fire (canister, whatever
    the mover), and for cavalry the infantry able to fire (musket; it counts only if the move attacks that
    regiment) — leaving out those whose zone the mover stands in as it sets off: moving out of, or along the edge
    of, a zone one started in costs nothing."""
    xs = [mover.x, *(c[0] for c in path)]
    ys = [mover.y, *(c[1] for c in path)]
    out = []
    for shooter in state.field_units():
        if shooter.side == mover.side or not able_to_fire(state, shooter):
            continue
        if shooter.arm == INFANTRY and mover.arm != CAVALRY:
            continue
        margin = (CANISTER_RANGE if shooter.arm == ARTILLERY else reach(state, shooter)) + WATCH_MARGIN
        if shooter.x < min(xs) - margin or shooter.x > max(xs) + margin or shooter.y < min(ys) - margin \
                or shooter.y > max(ys) + margin:
            continue
        if watch_distance(state, shooter, mover) is None:
            out.append(shooter)
    return out


def round_shot_damage(gun: Unit) -> int:
    """N-ART-7 with D-N-7 (revised): a hit does the damage of the company's guns in action — 1 for 1–2 guns, 2 for
    3–4 — whichever of them were aimed at that target; doubled by barrage fire (N-BARRAGE-1) and for howitzers
    (N-SIEGE-9)."""
    return (1 if gun.guns <= 2 else 2) * (2 if gun.barrage_turns > 0 else 1) * gun.type.round_shot_multiplier


def crossing_amount(shooter: Unit) -> tuple[int, str]:
    """The losses of D-N-17: canister by the guns in action (N-ART-6), a regiment's close-range volley — half its
    firepower (N-FIRE-2, N-CHARGE-2)."""
    if shooter.arm == ARTILLERY:
        return shooter.guns, "N-ART-6"
    return math.floor(musket_amount(firepower(shooter), CLOSE_RANGE)), "N-CHARGE-2"


def fire_on_the_move(state: BattleState, log: Log, mover: Unit, entries: list[Entered]) -> None:
    """D-N-17: each zone entered fires once, in the order the mover came into them, before any contact at the end
    of the move; the mover's losses land at once (morale factors with them)."""
    for entry in entries:
        amount, rule = crossing_amount(entry.shooter)
        log.emit("fire", weapon="crossing", unit=entry.shooter.id, target=mover.id, at=list(entry.at),
                 step=entry.step, distance=entry.distance, losses=amount, rule=rule)
        apply_losses(state, log, mover, amount, "crossing", entry.shooter, rule)
        if not mover.on_field:
            return


def zone_touches(state: BattleState, shooter: Unit, cells: set[Cell], limit: int) -> bool:
    over = fires_over(state, shooter)
    widen = shooter.arm == ARTILLERY
    for ax, ay, width, facing in sides_of(shooter):
        lookup = zone_table(width, facing, limit, widen).lookup
        for x, y in cells:
            hit = lookup.get((x - ax, y - ay))
            if hit is None:
                continue
            if over or clear_line(state, (ax + hit[1], ay + hit[2]), (x, y), shooter.num, 0):
                return True
    return False
