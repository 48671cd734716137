"""`BattleEngine`: the tactical battle behind the Engine interface of server/core/engine.py (D-N-1).

The sides are the teams of the battle setup (e.g. "red", "blue"). `active_teams` is the side whose order phase it
is; `end_turn` ends that side's phase; when both phases are done the turn is resolved and the next one begins.
Every call works on a private copy of the state, so the state passed in is never changed and a rule error leaves
nothing behind.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from server.core.engine import MODERATOR, SPECTATOR, Actor, BaseEngine, Engine, Event, team_viewer
from server.core.errors import BadOrder, NotYourTurn

from . import artillery, fire, movement, options, orders, victory
from .command import acting_side, own_unit
from .deployment import setup_state
from .formation import effective_morale
from .log import Log
from .state import ON_FIELD, BattleState, Unit
from .turn import begin_turn, resolve
from .view import view_of

C = TypeVar("C")
MAX_MORALE = 1000
"""The moderator's `adjust` sets morale up to this (a guard against junk; no rule caps morale); loss tolerance and
guns at most the unit type's own (the ceiling the battle keeps, tests/napoleonic/battle/test_properties.py)."""


@dataclass(frozen=True)  # not slotted: calling UnitOrder[X](...) sets __orig_class__ on the instance
class UnitOrder(Generic[C]):
    """How a unit's order of command type C is carried out; `while_carrying`: it may be given while the unit still
    carries an order over from last turn (D-N-10) — only round-shot targets, which move nothing."""

    run: Callable[[BattleState, Log, Unit, C], None]
    while_carrying: bool = False


UNIT_ORDERS: Mapping[type[Any], UnitOrder[Any]] = {
    orders.Move: UnitOrder[orders.Move](lambda s, log, u, c: movement.move(s, log, u, c.path, charge=c.charge)),
    orders.Wheel: UnitOrder[orders.Wheel](lambda s, log, u, c: movement.wheel(s, log, u, c.eighths)),
    orders.AboutFace: UnitOrder[orders.AboutFace](lambda s, log, u, c: movement.about_face(s, log, u)),
    orders.ChangeFormation: UnitOrder[orders.ChangeFormation](
        lambda s, log, u, c: movement.change_formation(s, log, u, c.formation)),
    orders.LeaveMelee: UnitOrder[orders.LeaveMelee](lambda s, log, u, c: movement.leave_melee(s, log, u, c.path)),
    orders.Targets: UnitOrder[orders.Targets](lambda s, log, u, c: artillery.designate(s, log, u, c.targets),
                                              while_carrying=True),
    orders.Barrage: UnitOrder[orders.Barrage](lambda s, log, u, c: artillery.barrage(s, log, u)),
}
"""One handler per unit order type (orders.parse gives the type; the army's Retreat has no unit)."""


