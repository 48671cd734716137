"""Command and cohesion (S-5.3, S-6, S-7, S-8, D-S-1, D-S-5): who an order reaches.

Cohesion (D-S-1): a unit's figures are in cohesion when each is linked to its commander by a chain of neighbouring
cells through figures of the unit (down figures link the chain but do not act). An order to a unit reaches its
commander and the members in cohesion with him (S-7.3: only the group with the commander); an order to a platoon
(company) commander reaches each of its sub-units in the same way (S-6.5: one order for units under one command).
A figure without a commander, or away from him, takes its own order (S-7.4, S-8.2). The army-wide order (S-6.4)
reaches every figure and is the side's only order that turn (D-S-5). No sub-unit takes two orders in a turn
(S-6.3). An improvised group (S-8.7) is formed by an order to a platoon (company) commander and obeys him while
he is in action and in cohesion with it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from server.core.errors import BadOrder, IllegalOrder, NotYourUnit

from .forces import descendants
from .log import Log
from .state import AMBUSH, IN_ACTION, ON_TABLE, Figure, Group, SkirmishState
from .table import footprints_touch

ARMY = "army"
GROUP_PREFIX = "group:"


def chain(s: SkirmishState, start: Figure, pool: Iterable[str]) -> list[str]:
    """The figures of `pool` (on the table) linked to `start` by a chain of neighbours, `start` first."""
    left = {i for i in pool if s.figures[i].status in ON_TABLE and i != start.id}
    out = [start.id]
    frontier = [start]
    while frontier:
        nxt: list[Figure] = []
        for f in frontier:
            near = sorted(i for i in left if footprints_touch(f.cells(), s.figures[i].cells()))
            for i in near:
                left.discard(i)
                out.append(i)
                nxt.append(s.figures[i])
        frontier = nxt
    return out


def unit_pool(s: SkirmishState, uid: str) -> list[str]:
    """A unit's own figures that are not away in an improvised group."""
    return [i for i in s.units[uid].members if not s.figures[i].group]


def in_cohesion(s: SkirmishState, uid: str) -> list[str]:
    """The unit's members in cohesion with its commander (D-S-1), the commander first; [] without a commander on
    the table."""
    unit = s.units[uid]
    if unit.commander is None or s.figures[unit.commander].status not in ON_TABLE:
        return []
    return chain(s, s.figures[unit.commander], unit_pool(s, uid))


def target_group(s: SkirmishState, target: Figure) -> list[str]:
    """The group a target belongs to (S-7.6, S-8.4): the figures of its unit linked to it by neighbours."""
    return chain(s, target, s.units[target.unit].members)


@dataclass(frozen=True, slots=True)
class Body:
    """What one order reaches: `figures` act (in action, not yet ordered); `units` are marked as ordered (S-6.3);
    `demoralised`: it may only fall back (D-S-12); `group`: the improvised group formed by this order."""

    id: str
    kind: str
    figures: tuple[str, ...]
    units: tuple[str, ...] = ()
    demoralised: bool = False
    group: Group | None = None


def _acting(s: SkirmishState, ids: Iterable[str]) -> list[str]:
    return [i for i in ids if s.figures[i].status == IN_ACTION and not s.figures[i].ordered]


def _unit_body(s: SkirmishState, uid: str) -> tuple[list[str], list[str]]:
    """Figures and units a unit order reaches: the commander's group, and each sub-unit's that may take it."""
    unit = s.units[uid]
    figures = _acting(s, in_cohesion(s, uid))
    units = [uid]
    for c in unit.children:
        child = s.units[c]
        cmd = s.figures[child.commander] if child.commander else None
        if child.demoralised or child.ordered or cmd is None or cmd.status != IN_ACTION or cmd.ordered:
            continue
        f, u = _unit_body(s, c)
        figures += f
        units += u
    return figures, units


