"""Fire: musket and artillery zones, line of sight, musket fire, canister, round shot, crossing a zone
(N-FIRE-1 … N-FIRE-5, N-ART-6 … N-ART-8, N-HIT-1 … N-HIT-3, N-BARRAGE-1, N-CHARGE-2, N-TERRAIN-4; D-N-7, D-N-8).

Zones (D-N-7): a musket zone is the band straight ahead of the front rank, as wide as the frontage, up to the range;
an artillery zone starts as wide as the company's front and widens one cell each side per three cells of distance.
Both are precomputed per (frontage, facing, reach) as offsets from the anchor, sorted by distance (D-GEN-2: from
the nearest front-rank cell), so finding the nearest enemy is a walk down a short list.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

from .footprint import DIRECTIONS, Cell, line_between
from .formation import can_fire, firepower
from .log import Log
from .losses import apply_losses
from .state import BattleState, Unit
from .terrain import TERRAIN
from .units import ARTILLERY, CANISTER_RANGE, CLOSE_RANGE, HILL_RANGE_BONUS, HIT_TABLES, INFANTRY

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


def round_shot_distance(state: BattleState, gun: Unit, target: Unit) -> int | None:
    """The distance at which `gun` sees `target` in its zone at round-shot range (N-ART-7), or None."""
    r = reach(state, gun)
    zone = zone_table(gun.form.width, gun.facing, r, True).lookup
    over = fires_over(state, gun)
    best: int | None = None
    for x, y in target.cells:
        hit = zone.get((x - gun.x, y - gun.y))
        if hit is None or hit[0] <= CANISTER_RANGE or (best is not None and hit[0] >= best):
            continue
        src = (gun.x + hit[1], gun.y + hit[2])
        if over or clear_line(state, src, (x, y), gun.num, target.num):
            best = hit[0]
    return best


def musket_amount(fp: int, dist: int) -> float:
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
    for target, amount, cause, shooter, rule in hits:
        apply_losses(state, log, target, amount, cause, shooter, rule)
    return contacts


def _musket(state: BattleState, log: Log, unit: Unit, hits: list[tuple[Unit, int, str, Unit, str]],
            contacts: dict[str, list[Unit]]) -> None:
    found = targets_in_zone(state, unit, reach(state, unit), nearest_only=True)
    if not found:
        unit.fractions = {}
        return
    target, dist = next(iter(found.values()))
    contacts.setdefault(target.id, []).append(unit)
    fp = firepower(unit)
    total = musket_amount(fp, dist) + unit.fractions.get(target.id, 0.0)
    whole = math.floor(total + 1e-9)
    rest = total - whole
    unit.fractions = {target.id: rest} if rest > 1e-9 else {}
    log.emit("fire", weapon="musket", unit=unit.id, target=target.id, distance=dist, firepower=fp, losses=whole,
             carried=rest, rule="N-FIRE-2")
    if whole:
        hits.append((target, whole, "musket", unit, "N-FIRE-2"))


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
        damage = (1 if aimed <= 2 else 2) * (2 if unit.barrage_turns > 0 else 1) * unit.type.round_shot_multiplier
        log.emit("fire", weapon="round_shot", unit=unit.id, target=tid, distance=dist, guns=aimed, hit=ok,
                 losses=damage if ok else 0, rule="N-ART-7")
        if ok:
            hits.append((target, damage, "round_shot", unit, "N-ART-7"))


def crossing_losses(state: BattleState, log: Log, mover: Unit, passed: set[Cell]) -> None:
    """N-CHARGE-2, N-ART-6, D-N-1: a unit that passes through an enemy musket or canister zone in one move, and does
    not stay in it, takes close-range losses at once — once per shooter and turn."""
    final = set(mover.cells)
    for shooter in list(state.field_units()):
        if shooter.side == mover.side or shooter.id in mover.crossed or not able_to_fire(state, shooter):
            continue
        limit = reach(state, shooter) if shooter.arm == INFANTRY else CANISTER_RANGE
        if not zone_touches(state, shooter, passed, limit) or zone_touches(state, shooter, final, limit):
            continue
        mover.crossed = mover.crossed | {shooter.id}
        if shooter.arm == INFANTRY:
            amount, rule = math.floor(musket_amount(firepower(shooter), CLOSE_RANGE)), "N-CHARGE-2"
        else:
            amount, rule = shooter.guns, "N-ART-6"
        log.emit("fire", weapon="crossing", unit=shooter.id, target=mover.id, losses=amount, rule=rule)
        apply_losses(state, log, mover, amount, "crossing", shooter, rule)
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