class BattleEngine(BaseEngine[BattleState]):
    kind = "battle"

    def setup(self, config: Mapping[str, Any], seed: int) -> tuple[BattleState, Sequence[Event]]:
        try:
            state = setup_state(config, seed)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise BadOrder(f"malformed battle setup: {exc!r}", rule="N-START-1") from None
        for u in state.units.values():
            u.morale_mark = effective_morale(u)
            full = u.type.loss_tolerance
            u.half_flag = u.loss_tolerance <= full // 2
            u.one_flag = u.loss_tolerance <= 1
        log = Log(state)
        log.emit("battle_started", sides=[s.dump() for s in state.sides.values()],
                 units=[_brief(u) for u in state.units.values() if u.status == ON_FIELD], rule="N-START-1")
        begin_turn(state, log)
        return state, log.events

    def teams(self, state: BattleState) -> Sequence[str]:
        return list(state.sides)

    def active_teams(self, state: BattleState) -> frozenset[str]:
        side = state.active_side
        return frozenset({side}) if side else frozenset()

    def apply(self, state: BattleState, actor: Actor, order: Mapping[str, Any]) -> tuple[BattleState, Sequence[Event]]:
        side = acting_side(state, actor)
        cmd = orders.parse(order)
        work = state.copy()
        audience = frozenset({team_viewer(side), SPECTATOR, MODERATOR}) if work.hidden else None
        log = Log(work, audience)
        if isinstance(cmd, orders.Retreat):  # the army's order, not a unit's
            victory.order_retreat(work, log, side)
            return work, log.events
        handler = UNIT_ORDERS[type(cmd)]
        unit = own_unit(work, side, cmd.unit, carrying=handler.while_carrying)
        handler.run(work, log, unit, cmd)
        return work, log.events

    def end_turn(self, state: BattleState, team: str, *, flagged: bool) -> tuple[BattleState, Sequence[Event]]:
        if state.active_side != team:
            raise NotYourTurn(f"{team} is not in its order phase", rule="D-N-1")
        work = state.copy()
        log = Log(work)
        log.emit("phase_over", side=team, flagged=flagged, turn=work.turn, rule="D-N-1")
        work.phase += 1
        if work.phase >= len(work.order):
            resolve(work, log)
        return work, log.events

    def moderate(self, state: BattleState, ruling: Mapping[str, Any]) -> tuple[BattleState, Sequence[Event]]:
        """Rulings: {"type": "end_battle", "winner": side, "reason": str}; {"type": "adjust", "unit": id,
        "morale"|"loss_tolerance"|"guns": int}; {"type": "assign_fire", "shooter": id, "targets": {id: share},
        "turns": n} (N-FIRE-4: the moderator settles disputes)."""
        work = state.copy()
        log = Log(work)
        kind = ruling.get("type")
        if kind == "end_battle":
            winner = ruling.get("winner")
            if not isinstance(winner, str) or winner not in work.sides or work.over:
                raise BadOrder("end_battle needs the winning side of a running battle", rule="N-VICTORY-1")
            victory.impose(work, log, str(winner), str(ruling.get("reason", "moderator's ruling")))
        elif kind == "adjust":
            unit = work.units.get(str(ruling.get("unit")))
            if unit is None:
                raise BadOrder("adjust needs a unit", rule="N-FIRE-4")
            top = {"morale": MAX_MORALE, "loss_tolerance": unit.type.loss_tolerance, "guns": unit.type.guns}
            for name in ("morale", "loss_tolerance", "guns"):
                if name in ruling:
                    value = ruling[name]
                    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= top[name]:
                        raise BadOrder(f"{name} must be an integer from 0 to {top[name]}", rule="N-FIRE-4",
                                       details={"unit": unit.id, "field": name})
                    setattr(unit, name, value)
            log.emit("adjusted", unit=unit.id, morale=unit.morale, loss_tolerance=unit.loss_tolerance,
                     guns=unit.guns, rule="N-FIRE-4")
        elif kind == "assign_fire":
            fire.assign_fire(work, log, ruling)
        else:
            raise BadOrder(f"unknown ruling {kind!r}", rule="N-FIRE-4")
        return work, log.events

    def view(self, state: BattleState, viewer: str) -> dict[str, Any]:
        return view_of(state, viewer)

    def options(self, state: BattleState, viewer: str, unit: str | None) -> dict[str, Any] | None:
        """Issue 14: what `unit` (None: the army) may do now, judged by `apply` itself (options.py)."""
        return options.options(self.apply, state, viewer, unit)

    def is_over(self, state: BattleState) -> bool:
        return state.over

    def result(self, state: BattleState) -> Mapping[str, Any] | None:
        """D-L-1: the battle's result once it is over (winner, losses, prisoners, the generals' fates)."""
        return state.result

    def dump(self, state: BattleState) -> dict[str, Any]:
        return state.dump()

    def load(self, data: Mapping[str, Any]) -> BattleState:
        return BattleState.load(data)


def _brief(u: Unit) -> dict[str, Any]:
    return {"id": u.id, "side": u.side, "type": u.kind, "x": u.x, "y": u.y, "facing": u.facing,
            "formation": u.formation}


if TYPE_CHECKING:
    _satisfies_protocol: Engine[BattleState] = BattleEngine()
