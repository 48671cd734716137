"""The start of war, penalties, peace and the final score (C-9.1, C-9.3, C-10.*)."""

from __future__ import annotations

from typing import Any

from server.continental.combat import encircled
from server.continental.context import Ctx
from server.continental.events import for_teams, public
from server.continental.forces import Unit, is_division
from server.continental.grid import Cell, label
from server.continental.orders import AnswerPeace, Capitulate, ProposePeace
from server.continental.recon import accrue
from server.continental.war import penalise
from server.core.errors import IllegalOrder


def _alive_divisions(state: Any, team: str) -> list[Unit]:
    return [u for u in state.alive_units(team) if is_division(state.tables, u)]


def _balance(state: Any, team: str, other: str) -> float:
    own = sum(float(u.rating) for u in state.alive_units(team))
    return own - sum(float(u.rating) for u in state.alive_units(other))


def _held(state: Any, team: str, of: str) -> int:
    return sum(1 for c in state.map.cells() if state.map.states.get(c) == of and state.controller(c) == team)


def propose(ctx: Ctx, team: str, cmd: ProposePeace) -> None:
    """C-10.2 peace in the current position, C-10.3 a compromise with a negotiated border."""
    state = ctx.state
    if cmd.to not in state.player_teams or cmd.to == team:
        raise IllegalOrder(f"{cmd.to!r} is not another team in this campaign", rule="C-10.2")
    if not state.war or not state.enemies(team, cmd.to):
        raise IllegalOrder(f"you are not at war with {cmd.to}", rule="C-10.2")
    if cmd.kind == "compromise":
        for cell, owner in cmd.border:
            if not state.map.is_land(cell) or owner not in (team, cmd.to):
                raise IllegalOrder(f"{label(cell)} cannot go to {owner}", rule="C-10.3")
    number = len(state.proposals) + 1
    state.proposals.append({"number": number, "from": team, "to": cmd.to, "kind": cmd.kind, "turn": state.turn,
                            "border": [[list(c), o] for c, o in cmd.border], "status": "open"})
    ctx.emit(for_teams([team, cmd.to], "peace_proposed", number=number, by=team, to=cmd.to, kind=cmd.kind,
                       border=[[list(c), o] for c, o in cmd.border], rule="C-10.2"))


def answer(ctx: Ctx, team: str, cmd: AnswerPeace) -> None:
    """Accept: peace between the two (the front line, or the agreed line, is the new border). Reject: the refusing
    side must gain decisive successes within 30 turns (C-10.4)."""
    state = ctx.state
    prop = next((p for p in state.proposals if p["number"] == cmd.proposal), None)
    if prop is None or prop["to"] != team or prop["status"] != "open":
        raise IllegalOrder("no open peace proposal of that number addressed to you", rule="C-10.2")
    other = prop["from"]
    if not cmd.accept:
        prop["status"] = "rejected"
        state.refusals[team] = {"against": other, "since": state.turn, "balance": _balance(state, team, other),
                                "held": _held(state, team, other), "front": len(border_front(state, team, other))}
        ctx.emit(public("peace_rejected", number=prop["number"], by=team, rule="C-10.4"))
        return
    prop["status"] = "accepted"
    if prop["kind"] == "compromise":
        for cell, owner in prop["border"]:
            key = label((int(cell[0]), int(cell[1])))
            if state.map.states.get((int(cell[0]), int(cell[1]))) == owner:
                state.control.pop(key, None)
            else:
                state.control[key] = owner
    state.peace_pairs.append(sorted([team, other]))
    for t in (team, other):
        state.refusals.pop(t, None)
    ctx.emit(public("peace_concluded", number=prop["number"], between=sorted([team, other]), kind=prop["kind"],
                    rule="C-10.3" if prop["kind"] == "compromise" else "C-10.2"))
    at_war = [(a, b) for i, a in enumerate(state.player_teams) for b in state.player_teams[i + 1:]
              if state.enemies(a, b)]
    if not at_war:
        finish(ctx, winner=None, end="peace")


def border_front(state: Any, team: str, other: str) -> list[Cell]:
    """The cells of `other`'s country held by `other` along the line of contact with `team`."""
    out = []
    for c in state.map.cells():
        if state.controller(c) != other or not state.map.is_land(c):
            continue
        if any(state.controller(n) == team for n in _ring(c)):
            out.append(c)
    return out


