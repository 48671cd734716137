"""`SiegeEngine`: the storm of a fortress on the tactical battle engine (N-SIEGE-5 … N-SIEGE-13, D-N-15).

The storm is a battle (server.napoleonic.battle.engine.BattleEngine does every field rule)
with the siege's additions around
it: the siege map and the fortress guns at setup; the wall, ladder and climb rules before an order is handed on;
the fortress guns manned or silent before every resolution; the garrison's capitulation order in place of the
retreat order; and the siege's result (N-SIEGE-7: the routed defenders become prisoners when the besieger wins).

Extra orders: {"type": "climb", "unit": id} (N-SIEGE-10, N-SIEGE-13) and {"type": "capitulate"} (garrison only,
N-SIEGE-8). Moderator ruling: {"type": "capitulation"} imposes the garrison's capitulation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from dataclasses import field as _field
from typing import TYPE_CHECKING, Any

from server.core.engine import MODERATOR, SPECTATOR, Actor, BaseEngine, Engine, Event, team_viewer
from server.core.errors import BadOrder, IllegalOrder
from server.core.seeds import derived
from server.napoleonic.battle import options as battle_options
from server.napoleonic.battle.command import acting_side, own_unit
from server.napoleonic.battle.engine import BattleEngine
from server.napoleonic.battle.log import Log
from server.napoleonic.battle.movement import end_move
from server.napoleonic.battle.state import DISPERSED, BattleState
from server.napoleonic.battle.terrain import TERRAIN

from . import walls
from .deployment import TOWN, add_fortress_guns, parse_fortress, storm_battle_config
from .fortress import Fortress
from .sequence import BESIEGER, GARRISON
from .siege_map import SiegeField, generate

MOVING_ORDERS = ("move", "charge", "leave_melee")
SHAPING_ORDERS = ("wheel", "about_face", "formation", "limber", "unlimber")


@dataclass(frozen=True, slots=True)
class StormState:
    """The battle state plus what the siege adds. `ladders`: unit → turn its ladders were set up (N-SIEGE-13);
    `climbed`: unit → turn it climbed; `guns`: fortress gun → wall section; `howitzers`: unit → original type;
    `in_town`: the garrison's units that began the storm waiting in the town (the battle's reserve group `town`)."""

    battle: BattleState
    field: SiegeField
    fortress: Fortress
    besieger: str
    garrison: str
    guns: Mapping[str, str]
    howitzers: Mapping[str, str] = _field(default_factory=dict)
    ladders: Mapping[str, int] = _field(default_factory=dict)
    climbed: Mapping[str, int] = _field(default_factory=dict)
    capitulated: bool = False

    @property
    def in_town(self) -> tuple[str, ...]:
        return tuple(u.id for u in self.battle.units.values() if u.side == self.garrison and u.group == TOWN)

    def role_of(self, side: str) -> str:
        return BESIEGER if side == self.besieger else GARRISON


class SiegeEngine(BaseEngine[StormState]):
    kind = "siege"

    def __init__(self) -> None:
        self.battle = BattleEngine()

    # --- setup -------------------------------------------------------------------------------------------------
    def setup(self, config: Mapping[str, Any], seed: int) -> tuple[StormState, Sequence[Event]]:
        if not isinstance(config, Mapping):
            raise BadOrder("the storm setup is an object", rule="N-SIEGE-5")
        fortress = parse_fortress(config.get("fortress"))
        try:
            # D-GEN-4: the map's seed is public (`storm_begun`); without one of its own it is drawn one-way from
            # the room's seed, never the seed itself
            fld = generate(fortress, int(config["map_seed"]) if "map_seed" in config else derived(seed, "map"))
            battle_cfg, howitzers = storm_battle_config(config, fld, seed)
        except (TypeError, ValueError, KeyError) as exc:
            raise BadOrder(f"bad storm setup: {exc}", rule="N-SIEGE-5") from None
        state, events = self.battle.setup(battle_cfg, seed)
        garrison, besieger = battle_cfg["sides"][0]["name"], battle_cfg["sides"][1]["name"]
        guns = add_fortress_guns(state, fld, garrison)
        storm = StormState(state, fld, fortress, besieger, garrison, guns, howitzers)
        log = Log(state)
        log.emit("storm_begun", fortress=fortress.dump(), besieger=besieger, garrison=garrison,
                 field=fld.dump(), howitzers=sorted(howitzers), in_town=list(storm.in_town), rule="N-SIEGE-5")
        walls.man_the_guns(state, fld, guns, log)
        return storm, [*events, *log.events]

    def teams(self, state: StormState) -> Sequence[str]:
        return self.battle.teams(state.battle)

    def active_teams(self, state: StormState) -> frozenset[str]:
        return self.battle.active_teams(state.battle)

    def options(self, state: StormState, viewer: str, unit: str | None) -> dict[str, Any] | None:
        """Issue 14: the battle's options (battle/options.py) judged by this engine's `apply`, walls and ladders
        included (D-N-15, N-SIEGE-13): every move found is tried too."""
        def apply(battle: BattleState, actor: Actor, order: Mapping[str, Any]) -> Any:
            return self.apply(replace(state, battle=battle), actor, order)

        return battle_options.options(apply, state.battle, viewer, unit, try_moves=True)

    # --- orders ------------------------------------------------------------------------------------------------
    def apply(self, state: StormState, actor: Actor, order: Mapping[str, Any]) -> tuple[StormState, Sequence[Event]]:
        side = acting_side(state.battle, actor)
        if not isinstance(order, Mapping):
            raise BadOrder("an order is an object", rule="D-N-1")
        kind = order.get("type")
        role = state.role_of(side)
        if kind == "retreat" and role == GARRISON:
            raise IllegalOrder("the besieged cannot retreat: their army order is capitulation", rule="N-SIEGE-8")
        if kind == "capitulate":
            if role != GARRISON:
                raise IllegalOrder("only the garrison capitulates", rule="N-SIEGE-8")
            return self._capitulate(state, "the garrison capitulates")
        work = state.battle.copy()
        log = Log(work, frozenset({team_viewer(side), SPECTATOR, MODERATOR}) if work.hidden else None)
        walls.man_the_guns(work, state.field, state.guns, log)
        if kind == "climb":
            climber = own_unit(work, side, order.get("unit"))
            walls.climb(work, state.field, log, climber, besieger=role == BESIEGER, ladders=state.ladders)
            climbed = {**state.climbed, climber.id: work.turn}
            ladders = {k: v for k, v in state.ladders.items() if k != climber.id}
            return replace(state, battle=work, climbed=climbed, ladders=ladders), log.events
        uid = order.get("unit")
        unit = work.units.get(uid) if isinstance(uid, str) else None
        if unit is not None and unit.side == side and unit.on_field and kind in (*MOVING_ORDERS, *SHAPING_ORDERS):
            order = self._wall_rules(state, work, unit, order, role)
        new, events = self.battle.apply(work, actor, order)
        if unit is not None and kind in SHAPING_ORDERS and unit.id in new.units:
            walls.check_steps(state.field, unit, [walls.eventual_cells(new, unit.id)])
        out = replace(state, battle=new)
        if unit is not None:
            out, ladder_events = self._ladders(out, unit.id, role, moved=unit.cells != new.units[unit.id].cells,
                                               audience=log.audience)
            events = [*events, *ladder_events]
        return self._finish(out, [*log.events, *events])

    def _wall_rules(self, state: StormState, work: BattleState, unit: Any, order: Mapping[str, Any],
                    role: str) -> Mapping[str, Any]:
        """D-N-15, N-SIEGE-13: nobody walks onto the wall; a besieger's move stops at the wall (ladders); a unit
        that climbed this turn does nothing more."""
        if role == BESIEGER and state.climbed.get(unit.id) == work.turn:
            raise IllegalOrder("a unit that climbed the wall this turn moves on only next turn", rule="N-SIEGE-13",
                               details={"unit": unit.id})
        kind = order.get("type")
        if kind not in MOVING_ORDERS:
            return order
        path = order.get("path")
        if not isinstance(path, (list, tuple)) or not all(isinstance(c, (list, tuple)) and len(c) == 2
                                                          and all(isinstance(v, int) for v in c) for c in path):
            return order  # malformed: the battle engine's parser says why
        cells = tuple((int(c[0]), int(c[1])) for c in path)
        if role == BESIEGER and unit.arm == "infantry":
            cells = walls.stop_at_wall(state.field, unit, cells)
        walls.check_steps(state.field, unit, walls.path_footprints(unit, cells))
        return {**order, "path": [list(c) for c in cells]}

    def _ladders(self, state: StormState, uid: str, role: str, *, moved: bool,
                 audience: frozenset[str] | None) -> tuple[StormState, list[Event]]:
        """N-SIEGE-13: a besieging infantry unit that has reached the wall sets up its ladders there (again, when
        it moved along the wall) and ends its move for the turn; a unit that leaves the wall's foot loses them."""
        unit = state.battle.units[uid]
        if role != BESIEGER or unit.arm != "infantry":
            return state, []
        ladders = dict(state.ladders)
        log = Log(state.battle, audience)
        if unit.on_field and walls.at_wall(state.field, unit):
            if uid not in ladders or moved:
                ladders[uid] = state.battle.turn
                log.emit("ladders", unit=uid, turn=state.battle.turn, climb_from=state.battle.turn + 1,
                         rule="N-SIEGE-13")
                if not unit.halted:
                    end_move(log, unit, "N-SIEGE-13", reason="reached the wall")
        else:
            ladders.pop(uid, None)
        return replace(state, ladders=ladders), log.events

    # --- turn and moderator ------------------------------------------------------------------------------------
    def end_turn(self, state: StormState, team: str, *, flagged: bool) -> tuple[StormState, Sequence[Event]]:
        work = state.battle.copy()  # the battle refuses a team out of its phase; this copy then goes unused
        log = Log(work)
        walls.man_the_guns(work, state.field, state.guns, log)
        new, events = self.battle.end_turn(work, team, flagged=flagged)
        return self._finish(replace(state, battle=new), [*log.events, *events])

    def moderate(self, state: StormState, ruling: Mapping[str, Any]) -> tuple[StormState, Sequence[Event]]:
        """Battle rulings, and {"type": "capitulation"}: the moderator imposes the garrison's capitulation."""
        if ruling.get("type") == "capitulation":
            if state.battle.over:
                raise BadOrder("the storm is over", rule="N-SIEGE-8")
            return self._capitulate(state, "capitulation imposed by the moderator")
        new, events = self.battle.moderate(state.battle, ruling)
        return self._finish(replace(state, battle=new), list(events))

    def _capitulate(self, state: StormState, reason: str) -> tuple[StormState, Sequence[Event]]:
        """N-SIEGE-8: the capitulation order ends the storm at once; the besieger takes the fortress."""
        events = [Event("capitulation", {"side": state.garrison, "turn": state.battle.turn, "rule": "N-SIEGE-8"})]
        state, more = self._besieger_wins(replace(state, capitulated=True), reason)
        return self._finish(state, [*events, *more])

    def _besieger_wins(self, state: StormState, reason: str) -> tuple[StormState, list[Event]]:
        new, events = self.battle.moderate(state.battle, {"type": "end_battle", "winner": state.besieger,
                                                           "reason": reason})
        return replace(state, battle=new), list(events)

    def _finish(self, state: StormState, events: list[Event]) -> tuple[StormState, Sequence[Event]]:
        """When the battle has just ended, turn its result into the storm's (N-SIEGE-7, N-SIEGE-8). Fortress guns
        alone do not hold a fortress: a garrison with no troops left on the field has lost (N-SIEGE-7, D-N-2)."""
        if not state.battle.over and state.battle.counted(state.garrison) == 0:
            state, more = self._besieger_wins(state, "no garrison troops left in the fortress")
            events = [*events, *more]
        result = state.battle.result
        if result is None or "siege" in result:
            return state, events
        siege_result = storm_result(state, result)
        state.battle.result = siege_result
        events.append(Event("storm_over", {"fortress": state.fortress.city, **siege_result["siege"],
                                           "prisoners": siege_result["prisoners"], "rule": "N-SIEGE-7"}))
        return state, events

    # --- views and snapshots -----------------------------------------------------------------------------------
    def view(self, state: StormState, viewer: str) -> dict[str, Any]:
        out = self.battle.view(state.battle, viewer)
        out["kind"] = "siege"
        out["siege"] = {
            "fortress": state.fortress.dump(), "besieger": state.besieger, "garrison": state.garrison,
            "sections": {k: sorted([list(c) for c in v]) for k, v in sorted(state.field.sections.items())},
            "guns": dict(state.guns), "breaches": list(state.field.breaches), "forts": list(state.field.forts),
            "legend": {k.symbol: k.name for k in TERRAIN},
        }
        team = viewer[5:] if viewer.startswith("team:") else None
        if viewer in (MODERATOR, SPECTATOR) or not state.battle.hidden or team == state.besieger:
            out["siege"]["ladders"] = dict(state.ladders)
        return out

    def is_over(self, state: StormState) -> bool:
        return state.battle.over

    def result(self, state: StormState) -> Mapping[str, Any] | None:
        """N-SIEGE-7, D-L-1: the storm's result once it is over (the battle's, as the siege reads it)."""
        return state.battle.result

    def dump(self, state: StormState) -> dict[str, Any]:
        return {"battle": state.battle.dump(), "fortress": state.fortress.dump(), "map_seed": state.field.seed,
                "besieger": state.besieger, "garrison": state.garrison, "guns": dict(state.guns),
                "howitzers": dict(state.howitzers), "ladders": dict(state.ladders),
                "climbed": dict(state.climbed), "capitulated": state.capitulated}

    def load(self, data: Mapping[str, Any]) -> StormState:
        fortress = Fortress.load(data["fortress"])
        return StormState(
            BattleState.load(data["battle"]), generate(fortress, int(data["map_seed"])), fortress,
            str(data["besieger"]), str(data["garrison"]), dict(data["guns"]), dict(data.get("howitzers", {})),
            {str(k): int(v) for k, v in dict(data.get("ladders", {})).items()},
            {str(k): int(v) for k, v in dict(data.get("climbed", {})).items()}, bool(data.get("capitulated", False)))


