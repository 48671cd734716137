"""Carrying out one order (S-5.3 … S-5.6, S-6, S-9.3, D-S-5, D-S-13, D-S-14).

An ordered body either moves its full move, or fires, or moves half its move and then fires at −1 to hit (D-S-5);
a demoralised unit only falls back (D-S-12). The army-wide order moves or fires every figure and uses all the
side's orders of the turn (S-6.4). An ambush order places one held-back unit and may fire at once (S-9.3, S-9.5);
the figures it fires on have no random fire against that unit this turn (D-S-13). Taking up a fallen gunner's
weapon is an order of its own (S-8.5, D-S-8).
"""

from __future__ import annotations

from collections.abc import Sequence

from server.core.errors import BadOrder, IllegalOrder, NotYourTurn, NotYourUnit

from . import orders as o
from .command import ARMY, Body, body_of, mark_ordered, target_group
from .deployment import expand, place_ambush
from .fire import fire
from .hits import spread
from .log import Log
from .movement import allowance, apply_walk, fall_back_path, plan, walk
from .sight import is_seen, seen_by
from .state import AMBUSH, IN_ACTION, Figure, SkirmishState
from .table import touching
from .turn import after_order


def give(s: SkirmishState, log: Log, team: str, cmd: o.Command) -> None:
    side = s.sides[team]
    if s.decision is not None:
        raise NotYourTurn(f"{s.decision.owner} is choosing which figures take the hits", rule="D-S-9")
    if s.next_side != team:
        raise NotYourTurn(f"{s.next_side} gives the next order", rule="S-5.6", details={"next": s.next_side})
    if side.orders_left <= 0:
        raise IllegalOrder("no orders left this turn", rule="S-5.2")
    if isinstance(cmd, o.Pass):
        log.emit("order_passed", None, side=team, rule="S-5.6")
        _used(s, log, team, None, "pass")
    elif isinstance(cmd, o.Ambush):
        _ambush(s, log, team, cmd)
    elif isinstance(cmd, o.TakeUp):
        _take_up(s, log, team, cmd.figure)
    elif isinstance(cmd, o.Move | o.Fire | o.MoveFire | o.FallBack):
        _body_order(s, log, team, cmd)
    else:
        raise BadOrder("not an order of the orders phase", rule="S-5.6")
    if spread(s, log):
        after_order(s, log)


def _used(s: SkirmishState, log: Log, team: str, body: Body | None, action: str) -> None:
    """One order used (the army-wide order: all of them, S-6.4, D-S-5)."""
    side = s.sides[team]
    side.orders_given += 1
    if body is not None and body.kind == ARMY:
        side.orders_left = 0
        side.army_order = True
    else:
        side.orders_left -= 1
    data = {"side": team, "action": action, "orders_left": side.orders_left, "rule": "S-5.6"}
    if body is None:
        log.emit("order_given", None, **data)
        return
    log.emit("order_given", log.own(team), **data, body=body.id, kind=body.kind, figures=list(body.figures))
    enemy = s.enemy(team)
    seen = seen_by(s, enemy)
    shown = [i for i in body.figures if i in seen]
    log.emit("enemy_order", frozenset({f"team:{enemy}"}), **{**data, "action": action if shown else None},
             figures=shown)


def _target(s: SkirmishState, team: str, target_id: str | None) -> Figure | None:
    """An enemy figure the side sees (the same refusal whether it does not exist or is not seen)."""
    if target_id is None:
        return None
    f = s.figures.get(target_id)
    if f is None or f.side == team or not is_seen(s, team, f):
        raise BadOrder(f"no enemy {target_id!r} in sight", rule="S-7.6", details={"target": target_id})
    return f


def _body_order(s: SkirmishState, log: Log, team: str, cmd: o.Move | o.Fire | o.MoveFire | o.FallBack) -> None:
    body = body_of(s, team, cmd.body, None if isinstance(cmd, o.FallBack) else cmd.form_group)
    if body.demoralised and not isinstance(cmd, o.FallBack):
        raise IllegalOrder(f"{cmd.body} is demoralised: it may only fall back", rule="D-S-12",
                           details={"body": cmd.body})
    if body.kind == ARMY and isinstance(cmd, o.MoveFire):
        raise IllegalOrder("the army-wide order is to fire at one target or to move", rule="S-6.4")
    if not body.figures:
        raise IllegalOrder(f"no figure of {cmd.body} can take an order now", rule="D-S-5")
    if isinstance(cmd, o.FallBack):
        _fall_back(s, log, team, body)
        action = "fall_back"
    elif isinstance(cmd, o.Move):
        _moves(s, log, team, body, cmd.moves, half=False)
        action = "move"
    else:
        target = _target(s, team, cmd.target)
        mg = _target(s, team, cmd.mg_target)
        assert target is not None
        penalty = 0
        if isinstance(cmd, o.MoveFire):
            _moves(s, log, team, body, cmd.moves, half=True)
            penalty = s.settings.move_fire_penalty
        shooters = [s.figures[i] for i in body.figures if s.figures[i].status == IN_ACTION]
        log.emit("fire_order", log.audience([*body.figures, target.id]), side=team, body=body.id,
                 target=target.id, group=cmd.group, penalty=penalty, rule="D-S-5")
        fire(s, log, team, shooters, target, group=cmd.group, penalty=penalty, cause=f"fire of {body.id}",
             mg_target=mg)
        action = "move_fire" if isinstance(cmd, o.MoveFire) else "fire"
    mark_ordered(s, log, team, body)
    _used(s, log, team, body, action)


