"""The Continental AI's turn as its own orders leave it (issue 18): each order is chosen against what the team's
earlier orders of the same turn did — the cells its counters hold (C-4.12), the time each has used (C-4.3,
C-4.3bis) and where each faces (C-9.8). Everything is read from the team's view: its own counters in full, the
enemy counters it has found, the map and the movement tables. Where the view cannot tell (which neighbouring road
cells a road links, a bridge), the planner assumes the slower way, so an order it allows is not refused for
time."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from server.continental.grid import Cell, direction, step_km, turn_angle

EPS = 1e-9
DEFILE_GROUND = frozenset({"forest", "mountains", "swamp"})
BUSY = frozenset({"regrouping", "transfer", "march"})
"""C-4.12, C-4.5, C-4.8: counters that take no orders now."""
NOT_FIGHTING = frozenset({"regrouping", "transfer", "restoring", "march"})
"""C-4.5, C-4.8, C-4.12: counters that cannot strike."""


def cell_of(v: Any) -> Cell:
    return int(v[0]), int(v[1])


class TurnPlan:
    """Bookkeeping of one team's turn, updated by each order the planner gives."""

    def __init__(self, view: Mapping[str, Any], team: str) -> None:
        m = view.get("map") or {}
        self.level = int(view.get("level") or 1)
        self.terrain: Mapping[str, Any] = m.get("terrain") or {}
        self.rivers = {cell_of(c) for c in m.get("rivers") or ()}
        self.roads = {cell_of(c) for c in m.get("roads") or ()}
        self.tracks = {cell_of(c) for c in m.get("tracks") or ()}
        tables = view.get("tables") or {}
        self.speeds: Mapping[str, Any] = tables.get("speeds_km") or {}
        self.crossing: Mapping[str, Any] = tables.get("river_crossing_turns") or {}
        self.turning: Mapping[str, Any] = tables.get("turning_turns") or {}
        self.withdrawal = float(tables.get("withdrawal_speed_l3") or 0.5)
        self.used: dict[str, float] = {}
        self.facing: dict[str, str] = {}
        self.taken: dict[Cell, str] = {}
        for u in view.get("units") or ():
            if u.get("team") != team or u.get("cell") is None:
                continue
            self.used[u["id"]] = float(u.get("used") or 0.0)
            self.facing[u["id"]] = str(u.get("facing") or "N")
            if u.get("status") != "transfer":  # C-4.5: a transfer blocks nobody (movement.blocking)
                for c in (u["cell"], u.get("second")):
                    if c is not None:
                        self.taken[cell_of(c)] = u["id"]
        for u in view.get("enemy_units") or ():
            for c in (u.get("cell"), u.get("second")):
                if c is not None:
                    self.taken[cell_of(c)] = str(u.get("id"))

    def ground(self, c: Cell) -> str:
        return str(self.terrain.get(f"{c[0]}-{c[1]}", "plain"))

    def is_defile(self, c: Cell) -> bool:
        """C-4.7: bridges, passes and tracks in forest, mountains or swamp (movement._is_defile)."""
        ground = self.ground(c)
        return (c in self.roads and (c in self.rivers or ground == "mountains")) or (
            c in self.tracks and ground in DEFILE_GROUND)

    def left(self, uid: str) -> float:
        return 1.0 - self.used.get(uid, 1.0)

    def _fits(self, uid: str, cost: float) -> bool:
        """C-4.3: an action fits in what is left of the turn; one that alone takes a turn or more may begin only as
        the counter's first action (movement.move, movement.turn)."""
        used = self.used.get(uid, 1.0)
        return used + cost <= 1 + EPS or (cost > 1 - EPS and used < EPS)

    def turn_cost(self, u: Mapping[str, Any], facing: str) -> float | None:
        """C-4.3bis: the time a facing change takes here; None where it is impossible (on a river or in a
        defile; 45° steps below level 2)."""
        angle = turn_angle(self.facing[u["id"]], facing)
        if angle == 0:
            return 0.0
        here = cell_of(u["cell"])
        row = self.turning.get(str(angle))
        if (not isinstance(row, Mapping) or (angle % 90 and self.level < int(self.turning.get("min_level_45", 2)))
                or here in self.rivers or self.is_defile(here)):
            return None
        cost = row.get(self.ground(here), row.get("default"))
        return float(cost) if isinstance(cost, (int, float)) else None

    def may_turn(self, u: Mapping[str, Any], facing: str) -> bool:
        cost = self.turn_cost(u, facing)
        return cost is not None and self._fits(u["id"], cost)

    def turn(self, u: Mapping[str, Any], facing: str) -> None:
        cost = self.turn_cost(u, facing) or 0.0
        self.used[u["id"]] = min(1.0, self.used[u["id"]] + cost)
        self.facing[u["id"]] = facing

    def may_strike(self, u: Mapping[str, Any], target: Cell) -> bool:
        """C-9.8: a counter with time left strikes with its front (within 45° of the target)."""
        return (u.get("status") not in NOT_FIGHTING and self.used.get(u["id"], 1.0) < 1 - EPS
                and turn_angle(self.facing[u["id"]], direction(cell_of(u["cell"]), target)) <= 45)

    def strike(self, u: Mapping[str, Any]) -> None:
        self.used[u["id"]] = 1.0

    def step_cost(self, u: Mapping[str, Any], a: Cell, b: Cell) -> float | None:
        """C-4.3, C-T4 (D-C-2), C-4.4 [L3]: a step's time at the slower of the ways the view leaves open; None
        when the view does not show it possible."""
        arm = str(u.get("arm"))
        road = a in self.roads and b in self.roads
        if b in self.rivers:  # a road into a river cell may be a bridge or not: the slower of the two
            crossing = self.crossing.get(arm)
            bridge = (self.speeds.get("road") or {}).get(arm)
            if not isinstance(crossing, (int, float)) or (road and not isinstance(bridge, (int, float))):
                return None
            return max(float(crossing), step_km(a, b) / float(bridge)) if road and bridge else float(crossing)
        speed = (self.speeds.get(self.ground(b)) or {}).get(arm)
        if not isinstance(speed, (int, float)) or speed <= 0:
            return None
        if self.level >= 3 and turn_angle(self.facing[u["id"]], direction(a, b)) > 90:
            speed *= self.withdrawal
        return step_km(a, b) / speed

    def may_move(self, u: Mapping[str, Any], b: Cell) -> bool:
        """C-4.3, C-4.12: the step fits in the time left and ends in a cell no counter holds."""
        if u.get("status") in BUSY or u.get("wide") or float(u.get("pursuit") or 0) > EPS or b in self.taken:
            return False
        cost = self.step_cost(u, cell_of(u["cell"]), b)
        return cost is not None and self.used.get(u["id"], 1.0) < 1 - EPS and self._fits(u["id"], cost)

    def move(self, u: Mapping[str, Any], b: Cell) -> None:
        """The counter leaves its cell (unless, from level 2, entering a defile stretches it back over it,
        C-4.7) and holds the new one."""
        here = cell_of(u["cell"])
        stretched = self.level >= 2 and self.is_defile(b)
        for c in [c for c, uid in self.taken.items() if uid == u["id"] and not (stretched and c == here)]:
            del self.taken[c]
        self.taken[b] = u["id"]
        self.used[u["id"]] = min(1.0, self.used[u["id"]] + (self.step_cost(u, here, b) or 1.0))
