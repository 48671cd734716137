"""The turn (S-4, S-5.1, S-5.2, S-5.6, D-S-4) and the end of the game (D-S-15).

A turn: both roll a d6 for the initiative (ties again); each rolls his own d6 for his number of orders; the
initiative winner gives the first order; before each further order both roll for who gives it (ties again), and a
player out of orders is skipped, until both have none (a side with nothing left to order loses the rest of its
orders). Then random fire, hand-to-hand, the survival test. After the last turn (8) the attacker wins if it holds
the objective — a figure of its own in action in the marked element and no defender in action within 2 cells of
it — or every defender unit is out of action or demoralised; otherwise the defender wins. A side with no figure
left on the table and none held back has lost at once. Each figure out of action is a point for the other side.
"""

from __future__ import annotations

from .command import check_groups, orderable
from .fire import random_fire
from .hits import spread
from .log import Log
from .melee import hand_to_hand
from .state import IN_ACTION, ON_TABLE, ORDERS, OUT, OVER, RANDOM_FIRE, SkirmishState
from .survival import survival_test
from .table import cells_distance

MAX_TIES = 100


def contest(s: SkirmishState, log: Log, purpose: str) -> str:
    """Both sides roll a d6; the higher wins; ties roll again (D-S-4)."""
    teams = [s.defender.team, s.attacker.team]
    for _ in range(MAX_TIES):
        a, b = (log.die(purpose, side=t) for t in teams)
        if a != b:
            return teams[0] if a > b else teams[1]
    return teams[0]


def begin_turn(s: SkirmishState, log: Log) -> None:
    s.turn += 1
    s.stage = ORDERS
    for f in s.figures.values():
        f.ordered, f.contact, f.no_fire_at = False, False, ()
    for u in s.units.values():
        u.ordered = False
    for side in s.sides.values():
        side.orders_given, side.army_order = 0, False
    log.emit("turn_started", None, turn=s.turn, turns=s.settings.turns, rule="S-4")
    first = contest(s, log, "initiative")
    s.initiative = first
    log.emit("initiative", None, turn=s.turn, first=first, rule="S-5.1")
    for team in (first, s.enemy(first)):
        side = s.sides[team]
        side.orders_rolled = side.orders_left = log.die("orders", side=team)
    log.emit("orders_rolled", None, orders={t: side.orders_rolled for t, side in s.sides.items()}, rule="S-5.2")
    _choose(s, log, first)


def after_order(s: SkirmishState, log: Log) -> None:
    """The order (and its hits) is done: the next order's giver, or the end of the orders phase (S-5.6)."""
    check_groups(s, log)
    if _sudden_end(s, log):
        return
    _choose(s, log, None)


def _choose(s: SkirmishState, log: Log, first: str | None) -> None:
    for team, side in s.sides.items():
        if side.orders_left > 0 and not orderable(s, team):
            log.emit("orders_lost", None, side=team, orders=side.orders_left, reason="nothing to order",
                     rule="S-5.6")
            side.orders_left = 0
    left = [t for t, side in s.sides.items() if side.orders_left > 0]
    if not left:
        s.next_side = None
        end_of_orders(s, log)
        return
    if first is not None and first in left:
        s.next_side, rolled = first, False
    elif len(left) == 1:
        s.next_side, rolled = left[0], False
    else:
        s.next_side, rolled = contest(s, log, "next_order"), True
    log.emit("next_order", None, side=s.next_side, rolled=rolled,
             left={t: side.orders_left for t, side in s.sides.items()}, rule="S-5.6")


def end_of_orders(s: SkirmishState, log: Log) -> None:
    """S-4 phase 2: random fire; once its hits are spread, the rest of the turn."""
    s.stage = RANDOM_FIRE
    random_fire(s, log)
    if spread(s, log):
        finish_turn(s, log)


def after_hits(s: SkirmishState, log: Log) -> None:
    """Every hit is spread: the game goes on where it stopped."""
    if s.stage == ORDERS:
        after_order(s, log)
    elif s.stage == RANDOM_FIRE:
        finish_turn(s, log)


def finish_turn(s: SkirmishState, log: Log) -> None:
    """S-4 phases 3 and 4, then the next turn or the end."""
    hand_to_hand(s, log)
    survival_test(s, log)
    check_groups(s, log)
    expired = [d for d in s.dropped if d.until <= s.turn]
    for d in expired:
        log.emit("weapon_lost", None, weapon=d.weapon, unit=d.unit, cell=list(d.cell), rule="S-8.5")
    s.dropped = [d for d in s.dropped if d.until > s.turn]
    if _sudden_end(s, log):
        return
    if s.turn >= s.settings.turns:
        final_result(s, log)
        return
    begin_turn(s, log)


def _sudden_end(s: SkirmishState, log: Log) -> bool:
    for team in s.sides:
        if not any(f.status in ON_TABLE or f.status == "ambush" for f in s.side_figures(team)):
            end_game(s, log, s.enemy(team), "eliminated")
            return True
    return False


def holds_objective(s: SkirmishState) -> bool:
    e = s.table.element(s.objective) if s.objective else None
    if e is None:
        return False
    cells = list(e.cells())
    inside = any(f.side == s.attacker.team and f.status == IN_ACTION and set(f.cells()) & set(cells)
                 for f in s.figures.values())
    near = any(f.side == s.defender.team and f.status == IN_ACTION
               and cells_distance(f.cells(), cells) <= s.settings.objective_radius for f in s.figures.values())
    return inside and not near


def defender_beaten(s: SkirmishState) -> bool:
    """Every defender unit (with figures of its own) is out of action or demoralised."""
    units = [u for u in s.units.values() if u.side == s.defender.team and u.members]
    return all(u.demoralised or all(s.figures[i].status == OUT for i in u.members) for u in units)


def final_result(s: SkirmishState, log: Log) -> None:
    if holds_objective(s):
        end_game(s, log, s.attacker.team, "objective")
    elif defender_beaten(s):
        end_game(s, log, s.attacker.team, "defender beaten")
    else:
        end_game(s, log, s.defender.team, "held")


def end_game(s: SkirmishState, log: Log, winner: str, reason: str) -> None:
    s.stage = OVER
    s.next_side = None
    s.decision = None
    s.queue = []
    s.result = {"winner": winner, "reason": reason, "turn": s.turn,
                "points": {t: side.points for t, side in s.sides.items()}}
    log.emit("game_over", None, **s.result, rule="D-S-15")