def _moves(s: SkirmishState, log: Log, team: str, body: Body, moves: Sequence[o.FigureMove], *,
           half: bool) -> None:
    """D-S-5, D-S-6: each figure of the body that moves, its full (or half) move, one after the other."""
    known = seen_by(s, team) if s.settings.fog == "sight" else None
    for m in moves:
        if m.figure not in body.figures:
            raise IllegalOrder(f"{m.figure} is not reached by this order", rule="D-S-5",
                               details={"figure": m.figure, "body": body.id})
        f = s.figures[m.figure]
        budget = allowance(s, f, half=half)
        steps = m.path if m.path is not None else plan(s, f, m.to or f.cell, budget, known)
        if not steps:
            continue
        apply_walk(s, log, f, walk(s, f, steps, budget))


def _fall_back(s: SkirmishState, log: Log, team: str, body: Body) -> None:
    known = seen_by(s, team) if s.settings.fog == "sight" else None
    edge = s.sides[team].edge
    for i in body.figures:
        f = s.figures[i]
        steps = fall_back_path(s, f, edge, known)
        if steps:
            apply_walk(s, log, f, walk(s, f, steps, allowance(s, f)), rule="D-S-12")


def _ambush(s: SkirmishState, log: Log, team: str, cmd: o.Ambush) -> None:
    if s.sides[team].attacker:
        raise IllegalOrder("only the defender uses the ambush rules", rule="S-9.1")
    unit = s.units.get(cmd.unit)
    if unit is None or unit.side != team:
        raise BadOrder(f"no unit {cmd.unit!r} of {team}", rule="S-9.3")
    if not unit.members or any(s.figures[i].status != AMBUSH for i in unit.members):
        raise IllegalOrder(f"{cmd.unit} is not held back in ambush", rule="S-9.2")
    placed = place_ambush(s, log, team, unit.id, expand(s, cmd.placement))
    body = Body(unit.id, "ambush", tuple(f.id for f in placed), (unit.id,))
    if cmd.target is not None:
        target = _target(s, team, cmd.target)
        assert target is not None
        fire(s, log, team, placed, target, group=cmd.group, penalty=0, cause=f"ambush of {unit.id}")
        fired_on = target_group(s, target) if cmd.group else [target.id]
        for i in fired_on:
            f = s.figures[i]
            f.no_fire_at = (*f.no_fire_at, unit.id)
        log.emit("ambush_fire", log.audience([target.id]), unit=unit.id, figures=fired_on, rule="D-S-13")
    mark_ordered(s, log, team, body)
    _used(s, log, team, body, "ambush")


def _take_up(s: SkirmishState, log: Log, team: str, fid: str) -> None:
    f = s.figures.get(fid)
    if f is None or f.side != team:
        raise NotYourUnit(f"no figure {fid!r} of {team}", rule="S-8.5")
    if f.status != IN_ACTION or f.ordered:
        raise IllegalOrder(f"{fid} cannot take an order now", rule="S-6.3")
    if f.role not in ("assistant", "crew"):
        raise IllegalOrder("only the assistant or a crew figure takes up a fallen gunner's weapon", rule="S-8.5")
    if s.units[f.unit].demoralised:
        raise IllegalOrder(f"{f.unit} is demoralised: it may only fall back", rule="D-S-12")
    near = [d for d in s.dropped if d.unit == f.unit and (d.cell == f.cell or touching(d.cell, f.cell))]
    if not near:
        raise IllegalOrder("no fallen weapon of his unit lies in or next to his cell", rule="S-8.5")
    d = near[0]
    s.dropped.remove(d)
    old = f.weapon
    f.weapon = d.weapon
    log.emit("weapon_taken_up", log.audience([fid]), figure=fid, weapon=d.weapon, dropped=old, rule="S-8.5")
    body = Body(fid, "figure", (fid,))
    mark_ordered(s, log, team, body)
    _used(s, log, team, body, "take_up")
