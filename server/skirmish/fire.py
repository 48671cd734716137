"""Fire (S-7.5, S-7.6, S-8.3, S-8.5, S-8.6; D-S-7, D-S-8, D-S-10, D-S-14).

An ordered unit fires jointly at one target: a figure, the group in cohesion around it, or a vehicle. Each of its
figures with a target figure in range and sight rolls its weapon's dice against the nearest one it sees; the need
is the weapon's at that range, plus the cover of that figure from the shooter, plus 1 after a half move (D-S-5)
or in random fire (D-S-10); a 6 always hits at short range. The hits are pooled and spread over the target
figures in sight (hits.py). Small arms cannot harm a vehicle.

Heavy weapons fire one shot each (D-S-14): a tank gun (or field gun) hit on infantry puts down every figure in the
target cell and the cells next to it; on a vehicle a further roll knocks it out, 4–6 from its front, 3–6 from a
side or the rear. A mortar needs no sight of its own when a friendly figure sees the target, fires no closer than
8 cells, and blasts like a gun. A tank fires its gun and its machine gun with one order (the machine gun at
another target if the order names one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from server.core.engine import team_viewer
from server.core.errors import IllegalOrder

from .command import target_group
from .hits import hit, put_out, queue
from .log import Log
from .rules import FACINGS, Weapon
from .sight import cover, eyes, sees, vehicle_cells
from .state import IN_ACTION, Figure, HitBatch, SkirmishState
from .table import Cell, cells_distance, touching


def arms(s: SkirmishState, f: Figure) -> list[Weapon]:
    vt = f.vtype
    names = list(vt.weapons) if vt else ([f.weapon] if f.weapon else [])
    return [s.settings.weapons[n] for n in names]


def assistant_near(s: SkirmishState, f: Figure) -> bool:
    """D-S-8: the machine gun's assistant in cohesion: in action in a neighbouring cell."""
    return any(g.unit == f.unit and g.role == "assistant" and g.status == IN_ACTION and touching(g.cell, f.cell)
               for g in s.figures.values())


def band(w: Weapon, r: int) -> str | None:
    if r < w.min_range or r > w.long:
        return None
    return "short" if r <= w.short else "long"


def need_of(w: Weapon, b: str) -> int:
    return w.need_short if b == "short" else w.need_long


def dice_of(s: SkirmishState, f: Figure, w: Weapon, b: str) -> int:
    n = w.dice_short if b == "short" else w.dice_long
    if w.dice_alone is not None and not assistant_near(s, f):
        n = min(n, w.dice_alone)
    return n


def hits_of(s: SkirmishState, faces: Sequence[int], need: int, b: str) -> int:
    return sum(1 for x in faces if x >= need or (x == 6 and b == "short" and s.settings.six_hits_short))


@dataclass(frozen=True, slots=True)
class Shot:
    """One weapon of one figure that can fire at `aim` now: its band, need and dice; `at` the figure it rolls
    against (for small arms, the nearest target figure it sees)."""

    shooter: str
    weapon: str
    aim: str
    at: str
    range: int
    band: str
    need: int
    dice: int
    cover: int


def shots(s: SkirmishState, shooters: Sequence[Figure], target: Figure, *, group: bool, penalty: int,
          mg_target: Figure | None = None, random: bool = False) -> list[Shot]:
    """What each figure would roll firing at `target` (D-S-8, D-S-14); nothing for weapons that cannot reach,
    see or harm it."""
    vehicles = vehicle_cells(s)
    out: list[Shot] = []
    for f in shooters:
        for w in arms(s, f):
            if random and not w.random_fire:
                continue
            aim = mg_target if (mg_target is not None and w.name == "tank_machine_gun") else target
            if aim.vehicle and not w.harms_vehicles:
                continue
            if w.blast:
                r = cells_distance(f.cells(), aim.cells())
                b = band(w, r)
                if b is None:
                    continue
                if w.indirect:
                    if not any(sees(s, e, aim, vehicles) for e in eyes(s, f.side) if e.status == IN_ACTION):
                        continue
                elif not sees(s, f, aim, vehicles):
                    continue
                c = cover(s, f, aim, vehicles)
                out.append(Shot(f.id, w.name, aim.id, aim.id, r, b, need_of(w, b) + c + penalty, 1, c))
                continue
            group_ids = target_group(s, aim) if group and not aim.vehicle else [aim.id]
            seen = [s.figures[i] for i in group_ids if sees(s, f, s.figures[i], vehicles)]
            if not seen:
                continue
            near = min(seen, key=lambda g: (cells_distance(f.cells(), g.cells()), g.index))
            r = cells_distance(f.cells(), near.cells())
            b = band(w, r)
            if b is None:
                continue
            c = cover(s, f, near, vehicles)
            out.append(Shot(f.id, w.name, aim.id, near.id, r, b, need_of(w, b) + c + penalty, dice_of(s, f, w, b),
                            c))
    return out


