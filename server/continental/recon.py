"""Reconnaissance questions (C-8.3, D-C-7): 15 questions per 10 turns of war with accumulation; a yes/no question
costs 1/2, a numeric one 1, one about the arm of service 2. The server answers from the game map; when the campaign
allows deception an answer may be false, but false answers never exceed 20% of the team's answers, and the
moderator sees which were false (a secret roll decides, D-GEN-1)."""

from __future__ import annotations

from typing import Any

from server.continental.context import Ctx
from server.continental.events import for_team, umpire
from server.continental.grid import label
from server.continental.orders import Question
from server.continental.state import CampaignState
from server.core.errors import IllegalOrder

EPS = 1e-9


def _others(state: CampaignState, team: str, cell: tuple[int, int]) -> list[Any]:
    return [u for u in state.units_at(cell) if u.team != team]


def truth(state: CampaignState, team: str, q: Question) -> Any:
    """The true short answer (C-8.3: "Yes", "Three divisions", "In square 40-21", "Artillery division")."""
    if q.kind == "presence":
        assert q.cell is not None
        return "yes" if _others(state, team, q.cell) else "no"
    if q.kind == "count":
        assert q.cell is not None
        return len(_others(state, team, q.cell))
    if q.kind == "arm":
        assert q.cell is not None
        return sorted({u.arm for u in _others(state, team, q.cell)}) or ["none"]
    if q.kind == "locate":
        wanted = (q.unit_name or "").strip().lower()
        for u in sorted(state.alive_units(), key=lambda u: u.id):
            if u.team != team and wanted in (u.name.lower(), u.id.lower()):
                return label(u.cell)
        return "unknown"
    if q.kind == "feature":
        place = state.map.places.get(q.feature or "")
        cell = place.cell if place else (q.cell if q.cell else None)
        if cell is None:
            return "unknown"
        return "yes" if _others(state, team, cell) else "no"
    points = {}
    for other in [*state.player_teams, *state.neutrals]:
        if other != team:
            capital = state.scen.raw["states"][other].get("capital")
            points[other] = state.mobilization.get(other, [capital] if capital else [])
    return points


def falsify(state: CampaignState, q: Question, answer: Any) -> Any:
    if q.kind in ("presence", "feature"):
        return {"yes": "no", "no": "yes"}.get(answer, "no")
    if q.kind == "count":
        return int(answer) + 1 if int(answer) == 0 else int(answer) - 1
    if q.kind == "arm":
        arms = [a for a in state.tables["arms"] if a != "FORT"]
        shown = answer[0] if answer and answer[0] in arms else arms[-1]
        return [arms[(arms.index(shown) + 1) % len(arms)]]
    if q.kind == "locate":
        if answer == "unknown":
            return label(state.map.origin)
        x, y = (int(v) for v in str(answer).split("-"))
        return label((x + 2, y - 1))
    return {k: list(reversed(v)) for k, v in answer.items()}


def question(ctx: Ctx, team: str, q: Question) -> None:
    state = ctx.state
    rec = state.tables["recon"]
    if not state.war:
        raise IllegalOrder("reconnaissance begins with the war", rule="C-8.3")
    if q.cell is not None and not state.map.contains(q.cell):
        raise IllegalOrder(f"{label(q.cell)} is off the map", rule="C-8.3")
    cost = float(rec["costs"][q.kind])
    budget = state.recon.setdefault(team, {"quota": 0.0, "spent": 0.0, "answers": 0, "false": 0})
    left = budget["quota"] - budget["spent"]
    if cost > left + EPS:
        raise IllegalOrder(f"the question costs {cost:g}; {left:g} left of the quota", rule="C-8.3")
    answer = truth(state, team, q)
    false = False
    if state.recon_deception:
        roll = ctx.roll("reconnaissance deception", secret=True)
        allowed = (budget["false"] + 1) / (budget["answers"] + 1) <= float(rec["max_false"]) + EPS
        false = roll <= int(rec["lie_chance"]) and allowed
    given = falsify(state, q, answer) if false else answer
    budget["spent"] += cost
    budget["answers"] += 1
    budget["false"] += 1 if false else 0
    asked = {"kind": q.kind, "cell": list(q.cell) if q.cell else None, "unit": q.unit_name, "feature": q.feature}
    number = len(state.answers) + 1
    state.answers.append({"number": number, "team": team, "turn": state.turn, "question": asked, "answer": given,
                          "cost": cost, "false": false, "truth": answer})
    ctx.emit(for_team(team, "answer", spectators=False, number=number, question=asked, answer=given, cost=cost,
                      left=round(budget["quota"] - budget["spent"], 2), rule="C-8.3"))
    ctx.emit(umpire("answer_truth", number=number, team=team, truth=answer, given=given, false=false,
                    rule="D-C-7"))


def accrue(state: CampaignState) -> None:
    """C-8.3: a further 15 questions for every 10 turns of war, unused ones kept."""
    if not state.war:
        return
    rec = state.tables["recon"]
    elapsed = state.turn - state.war_turn
    if elapsed > 0 and elapsed % int(rec["per_turns"]) == 0:
        for team in state.player_teams:
            state.recon.setdefault(team, {"quota": 0.0, "spent": 0.0, "answers": 0, "false": 0})
            state.recon[team]["quota"] += float(rec["quota"])