def body_of(s: SkirmishState, team: str, body_id: str, form_group: tuple[str, ...] | None = None) -> Body:
    """The body an order of `team` names, or a typed error saying which rule refuses it."""
    side = s.sides[team]
    if body_id == ARMY:
        if form_group is not None:
            raise BadOrder("the army-wide order forms no group", rule="S-8.7")
        if side.orders_given:
            raise IllegalOrder("the army-wide order is the side's only order of the turn", rule="S-6.4",
                               details={"orders_given": side.orders_given})
        figures = [f.id for f in s.side_figures(team) if f.status == IN_ACTION
                   and not s.units[f.unit].demoralised]
        if not figures:
            raise IllegalOrder("no figure of the side can take an order", rule="S-6.4")
        return Body(ARMY, ARMY, tuple(figures), tuple(u.id for u in s.units.values() if u.side == team))
    if body_id.startswith(GROUP_PREFIX):
        if form_group is not None:
            raise BadOrder("an existing group is ordered by its name", rule="S-8.7")
        group = s.groups.get(body_id)
        if group is None or s.figures[group.commander].side != team:
            raise BadOrder(f"no improvised group {body_id!r}", rule="S-8.7")
        cmd = s.figures[group.commander]
        _check_commander(cmd, "S-8.7")
        members = chain(s, cmd, group.members)
        return Body(body_id, "group", tuple(_acting(s, members)))
    if body_id in s.units:
        unit = s.units[body_id]
        if unit.side != team:
            raise NotYourUnit(f"{body_id} is not {team}'s", rule="S-5.3")
        under = descendants(s.units, body_id)
        if any(s.units[u].ordered for u in under):
            raise IllegalOrder(f"{body_id} (or a unit under it) has had its order this turn", rule="S-6.3",
                               details={"unit": body_id})
        if any(s.figures[i].status == AMBUSH for i in unit.members):
            raise IllegalOrder(f"{body_id} is held back in ambush: it comes on by an ambush order", rule="S-9.3",
                               details={"unit": body_id})
        if unit.commander is None or s.figures[unit.commander].status not in ON_TABLE:
            raise IllegalOrder(f"{body_id} has no commander: each of its figures takes its own order", rule="S-8.2",
                               details={"unit": body_id})
        cmd = s.figures[unit.commander]
        _check_commander(cmd, "S-7.3")
        if form_group is not None:
            return _form(s, team, body_id, cmd, form_group)
        figures, units = _unit_body(s, body_id)
        return Body(body_id, "unit", tuple(figures), tuple(units), demoralised=unit.demoralised)
    fig = s.figures.get(body_id)
    if fig is None or (fig.side != team and fig.status not in ON_TABLE):
        raise BadOrder(f"no unit or figure {body_id!r}", rule="S-5.3", details={"body": body_id})
    if fig.side != team:
        raise NotYourUnit(f"{body_id} is not {team}'s", rule="S-5.3")
    if form_group is not None:
        raise BadOrder("only a platoon or company commander's unit forms a group", rule="S-8.7")
    if fig.status == AMBUSH:
        raise IllegalOrder(f"{body_id} is held back in ambush", rule="S-9.3")
    _check_commander(fig, "D-S-5")
    return Body(fig.id, "figure", (fig.id,), demoralised=s.units[fig.unit].demoralised)


def _check_commander(f: Figure, rule: str) -> None:
    if f.status != IN_ACTION:
        raise IllegalOrder(f"{f.id} is {f.status.replace('_', ' ')}: it takes no order", rule="D-S-9"
                           if f.status == "down" else rule, details={"figure": f.id, "status": f.status})
    if f.ordered:
        raise IllegalOrder(f"{f.id} has had an order this turn", rule="S-6.3", details={"figure": f.id})


