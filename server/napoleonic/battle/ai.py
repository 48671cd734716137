"""The battle AI: commands either side with the orders a player would send (issue 3; rules N-INF, N-CAV, N-ART,
N-CHARGE, N-MORALE, N-VICTORY; decisions D-N-1, D-N-2, D-N-6, D-N-9, D-N-10).

`BattleAI.plan(state, side)` returns the orders of one order phase. Each order is tried on the engine
(`BattleEngine.apply`, which works on a copy) and kept only when the engine accepts it, so replaying the plan from
the same state through the engine — as a room does when the moderator hands an absent player's side to the AI —
never meets a rule error. The AI needs no dice: it is a deterministic function of the state (units are taken in
order of their numbers, ties broken by unit number). In a hidden-information battle it looks only at the enemy
units its side can see (D-N-7).

What it does, unit by unit (the thresholds are the `Doctrine`):
- army: gives the retreat order when broken — half its units gone and its strength under 60% of the enemy's
  (N-VICTORY-2) — or, for a side that retreats with battle, at once while the order is free of morale unless it is
  the stronger (D-N-13); after the order its units break off melee and march for their own edge (D-N-2);
- any unit whose effective morale is down to 2 (a dispersal roll away, N-MORALE-5) falls back towards its own edge,
  leaving melee when the rules let it (N-MELEE-3);
- infantry forms square when enemy cavalry could reach it next turn (N-INF-4, D-N-9), and leaves the square when
  the threat is gone; advancing, it comes on in attack column, deploys into line within 10 cells, halts at close
  musket range (N-FIRE-2) and fires; it assaults (moves into contact) a wavering or worn-down enemy, or guns, when
  its melee value is no lower (N-MELEE-1, N-ART-1); the defender holds its ground, facing the nearest enemy, until
  turn 12 or until the enemy comes within 12 cells; the attacker, which must clear the field (D-N-2), hunts: it
  keeps attack column and assaults what it reaches, and at 3:1 runs cavalry down instead of forming square;
- cavalry charges (N-CHARGE-1) when its melee value with the charge bonus beats the target's by 1 (never a square,
  always guns), wheeling first to face the target; otherwise it waits 8–9 cells off the enemy, ready to charge;
- artillery designates round shot at the nearest enemy it can see in its zone, all guns on one target
  (N-ART-7, D-N-7), wheels towards enemies it cannot bear on, and (horse artillery, or any gun with no enemy in
  reach) limbers, comes closer and unlimbers.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from server.core.engine import Actor, Event
from server.core.errors import RuleError

from .engine import BattleEngine
from .fire import in_melee, reach, round_shot_distance
from .footprint import (
    DIRECTIONS,
    NEIGHBOURS,
    Cell,
    centre_of,
    distance,
    footprint_offsets,
    front_centre,
    sector,
    step_cost,
)
from .formation import effective_morale, melee_value
from .melee import would_touch_enemy
from .movement import formation_target, terrain_factors, wheel_target
from .paths import clearance_of, factors_for, ground_distance, ground_field, open_line
from .state import DESTROYED, DISPERSED, RESERVE, SURRENDERED, BattleState, Unit
from .terrain import BY_NAME
from .units import ARTILLERY, CAVALRY, INFANTRY
from .view import sees

AI_PLAYER = "ai"
Order = dict[str, Any]
Point = tuple[float, float]
EDGE_AHEAD = {"south": (0.0, 1.0), "north": (0.0, -1.0), "east": (1.0, 0.0), "west": (-1.0, 0.0)}
"""The direction of a side's own map edge (where it falls back to)."""


@dataclass(frozen=True, slots=True)
class Doctrine:
    """The AI's judgement as numbers (our choices; docs/battle-maps-and-ai.md)."""

    deploy_distance: int = 10
    """Infantry forms line (from attack column) when the nearest enemy is this close (cells)."""
    fire_distance: int = 3
    """Infantry halts this far from the enemy: the close range of N-FIRE-2 (half firepower)."""
    square_margin: int = 1
    """Enemy cavalry threatens infantry within its speed plus this margin (it could charge next turn); cavalry
    keeps two cells more than that away from squares, so that they have to unform."""
    charge_edge: int = 1
    """Cavalry charges when its melee value plus charge bonus beats the target's by this much (N-MELEE-1)."""
    wavering_morale: int = 2
    """At or below this effective morale a unit falls back (N-MORALE-5: the first dispersal roll is at 2)."""
    weak_tolerance: int = 3
    """An enemy down to this loss tolerance is worn down: infantry assaults it."""
    broken_share: float = 0.5
    broken_ratio: float = 0.6
    """The army retreats when this share of its units is gone and its strength is below this share of the
    enemy's (N-VICTORY-2)."""
    hold_until_turn: int = 12
    hold_distance: int = 12
    """The defender holds its ground until this turn, or until an enemy comes this close."""
    cavalry_standoff: int = 8
    """Cavalry that does not charge waits this far from the enemy (outside musket range, inside charge reach)."""
    hunt_ratio: float = 1.2
    hunt_turns_left: int = 40
    """The attacker closes with every enemy once its strength is this many times the enemy's, or when this many
    turns are left (D-N-2: at the turn limit the defender holds the field). Measured: from the first turn (40 of
    40) wins more than from turn 12 (28 left): 32/40 against 30/40 battles as the attacker."""
    late_turns_left: int = 28
    """With this many turns left, hunting infantry stops forming square against cavalry that is merely near."""
    hunt_in_column: bool = True
    """Whether hunting infantry stays in attack column rather than deploying into line: its melee value is then 4,
    not 2 (N-INF-2, N-MELEE-1), so it may assault columns and squares, which a line may not, and loses a third of
    what it inflicts on a line. Measured on bench/ai.py's 50 battles as the attacker: more won, and sooner."""
    overwhelm_ratio: float = 3.0
    """With this many times the enemy's strength, hunting infantry forms no square: the enemy's last horsemen are
    run down rather than waited out (D-N-2: at the turn limit the defender holds the field)."""
    hunt_square_inside: int = 4
    """Hunting infantry forms square only against cavalry this many cells inside its charge reach."""
    hunt_spread: int = 8
    """Hunting units share out the enemies: each enemy already taken by a unit counts as this many cells further
    away, so that stragglers are not left to the turn limit (D-N-2)."""
    march_distance: int = 14
    """Hunting infantry this far from its quarry, with no enemy cavalry near, marches in march column (N-INF-5:
    the fastest) and forms attack column again at `deploy_distance`."""
    march_through_gaps: bool = True
    """Infantry and cavalry take march column (two wide) where the way to the enemy leads through a gap too narrow
    for their formation (a road through a marsh, a ford); not under a fortress's guns (the storm)."""



