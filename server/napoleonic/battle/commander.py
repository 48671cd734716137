"""The battle's AI commander (issue 18): a side's orders decided from the view its players receive, never from
the state (D-N-7: in a hidden battle the enemy units it cannot see are not in its view).

The view is turned into a *belief*: a battle state holding the side's own units as the view shows them in full,
and of the enemy only what the view shows (position, facing, formation; the type's base values for what it does
not show — morale, losses, orders). The battle AI (ai.py) plans the phase on that belief, trying each order on the
engine there, so its orders are ones the real engine will normally accept; the room still validates each against
the real state, and a refused one is dropped. The belief's dice come from `rng_seed` (the room's generator), so
the decision is a pure function of (view, side, seed): two states with the same view give the same orders.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from server.core.dice import Dice
from server.core.engine import Actor
from server.core.errors import RuleError

from .ai import AI_PLAYER, BattleAI
from .engine import BattleEngine
from .state import BattleState, new_unit

_OWN_FIELDS = ("loss_tolerance", "guns", "accuracy", "points", "barrage_turns", "losses")


def belief(view: Mapping[str, Any], side: str, rng_seed: int) -> BattleState:
    """The battle as `side` believes it to be from its view (see the module's docstring)."""
    units: list[dict[str, Any]] = []
    for num, u in enumerate(view.get("units") or (), start=1):
        unit = new_unit(str(u["id"]), str(u["side"]), str(u["type"]), num, formation=str(u["formation"]))
        unit.x, unit.y, unit.facing, unit.status = int(u["x"]), int(u["y"]), int(u["facing"]), str(u["status"])
        data = unit.dump()
        if u["side"] == side and "base_morale" in u:  # its own units, in full
            data["morale"] = data["morale_mark"] = int(u["base_morale"])
            for name in _OWN_FIELDS:
                if u.get(name) is not None:
                    data[name] = u[name]
            data["busy"] = u.get("busy")
            data["targets"] = [list(t) for t in u.get("targets") or ()]
            data["halted"] = u.get("move_ended") or ""
        units.append(data)
    return BattleState.load({
        "map": view["map"], "units": units, "sides": view["sides"], "dice": Dice.from_seed(rng_seed).state,
        "turn": view["turn"], "order": view["order"], "phase": view["phase"], "melees": view.get("melees") or [],
        "reinforcements": view.get("reinforcements") or [], "turn_limit": view["turn_limit"],
        "hidden": view.get("hidden", False), "result": view.get("result"),
    })


def command(view: Mapping[str, Any], side: str, rng_seed: int, ai: BattleAI | None = None) -> Sequence[dict[str, Any]]:
    """The orders of `side`'s order phase (D-N-1), from its view; none when it is not its phase. Where the view
    carries the options query's answer for each of the side's units (`unit_options`, issue 14: what the room
    offers that unit now, as the side sees the field), a unit's first order is kept when the answer offers it, or
    when it needs a cell that one of the side's own earlier orders frees (the answer was given before the phase's
    orders); a unit's other orders stand or fall with its first. After a unit is dropped, every later order is
    tried again on the belief, so that none planned around the dropped unit's move reaches the room to be refused."""
    if view.get("result") is not None or view.get("active") != side:
        return []
    ai = ai or BattleAI()
    start = belief(view, side, rng_seed)
    orders = ai.plan(start, side).orders
    menus = view.get("unit_options")
    if not isinstance(menus, Mapping):
        return orders
    actor = Actor(AI_PLAYER, side)
    verdict: dict[str, bool] = {}
    kept: list[dict[str, Any]] = []
    state, dropped = start, False
    for order in orders:
        uid = order.get("unit")
        if isinstance(uid, str) and isinstance(menus.get(uid), Mapping) and uid not in verdict:
            verdict[uid] = offered(menus[uid], order) or not _accepted(ai.engine, start, actor, order)
        if isinstance(uid, str) and not verdict.get(uid, True):
            dropped = True
            continue
        after = _accepted(ai.engine, state, actor, order)
        if after is None:
            if dropped:
                continue
            after = state  # the plan was made on this belief: keep the AI's order as planned
        state = after
        kept.append(order)
    return kept


def _accepted(engine: BattleEngine, state: BattleState, actor: Actor, order: Mapping[str, Any]) -> BattleState | None:
    """The belief after the order, or None when the engine refuses it there."""
    try:
        return engine.apply(state, actor, dict(order))[0]
    except RuleError:
        return None


def offered(menu: Mapping[str, Any], order: Mapping[str, Any]) -> bool:
    """Whether the options query's answer for a unit (server/napoleonic/battle/options.py) offers this order:
    a move to a cell it lists, a wheel of its degrees, a formation (or limbering) it lists, round-shot targets
    among its targets, a charge when it allows one; other kinds unless the answer refuses that kind outright."""
    if not menu.get("active", True):
        return False
    kind = order.get("type")
    if kind == "move":
        path = list(order.get("path") or [])
        return bool(path) and any(list(m.get("to") or ()) == list(path[-1]) for m in menu.get("moves") or ())
    if kind == "wheel":
        return any(w.get("degrees") == order.get("degrees") for w in menu.get("wheels") or ())
    if kind in ("formation", "limber", "unlimber"):
        want = {"limber": "limbered", "unlimber": "deployed"}.get(str(kind)) or order.get("formation")
        return any(f.get("formation") == want for f in menu.get("formations") or ())
    if kind == "targets":
        known = {str(t.get("unit")) for t in menu.get("targets") or ()}
        return all(str(t.get("unit")) in known for t in order.get("targets") or ())
    if kind == "charge":
        return bool(menu.get("charge"))
    if kind == "about_face":
        return menu.get("about_face") is not None
    return not any(r.get("order") == kind for r in menu.get("refused") or ())


class CommandedBattleEngine(BattleEngine):
    """The battle engine with its AI commander (the registry's "battle": the AI plans with the engine's own
    rules, so it is the engine's subclass rather than a method the engine's module would import)."""

    def commander(self, view: Mapping[str, Any], team: str, rng_seed: int) -> Sequence[Mapping[str, Any]] | None:
        return command(view, team, rng_seed, BattleAI(self))
