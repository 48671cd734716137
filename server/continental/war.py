"""War and its penalties (C-9.1, C-9.3, C-10.5): the first crossing of a border, or fire across it, starts the war;
the aggressor and each violator of a neutral state lose points."""

from __future__ import annotations

from server.continental.context import Ctx
from server.continental.events import public
from server.continental.forces import Unit
from server.continental.grid import Cell, label


def penalise(ctx: Ctx, team: str, points: int, rule: str, reason: str) -> None:
    ctx.state.penalties.append({"team": team, "points": points, "rule": rule, "reason": reason,
                                "turn": ctx.state.turn})
    ctx.emit(public("penalty", team=team, points=points, rule=rule, reason=reason))


def act_of_war(ctx: Ctx, team: str, other: str) -> None:
    """C-9.1: the war begins with the first crossing of any border (or fire across it); C-10.5: the aggressor
    loses 10 points, each violator of a neutral state 20."""
    state = ctx.state
    scoring = state.tables["scoring"]
    if other in state.neutrals and team not in state.violators:
        state.violators.append(team)
        penalise(ctx, team, int(scoring["neutrality_penalty"]), "C-10.5", f"violated the neutrality of {other}")
    if not state.war:
        state.war, state.war_turn, state.aggressor = True, state.turn, team
        penalise(ctx, team, int(scoring["aggressor_penalty"]), "C-10.5", "aggressor")
        ctx.emit(public("war_begun", by=team, turn=state.turn, rule="C-9.1"))
        for t in state.player_teams:
            state.recon.setdefault(t, {"quota": 0.0, "spent": 0.0, "answers": 0, "false": 0})
            state.recon[t]["quota"] += float(state.tables["recon"]["quota"])


def cross_border(ctx: Ctx, unit: Unit, cell: Cell, owner: str) -> None:
    if owner in ctx.state.player_teams or owner in ctx.state.neutrals:
        act_of_war(ctx, unit.team, owner)
    if owner in ctx.state.neutrals:
        ctx.state.control[label(cell)] = unit.team
