"""What the AI is shown (issue 18): the team's view — exactly what its players receive — with the options query's
answers a player's client may ask for: for the team as a whole (`options`: the engine's `options` hook, or before
it the skirmish's `legal_orders`), and for each of the team's units on the field (`unit_options`, issue 14: what
the room offers that unit now, worked out on the field as the side sees it). Nothing else of the state reaches
the commander: the decision is a function of (this view, the team, the seed)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from server.core.engine import Engine, team_viewer
from server.core.errors import RuleError


def ai_view(engine: Engine[Any], game: Any, team: str) -> dict[str, Any]:
    viewer = team_viewer(team)
    view = dict(engine.view(game, viewer))
    for name, args in (("options", (viewer, None)), ("legal_orders", (team,))):
        query = getattr(engine, name, None)
        if callable(query):
            answer = query(game, *args)
            if answer is not None:
                view["options"] = answer
                break
    menus = unit_menus(engine, game, team, view)
    if menus:
        view["unit_options"] = menus
    return view


def unit_menus(engine: Engine[Any], game: Any, team: str, view: Mapping[str, Any]) -> dict[str, Any]:
    """The options query for each unit of the team on the field, where the view lists units by side (the battle
    and the storm); a unit the query refuses is left out."""
    query = getattr(engine, "options", None)
    if not callable(query) or view.get("active") != team:
        return {}
    menus: dict[str, Any] = {}
    for u in view.get("units") or ():
        if isinstance(u, Mapping) and u.get("side") == team and u.get("status") == "field":
            try:
                answer = query(game, team_viewer(team), str(u["id"]))
            except RuleError:
                continue
            if answer is not None:
                menus[str(u["id"])] = answer
    return menus


def decide(engine: Engine[Any], game: Any, team: str, seed: int) -> Sequence[Mapping[str, Any]] | None:
    """The AI's decision (in a worker thread): its view (`ai_view`), then the engine's commander."""
    return engine.commander(ai_view(engine, game, team), team, seed)
