"""`SkirmishEngine`: the WWII squad skirmish behind the Engine interface of server/core/engine.py.

The teams are the two colours that play the scenario's sides (the first team in turn order plays the scenario's
first side). `active_teams` is the side to act now: the placer of the next terrain element, the deployer, the side
to give the next order (it changes with every order, so its clock runs per order: D-S-4), or the owner of hit
figures choosing which take the hits (D-S-9). `end_turn` is a side's pass: the server places the rest of the
terrain, the scenario's deployment is used, the hits go by the default order, or the side gives up its orders of
this turn — a flag (the clock ran out) loses only the order at hand.

The scenario is data: `config["scenario"]` is the scenario object (shared/scenarios/skirmish/*.json, loaded at the
edge — the engine reads no file), `config["settings"]` house rules over the scenario's settings.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from server.core.dice import Dice
from server.core.engine import MODERATOR, Actor, BaseEngine, Engine, Event
from server.core.errors import BadOrder, IllegalOrder, NotYourTurn, RuleError
from server.core.turns import in_turn_order

from . import ai, terrain
from . import orders as o
from .deployment import deploy, reveal
from .forces import build_sides
from .hits import by_default, choose, hit, put_out, spread
from .log import Log
from .options import active, legal_orders
from .play import give
from .rules import Settings
from .state import DEPLOY, DOWN, IN_ACTION, ORDERS, OUT, OVER, TERRAIN, SkirmishState
from .table import Element, Table
from .turn import after_hits, after_order, begin_turn, end_game
from .view import update_last_seen, view_of

SCENARIO_FORMAT = "kriegsspiel/skirmish-scenario/1"


def new_game(config: Mapping[str, Any], seed: int) -> tuple[SkirmishState, list[Event]]:
    scenario = config.get("scenario")
    if not isinstance(scenario, Mapping):
        raise BadOrder("a skirmish needs its scenario (the scenario object in config.scenario)", rule="S-3.1")
    if scenario.get("format", SCENARIO_FORMAT) != SCENARIO_FORMAT:
        raise BadOrder(f"not a skirmish scenario (format {scenario.get('format')!r})", rule="S-3.1")
    base = dict(scenario.get("settings") or {})
    house = config.get("settings") or {}
    if not isinstance(house, Mapping):
        raise BadOrder("settings are an object", rule="D-S-1")
    settings = Settings.load({**base, **house})
    specs = scenario.get("sides")
    teams = _teams(config, specs)
    sides, units, figures = build_sides(specs, teams, settings)
    table = Table.empty(settings.width, settings.height)
    terrain_spec = scenario.get("terrain") or []
    if not isinstance(terrain_spec, list):
        raise BadOrder("a scenario's terrain is a list of elements", rule="D-S-2")
    for i, e in enumerate(terrain_spec):
        if not isinstance(e, Mapping):
            raise BadOrder("a terrain element is an object", rule="D-S-2")
        table = table.with_element(Element.load(e, default_id=f"{e.get('kind')}-{i + 1}"))
    objective = scenario.get("objective")
    if objective is not None and table.element(str(objective)) is None:
        raise BadOrder(f"the objective {objective!r} is not a terrain element of the scenario", rule="D-S-15")
    state = SkirmishState(settings=settings, table=table, sides=sides, units=units, figures=figures,
                          dice=Dice.from_seed(seed), scenario=str(scenario.get("id", "")),
                          objective=str(objective) if objective is not None else None)
    log = Log(state)
    log.emit("skirmish_started", None, scenario=state.scenario, name=str(scenario.get("name", "")),
             sides=[s.public() for s in sides.values()], table=table.dump(), objective=state.objective,
             turns=settings.turns, rule="S-3")
    terrain.begin(state, log)
    return state, log.events


def _teams(config: Mapping[str, Any], specs: Any) -> list[str]:
    default = [str(s.get("colour") or c) for s, c in zip(specs or [], ("red", "blue"), strict=False)
               if isinstance(s, Mapping)]
    raw = config.get("teams")
    if not raw:
        return default
    teams = [t["colour"] if isinstance(t, Mapping) else str(t) for t in raw]
    if len(teams) != 2 or len(set(teams)) != 2:
        raise BadOrder("a skirmish is played by two teams", rule="S-3.2", details={"teams": teams})
    if sorted(teams) == sorted(default):
        return default
    return list(in_turn_order(teams))


class SkirmishEngine(BaseEngine[SkirmishState]):
    kind = "skirmish"
    any_time_orders = frozenset({"auto_terrain"})

    def setup(self, config: Mapping[str, Any], seed: int) -> tuple[SkirmishState, Sequence[Event]]:
        try:
            return new_game(config, seed)
        except RuleError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise BadOrder(f"malformed skirmish scenario: {exc!r}", rule="S-3.1") from None

    def teams(self, state: SkirmishState) -> Sequence[str]:
        return list(state.sides)

    def active_teams(self, state: SkirmishState) -> frozenset[str]:
        return active(state)

    def turn_mark(self, state: SkirmishState) -> Hashable:
        """Which decision is due (D-S-4: a clock per order): the stage, the turn, the terrain still to place, each
        side's deployment and orders, the hits to choose. Any order carried out changes it, so when the dice give
        the same side the next order too, its clock starts afresh."""
        d = state.decision
        return (state.stage, state.turn, state.terrain_left,
                tuple((t, s.deployed, s.orders_rolled, s.orders_left, s.orders_given) for t, s in state.sides.items()),
                (d.owner, d.candidates, d.count, d.tier, d.cause) if d is not None else None, len(state.queue))

    def legal_orders(self, state: SkirmishState, team: str) -> dict[str, Any]:
        """What `team` may order now (options.legal_orders): for the AI and the options query."""
        return legal_orders(state, team)

    def options(self, state: SkirmishState, viewer: str, unit: str | None) -> dict[str, Any] | None:
        """Issue 14: the team's legal orders now (`unit` picks one body's entry, the others left out); the
        moderator is answered for the side to act. Planned on what the side sees (options.legal_orders)."""
        if viewer == MODERATOR:
            team = next(iter(sorted(active(state))), None)
        else:
            team = viewer[5:] if viewer.startswith("team:") and viewer[5:] in state.sides else None
        if team is None:
            return {"side": "", "stage": state.stage, "active": False, "orders": []}
        out = legal_orders(state, team, only=unit)
        if unit is not None:
            out["orders"] = [e for e in out["orders"] if unit in (e.get("body"), e.get("unit"), e.get("figure"))]
        return out

    def apply(self, state: SkirmishState, actor: Actor, order: Mapping[str, Any]
              ) -> tuple[SkirmishState, Sequence[Event]]:
        cmd = o.parse(order)
        if state.over:
            raise NotYourTurn("the game is over", rule="D-S-15")
        team = _acting(state, actor, order, cmd)
        work = state.copy()
        log = Log(work)
        if isinstance(cmd, o.AutoTerrain | o.PlaceTerrain):
            if work.stage != TERRAIN:
                raise IllegalOrder("the terrain is placed before deployment", rule="D-S-2")
            if isinstance(cmd, o.AutoTerrain):
                terrain.place_rest(work, log)
            else:
                terrain.place(work, log, team, cmd)
        elif isinstance(cmd, o.Deploy):
            if work.stage != DEPLOY:
                raise IllegalOrder("not the deployment", rule="D-S-3")
            _deploy(work, log, team, cmd)
        elif isinstance(cmd, o.Hits):
            choose(work, log, team, cmd.figures)
            if spread(work, log):
                after_hits(work, log)
        else:
            if work.stage != ORDERS:
                raise IllegalOrder("orders are given in the orders phase", rule="S-4")
            give(work, log, team, cmd)
        update_last_seen(work)
        return work, log.events

    def end_turn(self, state: SkirmishState, team: str, *, flagged: bool) -> tuple[SkirmishState, Sequence[Event]]:
        if team not in active(state):
            raise NotYourTurn(f"{team} is not to act now", rule="D-S-4")
        work = state.copy()
        log = Log(work)
        if work.decision is not None:
            log.emit("hits_by_default", None, owner=team, flagged=flagged, rule="D-S-9")
            by_default(work, log)
            if spread(work, log):
                after_hits(work, log)
        elif work.stage == TERRAIN:
            terrain.place_rest(work, log)
        elif work.stage == DEPLOY:
            _deploy(work, log, team, o.Deploy(None))
        elif work.stage == ORDERS:
            side = work.sides[team]
            lost = 1 if flagged else side.orders_left
            side.orders_left -= lost
            log.emit("orders_lost", None, side=team, orders=lost, reason="clock" if flagged else "passed",
                     rule="D-S-4")
            after_order(work, log)
        update_last_seen(work)
        return work, log.events

    def moderate(self, state: SkirmishState, ruling: Mapping[str, Any]) -> tuple[SkirmishState, Sequence[Event]]:
        """Rulings: {"type": "note", "text"}; {"type": "end_game", "winner": team, "reason"};
        {"type": "set_status", "figure", "status": "in_action" | "down" | "out"}; {"type": "set_orders", "side",
        "left"}; {"type": "morale", "unit", "demoralised": bool}; {"type": "resolve_hits"} (the default order now)."""
        work = state.copy()
        log = Log(work)
        kind = ruling.get("type") if isinstance(ruling, Mapping) else None
        if kind == "note":
            log.emit("ruling", None, text=str(ruling.get("text", ""))[:2000])
        elif kind == "end_game":
            winner = ruling.get("winner")
            if winner not in work.sides or work.over:
                raise BadOrder("end_game needs the winning team of a running game", rule="D-S-15")
            end_game(work, log, str(winner), str(ruling.get("reason", "moderator's ruling"))[:200])
        elif kind == "set_status":
            _set_status(work, log, ruling)
        elif kind == "set_orders":
            side = work.sides.get(str(ruling.get("side")))
            left = ruling.get("left")
            if side is None or isinstance(left, bool) or not isinstance(left, int) or not 0 <= left <= 6:
                raise BadOrder("set_orders needs a side and 0 to 6 orders", rule="S-5.2")
            side.orders_left = left
            log.emit("ruling", None, side=side.team, orders_left=left, rule="S-5.2")
            if work.stage == ORDERS and work.decision is None and not (
                    work.next_side and work.sides[work.next_side].orders_left):
                after_order(work, log)
        elif kind == "morale":
            unit = work.units.get(str(ruling.get("unit")))
            flag = ruling.get("demoralised")
            if unit is None or not isinstance(flag, bool):
                raise BadOrder("morale needs a unit and demoralised: true/false", rule="D-S-12")
            unit.demoralised = flag
            log.emit("ruling", log.audience(unit.members), unit=unit.id, demoralised=flag, rule="D-S-12")
        elif kind == "resolve_hits":
            if work.decision is None:
                raise BadOrder("no hits wait for a choice", rule="D-S-9")
            by_default(work, log)
            if spread(work, log):
                after_hits(work, log)
        else:
            raise BadOrder(f"unknown ruling {kind!r}", rule="D-S-15")
        update_last_seen(work)
        return work, log.events

    def view(self, state: SkirmishState, viewer: str) -> dict[str, Any]:
        return view_of(state, viewer)

    commander_alternatives = True
    """Its commander's orders are alternatives, best first: the first the room accepts is the side's order, and
    the AI is asked again for the next (D-S-4: one order at a time)."""

    def commander(self, view: Mapping[str, Any], team: str, rng_seed: int) -> Sequence[Mapping[str, Any]] | None:
        """Issue 21 item 5: the AI's next order for `team`, best first (ai.py), from its view and options."""
        return ai.command(view, team, rng_seed)

    def is_over(self, state: SkirmishState) -> bool:
        return state.stage == OVER

    def dump(self, state: SkirmishState) -> dict[str, Any]:
        return state.dump()

    def load(self, data: Mapping[str, Any]) -> SkirmishState:
        return SkirmishState.load(data)


