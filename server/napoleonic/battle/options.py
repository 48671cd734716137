"""A unit's legal options now (issue 14): what the battle offers a side for one of its units, or for the army, as
plain data — the answer to the `options` request, the client's previews (client_web/src/battle/options.ts) and a
bot's or the AI's menu.

Every option is judged by the code that judges the order itself, so whatever is offered is accepted when ordered
at once (tests/napoleonic/battle/test_options.py): a wheel, an about-face, a formation change, a round-shot target,
the barrage and the army's retreat are each tried on the engine (`BattleEngine.apply`, on a copy; the refusal it
raises is the reason given); the cells a move can reach are searched step by step with the price `move` pays
(`movement.step_price`, `place_check`, the road of N-TERRAIN-6, the ground that ends a move, the first contact
that stops it, D-GEN-2, D-N-4, D-N-6, N-TERRAIN-2 … 6), from the preconditions `move` checks
(`movement.check_movable`).

In a battle with hidden information (D-N-7) the options are worked out on the field as the side sees it: enemy
units out of its sight are left off, so the answer tells nothing the view does not. An order may then still meet
an enemy the side did not see — the fog of war — and be refused as before.

Coordinates are (x, y), x east, y south; facings 0–7, 0 north, clockwise (footprint.py).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping
from typing import Any

from server.core.engine import MODERATOR, Actor
from server.core.errors import IllegalOrder, NotYourTurn, NotYourUnit, RuleError

from .artillery import MAX_TARGETS
from .command import acting_side, own_unit
from .fire import round_shot_distance
from .footprint import Cell, footprint
from .melee import touching_at
from .movement import (
    ABOUT_FACE_COST,
    EPS,
    ROAD_BONUS,
    about_face_target,
    check_movable,
    entered_halting_ground,
    formation_target,
    front_top,
    on_road,
    road_move,
    step_price,
    terrain_factors,
    wheel_target,
)
from .orders import MAX_PATH
from .state import BattleState, Unit
from .units import ARTILLERY, CAVALRY, change_cost
from .view import sees

OPTIONS_PLAYER = "options"
"""The player name of the trial orders (they are never logged)."""
WHEELS = (-90, -45, 45, 90)


def side_of(state: BattleState, viewer: str) -> str | None:
    """The side a viewer class gives orders for: its team's, or for the moderator the side in its phase."""
    if viewer == MODERATOR:
        return state.active_side
    if viewer.startswith("team:") and viewer[5:] in state.sides:
        return viewer[5:]
    return None


def refusal(order: str, err: RuleError, prefix: str = "") -> dict[str, Any]:
    return {"order": order, "code": err.code, "rule": err.rule, "message": f"{prefix}{err.message}"}


Apply = Callable[[BattleState, Actor, Mapping[str, Any]], Any]
"""The engine's `apply`: the trial of an order (it works on a copy)."""


