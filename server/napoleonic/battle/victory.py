"""The end of a battle and its result for the campaign (N-VICTORY-1 … N-VICTORY-4, N-MORALE-7; D-N-2, D-N-13,
D-N-14).

D-N-2: a side loses when it has no unit on the field that is neither destroyed, dispersed nor surrendered, or when
its retreat order takes effect — at the end of the turn after it was given: its units then in melee contact, and
its dispersed units, surrender (the winner's prisoners, D-N-14); the rest march off. A side that loses any other
way has its dispersed units destroyed (N-MORALE-7). At the turn limit the defender holds the field and the
attacker retreats.
"""

from __future__ import annotations

from typing import Any

from server.core.errors import IllegalOrder

from .log import Log
from .losses import melee_partners
from .morale import change_morale
from .state import DESTROYED, DISPERSED, MARCHED_OFF, ON_FIELD, SURRENDERED, BattleState

RETREAT_CELLS = 7
"""N-VICTORY-4: the losing army may retreat seven campaign cells."""
GENERAL_DEATH = 3
"""N-VICTORY-3: the losing general dies with probability 1/2."""


def order_retreat(state: BattleState, log: Log, side: str) -> None:
    """N-VICTORY-2: irrevocable; every unit of the army −1 morale (none in the first three turns after a
    "retreat with battle", D-N-13) and +2 speed; the enemy army +1 morale (N-MORALE-3)."""
    s = state.sides[side]
    if s.retreat_turn is not None:
        raise IllegalOrder("the retreat order has been given and cannot be given again", rule="N-VICTORY-2")
    s.retreat_turn = state.turn
    log.emit("retreat_ordered", side=side, turn=state.turn, ends_after_turn=state.turn + 1, rule="N-VICTORY-2")
    free = state.turn <= s.retreat_free_turns
    for u in state.field_units():
        if u.side == side:
            u.points += 2
            if not free:
                change_morale(log, u, -1, "retreat order", "N-VICTORY-2")
        else:
            change_morale(log, u, 1, "the enemy army retreats", "N-MORALE-3")


def check_end(state: BattleState, log: Log) -> None:
    """Step 6 of the resolution (D-N-1): decide whether the battle is over and write its result."""
    attacker = state.order[0] if state.sides[state.order[0]].attacker else state.order[1]
    defender = state.enemy_of(attacker)
    alive = {s: any(u.on_field for u in state.units.values() if u.side == s) for s in state.sides}
    retreating = [s for s in state.sides.values() if s.retreat_turn is not None and state.turn > s.retreat_turn]
    loser: str | None = None
    reason = ""
    if not alive[attacker] or not alive[defender]:
        loser = attacker if not alive[attacker] else defender
        reason = "destroyed, dispersed or surrendered"
    elif retreating:
        loser = min(retreating, key=lambda s: (s.retreat_turn, not s.attacker)).name
        reason = "retreat"
    elif state.turn >= state.turn_limit:
        loser, reason = attacker, "turn limit: the defender holds the field"
    if loser is None:
        return
    if reason == "retreat":
        for u in list(state.field_units(loser)):
            state.lift(u)
            if melee_partners(state, u):
                u.status = SURRENDERED
                log.emit("fallen", unit=u.id, status=SURRENDERED, rule="D-N-2", taken_by=state.enemy_of(loser))
            else:
                u.status = MARCHED_OFF
        for u in state.units.values():
            if u.side == loser and u.status == DISPERSED:
                u.status = SURRENDERED  # D-N-2: its dispersed units do not get away with the army
                log.emit("fallen", unit=u.id, status=SURRENDERED, rule="D-N-2", taken_by=state.enemy_of(loser))
        for key in [k for k in state.melees if state.units[k[0]].status != ON_FIELD
                    or state.units[k[1]].status != ON_FIELD]:
            del state.melees[key]
    state.result = build_result(state, log, state.enemy_of(loser), loser, reason)
    log.emit("battle_over", **state.result)


def build_result(state: BattleState, log: Log, winner: str, loser: str, reason: str) -> dict[str, Any]:
    """What the campaign consumes: per unit losses, morale and status after N-MORALE-7 and D-N-14, prisoners,
    guns taken, the winner, who retreats, and the losing general's fate (N-VICTORY-3)."""
    units = []
    prisoners: dict[str, list[str]] = {winner: [], loser: []}
    guns_taken: dict[str, int] = {winner: 0, loser: 0}
    in_melee = {uid for k in state.melees for uid in k}
    for u in state.units.values():
        status, morale = u.status, u.morale
        if u.side == winner and status in (DISPERSED, SURRENDERED):
            status, morale = "in_line", 1  # N-MORALE-7: they return to the ranks with morale 1
        elif u.side == loser and status == DISPERSED:
            status = DESTROYED  # N-MORALE-7
        elif u.side == loser and (status == SURRENDERED or u.id in in_melee):
            status = "prisoner"  # D-N-14
            prisoners[winner].append(u.id)
        elif status in (ON_FIELD, MARCHED_OFF):
            status = "in_line"
        if u.arm == "artillery" and u.status == DESTROYED and u.guns > 0:
            guns_taken[state.enemy_of(u.side)] += u.guns
        units.append({
            "id": u.id, "side": u.side, "type": u.kind, "status": status, "morale": morale,
            "loss_tolerance": u.loss_tolerance, "guns": u.guns, "losses": u.losses,
            "arrived": u.status != "reserve",
        })
    killed, _ = log.roll("general_death", GENERAL_DEATH, None, side=loser, rule="N-VICTORY-3")
    return {
        "winner": winner, "loser": loser, "reason": reason, "turn": state.turn, "retreats": loser,
        "retreat_cells": RETREAT_CELLS, "general": state.sides[loser].general, "general_killed": killed,
        "units": units, "prisoners": prisoners, "guns_taken": guns_taken,
    }


def impose(state: BattleState, log: Log, winner: str, reason: str) -> None:
    """A moderator's ruling ends the battle with `winner`."""
    state.result = build_result(state, log, winner, state.enemy_of(winner), reason)
    log.emit("battle_over", **state.result)
