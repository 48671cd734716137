"""The storm's AI commander (issue 18): each side's phase planned by the battle AI on the belief its view gives
(server/napoleonic/battle/commander.py) — the storm's view is the battle's, with the fortress beside it. The storm
engine judges every order again (walls, breaches and ladders: D-N-15, N-SIEGE-13): what is refused is dropped.

- Both sides plan their paths round the wall and the forts (`CLIMB_ONLY`: D-N-15, they are entered only by the
  climb), so the stormers make for the breaches; they stay in columns (`BESIEGER`: a line is wider than a breach)
  and close with the garrison's troops (not with the fortress guns, which cannot move, N-SIEGE-11). A stormer
  whose move ends at the wall's foot sets up its ladders (N-SIEGE-13, by the engine) and climbs on a later turn:
  every besieging infantry unit is told to climb first, and the engine refuses those without ladders set up.
- The garrison holds the fortress (`GARRISON`: it fires and charges what comes within reach, never marches out)
  and mans the walls (N-SIEGE-10: +2 range; N-SIEGE-11: a wall section's guns fire only while a unit stands on it):
  an infantry unit inside the fortress with the wall right before its front rank climbs by its stairs; one beside
  the wall sidesteps along it to where the whole front rank has wall before it, and climbs the turn after.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from typing import Any

from server.core.errors import RuleError
from server.napoleonic.battle.ai import BattleAI, Doctrine
from server.napoleonic.battle.commander import belief, command
from server.napoleonic.battle.footprint import NEIGHBOURS, step_cost
from server.napoleonic.battle.state import BattleState, Unit

from .engine import SiegeEngine
from .rules import WALL_KINDS
from .walls import at_wall

CLIMB_ONLY = frozenset({"wall", "fort"})
"""D-N-15: the wall and the forts are entered only by the climb; the AI's paths go round them (the breaches)."""
GARRISON = Doctrine(hold_until_turn=10**6, hold_distance=0)
"""The garrison holds the fortress: it fires and charges what comes within reach, but never marches out."""
BESIEGER = Doctrine(deploy_distance=0, hunt_in_column=True, march_through_gaps=False, march_distance=10**6)
"""The stormers stay in attack columns: a line is wider than a breach and blocks the way in for the others, and a
march column under the fortress's guns is a target (N-INF-5)."""
SIDESTEP = 6
"""How far along the wall a garrison unit looks for a stretch to man (cells)."""


class _Walls:
    """The wall as `walls.at_wall` reads it, from the belief's map (the view's)."""

    def __init__(self, state: BattleState) -> None:
        self.map = state.map

    def is_wall(self, x: int, y: int) -> bool:
        return self.map.on_map(x, y) and self.map.kind(x, y).name in WALL_KINDS


def man_the_walls(state: BattleState, side: str) -> list[dict[str, Any]]:
    """N-SIEGE-10, N-SIEGE-11: the garrison's infantry climbs where the wall is right before its whole front rank,
    or sidesteps along the wall (facing unchanged) to the nearest place where it would be."""
    walls = _Walls(state)
    out: list[dict[str, Any]] = []
    for unit in sorted(state.field_units(side), key=lambda u: u.num):
        if unit.arm != "infantry" or unit.form.all_round or any(unit.id in k for k in state.melees):
            continue
        if any(walls.is_wall(x, y) for x, y in unit.cells):
            continue  # on the wall already
        if at_wall(walls, unit):  # type: ignore[arg-type]
            out.append({"type": "climb", "unit": unit.id})
            continue
        path = _sidestep(state, walls, unit)
        if path:
            out.append({"type": "move", "unit": unit.id, "path": [list(c) for c in path]})
    return out


def _sidestep(state: BattleState, walls: _Walls, unit: Unit) -> list[tuple[int, int]]:
    """The cheapest path (facing unchanged, within the unit's points, off the wall) to an anchor where the wall is
    right before the whole front rank; empty when there is none within reach."""
    start = (unit.x, unit.y)
    best: dict[tuple[int, int], float] = {start: 0.0}
    came: dict[tuple[int, int], tuple[int, int]] = {}
    queue: list[tuple[float, tuple[int, int]]] = [(0.0, start)]
    while queue:
        cost, here = heapq.heappop(queue)
        if cost > best[here]:
            continue
        if here != start and at_wall(walls, unit, here):  # type: ignore[arg-type]
            path = [here]
            while path[-1] in came and came[path[-1]] != start:
                path.append(came[path[-1]])
            return path[::-1]
        for dx, dy in NEIGHBOURS:
            nxt = (here[0] + dx, here[1] + dy)
            step = cost + step_cost(dx, dy)
            if step > unit.points + 1e-9 or step >= best.get(nxt, float("inf")):
                continue
            try:
                cells = state.place_check(unit, nxt[0], nxt[1], unit.facing, unit.formation)
            except RuleError:
                continue
            if any(walls.is_wall(x, y) for x, y in cells):
                continue
            best[nxt] = step
            came[nxt] = here
            heapq.heappush(queue, (step, nxt))
    return []


class CommandedSiegeEngine(SiegeEngine):
    """The storm engine with its AI commander (the registry's "siege")."""

    def commander(self, view: Mapping[str, Any], team: str, rng_seed: int) -> Sequence[Mapping[str, Any]] | None:
        besieger = (view.get("siege") or {}).get("besieger") == team
        ai = BattleAI(self.battle, BESIEGER if besieger else GARRISON, climb_only=CLIMB_ONLY)
        orders = list(command(view, team, rng_seed, ai))
        if view.get("active") != team or view.get("result") is not None:
            return orders
        if besieger:
            climbs = [{"type": "climb", "unit": u["id"]} for u in view.get("units") or ()
                      if u["side"] == team and u["type"] == "infantry" and u["status"] == "field"]
            return [*climbs, *orders]
        return [*man_the_walls(belief(view, team, rng_seed), team), *orders]