def _form(s: SkirmishState, team: str, uid: str, cmd: Figure, ids: tuple[str, ...]) -> Body:
    """S-8.7: the platoon (company) commander forms a group of figures from his sub-units, in cohesion with him."""
    unit = s.units[uid]
    if not unit.children:
        raise IllegalOrder("only a platoon or company commander forms an improvised group", rule="S-8.7",
                           details={"unit": uid})
    if not ids:
        raise BadOrder("a group has at least one figure", rule="S-8.7")
    under = set(descendants(s.units, uid)[1:])
    for i in ids:
        f = s.figures.get(i)
        if f is None or f.side != team:
            raise BadOrder(f"no figure {i!r} of {team}", rule="S-8.7", details={"figure": i})
        if f.unit not in under:
            raise IllegalOrder(f"{i} is not under {cmd.id}'s command", rule="S-8.7", details={"figure": i})
        if f.status != IN_ACTION or f.ordered or s.units[f.unit].demoralised:
            raise IllegalOrder(f"{i} cannot take an order now", rule="S-6.3", details={"figure": i})
    linked = chain(s, cmd, ids)
    if set(linked[1:]) != set(ids):
        raise IllegalOrder("a group is in cohesion with its commander", rule="S-8.1",
                           details={"away": sorted(set(ids) - set(linked))})
    group = Group(GROUP_PREFIX + cmd.id, cmd.id, tuple(ids))
    return Body(group.id, "group", (cmd.id, *ids), group=group)


def mark_ordered(s: SkirmishState, log: Log, team: str, body: Body) -> None:
    """S-6.3: the figures and units that took the order have had it this turn; a new group is formed (S-8.7)."""
    if body.group is not None:
        old = s.groups.pop(body.group.id, None)
        for i in old.members if old else ():
            s.figures[i].group = ""
        s.groups[body.group.id] = body.group
        for i in body.group.members:
            prior = s.figures[i].group
            if prior and prior in s.groups and prior != body.group.id:
                _leave(s, prior, i)
            s.figures[i].group = body.group.id
        log.emit("group_formed", log.own(team), group=body.group.id, commander=body.group.commander,
                 members=list(body.group.members), rule="S-8.7")
    for i in body.figures:
        s.figures[i].ordered = True
    for u in body.units:
        s.units[u].ordered = True


def _leave(s: SkirmishState, gid: str, fid: str) -> None:
    g = s.groups[gid]
    g.members = tuple(m for m in g.members if m != fid)
    s.figures[fid].group = ""


def check_groups(s: SkirmishState, log: Log) -> None:
    """S-8.7, D-S-5: a group lasts while its commander is in action and in cohesion with it; members away from
    him go back to their units."""
    for gid in sorted(s.groups):
        g = s.groups[gid]
        cmd = s.figures[g.commander]
        team = cmd.side
        if cmd.status != IN_ACTION:
            for i in g.members:
                s.figures[i].group = ""
            del s.groups[gid]
            log.emit("group_dissolved", log.own(team), group=gid, reason="commander " + cmd.status, rule="S-8.7")
            continue
        linked = set(chain(s, cmd, g.members))
        away = [i for i in g.members if i not in linked or s.figures[i].status not in ON_TABLE]
        for i in away:
            _leave(s, gid, i)
        if away:
            log.emit("group_left", log.own(team), group=gid, figures=away, rule="S-8.7")
        if not g.members:
            del s.groups[gid]
            log.emit("group_dissolved", log.own(team), group=gid, reason="no figure in cohesion", rule="S-8.7")


def orderable(s: SkirmishState, team: str) -> list[str]:
    """The bodies `team` could give an order to now: held-back ambush units, units with a commander in action,
    existing groups, single figures (for listing legal orders and for skipping a side with nothing to order)."""
    out: list[str] = []
    for u in s.units.values():
        if u.side != team:
            continue
        if u.members and all(s.figures[i].status == AMBUSH for i in u.members):
            out.append(u.id)
            continue
        try:
            body = body_of(s, team, u.id)
        except (IllegalOrder, BadOrder, NotYourUnit):
            continue
        if body.figures:
            out.append(u.id)
    for gid, g in sorted(s.groups.items()):
        if s.figures[g.commander].side == team:
            try:
                if body_of(s, team, gid).figures:
                    out.append(gid)
            except (IllegalOrder, BadOrder):
                pass
    out += [f.id for f in s.side_figures(team) if f.status == IN_ACTION and not f.ordered]
    return out