@dataclass(slots=True)
class Plan:
    """One order phase: the orders (as sent on the wire), the state after them, their events, and how many
    candidate orders the engine refused while planning (they are not in `orders`)."""

    orders: list[Order] = field(default_factory=list)
    state: BattleState | None = None
    events: list[Event] = field(default_factory=list)
    rejected: int = 0


class _Planner:
    """Tries candidate orders on the engine, keeping the ones it accepts."""

    def __init__(self, engine: BattleEngine, state: BattleState, side: str,
                 closed: frozenset[int] = frozenset()) -> None:
        self.engine = engine
        self.closed = closed
        """Terrain codes entered only by climbing (`BattleAI.climb_only`)."""
        self.state = state
        self.side = side
        self.actor = Actor(AI_PLAYER, side)
        self.plan = Plan(state=state)
        self.hunting = False
        """The attacker closes with every enemy it can reach (`BattleAI._hunting`)."""
        self.overwhelming = False
        """Hunting with `Doctrine.overwhelm_ratio` times the enemy's strength."""
        self.taken: dict[str, int] = {}
        """While hunting: how many of the side's units have already chosen each enemy as their quarry."""

    def order(self, order: Order) -> bool:
        if not _fits(self.state, order):
            return False
        try:
            state, events = self.engine.apply(self.state, self.actor, order)
        except RuleError:
            self.plan.rejected += 1
            return False
        return self._accept(state, [order], events)

    def order_then(self, first: Order, then: Callable[[BattleState], Order | None]) -> bool:
        """Two orders that stand or fall together; the second is built from the state after the first."""
        try:
            mid, first_events = self.engine.apply(self.state, self.actor, first)
            second = then(mid)
            if second is None:
                return False
            state, events = self.engine.apply(mid, self.actor, second)
        except RuleError:
            self.plan.rejected += 1
            return False
        return self._accept(state, [first, second], [*first_events, *events])

    def _accept(self, state: BattleState, orders: list[Order], events: Sequence[Event]) -> bool:
        self.state = state
        self.plan.orders += orders
        self.plan.events += events
        return True

    def unit(self, uid: str) -> Unit:
        return self.state.units[uid]