def fire(s: SkirmishState, log: Log, team: str, shooters: Sequence[Figure], target: Figure, *, group: bool,
         penalty: int, cause: str, mg_target: Figure | None = None, random: bool = False) -> list[str]:
    """Fire and roll (every roll an event); blasts and knock-outs at once, small-arms hits queued for spreading.
    Returns the figures that fired. IllegalOrder when none can (D-S-8)."""
    planned = shots(s, shooters, target, group=group, penalty=penalty, mg_target=mg_target, random=random)
    if not planned:
        raise IllegalOrder(f"no figure of the order can hit {target.id} (range, sight, weapon)", rule="D-S-8",
                           details={"target": target.id})
    pools: dict[str, tuple[list[str], int]] = {}
    for shot in planned:
        f, aim = s.figures[shot.shooter], s.figures[shot.aim]
        w = s.settings.weapons[shot.weapon]
        faces = _roll(s, log, "random_fire" if random else "fire", f, s.figures[shot.at], shot, cause)
        got = hits_of(s, faces, shot.need, shot.band)
        if w.blast:
            if got:
                _heavy_hit(s, log, f, aim, cause)
            continue
        seen, total = pools.get(aim.id, ([], 0))
        group_ids = target_group(s, aim) if group and not aim.vehicle else [aim.id]
        vis = [i for i in group_ids if sees(s, f, s.figures[i])]
        pools[aim.id] = (seen + [i for i in vis if i not in seen], total + got)
    for aim_id, (seen, total) in pools.items():
        queue(s, HitBatch(s.figures[aim_id].side, tuple(seen), total, cause, team))
    return sorted({shot.shooter for shot in planned}, key=lambda i: s.figures[i].index)


def _roll(s: SkirmishState, log: Log, purpose: str, f: Figure, at: Figure, shot: Shot, cause: str) -> list[int]:
    """The roll as an event for those who see shooter and target; a side that sees only the target (a mortar's
    indirect fire) gets it without the shooter."""
    aud = log.audience([f.id, at.id])
    faces = log.faces(shot.dice)
    data = {"purpose": purpose, "side": f.side, "figure": f.id, "unit": f.unit, "faces": 6, "dice": shot.dice,
            "result": faces, "weapon": shot.weapon, "target": at.id, "range": shot.range, "band": shot.band,
            "need": shot.need, "cover": shot.cover, "hits": hits_of(s, faces, shot.need, shot.band), "cause": cause}
    log.emit("roll", aud, **data)
    if aud is not None:
        for t in s.sides:
            if team_viewer(t) not in aud and log.knows(t, [at.id]):
                log.emit("roll", frozenset({team_viewer(t)}), **{**data, "figure": None, "unit": None})
    return faces


def _front(shooter: Figure, tank: Figure) -> bool:
    """D-S-14: the shooter stands in the tank's front quarter (within 45° of its facing)."""
    tc = tank.cells()
    tx2 = min(c[0] for c in tc) + max(c[0] for c in tc)
    ty2 = min(c[1] for c in tc) + max(c[1] for c in tc)
    sc = shooter.cells()
    sx2 = min(c[0] for c in sc) + max(c[0] for c in sc)
    sy2 = min(c[1] for c in sc) + max(c[1] for c in sc)
    vx, vy = sx2 - tx2, sy2 - ty2
    fx, fy = {"n": (0, -1), "e": (1, 0), "s": (0, 1), "w": (-1, 0)}[tank.facing if tank.facing in FACINGS else "n"]
    along = vx * fx + vy * fy
    across = abs(vx * fy - vy * fx)
    return along > 0 and along >= across


