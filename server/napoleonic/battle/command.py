"""Who commands what in the battle (D-N-1, D-N-10, N-MORALE-5): the side whose order phase it is, and the units
an order of that side may be for — one check for the engine's orders and the options (options.py)."""

from __future__ import annotations

from typing import Any

from server.core.engine import Actor
from server.core.errors import BadOrder, IllegalOrder, NotYourTurn, NotYourUnit

from .state import BattleState, Unit


def acting_side(state: BattleState, actor: Actor) -> str:
    """D-N-1: the side whose order phase it is, when `actor` may give its orders (the moderator always may)."""
    side = state.active_side
    if side is None:
        raise NotYourTurn("the battle is over", rule="D-N-2")
    if not actor.moderator and actor.team != side:
        raise NotYourTurn(f"it is {side}'s order phase", rule="D-N-1", details={"active": side})
    return side


def own_unit(state: BattleState, side: str, uid: Any, *, carrying: bool = False) -> Unit:
    """The unit an order of `side` is for: its own, on the field, and (unless the order may be given while it is
    `carrying` an order over from last turn, D-N-10) free."""
    unit = state.units.get(uid) if isinstance(uid, str) else None
    if unit is None:
        raise BadOrder(f"no unit {uid!r}", rule="D-N-1", details={"unit": str(uid)})
    if unit.side != side:
        raise NotYourUnit(f"{unit.id} belongs to {unit.side}", rule="D-N-1", details={"unit": unit.id})
    if not unit.on_field:
        raise IllegalOrder(f"{unit.id} is not on the field ({unit.status})", rule="N-MORALE-5",
                           details={"unit": unit.id, "status": unit.status})
    if unit.busy is not None and not carrying:
        raise IllegalOrder("the unit is still carrying out an order from last turn", rule="D-N-10",
                           details={"unit": unit.id, "order": unit.busy["order"]})
    return unit