def storm_result(state: StormState, result: Mapping[str, Any]) -> dict[str, Any]:
    """The battle's result as the siege reads it: howitzers back to their own type (N-SIEGE-9: for the storm only);
    if the besieger won, every dispersed defender is a prisoner (N-SIEGE-7), the fortress guns are taken, and the
    garrison does not retreat — the capitulation terms decide its fate (N-SIEGE-8)."""
    won = result["winner"] == state.besieger
    prisoners = {k: list(v) for k, v in dict(result["prisoners"]).items()}
    guns_taken = dict(result["guns_taken"])
    units = []
    for raw in result["units"]:
        u = dict(raw)
        if u["id"] in state.howitzers:
            u["type"], u["howitzer"] = state.howitzers[u["id"]], True
        if u["id"] in state.guns:
            u["fortress_gun"] = True
            if won and u["status"] == "in_line":
                u["status"] = "taken"
                guns_taken[state.besieger] = guns_taken.get(state.besieger, 0) + int(u["guns"])
        elif won and u["side"] == state.garrison and state.battle.units[u["id"]].status == DISPERSED:
            u["status"] = "prisoner"
            prisoners.setdefault(state.besieger, []).append(u["id"])
        units.append(u)
    out = {**result, "units": units, "prisoners": prisoners, "guns_taken": guns_taken}
    if won:
        out["retreats"] = None
    out["siege"] = {"fortress": state.fortress.city, "winner_role": BESIEGER if won else GARRISON,
                    "capitulated": state.capitulated, "terms": "pending" if won else None,
                    "in_town": [u.id for u in state.battle.units.values() if u.group == TOWN and u.status == "reserve"],
                    "howitzers": sorted(state.howitzers)}
    return out


if TYPE_CHECKING:
    _satisfies_protocol: Engine[StormState] = SiegeEngine()