def _heavy_hit(s: SkirmishState, log: Log, f: Figure, aim: Figure, cause: str) -> None:
    if aim.vehicle:
        front = _front(f, aim)
        need = s.settings.knock_out_front if front else s.settings.knock_out_side
        face = log.die("knock_out", side=f.side, figure=f.id, unit=f.unit, audience=log.audience([aim.id]),
                       target=aim.id, aspect="front" if front else "side", need=need)
        if face >= need:
            put_out(s, log, aim, cause, "D-S-14")
        return
    blast(s, log, aim.cell, cause)


def blast(s: SkirmishState, log: Log, at: Cell, cause: str) -> None:
    """D-S-14: every figure (of either side) in the cell and the cells next to it takes a hit; vehicles none."""
    log.emit("blast", None, cell=list(at), cause=cause, rule="D-S-14")
    for g in sorted(s.figures.values(), key=lambda x: x.index):
        if g.on_table and not g.vehicle and (g.cell == at or touching(g.cell, at)):
            hit(s, log, g, cause, "D-S-14")


def random_fire(s: SkirmishState, log: Log) -> None:
    """D-S-10 (S-4 phase 2, S-5.4, S-8.3, S-8.6): every figure that took no order this turn and is not down fires
    at −1, jointly with the figures of its own unit and never with another unit's: the group in cohesion with the
    unit's commander at the enemy nearest the commander, each other group of the unit at the enemy nearest it;
    each vehicle with its machine gun on its own. Who fires at whom is settled from the table as the phase
    begins; then every roll is made; then the hits are spread."""
    order = [s.initiative or next(iter(s.sides))]
    order += [t for t in s.sides if t not in order]
    volleys: list[tuple[str, list[Figure], Figure, str]] = []
    for team in order:
        for unit in s.units.values():
            if unit.side != team:
                continue
            ready = [i for i in unit.members if _ready(s, s.figures[i])]
            if not ready:
                continue
            for group, anchors in _fire_groups(s, unit.id, ready):
                target = _nearest_enemy(s, group, anchors)
                if target is not None:
                    volleys.append((team, group, target, unit.id))
    log.emit("random_fire", None, turn=s.turn, volleys=len(volleys), rule="D-S-10")
    for team, group, target, uid in volleys:
        try:
            fire(s, log, team, group, target, group=True, penalty=s.settings.random_fire_penalty,
                 cause=f"random fire of {uid}", random=True)
        except IllegalOrder:
            continue


def _ready(s: SkirmishState, f: Figure) -> bool:
    return f.status == IN_ACTION and not f.ordered and any(w.random_fire for w in arms(s, f))


def _fire_groups(s: SkirmishState, uid: str, ready: list[str]) -> list[tuple[list[Figure], list[Figure]]]:
    """The unit's firing groups, each with the figures its target is chosen nearest to: the commander's group
    (S-7.5; nearest the commander) and each other chain of neighbours (S-8.3; nearest any of it)."""
    from .command import chain, in_cohesion

    unit = s.units[uid]
    left = set(ready)
    out: list[tuple[list[Figure], list[Figure]]] = []
    if unit.commander is not None and not s.figures[unit.commander].vehicle:
        linked = [i for i in in_cohesion(s, uid) if i in left]
        if linked:
            out.append(([s.figures[i] for i in linked], [s.figures[unit.commander]]))
            left -= set(linked)
    for i in ready:
        if i in left:
            f = s.figures[i]
            if f.vehicle:
                left.discard(i)
                out.append(([f], [f]))
                continue
            group = [s.figures[j] for j in chain(s, f, sorted(left)) if j in left and not s.figures[j].vehicle]
            left -= {g.id for g in group}
            out.append((group, group))
    return out


def _nearest_enemy(s: SkirmishState, group: list[Figure], anchors: list[Figure]) -> Figure | None:
    """The enemy figure nearest the anchors (the commander, or the group) that one of the group could hit in
    random fire; not a vehicle (small arms cannot harm one), not one of a unit whose ambush fire the group took
    this turn (D-S-13)."""
    side = group[0].side
    banned = {x for f in group for x in f.no_fire_at}
    enemies = sorted((g for g in s.figures.values() if g.side != side and g.on_table and not g.vehicle
                      and g.unit not in banned),
                     key=lambda g: (min(cells_distance(a.cells(), g.cells()) for a in anchors), g.index))
    for g in enemies:
        if shots(s, group, g, group=True, penalty=s.settings.random_fire_penalty, random=True):
            return g
    return None