def options(apply: Apply, state: BattleState, viewer: str, unit_id: str | None, *,
            try_moves: bool = False) -> dict[str, Any]:
    """The options of `unit_id` (None: the army's own — its retreat) for the side `viewer` orders. A unit of
    another side is answered as not the viewer's (NotYourUnit), whether it exists or not. `try_moves`: each move
    found is tried on `apply` too, for a game whose own rules add to the battle's (the storm's walls)."""
    side = side_of(state, viewer)
    out: dict[str, Any] = {"unit": unit_id, "side": side or "", "active": False, "refused": [], "points": 0.0,
                           "moves": [], "charge": False, "leave_melee": [], "wheels": [], "about_face": None,
                           "formations": [], "targets": [], "max_targets": MAX_TARGETS, "guns": 0, "barrage": False,
                           "retreat": False}
    if side is None:
        out["refused"].append(refusal("*", NotYourTurn("this viewer gives no orders here", rule="D-N-1")))
        return out
    actor = Actor(OPTIONS_PLAYER, side, moderator=viewer == MODERATOR)
    try:
        acting_side(state, actor)
    except RuleError as err:
        out["refused"].append(refusal("*", err))
        return out
    known = known_field(state, side)
    out["active"] = True

    def trial(order: dict[str, Any]) -> RuleError | None:
        try:
            apply(known, actor, order)
        except RuleError as err:
            return err
        return None

    if unit_id is None:
        why = trial({"type": "retreat"})
        out["retreat"] = why is None
        if why is not None:
            out["refused"].append(refusal("retreat", why))
        return out
    try:
        if unit_id not in known.units or known.units[unit_id].side != side:
            raise NotYourUnit(f"no unit {unit_id!r} of {side}", rule="D-N-1", details={"unit": unit_id})
        unit = own_unit(known, side, unit_id, carrying=True)
    except RuleError as err:
        out["active"] = False
        out["refused"].append(refusal("*", err))
        return out
    out["points"] = unit.points
    out["guns"] = unit.guns if unit.arm == ARTILLERY else 0
    _targets(known, unit, out, trial)
    try:
        own_unit(known, side, unit_id)
    except RuleError as err:  # D-N-10: carrying last turn's order, it takes only round-shot targets
        for order in ("move", "leave_melee", "wheel", "about_face", "formation", "barrage"):
            out["refused"].append(refusal(order, err))
        return out
    _moves(known, unit, out)
    if try_moves:
        kinds = (("moves", "move"), ("leave_melee", "leave_melee"))
        for key, kind in kinds:
            kept = [r for r in out[key] if trial({"type": kind, "unit": unit.id, "path": r["path"]}) is None]
            out[key] = kept
        out["charge"] = out["charge"] and any(r["contact"] for r in out["moves"])
    _turns(known, unit, out, trial)
    _formations(known, unit, out, trial)
    if unit.arm == ARTILLERY:
        why = trial({"type": "barrage", "unit": unit.id})
        out["barrage"] = why is None
        if why is not None:
            out["refused"].append(refusal("barrage", why))
    return out


def known_field(state: BattleState, side: str) -> BattleState:
    """The field as `side` knows it: without the enemy units it cannot see in a hidden battle (D-N-7)."""
    if not state.hidden:
        return state
    eyes = list(state.field_units(side))
    unseen = [u for u in state.field_units() if u.side != side and not sees(state, eyes, u)]
    if not unseen:
        return state
    work = state.copy()
    for u in unseen:
        work.lift(work.units[u.id])
    return work


def _targets(state: BattleState, unit: Unit, out: dict[str, Any], trial: Any) -> None:
    """N-ART-7, D-N-7: the enemies the company may take as round-shot targets, all its guns on one."""
    if unit.arm != ARTILLERY:
        out["refused"].append(refusal("targets", IllegalOrder("only artillery designates round-shot targets",
                                                              rule="N-ART-7")))
        return
    last: RuleError | None = None
    for enemy in state.field_units():
        if enemy.side == unit.side or not _visible(state, unit.side, enemy):
            continue
        if unit.form.fires and round_shot_distance(state, unit, enemy) is None:
            continue  # designate's own check (artillery.py) would refuse it: not worth a trial
        why = trial({"type": "targets", "unit": unit.id, "targets": [{"unit": enemy.id, "guns": unit.guns}]})
        if why is None:
            out["targets"].append({"unit": enemy.id, "distance": round_shot_distance(state, unit, enemy)})
        else:
            last = why
    if not out["targets"]:
        out["refused"].append(refusal("targets", last or IllegalOrder("no enemy in the company's zone at round-shot "
                                                                      "range and in sight", rule="N-ART-7")))


def _visible(state: BattleState, side: str, enemy: Unit) -> bool:
    """An enemy the side may be told of: all of them, unless the battle hides what is out of sight (D-N-7) — the
    known field has those lifted, and a lifted unit stands on no cell of the occupancy."""
    if not state.hidden:
        return True
    x, y = enemy.anchor
    return bool(state.occ[y * state.map.width + x])


