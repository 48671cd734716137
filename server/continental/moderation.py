"""Moderator rulings (C-9.4, C-9.3, C-10.U1): weather closing roads, selective information, other inputs, and
penalties. When the players demand it, arbitrary interventions are limited to one per 7 turns (C-9.4)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from server.continental.combat import check_destroyed
from server.continental.context import Ctx
from server.continental.events import for_team, public, umpire
from server.continental.grid import label
from server.continental.orders import _cell
from server.continental.peace import finish
from server.continental.war import penalise
from server.core.errors import BadOrder, IllegalOrder, UnknownOrder

INTERVENTIONS = {"close_road", "inform", "adjust_rating"}


def rule(ctx: Ctx, ruling: Mapping[str, Any]) -> None:
    state = ctx.state
    kind = ruling.get("type")
    if not isinstance(kind, str):
        raise UnknownOrder(f"unknown ruling {kind!r}")
    if kind in INTERVENTIONS:
        per = int(state.tables["moderator"]["limited_interventions_per_turns"])
        if state.interventions_limited and any(state.turn - t < per for t in state.interventions):
            raise IllegalOrder(f"interventions are limited to one per {per} turns", rule="C-9.4")
        state.interventions.append(state.turn)
    if kind == "close_road":
        turns = ruling.get("turns", 1)
        if not isinstance(turns, int) or not 1 <= turns <= 100:
            raise BadOrder("'turns' is 1 to 100", details={"field": "turns"})
        cells = [_cell(c, "cells") for c in _cells(ruling)]
        for c in cells:
            entry = state.closures.setdefault(label(c), {})
            entry["movement"] = max(entry.get("movement", 0), state.turn + turns - 1)
            entry["transfer"] = max(entry.get("transfer", 0), state.turn + turns - 1)
        ctx.emit(public("roads_closed", cells=[list(c) for c in cells], turns=turns, cause="weather", rule="C-9.4"))
    elif kind == "open_road":
        cells = [_cell(c, "cells") for c in _cells(ruling)]
        for c in cells:
            state.closures.pop(label(c), None)
        ctx.emit(public("roads_opened", cells=[list(c) for c in cells], rule="C-9.4"))
    elif kind == "inform":
        team, text = ruling.get("team"), ruling.get("text")
        if team not in state.player_teams or not isinstance(text, str):
            raise BadOrder("'inform' needs a team and a text")
        ctx.emit(for_team(str(team), "mediator_message", spectators=False, text=text, rule="C-9.4"))
    elif kind == "adjust_rating":
        unit = state.units.get(str(ruling.get("unit")))
        rating = ruling.get("rating")
        if unit is None or not isinstance(rating, (int, float)) or not 0 <= rating < math.inf:  # not NaN either
            raise BadOrder("'adjust_rating' needs a unit and a rating ≥ 0")
        unit.rating = round(float(rating), 2)
        ctx.emit(umpire("rating_adjusted", unit=unit.id, rating=unit.rating, rule="C-9.4"))
        check_destroyed(ctx, unit)
    elif kind == "limit_interventions":
        state.interventions_limited = bool(ruling.get("on", True))
        ctx.emit(public("interventions_limited", on=state.interventions_limited, rule="C-9.4"))
    elif kind == "penalty":
        team, points = ruling.get("team"), ruling.get("points")
        if team not in state.player_teams or not isinstance(points, int):
            raise BadOrder("'penalty' needs a team and whole points")
        penalise(ctx, str(team), points, str(ruling.get("rule", "C-9.3")), str(ruling.get("reason", "ruling")))
    elif kind == "end_campaign":
        if state.phase == "over":
            raise IllegalOrder("the campaign is over", rule="C-10.1")
        finish(ctx, winner=ruling.get("winner"), end="moderator")
    else:
        raise UnknownOrder(f"unknown ruling {kind!r}")


def _cells(ruling: Mapping[str, Any]) -> list[Any]:
    raw = ruling.get("cells", [])
    if not isinstance(raw, (list, tuple)):
        raise BadOrder("'cells' is a list of cells", details={"field": "cells"})
    return list(raw)