def _acting(state: SkirmishState, actor: Actor, order: Mapping[str, Any], cmd: o.Command) -> str:
    """The side an order is for: the player's own team; for the moderator the `side` named, or the side to act."""
    now = active(state)
    if actor.moderator:
        named = order.get("side")
        if isinstance(named, str) and named in state.sides:
            return named
        if len(now) == 1:
            return next(iter(now))
        raise BadOrder("the moderator names the side he orders for", rule="D-S-4")
    team = actor.team
    if team not in state.sides:
        raise NotYourTurn(f"{team} plays no side here", rule="S-3.2")
    if isinstance(cmd, o.AutoTerrain):
        return str(team)
    if team not in now:
        raise NotYourTurn(f"{team} is not to act now", rule="D-S-4", details={"active": sorted(now)})
    return str(team)


def _deploy(s: SkirmishState, log: Log, team: str, cmd: o.Deploy) -> None:
    if s.sides[team].deployed:
        raise IllegalOrder(f"{team} has deployed", rule="D-S-3")
    first = s.defender.team
    if team != first and not s.sides[first].deployed:
        raise NotYourTurn("the defender deploys first", rule="S-3.2")
    deploy(s, log, team, cmd.placement, cmd.hold)
    if all(side.deployed for side in s.sides.values()):
        reveal(s, log)
        begin_turn(s, log)


def _set_status(s: SkirmishState, log: Log, ruling: Mapping[str, Any]) -> None:
    f = s.figures.get(str(ruling.get("figure")))
    status = ruling.get("status")
    if f is None or not f.on_table or status not in (IN_ACTION, DOWN, OUT):
        raise BadOrder("set_status needs a figure on the table and in_action, down or out", rule="D-S-9")
    if status == OUT:
        put_out(s, log, f, "moderator's ruling", "D-S-9")
    elif status == DOWN and f.status == IN_ACTION:
        hit(s, log, f, "moderator's ruling")
    else:
        f.status = str(status)
        log.emit("ruling", log.audience([f.id]), figure=f.id, status=status, rule="D-S-9")


if TYPE_CHECKING:
    _satisfies_protocol: Engine[SkirmishState] = SkirmishEngine()