def _ring(c: Cell) -> list[Cell]:
    return [(c[0] + dx, c[1] + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy]


def capitulate(ctx: Ctx, team: str, cmd: Capitulate) -> None:
    """C-10.1 (3): one opponent capitulates."""
    del cmd
    ctx.emit(public("capitulation", team=team, rule="C-10.1"))
    _defeat(ctx, team, "capitulation")


def _defeat(ctx: Ctx, team: str, end: str) -> None:
    state = ctx.state
    if team in state.refusals:
        state.refusals.pop(team)
    state.defeated[team] = {"turn": state.turn, "end": end}
    remaining = [t for t in state.player_teams if t not in state.defeated]
    ctx.emit(public("defeated", team=team, end=end, rule="C-10.1"))
    if len(remaining) <= 1:
        finish(ctx, winner=remaining[0] if remaining else None, end=end)
    else:
        state.order = state.order.without(team)


def end_of_day(ctx: Ctx) -> None:
    """After every full turn: decisive ends (C-10.1), the 30-turn rule for a side that refused peace (C-10.4),
    the reconnaissance quota (C-8.3)."""
    state = ctx.state
    scoring = state.tables["scoring"]
    accrue(state)
    for team in state.player_teams if state.war else []:
        if team in state.defeated or state.phase == "over":
            continue
        own_cells = [c for c in state.map.cells() if state.map.states.get(c) == team]
        if own_cells and all(state.controller(c) != team for c in own_cells):
            _defeat(ctx, team, "territory")
        elif not _alive_divisions(state, team):
            _defeat(ctx, team, "annihilation")
    if state.phase == "over":
        return
    window = int(scoring["refused_peace_window"])
    for team, ref in sorted(state.refusals.items()):
        other = ref["against"]
        gained = _held(state, team, other) - int(ref["held"])
        need = int(scoring["decisive_advance_km"]) // 10 * max(1, round(float(scoring["decisive_front_share"])
                                                                        * int(ref["front"])))
        surrounded = sum(1 for u in _alive_divisions(state, other) if encircled(state, u))
        successes = []
        if gained >= need:
            successes.append("advance")
        if surrounded >= int(scoring["decisive_encircled_divisions"]):
            successes.append("encirclement")
        if _balance(state, team, other) - float(ref["balance"]) >= float(scoring["decisive_balance"]):
            successes.append("balance")
        if successes:
            ctx.emit(public("decisive_success", team=team, kinds=successes, rule="C-10.4"))
            ref.update(since=state.turn, balance=_balance(state, team, other), held=_held(state, team, other))
        elif state.turn - int(ref["since"]) >= window:
            penalise(ctx, team, int(scoring["refused_peace_penalty"]), "C-10.4",
                     f"no decisive success in {window} turns after refusing peace")
            ref["since"] = state.turn


def scores(state: Any, winner: str | None, end: str) -> dict[str, int]:
    """C-10.1: winner 100 + 5 a surviving division + 10 an enemy division taken prisoner; loser 4 a surviving
    division (those in captivity included). C-10.2 (peace): 5 a city annexed + 2 a surviving division.
    Penalties (C-9.3, C-10.4, C-10.5) are subtracted."""
    sc = state.tables["scoring"]
    out: dict[str, int] = {}
    for team in state.player_teams:
        alive = len(_alive_divisions(state, team))
        captured = sum(1 for u in state.units.values() if u.team == team and u.status == "captured"
                       and is_division(state.tables, u))
        if end == "peace" or winner is None:
            cities = sum(1 for p in state.map.places.values()
                         if p.kind in ("city", "capital") and p.state != team and state.controller(p.cell) == team)
            points = int(sc["peace_per_city"]) * cities + int(sc["peace_per_division"]) * alive
        elif team == winner:
            points = int(sc["win"]) + int(sc["win_per_division"]) * alive + int(sc["win_per_prisoner"]) * int(
                state.prisoners.get(team, 0))
        else:
            points = int(sc["lose_per_division"]) * (alive + captured)
        points -= sum(int(p["points"]) for p in state.penalties if p["team"] == team)
        out[team] = points
    return out


def finish(ctx: Ctx, *, winner: Any, end: str) -> None:
    state = ctx.state
    w = str(winner) if winner in state.player_teams else None
    state.result = {"winner": w, "end": end, "turn": state.turn, "scores": scores(state, w, end)}
    state.phase = "over"
    ctx.emit(public("campaign_over", rule="C-10.1", **state.result))