def _turns(state: BattleState, unit: Unit, out: dict[str, Any], trial: Any) -> None:
    """N-INF-10, N-INF-2 … 5, N-CAV-4, N-ART-5: the wheels and the about-face, where they put the unit and at
    what cost (carried into next turn when it exceeds the points left, D-N-10)."""
    why: RuleError | None = None
    for deg in WHEELS:
        err = trial({"type": "wheel", "unit": unit.id, "degrees": deg})
        if err is not None:
            why = why or err
            continue
        x, y, facing = wheel_target(unit, deg // 45)
        cost = unit.form.wheel[abs(deg) // 45 - 1] if unit.form.wheel else 0
        out["wheels"].append({**_placing((x, y), facing, unit.formation, cost, unit.points), "degrees": deg})
    if why is not None:
        out["refused"].append(refusal("wheel", why))
    err = trial({"type": "about_face", "unit": unit.id})
    if err is None:
        x, y, facing = about_face_target(unit)
        out["about_face"] = _placing((x, y), facing, unit.formation, ABOUT_FACE_COST, unit.points)
    else:
        out["refused"].append(refusal("about_face", err))


def _formations(state: BattleState, unit: Unit, out: dict[str, Any], trial: Any) -> None:
    """N-INF-6, N-CAV-3, N-ART-3: the formations the unit may take now, each with its place and cost."""
    for name in unit.type.formations:
        if name == unit.formation:
            continue
        err = trial({"type": "formation", "unit": unit.id, "formation": name})
        if err is not None:
            out["refused"].append(refusal("formation", err, f"{name}: "))
            continue
        x, y = formation_target(unit, name)
        out["formations"].append(_placing((x, y), unit.facing, name, change_cost(unit.arm, unit.formation, name),
                                          unit.points))


def _placing(to: Cell, facing: int, formation: str, cost: float, points: float) -> dict[str, Any]:
    return {"to": [to[0], to[1]], "facing": facing, "formation": formation, "cost": cost,
            "carried": cost > points + EPS}


# --- moves ------------------------------------------------------------------------------------------------------


def _moves(state: BattleState, unit: Unit, out: dict[str, Any]) -> None:
    """D-GEN-2: the anchor cells a move (or, in melee, leaving it: N-MELEE-3, D-N-6) can reach this turn."""
    melee = [m for k, m in state.melees.items() if unit.id in k]
    try:
        check_movable(state, unit, leaving=bool(melee))
    except RuleError as err:
        out["refused"].append(refusal("leave_melee" if melee else "move", err))
        if not melee:
            return
        out["refused"].append(refusal("move", err))
        return
    if melee:
        out["refused"].append(refusal("move", IllegalOrder("a unit in melee moves only by leaving it",
                                                           rule="N-MELEE-3")))
        if any(m.since >= state.turn for m in melee):
            out["refused"].append(refusal("leave_melee", IllegalOrder(
                "a unit that entered melee can leave it only on the next turn", rule="N-MELEE-3")))
            return
        partners = {m.other(unit.id) for m in melee}
        out["leave_melee"] = reachable(state, unit, partners)
        if not out["leave_melee"]:
            out["refused"].append(refusal("leave_melee", IllegalOrder(
                "no way out of the melee: every cell in reach still touches the enemy or is taken", rule="D-N-6")))
        return
    out["refused"].append(refusal("leave_melee", IllegalOrder("the unit is not in melee", rule="N-MELEE-3")))
    out["moves"] = reachable(state, unit, set())
    out["charge"] = unit.arm == CAVALRY and any(r["contact"] for r in out["moves"])
    if not out["moves"]:
        out["refused"].append(refusal("move", IllegalOrder("no cell in reach with the points left",
                                                           rule="D-GEN-2")))
    if unit.arm != CAVALRY:
        out["refused"].append(refusal("charge", IllegalOrder("only cavalry charges", rule="N-CHARGE-1")))
    elif not out["charge"]:
        out["refused"].append(refusal("charge", IllegalOrder("no enemy within a charge's reach",
                                                             rule="N-CHARGE-1")))


def reachable(state: BattleState, unit: Unit, leaving: set[str]) -> list[dict[str, Any]]:
    """Every anchor cell the unit can move to now, by its cheapest path (points kept, then fewer steps): off the
    road and, when it may use it (N-TERRAIN-6), along the road with its +2. `leaving`: the melee partners it
    leaves — a path may not end beside them (D-N-6)."""
    best: dict[Cell, dict[str, Any]] = {}
    searches = [(False, unit.points)]
    if road_move(state, unit, ()):
        searches.append((True, unit.points + ROAD_BONUS))
    for road, available in searches:
        for reach in _search(state, unit, available, road, leaving):
            key = (reach["to"][0], reach["to"][1])
            old = best.get(key)
            if old is None or (reach["points_left"], -len(reach["path"])) > (old["points_left"], -len(old["path"])):
                best[key] = reach
    return [best[k] for k in sorted(best, key=lambda c: (c[1], c[0]))]


def _search(state: BattleState, unit: Unit, available: float, road: bool, leaving: set[str]) -> list[dict[str, Any]]:
    """Dijkstra over (anchor, climbed, descended): `move`'s price of each step (movement.step_price), the
    footprint's placement (D-N-4, N-TERRAIN-1 … 5), a stop at the first contact (D-N-6) or on ground that ends
    a move (N-SIEGE-12); a path of at most MAX_PATH cells."""
    factors = terrain_factors(state, unit)
    start = (unit.x, unit.y, False, False)
    spent: dict[tuple[int, int, bool, bool], float] = {start: 0.0}
    parent: dict[tuple[int, int, bool, bool], tuple[int, int, bool, bool]] = {}
    info: dict[tuple[int, int, bool, bool], tuple[list[str], str | None, int]] = {start: ([], None, 0)}
    heap: list[tuple[float, int, tuple[int, int, bool, bool]]] = [(0.0, 0, start)]
    results: dict[Cell, tuple[float, tuple[int, int, bool, bool]]] = {}
    placed: dict[Cell, tuple[Cell, ...] | None] = {}  # each anchor's footprint, or None where it cannot stand
    m = state.map
    while heap:
        cost, steps, node = heapq.heappop(heap)
        if cost > spent.get(node, float("inf")) + EPS:
            continue
        x, y, climbed, descended = node
        contact, halts, _ = info[node]
        if node != start:
            old = results.get((x, y))
            if old is None or cost < old[0] - EPS:
                results[(x, y)] = (cost, node)
            if contact or halts:
                continue  # the move stops here
        if steps >= MAX_PATH:
            continue
        before = footprint((x, y), unit.form.width, unit.form.depth, unit.facing)
        before_set = set(before)
        top = front_top(state, unit, x, y)
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                if not dx and not dy:
                    continue
                cx, cy = x + dx, y + dy
                if not m.on_map(cx, cy) or (road and not on_road(state, unit, cx, cy)):
                    continue
                if (cx, cy) not in placed:
                    try:
                        placed[(cx, cy)] = state.place_check(unit, cx, cy, unit.facing, unit.formation)
                    except RuleError:
                        placed[(cx, cy)] = None
                cells = placed[(cx, cy)]
                if cells is None:
                    continue
                price, _, up, down = step_price(state, unit, factors, before_set, cells, (cx, cy), (dx, dy),
                                                (top, climbed, descended))
                total = cost + price
                if total > available + EPS:
                    continue
                nxt = (cx, cy, up, down)
                if total < spent.get(nxt, float("inf")) - EPS:
                    touch = touching_at(state, unit, cells)
                    if leaving and leaving & set(touch):
                        continue  # still beside the enemy it leaves: the order is refused (D-N-6)
                    halt = entered_halting_ground(state, tuple(before), cells)
                    spent[nxt] = total
                    parent[nxt] = node
                    info[nxt] = (touch, halt.rule if halt is not None else None, steps + 1)
                    heapq.heappush(heap, (total, steps + 1, nxt))
    out = []
    for (x, y), (cost, node) in results.items():
        path: list[list[int]] = []
        n = node
        while n != start:
            path.append([n[0], n[1]])
            n = parent[n]
        path.reverse()
        contact, halts, _ = info[node]
        on = road or road_move(state, unit, tuple((c[0], c[1]) for c in path))  # all along the road anyway
        left = unit.points + (ROAD_BONUS if on else 0) - cost
        out.append({"to": [x, y], "path": path, "cost": cost, "points_left": max(0.0, min(unit.points, left)),
                    "road": on, "contact": contact, "halts": halts})
    return out


