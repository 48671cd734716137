"""Hits and casualties (S-8.4, S-8.5, D-S-9, D-S-15).

A hit puts a figure *down* until the survival test; a second hit puts it *out of action* (our reading of D-S-9's
"none takes a second before each has one": the second hit has to mean something, and a figure hit twice before it
could rise is lost). Hits on a group are spread evenly over its figures in sight: every standing figure takes one
before any takes a second. Where that leaves a choice (fewer hits than figures in the tier), the owner chooses
which figures take them (a `Decision` on his clock); when his time runs out or he passes, the default order
decides: riflemen first, commanders and machine gunners last (rules.HIT_ORDER).

Hit batches wait in a queue and are spread one after the other, so that a batch sees the figures as the earlier
ones left them; the game goes on only when the queue is empty.
"""

from __future__ import annotations

from collections.abc import Sequence

from server.core.errors import BadOrder, IllegalOrder, NotYourTurn

from .log import Log
from .rules import HIT_ORDER
from .state import DOWN, IN_ACTION, OUT, Decision, Dropped, Figure, HitBatch, SkirmishState


def hit(s: SkirmishState, log: Log, f: Figure, cause: str, rule: str = "D-S-9") -> None:
    """One hit: in action → down, down → out of action."""
    if f.status == IN_ACTION:
        log.emit("figure_hit", log.audience([f.id]), figure=f.id, side=f.side, status=DOWN, cause=cause, rule=rule)
        f.status = DOWN
    elif f.status == DOWN:
        put_out(s, log, f, cause, rule)


def put_out(s: SkirmishState, log: Log, f: Figure, cause: str, rule: str) -> None:
    """Out of action: a point for the other side (D-S-15; a vehicle counts its crew); a crew-served weapon lies
    where its bearer fell for the assistant to take up (S-8.5)."""
    aud = log.audience([f.id])
    f.status = OUT
    vt = f.vtype
    enemy = s.sides[s.enemy(f.side)]
    enemy.points += vt.points if vt else 1
    log.emit("figure_hit", aud, figure=f.id, side=f.side, status=OUT, cause=cause, rule=rule,
             points={t: side.points for t, side in s.sides.items()})
    weapon = s.settings.weapons.get(f.weapon) if f.weapon else None
    if weapon is not None and weapon.crew_served:
        s.dropped.append(Dropped(weapon.name, f.unit, f.cell, s.turn + s.settings.pickup_turns))
        log.emit("weapon_dropped", aud, weapon=weapon.name, figure=f.id, unit=f.unit, cell=list(f.cell),
                 until_turn=s.turn + s.settings.pickup_turns, rule="S-8.5")
        f.weapon = None


def default_order(s: SkirmishState, ids: Sequence[str]) -> list[str]:
    """D-S-9's default: riflemen first, commanders and machine gunners last; then the order of battle."""
    return sorted(ids, key=lambda i: (HIT_ORDER.get(s.figures[i].role, 0), s.figures[i].index))


def queue(s: SkirmishState, batch: HitBatch) -> None:
    if batch.hits > 0 and batch.figures:
        s.queue.append(batch)


def spread(s: SkirmishState, log: Log) -> bool:
    """Spread the queued hits until the queue is empty (True) or the owner of a batch has a choice to make
    (False: `s.decision` is set and the game waits for him)."""
    while s.queue and s.decision is None:
        batch = s.queue.pop(0)
        figures = [s.figures[i] for i in batch.figures if s.figures[i].on_table]
        standing = [f.id for f in figures if f.status == IN_ACTION]
        if not figures:
            continue
        hits = batch.hits
        log.emit("hits", log.audience(batch.figures), owner=batch.owner, figures=list(batch.figures),
                 hits=hits, cause=batch.cause, shooter=batch.shooter, rule="S-8.4")
        if hits >= len(standing):
            for i in standing:
                hit(s, log, s.figures[i], batch.cause)
            hits -= len(standing)
            tier, pool = OUT, [f.id for f in figures]
        else:
            tier, pool = DOWN, standing
        if hits <= 0:
            continue
        if hits >= len(pool):
            for i in pool:
                hit(s, log, s.figures[i], batch.cause)
            continue
        decision = Decision(batch.owner, tuple(pool), hits, tier, batch.cause)
        if not s.settings.choose_hits:
            _apply(s, log, decision, default_order(s, pool)[:hits], chosen=False)
            continue
        s.decision = decision
        log.emit("hits_to_choose", log.audience(pool), owner=batch.owner, candidates=list(pool), count=hits,
                 tier=tier, default=default_order(s, pool)[:hits], rule="D-S-9")
    return s.decision is None


def _apply(s: SkirmishState, log: Log, d: Decision, chosen_ids: Sequence[str], *, chosen: bool) -> None:
    log.emit("hits_chosen", log.audience(d.candidates), owner=d.owner, figures=list(chosen_ids), tier=d.tier,
             by="owner" if chosen else "default", rule="D-S-9")
    for i in chosen_ids:
        hit(s, log, s.figures[i], d.cause)


def choose(s: SkirmishState, log: Log, team: str, figures: Sequence[str]) -> None:
    """The owner's choice (D-S-9, S-8.4): exactly `count` of the candidates."""
    d = s.decision
    if d is None:
        raise IllegalOrder("no hits wait for a choice", rule="D-S-9")
    if d.owner != team:
        raise NotYourTurn(f"{d.owner} chooses which of its figures take the hits", rule="D-S-9")
    if len(figures) != d.count or not set(figures) <= set(d.candidates):
        raise BadOrder(f"choose {d.count} of {', '.join(d.candidates)}", rule="D-S-9",
                       details={"count": d.count, "candidates": list(d.candidates)})
    s.decision = None
    _apply(s, log, d, list(figures), chosen=True)


def by_default(s: SkirmishState, log: Log) -> None:
    """D-S-9: the owner's time ran out or he passed: the default order decides."""
    d = s.decision
    if d is None:
        return
    s.decision = None
    _apply(s, log, d, default_order(s, d.candidates)[:d.count], chosen=False)
