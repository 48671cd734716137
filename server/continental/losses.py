"""Losses that destroy (C-9.7, C-CRT): a division whose rating falls to nothing is destroyed; a strike's losses
(artillery, cut-off fire) are taken by every unit hit."""

from __future__ import annotations

from server.continental.context import Ctx
from server.continental.events import for_team, for_teams
from server.continental.forces import DESTROYED, Unit, remove_losses
from server.continental.grid import Cell

EPS = 1e-9


def check_destroyed(ctx: Ctx, unit: Unit) -> None:
    if unit.alive and unit.rating <= EPS:
        unit.status, unit.rating = DESTROYED, 0.0
        unit.second = None
        ctx.emit(for_team(unit.team, "destroyed", unit=unit.id, name=unit.name))


def hit(ctx: Ctx, targets: list[Unit], fraction: float, *, cause: str, cell: Cell) -> None:
    for t in targets:
        loss = round(t.rating * fraction, 2)
        remove_losses(ctx.state.level, t, loss)
        ctx.emit(for_teams(sorted({t.team}), "losses", unit=t.id, loss=loss, rating=t.rating, cause=cause,
                           cell=list(cell)))
        check_destroyed(ctx, t)