class BattleAI:
    """A general for either side. Stateless: everything it decides comes from the state it is shown."""

    def __init__(self, engine: BattleEngine | None = None, doctrine: Doctrine | None = None,
                 climb_only: frozenset[str] = frozenset()) -> None:
        """`climb_only`: names of terrain a unit may not walk onto unless it stands wholly on it already (the
        storm's wall and forts, D-N-15: entered only by the climb); its paths go round it (through breaches)."""
        self.engine = engine or BattleEngine()
        self.closed = frozenset(BY_NAME[n].code for n in climb_only if n in BY_NAME)
        self.doctrine = doctrine or Doctrine()

    # --- the phase -----------------------------------------------------------------------------------------------
    def plan(self, state: BattleState, side: str) -> Plan:
        """The orders for `side`'s order phase (D-N-1); the state is not changed."""
        p = _Planner(self.engine, state, side, self.closed)
        if state.active_side != side:
            return p.plan
        visible = self._visible_enemies(state, side)
        s = state.sides[side]
        if s.retreat_turn is None and (self._broken(state, side) or self._refuses_battle(state, side)):
            p.order({"type": "retreat"})
        retreating = p.state.sides[side].retreat_turn is not None
        p.hunting = self._hunting(state, side, visible)
        p.overwhelming = p.hunting and _strength(state, side) >= self.doctrine.overwhelm_ratio * max(
            1, _strength(state, state.enemy_of(side)))
        for uid in [u.id for u in sorted(state.field_units(side), key=lambda u: u.num)]:
            unit = p.unit(uid)
            if not unit.on_field or unit.busy is not None:
                continue
            enemies = [e for e in (p.state.units[i] for i in visible) if e.on_field]
            troops = [e for e in enemies if e.type.can_move] or enemies  # not the fortress guns (N-SIEGE-11)
            if retreating or self._wavering(unit):
                self._fall_back(p, unit)
            elif unit.arm == INFANTRY:
                self._infantry(p, unit, troops)
            elif unit.arm == CAVALRY:
                self._cavalry(p, unit, troops)
            else:
                self._artillery(p, unit, enemies)
        p.plan.state = p.state
        return p.plan

    def play_phase(self, state: BattleState, side: str) -> tuple[BattleState, list[Event], list[Order]]:
        """Plan and carry out `side`'s phase, then end it (the engine resolves the turn after the second phase)."""
        plan = self.plan(state, side)
        assert plan.state is not None
        after, events = self.engine.end_turn(plan.state, side, flagged=False)
        return after, [*plan.events, *events], plan.orders

    # --- judgement -----------------------------------------------------------------------------------------------
    def _visible_enemies(self, state: BattleState, side: str) -> list[str]:
        enemies = [u for u in state.field_units() if u.side != side]
        if state.hidden:
            eyes = list(state.field_units(side))
            enemies = [e for e in enemies if sees(state, eyes, e)]
        return [e.id for e in sorted(enemies, key=lambda u: u.num)]

    def _broken(self, state: BattleState, side: str) -> bool:
        """N-VICTORY-2: the army is beaten when half its units are gone and it is much the weaker."""
        d = self.doctrine
        mine = [u for u in state.units.values() if u.side == side and u.status != RESERVE]
        gone = sum(u.status in (DISPERSED, SURRENDERED, DESTROYED) for u in mine)
        if not mine or gone < d.broken_share * len(mine):
            return False
        return _strength(state, side) < d.broken_ratio * _strength(state, state.enemy_of(side))

    def _refuses_battle(self, state: BattleState, side: str) -> bool:
        """D-N-13: a side that retreats with battle did not want this battle; while its retreat order is free of
        morale it takes it, unless it finds itself the stronger."""
        s = state.sides[side]
        return s.with_battle and state.turn <= s.retreat_free_turns \
            and _strength(state, side) <= _strength(state, state.enemy_of(side))

    def _hunting(self, state: BattleState, side: str, visible: list[str]) -> bool:
        """D-N-2: the attacker wins only by leaving the enemy nothing on the field (or making it retreat) — at
        the turn limit the defender holds the field. So once it is much the stronger, or time runs short, it
        closes with every enemy it sees instead of trading fire."""
        d = self.doctrine
        if not state.sides[side].attacker or not visible:
            return False
        enemy = max(1, _strength(state, state.enemy_of(side)))
        return (_strength(state, side) >= d.hunt_ratio * enemy
                or state.turn >= state.turn_limit - d.hunt_turns_left)

    def _wavering(self, unit: Unit) -> bool:
        return unit.arm != ARTILLERY and effective_morale(unit) <= self.doctrine.wavering_morale

    # --- the arms ------------------------------------------------------------------------------------------------
    def _infantry(self, p: _Planner, unit: Unit, enemies: list[Unit]) -> None:
        d = self.doctrine
        if in_melee(p.state, unit) or not enemies:
            return
        uid = unit.id
        threat = not p.overwhelming and any(self._threatens(p.state, e, unit) for e in enemies)
        late = p.state.turn >= p.state.turn_limit - d.late_turns_left
        if threat and p.hunting and late:  # time runs short: a square only against a charge that can come at once
            threat = any(self._threatens(p.state, e, unit, margin=-d.hunt_square_inside) for e in enemies)
        if threat:
            if p.hunting and self._run_down(p, unit, enemies):
                return
            if unit.formation != "square":
                p.order({"type": "formation", "unit": uid, "formation": "square"})
            return
        target = self._quarry(p, unit, enemies)
        gap = _gap(unit, target)
        advancing = self._advancing(p.state, unit, enemies)
        if unit.formation == "square":
            column = gap > d.deploy_distance or (p.hunting and d.hunt_in_column)
            form = "attack_column" if advancing and column else "line"
            if not p.order({"type": "formation", "unit": uid, "formation": form}):
                p.order({"type": "formation", "unit": uid, "formation": "attack_column"})
            unit = p.unit(uid)
        assault = self._assault_favoured(unit, target) or (
            p.hunting and melee_value(unit) + 1 >= melee_value(target) and not self._wavering(unit))
        if assault and gap <= unit.points + 1 and _walk(p, unit, _centre(target), 0.0, contact=True):
            return
        if not advancing:
            self._face(p, unit, _centre(target))
            return
        column = gap > d.deploy_distance or (p.hunting and d.hunt_in_column)  # hunting: faster, and for melee
        near_cavalry = any(e.arm == CAVALRY and _gap(unit, e) <= e.type.speed + d.deploy_distance for e in enemies)
        narrows = d.march_through_gaps and gap > d.deploy_distance and _narrows(p.state, unit, _centre(target), 4,
                                                                                 p.closed)
        goal = _centre(target)
        if not near_cavalry and ((p.hunting and late and gap > d.march_distance) or narrows):
            if unit.formation != "march_column" and not self._reform(p, unit, "march_column", goal) \
                    and unit.formation == "line":
                self._reform(p, unit, "attack_column", goal)  # no room: narrower
        elif column and unit.formation in ("line", "march_column"):
            self._reform(p, unit, "attack_column", goal)
        elif not column and unit.formation in ("attack_column", "march_column"):
            p.order({"type": "formation", "unit": uid, "formation": "line"})
        unit = p.unit(uid)
        self._face(p, unit, _centre(target))
        unit = p.unit(uid)
        if gap > d.fire_distance or p.hunting:
            stop = (1.0 if p.hunting else d.fire_distance) + target.form.depth / 2 + 0.5
            _walk(p, unit, _centre(target), stop, contact=False)

    def _reform(self, p: _Planner, unit: Unit, formation: str, goal: Point) -> bool:
        """A formation change (N-INF-6); where the new footprint does not fit — a friend close behind, as in the
        deployment zone's rows (D-N-4) — after a step or two towards `goal` instead."""
        change = {"type": "formation", "unit": unit.id, "formation": formation}
        return p.order(change) or self._room_then(p, unit, change, goal)

    def _room_then(self, p: _Planner, unit: Unit, order: Order, goal: Point) -> bool:
        """An order whose new footprint does not fit where the unit stands (D-N-4), given after a step or two
        towards `goal`, or else back towards its own edge; nothing when none fits."""
        for towards in (goal, _rear(p.state, unit)):
            path = _plan_path(p.state, unit, towards, 0.0, False, p.closed)
            for steps in (1, 2):
                if len(path) >= steps and p.order_then(
                        {"type": "move", "unit": unit.id, "path": _cells(path[:steps])}, lambda s: order):
                    return True
        return False

    def _run_down(self, p: _Planner, unit: Unit, enemies: list[Unit]) -> bool:
        """Hunting infantry assaults enemy cavalry it can reach this turn (in attack column, out of a square
        first) when its melee value is no lower (N-MELEE-1): horsemen that stand within its reach are met with
        the bayonet rather than waited out in square (D-N-2). Kept only when the move ends in contact."""
        uid = unit.id
        for cav in sorted((e for e in enemies if e.arm == CAVALRY), key=lambda e: (_gap(unit, e), e.num)):
            if _gap(unit, cav) > unit.points + 1:
                break
            q = _Planner(self.engine, p.state, p.side, p.closed)
            if unit.formation == "square" and not q.order(
                    {"type": "formation", "unit": uid, "formation": "attack_column"}):
                return False
            if melee_value(q.unit(uid)) + 1 < melee_value(cav):
                continue
            if _walk(q, q.unit(uid), _centre(cav), 0.0, contact=True) and in_melee(q.state, q.unit(uid)):
                return p._accept(q.state, q.plan.orders, q.plan.events)
        return False

    def _quarry(self, p: _Planner, unit: Unit, enemies: list[Unit]) -> Unit:
        """The enemy the unit goes for: the nearest; while hunting, the nearest once those already chosen by
        other units count `hunt_spread` cells further per unit, so the enemies are shared out."""
        if not p.hunting:
            return _nearest(unit, enemies)
        spread = self.doctrine.hunt_spread
        target = min(enemies, key=lambda e: (_gap(unit, e) + spread * p.taken.get(e.id, 0), e.num))
        p.taken[target.id] = p.taken.get(target.id, 0) + 1
        return target

    def _threatens(self, state: BattleState, cavalry: Unit, unit: Unit, margin: int | None = None) -> bool:
        """Enemy cavalry that could charge `unit` in its next phase: able to charge (N-CAV-5), not held in melee,
        not wavering, and within its speed plus the margin."""
        if cavalry.arm != CAVALRY or cavalry.form.no_charge or self._wavering(cavalry) or in_melee(state, cavalry):
            return False
        return _gap(unit, cavalry) <= cavalry.type.speed + (self.doctrine.square_margin if margin is None else margin)

    def _advancing(self, state: BattleState, unit: Unit, enemies: list[Unit]) -> bool:
        d = self.doctrine
        if state.sides[unit.side].attacker or state.turn > d.hold_until_turn:
            return True
        return any(_gap(unit, e) <= d.hold_distance for e in enemies)

    def _assault_favoured(self, unit: Unit, target: Unit) -> bool:
        """N-ART-1: guns in contact are taken; N-MELEE-1: otherwise only a worn-down or wavering enemy whose melee
        value is no higher."""
        if target.arm == ARTILLERY:
            return True
        if target.form.all_round or melee_value(unit) < melee_value(target):
            return False
        return target.loss_tolerance <= self.doctrine.weak_tolerance or self._wavering(target)

    def _cavalry(self, p: _Planner, unit: Unit, enemies: list[Unit]) -> None:
        d = self.doctrine
        uid = unit.id
        if in_melee(p.state, unit) or not enemies:
            return
        if unit.formation == "march_column" and min(_gap(unit, e) for e in enemies) <= unit.type.speed + 4:
            p.order({"type": "formation", "unit": uid, "formation": "attack_column"})
            unit = p.unit(uid)
        reach_cells = unit.points + 2
        for target in sorted(enemies, key=lambda e: (_gap(unit, e), e.num)):
            if _gap(unit, target) > reach_cells:
                break
            favoured = self._charge_favoured(p.state, unit, target) or (
                p.hunting and not target.form.all_round and not self._wavering(unit))
            if favoured and self._charge(p, unit, target):
                return
        squares = [e for e in enemies if e.form.all_round and _gap(unit, e) <= unit.type.speed + d.square_margin + 2]
        hunted = [e for e in enemies if not e.form.all_round and _gap(unit, e) <= unit.points + 1]
        others = [e for e in enemies if not e.form.all_round]
        if squares and p.hunting and not hunted and not others:
            if min(_gap(unit, e) for e in squares) <= d.fire_distance + 4:  # out of their muskets' reach, and wait
                path = _path_towards(p.state, unit, _rear(p.state, unit), 3, p.closed)
                if path:
                    p.order({"type": "move", "unit": uid, "path": _cells(path)})
            return
        if squares and not p.hunting:
            self._withdraw(p, unit)  # squares cannot be broken: stand off so that they must unform (N-INF-4)
            return
        if not self._advancing(p.state, unit, enemies):
            return
        prey = others or enemies
        nearest = min(_gap(unit, e) for e in enemies)
        far = d.march_through_gaps and nearest > unit.type.speed + 4
        if far and _narrows(p.state, unit, _centre(_nearest(unit, prey)), unit.form.width, p.closed):
            if unit.formation != "march_column":  # through the gap in march column (N-CAV-4), re-formed later
                p.order({"type": "formation", "unit": uid, "formation": "march_column"})
            target = _nearest(unit, prey)
            self._face(p, p.unit(uid), _centre(target))
            _walk(p, p.unit(uid), _centre(target), unit.type.speed + target.form.depth / 2, contact=False)
            return
        if unit.formation == "march_column":
            p.order({"type": "formation", "unit": uid, "formation": "attack_column"})
            unit = p.unit(uid)
        target = self._quarry(p, unit, prey)
        if p.hunting and not target.form.all_round and not self._wavering(unit):
            if _gap(unit, target) <= unit.points + 1 and _walk(p, unit, _centre(target), 0.0, contact=True):
                return  # no room for a charge: into contact all the same (N-MELEE-1)
            self._face(p, unit, _centre(target))
            _walk(p, p.unit(uid), _centre(target), 1.0 + target.form.depth / 2, contact=False)
            return
        standoff = d.cavalry_standoff
        if _gap(unit, target) > standoff:
            self._face(p, unit, _centre(target))
            _walk(p, p.unit(uid), _centre(target), standoff + target.form.depth / 2 + 1, contact=False)

    def _charge_favoured(self, state: BattleState, unit: Unit, target: Unit) -> bool:
        """N-CHARGE-1, N-MELEE-1: own melee value with the charge bonus against the target's; guns are always worth
        it (N-ART-1), a square never (N-INF-4)."""
        if target.arm == ARTILLERY:
            return True
        if target.form.all_round:
            return False
        bonus = 0 if any(state.map.kind(x, y).no_charge for x, y in target.cells) else unit.type.charge
        return melee_value(unit) + bonus - melee_value(target) >= self.doctrine.charge_edge

    def _charge(self, p: _Planner, unit: Unit, target: Unit) -> bool:
        """Wheel to face the target if needed, then ride straight at it (N-CHARGE-1: ≥4 cells in a line); the
        wheel is kept only if the charge can follow."""
        uid = unit.id
        want = _facing_to(front_centre(unit.anchor, unit.form.width, unit.facing), _centre(target))
        turn = (want - unit.facing) % 8
        if turn in (3, 4, 5):
            return False
        if turn:
            wheel = {"type": "wheel", "unit": uid, "degrees": 45 * (turn if turn <= 2 else turn - 8)}
            return p.order_then(wheel, lambda s: _charge_order(s, s.units[uid], s.units[target.id]))
        order = _charge_order(p.state, unit, target)
        return order is not None and p.order(order)

    def _artillery(self, p: _Planner, unit: Unit, enemies: list[Unit]) -> None:
        uid = unit.id
        if not enemies:
            return
        target = _nearest(unit, enemies)
        gap = _gap(unit, target)
        rng = reach(p.state, unit)
        if unit.formation == "limbered":
            if gap <= rng - 4 and self._unlimber(p, unit, target):
                return
            stop = max(7, min(rng - 6, gap - 4)) + target.form.depth / 2  # closer, at least out of canister
            _walk(p, unit, _centre(target), stop, contact=False)
            unit = p.unit(uid)
            if _gap(unit, target) <= rng - 4 and unit.points > 0:
                self._unlimber(p, unit, target)
            return
        seen = sorted(((dist, e.num, e) for e in enemies
                       if (dist := round_shot_distance(p.state, unit, e)) is not None), key=lambda t: t[:2])
        close = any(_gap(unit, e) <= 5 for e in enemies)
        if seen:
            best = seen[0][2]
            want = ((best.id, unit.guns),)
            if unit.targets != want and unit.guns > 0:
                p.order({"type": "targets", "unit": uid, "targets": [{"unit": best.id, "guns": unit.guns}]})
            return
        if close:
            return  # canister (N-ART-6) needs no orders
        if gap <= rng and not (p.hunting and gap > rng // 2):
            self._face(p, unit, _centre(target))
        elif unit.kind == "horse_artillery" or self._advancing(p.state, unit, enemies):
            p.order({"type": "limber", "unit": uid})  # nothing in sight to fire at: closer

    def _unlimber(self, p: _Planner, unit: Unit, target: Unit) -> bool:
        """Face the target and unlimber (N-ART-3) — only where the deployed guns would have an enemy in their zone
        at round-shot range (N-ART-7, D-N-7: not behind a wood); otherwise the guns stay limbered and move on."""
        q = _Planner(self.engine, p.state, p.side, p.closed)
        self._face(q, unit, _centre(target))
        if not q.order({"type": "unlimber", "unit": unit.id}):
            return False
        gun = q.unit(unit.id)
        if not any(e.side != p.side and round_shot_distance(q.state, gun, e) is not None
                   for e in q.state.field_units()):
            return False
        return p._accept(q.state, q.plan.orders, q.plan.events)

    def _face(self, p: _Planner, unit: Unit, point: Point) -> None:
        """Turn towards `point` when it is outside the front sector (D-N-5): a wheel of 45° or 90°, or an
        about-face when it is behind (N-INF-10)."""
        form = unit.form
        if form.all_round or form.wheel is None:
            return
        if sector(_centre(unit), unit.facing, point) == "front":
            return
        want = _facing_to(_centre(unit), point)
        turn = (want - unit.facing) % 8
        if turn in (3, 4, 5):
            if form.about_face:
                p.order({"type": "about_face", "unit": unit.id})
            return
        degrees = 45 * (turn if turn <= 2 else turn - 8)
        wheels = [{"type": "wheel", "unit": unit.id, "degrees": d}
                  for d in (degrees, degrees // 2) if d and (d == degrees or abs(degrees) == 90)]
        if any(p.order(w) for w in wheels):
            return
        for w in wheels if p.hunting else ():  # no room to wheel here (a river bank, a friend): a step first
            if self._room_then(p, unit, w, point):
                return

    def _withdraw(self, p: _Planner, unit: Unit) -> None:
        _walk(p, unit, _rear(p.state, unit), 0.0, contact=False)

    def _fall_back(self, p: _Planner, unit: Unit) -> None:
        """A wavering unit, or the army under a retreat order, makes for its own edge (N-VICTORY-2, D-N-2)."""
        goal = _rear(p.state, unit)
        if in_melee(p.state, unit):
            if any(m.since >= p.state.turn for k, m in p.state.melees.items() if unit.id in k):
                return  # N-MELEE-3: not on the turn the melee began
            for length in (1, 2, 3):
                path = _path_towards(p.state, unit, goal, length, p.closed)
                if path and p.order({"type": "leave_melee", "unit": unit.id, "path": _cells(path)}):
                    return
            return
        if unit.formation == "square":
            p.order({"type": "formation", "unit": unit.id, "formation": "attack_column"})
            unit = p.unit(unit.id)
        if unit.arm == ARTILLERY and unit.formation == "deployed":
            if not p.order({"type": "limber", "unit": unit.id}):
                return
            unit = p.unit(unit.id)
        self._withdraw(p, unit)


# --- geometry and paths ------------------------------------------------------------------------------------------
def _centre(unit: Unit) -> Point:
    return centre_of(unit.cells)


def _rear(state: BattleState, unit: Unit) -> Point:
    """A point far behind the unit, towards its own edge."""
    back = EDGE_AHEAD[state.sides[unit.side].edge]
    cx, cy = _centre(unit)
    return cx + back[0] * 80, cy + back[1] * 80


@cache
def _box_offsets(width: int, depth: int, facing: int) -> tuple[int, int, int, int]:
    cells = footprint_offsets(width, depth, facing)
    xs = [c[0] for c in cells]
    ys = [c[1] for c in cells]
    return min(xs), max(xs), min(ys), max(ys)


def _box(u: Unit) -> tuple[int, int, int, int]:
    form = u.form
    x0, x1, y0, y1 = _box_offsets(form.width, form.depth, u.facing)
    return u.x + x0, u.x + x1, u.y + y0, u.y + y1


def _gap(a: Unit, b: Unit) -> int:
    """Distance (D-GEN-2) between the nearest cells of two footprints, from their bounding boxes (fast)."""
    ax0, ax1, ay0, ay1 = _box(a)
    bx0, bx1, by0, by1 = _box(b)
    return distance((0, 0), (max(0, bx0 - ax1, ax0 - bx1), max(0, by0 - ay1, ay0 - by1)))


def _nearest(unit: Unit, enemies: list[Unit]) -> Unit:
    return min(enemies, key=lambda e: (_gap(unit, e), e.num))


def _facing_to(src: Point, dst: Point) -> int:
    angle = math.degrees(math.atan2(dst[0] - src[0], -(dst[1] - src[1]))) % 360
    return int((angle + 22.5) // 45) % 8


def _cells(path: list[Cell]) -> list[list[int]]:
    return [[x, y] for x, y in path]


def _step_ok(state: BattleState, unit: Unit, x: int, y: int,
             closed: frozenset[int] = frozenset()) -> tuple[Cell, ...] | None:
    try:
        cells = state.place_check(unit, x, y, unit.facing, unit.formation)
    except RuleError:
        return None
    if closed and not _wholly_on(state, unit.cells, closed) and not all(
            c in unit.cells for c in cells if state.map.cover[c[1] * state.map.width + c[0]] in closed):
        return None  # D-N-15: onto the wall only by climbing it
    return cells


def _wholly_on(state: BattleState, cells: Sequence[Cell], closed: frozenset[int]) -> bool:
    w, cover = state.map.width, state.map.cover
    return bool(cells) and all(cover[y * w + x] in closed for x, y in cells)


def _fits(state: BattleState, order: Order) -> bool:
    """A cheap look before asking the engine: does the unit's new footprint after a wheel or a formation change
    fit (D-N-4, N-TERRAIN-1/5)? The targets come from the engine itself (movement.wheel_target,
    movement.formation_target), so the pre-check matches what the engine will try."""
    kind = order["type"]
    if kind not in ("wheel", "formation", "limber", "unlimber"):
        return True
    unit = state.units[order["unit"]]
    if kind == "wheel":
        x, y, facing = wheel_target(unit, int(order["degrees"]) // 45)
        formation = unit.formation
    else:
        formation = {"limber": "limbered", "unlimber": "deployed"}.get(kind) or str(order["formation"])
        if formation not in unit.type.formations or formation == unit.formation:
            return False
        facing = unit.facing
        x, y = formation_target(unit, formation)
    try:
        state.place_check(unit, x, y, facing, formation)
    except RuleError:
        return False
    return True


def _budget(state: BattleState, unit: Unit) -> Callable[[int, int, tuple[Cell, ...]], float]:
    """Cost of a step onto `cells` (D-GEN-2, N-TERRAIN-2/3/5); climbing is charged its 1 point (N-TERRAIN-4)
    once, and descending is not credited, so the estimate never falls short of what the engine charges."""
    factors = terrain_factors(state, unit)
    cover, elev, w = state.map.cover, state.map.elevation, state.map.width
    width = unit.form.width
    top0 = max(elev[y * w + x] for x, y in unit.cells[:width])
    climbed: list[bool] = []

    def cost(dx: int, dy: int, cells: tuple[Cell, ...]) -> float:
        c = step_cost(dx, dy) * max(factors[cover[y * w + x]] for x, y in cells)
        if not climbed and max(elev[y * w + x] for x, y in cells[:width]) > top0:
            climbed.append(True)
            c += 1
        return c

    return cost


def _walk(p: _Planner, unit: Unit, goal: Point, stop: float, *, contact: bool) -> bool:
    """Move the unit (facing unchanged) towards `goal` until its front centre is within `stop` of it, as far as
    its points go; with `contact` the move may end touching an enemy (an assault). Shortens the path if the
    engine refuses it."""
    path = _plan_path(p.state, unit, goal, stop, contact, p.closed)
    while path:
        if p.order({"type": "move", "unit": unit.id, "path": _cells(path)}):
            return True
        path = path[: len(path) // 2] if len(path) > 1 else []
    return False


def _factors(state: BattleState, unit: Unit, closed: frozenset[int]) -> tuple[float, ...]:
    factors = factors_for(unit.arm, terrain_factors(state, unit))
    if closed and not _wholly_on(state, unit.cells, closed):
        factors = tuple(math.inf if code in closed else f for code, f in enumerate(factors))
    return factors


def _ground(state: BattleState, unit: Unit, goal: Point,
            closed: frozenset[int] = frozenset()) -> tuple[float, ...] | None:
    """The ground distances to `goal` for this unit (paths.py), when the goal is on the field, can be reached,
    and the straight way there is blocked; None sends the walker straight at it."""
    gx, gy = int(goal[0] + 0.5), int(goal[1] + 0.5)
    if not state.map.on_map(gx, gy):
        return None
    factors = _factors(state, unit, closed)
    if factors[state.map.cover[gy * state.map.width + gx]] == math.inf:
        return None
    fx, fy = front_centre(unit.anchor, unit.form.width, unit.facing)
    here = (int(fx + 0.5), int(fy + 0.5))
    if open_line(state.map, factors, here, (gx, gy), pad=unit.form.width // 2):
        return None
    wide = ground_field(state.map, factors, (gx, gy), clearance_of(unit.form.width))
    if wide[here[1] * state.map.width + here[0]] != math.inf:
        return wide
    return ground_field(state.map, factors, (gx, gy))


def _narrows(state: BattleState, unit: Unit, goal: Point, width: int, closed: frozenset[int] = frozenset()) -> bool:
    """Whether the way to `goal` leads through a gap too narrow for a formation `width` cells wide (a road
    through a marsh, a ford: N-TERRAIN-1/3) — a detour of over a third, or no way at all — where a march column
    (two wide) gets through."""
    gx, gy = int(goal[0] + 0.5), int(goal[1] + 0.5)
    if not state.map.on_map(gx, gy):
        return False
    factors = _factors(state, unit, closed)
    cx, cy = _centre(unit)
    here = (int(cx + 0.5), int(cy + 0.5))
    if open_line(state.map, factors, here, (gx, gy), pad=width // 2):
        return False
    i = here[1] * state.map.width + here[0]
    narrow = ground_field(state.map, factors, (gx, gy))[i]
    wide = ground_field(state.map, factors, (gx, gy), clearance_of(width))[i]
    return narrow != math.inf and wide > 1.35 * narrow + 4


def _plan_path(state: BattleState, unit: Unit, goal: Point, stop: float, contact: bool,
               closed: frozenset[int] = frozenset()) -> list[Cell]:
    """A greedy path: each step the neighbour that brings the front centre nearest the goal along the ground
    (paths.py: round rivers to their crossings, N-TERRAIN-1/2/3) among those the unit can stand on (D-N-4) and
    pay for; up to two sidesteps to get round an obstacle. It stops once the front centre is within `stop` of the
    goal in a straight line."""
    form = unit.form
    fc = front_centre(unit.anchor, form.width, unit.facing)
    off = (fc[0] - unit.x, fc[1] - unit.y)
    cost_of = _budget(state, unit)
    x, y = unit.x, unit.y
    spent = 0.0
    path: list[Cell] = []
    seen = {(x, y)}
    sidesteps = 0

    ground = _ground(state, unit, goal, closed)

    def straight(ax: int, ay: int) -> float:
        return math.hypot(ax + off[0] - goal[0], ay + off[1] - goal[1])

    def dist(ax: int, ay: int) -> float:
        if ground is None:
            return straight(ax, ay)
        d = ground_distance(ground, state.map, (ax + off[0], ay + off[1]))
        return d if d != math.inf else straight(ax, ay) + 1000.0

    while True:
        if straight(x, y) <= stop:
            break
        here = dist(x, y)
        options = sorted(NEIGHBOURS, key=lambda d: (dist(x + d[0], y + d[1]), d))
        moved = False
        for dx, dy in options:
            nx, ny = x + dx, y + dy
            there = dist(nx, ny)
            if (nx, ny) in seen or there > here + 0.5 or (there >= here - 0.01 and sidesteps >= 2):
                continue
            cells = _step_ok(state, unit, nx, ny, closed)
            if cells is None:
                continue
            cost = cost_of(dx, dy, cells)
            if spent + cost > unit.points + 1e-9:
                continue
            touching = would_touch_enemy(state, unit, cells)
            if touching and not contact:
                continue
            spent += cost
            if there >= here - 0.01:
                sidesteps += 1
            x, y = nx, ny
            seen.add((x, y))
            path.append((x, y))
            moved = True
            if touching:
                return path
            break
        if not moved:
            break
    start = dist(unit.x, unit.y)
    if contact or (straight(x, y) > stop and dist(x, y) > start - 1.0):
        around, touched = _detour(state, unit, dist, contact, closed)
        if touched or (around and dist(*around[-1]) < min(dist(x, y), start - 1.0)):
            return around
    return path


def _detour(state: BattleState, unit: Unit, dist: Callable[[int, int], float], contact: bool,
            closed: frozenset[int]) -> tuple[list[Cell], bool]:
    """Where the greedy walk stalls (friends in the way, a footprint that does not fit the next cell) or misses the
    contact it was after (its diagonal steps dear in a wood): every place the unit can reach with its points (a
    Dijkstra over its anchor, each step's footprint checked as the engine does, D-N-4, and charged its terrain's
    cost, N-TERRAIN-2/3/5, a climb's point on every rising step so as never to fall short), and the path to the
    one nearest the goal — with `contact`, to the nearest that touches an enemy, if any does; and whether it
    touches."""
    factors = terrain_factors(state, unit)
    cover, elev, w = state.map.cover, state.map.elevation, state.map.width
    width = unit.form.width
    start = (unit.x, unit.y)
    spent: dict[Cell, float] = {start: 0.0}
    came: dict[Cell, Cell] = {}
    tops: dict[Cell, int] = {start: max(elev[y * w + x] for x, y in unit.cells[:width])}
    heap: list[tuple[float, int, int]] = [(0.0, *start)]
    best, best_d, touched = start, dist(*start), False
    while heap:
        c, x, y = heapq.heappop(heap)
        if c > spent[(x, y)]:
            continue
        for dx, dy in NEIGHBOURS:
            nxt = (x + dx, y + dy)
            cells = _step_ok(state, unit, *nxt, closed)
            if cells is None:
                continue
            top = max(elev[cy * w + cx] for cx, cy in cells[:width])
            cost = step_cost(dx, dy) * max(factors[cover[cy * w + cx]] for cx, cy in cells)
            cost += 1.0 if top > tops[(x, y)] else 0.0
            if c + cost > unit.points + 1e-9 or c + cost >= spent.get(nxt, math.inf):
                continue
            touching = would_touch_enemy(state, unit, cells)
            if touching and not contact:
                continue
            spent[nxt], came[nxt], tops[nxt] = c + cost, (x, y), top
            d = dist(*nxt)
            if (touching, -d) > (touched, -best_d + 1e-9):
                best, best_d, touched = nxt, d, touching
            if not touching:
                heapq.heappush(heap, (c + cost, *nxt))
    path: list[Cell] = []
    while best != start:
        path.append(best)
        best = came[best]
    return path[::-1], touched


def _charge_order(state: BattleState, unit: Unit, target: Unit) -> Order | None:
    """A charge straight ahead until the footprint touches `target`, within the unit's points; None when the
    line misses it, is blocked, or is too long."""
    if not target.on_field:
        return None
    fx, fy = DIRECTIONS[unit.facing]
    x, y = unit.x, unit.y
    cost_of = _budget(state, unit)
    spent = 0.0
    path: list[Cell] = []
    w = state.map.width
    for _ in range(40):
        x, y = x + fx, y + fy
        cells = _step_ok(state, unit, x, y)
        if cells is None:
            return None
        spent += cost_of(fx, fy, cells)
        if spent > unit.points + 1e-9:
            return None
        path.append((x, y))
        if would_touch_enemy(state, unit, cells):
            touched = {state.occ[(cy + dy) * w + cx + dx] for cx, cy in cells for dx, dy in NEIGHBOURS
                       if state.map.on_map(cx + dx, cy + dy)}
            return {"type": "charge", "unit": unit.id, "path": _cells(path)} if target.num in touched else None
    return None


def _path_towards(state: BattleState, unit: Unit, goal: Point, length: int,
                  closed: frozenset[int] = frozenset()) -> list[Cell]:
    """Up to `length` steps towards `goal`, touching enemies allowed on the way (leaving a melee)."""
    x, y = unit.x, unit.y
    path: list[Cell] = []
    for _ in range(length):
        best: Cell | None = None
        for dx, dy in sorted(NEIGHBOURS, key=lambda d: (math.hypot(x + d[0] - goal[0], y + d[1] - goal[1]), d)):
            if (x + dx, y + dy) not in path and _step_ok(state, unit, x + dx, y + dy, closed) is not None:
                best = (x + dx, y + dy)
                break
        if best is None:
            break
        x, y = best
        path.append(best)
    return path


def _strength(state: BattleState, side: str) -> int:
    """Loss tolerance of the side's infantry and cavalry on the field plus its guns (N-LOSSES-1, N-ART-8)."""
    return sum(u.guns if u.arm == ARTILLERY else u.loss_tolerance for u in state.field_units(side))


def run_battle(state: BattleState, generals: Mapping[str, BattleAI] | BattleAI | None = None,
               max_phases: int = 1000) -> tuple[BattleState, list[Event], list[tuple[str, Order]]]:
    """Play a battle to its end with an AI on each side (tests, benchmarks): the final state, every event and
    every order with its side. The engine's turn limit (D-N-2) ends it; `max_phases` is a guard."""
    if generals is None or isinstance(generals, BattleAI):
        one = generals or BattleAI()
        generals = {side: one for side in state.sides}
    events: list[Event] = []
    orders: list[tuple[str, Order]] = []
    for _ in range(max_phases):
        side = state.active_side
        if side is None:
            break
        state, ev, given = generals[side].play_phase(state, side)
        events.extend(ev)
        orders.extend((side, o) for o in given)
    return state, events, orders

