"""`CampaignEngine`: the Continental War (rules C-*) at levels 1–3 as a pure engine (server.core.engine.Engine).

Stages (C-1.5): planning and deployment (all teams at once, C-5/C-6), then combat operations with the turn order
of C-1.7/C-1.8 (levels 1–2: team after team, orders executed at once; level 3: every team gives orders, the
mediator executes them together when all have finished), then the end (C-10). Orders are plain dicts parsed into
typed commands (orders.py); illegal ones raise the typed errors of server.core.errors naming the rule.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from server.continental import ai, artillery, combat, deployment, fog, moderation, movement, peace, recon, war
from server.continental.context import Ctx, Dropped
from server.continental.events import for_team, public, umpire
from server.continental.forces import is_division, new_division
from server.continental.options import options as counter_options
from server.continental.orders import (
    AmendOrder,
    AnswerPeace,
    Army,
    ArmyGroup,
    Attack,
    Capitulate,
    Command,
    Corps,
    Cover,
    Deploy,
    Formation,
    Frontage,
    March,
    Merge,
    MobilizationPoints,
    Move,
    Posture,
    ProposePeace,
    Question,
    Reassign,
    Regulation,
    Split,
    Strike,
    Transfer,
    Turn,
    WithdrawOrder,
    parse,
)
from server.continental.scenario import load_scenario
from server.continental.state import OPERATIONS, OVER, PLANNING, CampaignState
from server.core.dice import Dice
from server.core.engine import Actor, BaseEngine, Event
from server.core.errors import BadOrder, IllegalOrder, NotYourTurn, RuleError
from server.core.turns import TurnOrder, in_turn_order

Handler = Callable[[Ctx, str, Any], None]

PLANNING_ORDERS: dict[type, Handler] = {
    Deploy: deployment.deploy, Army: deployment.army, ArmyGroup: deployment.army_group, Cover: deployment.cover,
    MobilizationPoints: deployment.mobilization_points, Regulation: deployment.regulation,
    Posture: deployment.posture, Formation: deployment.formation, Corps: movement.corps,
}
TURN_ORDERS: dict[type, Handler] = {
    Move: movement.move, Turn: movement.turn, Frontage: movement.frontage, March: movement.march,
    Transfer: movement.transfer, Split: movement.split, Merge: movement.merge, Reassign: movement.reassign,
    Corps: movement.corps,
    Attack: combat.attack, Strike: artillery.strike, Formation: deployment.formation,
}
ANY_TIME_ORDERS: dict[type, Handler] = {
    Posture: deployment.posture, Regulation: deployment.regulation, Question: recon.question,
    ProposePeace: peace.propose, AnswerPeace: peace.answer, Capitulate: peace.capitulate,
}
#: C-1.3: the server is the computer mediator; "none" records a game played without one (levels 1-2, C-1.4).
MEDIATORS = ("server", "none")
#: Level 3 (C-1.7): orders the mediator records and carries out together at the end of the turn, in this order.
RESOLUTION_ORDER: tuple[type, ...] = (Turn, Frontage, Formation, Split, Merge, Corps, Reassign, Transfer, March,
                                      Move, Strike, Attack)


class CampaignEngine(BaseEngine[CampaignState]):
    kind = "campaign"
    #: Orders a team may give out of its turn (the room skips its turn check for them; the engine checks who may):
    #: answers to and offers of peace, capitulation (C-10.2, C-10.3), standing postures and regulations (C-6),
    #: and questions, which the engine itself confines to the asker's turn (C-8.3).
    any_time_orders = frozenset({"posture", "regulation", "question", "propose_peace", "answer_peace", "capitulate"})

    # -- setup -------------------------------------------------------------------------------------------------
    def setup(self, config: Mapping[str, Any], seed: int) -> tuple[CampaignState, Sequence[Event]]:
        """C-0.2 level, C-0.3 house rules, C-1.2 teams (2–4 teams of 1–3 players, by colour)."""
        name = config.get("scenario", "continental")
        try:
            scen = load_scenario(str(name))
        except KeyError as exc:
            raise BadOrder(f"unknown scenario {name!r}", details={"field": "scenario"}) from exc
        level = config.get("level", 1)
        if level not in (1, 2, 3) or isinstance(level, bool):
            raise BadOrder("level is 1, 2 or 3", rule="C-0.2", details={"field": "level"})
        teams = _teams(config.get("teams") or [{"colour": "red", "seats": 1}, {"colour": "blue", "seats": 1}])
        for colour in teams:
            if colour not in scen.raw["states"]:
                raise BadOrder(f"the scenario has no state for {colour!r}", rule="C-1.2")
        house_rules = config.get("house_rules", [])
        if not isinstance(house_rules, list) or len(house_rules) > 50 or not all(
                isinstance(r, str) and len(r) <= 500 for r in house_rules):
            raise BadOrder("house rules are a list of texts", rule="C-0.3", details={"field": "house_rules"})
        mediator = config.get("mediator", "server")
        if mediator not in MEDIATORS:
            raise BadOrder("the mediator is 'server' or 'none'", rule="C-1.3", details={"field": "mediator"})
        if mediator == "none" and level == 3:
            raise BadOrder("level 3 is impossible without a mediator", rule="C-1.4", details={"field": "mediator"})
        module = config.get("module", 1)
        if module != 1 or isinstance(module, bool):
            raise BadOrder("only Module 1, the Continental War, is specified", rule="C-0.1",
                           details={"field": "module"})
        if config.get("forces", "preset") != "preset":
            raise BadOrder("only preset forces are played: Table 6 (forces by cost) is blank and the level-3 "
                           "establishments depend on Module 4", rule="C-T6, C-3.U1", details={"field": "forces"})
        fine = config.get("penalise_refused_orders", False)
        if not isinstance(fine, bool):
            raise BadOrder("penalise_refused_orders is true or false (a house rule, off by default)", rule="D-C-6",
                           details={"field": "penalise_refused_orders"})
        ordered = list(in_turn_order(list(teams)))
        neutrals = [s for s, d in scen.raw["states"].items() if s not in ordered and d.get("neutral")]
        state = CampaignState(
            scenario=scen.name, level=int(level), teams=[{"colour": c, "seats": teams[c]} for c in ordered],
            house_rules=list(house_rules), recon_deception=bool(config.get("recon_deception")),
            phase=PLANNING, order=TurnOrder.start(ordered, simultaneous=True), dice=Dice.from_seed(seed),
            units={}, neutrals=neutrals, penalise_refused=fine,
            mediator=str(mediator),
        )
        for colour in [*ordered, *neutrals]:
            for spec in scen.forces_for(colour, state.level):
                state.units[spec["id"]] = new_division(scen, state.level, spec, colour, neutral=colour in neutrals)
            state.recon[colour] = {"quota": 0.0, "spent": 0.0, "answers": 0, "false": 0}
        deployment.setup_fortresses(state)
        deployment.setup_headquarters(state)
        for colour in ordered:
            state.armies[colour] = {}
            for u in state.alive_units(colour):
                if u.army and is_division(state.tables, u):
                    state.armies[colour].setdefault(u.army, []).append(u.id)
        events: list[Event] = [public(
            "campaign_created", scenario=scen.name, title=scen.title, level=state.level, teams=state.teams,
            neutrals=neutrals, house_rules=state.house_rules, recon_deception=state.recon_deception,
            module=1, mediator=state.mediator, refused_order_fine=state.penalise_refused,
            rules="C-0.1, C-0.2, C-0.3, C-1.2, C-1.3, D-C-6",
        )]
        events.append(public("phase", phase=PLANNING, rule="C-1.5"))
        return state, events

    # -- turn order --------------------------------------------------------------------------------------------
    def teams(self, state: CampaignState) -> Sequence[str]:
        return state.order.teams

    def active_teams(self, state: CampaignState) -> frozenset[str]:
        return frozenset() if state.phase == OVER else state.order.active

    def is_over(self, state: CampaignState) -> bool:
        return state.phase == OVER

    # -- orders ------------------------------------------------------------------------------------------------
    def apply(self, state: CampaignState, actor: Actor, order: Mapping[str, Any]) -> tuple[CampaignState,
                                                                                            Sequence[Event]]:
        if actor.moderator:
            return self.moderate(state, order)
        team = actor.team
        if team is None or team not in state.player_teams:
            raise NotYourTurn("only a team's players give orders", rule="C-1.2")
        if team in state.defeated:
            raise NotYourTurn(f"{team} is out of the war", rule="C-10.1")
        if state.phase == OVER:
            raise IllegalOrder("the campaign is over", rule="C-10.1")
        cmd = parse(order)
        ctx = Ctx(state.copy())
        kind = type(cmd)
        if kind in ANY_TIME_ORDERS and not (state.phase == PLANNING and kind in PLANNING_ORDERS):
            if kind is Question and team not in state.order.active:
                raise NotYourTurn("questions are asked in your own turn", rule="C-8.3")
            ANY_TIME_ORDERS[kind](ctx, team, cmd)
        elif state.phase == PLANNING:
            handler = PLANNING_ORDERS.get(kind)
            if handler is None:
                raise IllegalOrder("during planning only deployment orders are given", rule="C-1.5")
            if team not in state.order.active:
                raise NotYourTurn("your team has finished planning", rule="C-5.2")
            handler(ctx, team, cmd)
        elif isinstance(cmd, (AmendOrder, WithdrawOrder)):
            self._amend(ctx, team, cmd)
        else:
            handler = TURN_ORDERS.get(kind)
            if handler is None:
                raise IllegalOrder("this order belongs to planning", rule="C-1.5")
            if team not in state.order.active:
                raise NotYourTurn(f"it is {', '.join(sorted(state.order.active))}'s turn", rule="C-1.7")
            if ctx.silent or state.level >= 3:
                self._record(ctx, team, cmd)
            else:
                handler(ctx, team, cmd)
        fog.sightings(state, ctx)
        return ctx.state, ctx.events

    def _record(self, ctx: Ctx, team: str, cmd: Command) -> None:
        """C-1.7 [L3]: the mediator records the order as it read it (C-9.3: the parsed command, none of the
        client's other fields); who owns the unit is checked at once."""
        for uid in _units_named(cmd):
            ctx.own_unit(team, uid)
        numbers = ctx.state.order_numbers
        numbers[team] = numbers.get(team, 0) + 1
        recorded = {**cmd.wire_form(), "number": numbers[team]}
        ctx.state.pending.setdefault(team, []).append(recorded)
        ctx.emit(for_team(team, "order_recorded", spectators=False, order=dict(recorded), number=numbers[team]))

    def _amend(self, ctx: Ctx, team: str, cmd: AmendOrder | WithdrawOrder) -> None:
        """C-1.7 [L3]: until the mediator carries the turn's orders out, a team may amend or withdraw an order it
        recorded (named by the number `order_recorded` gave it); the amended order keeps its number and place."""
        s = ctx.state
        if s.level < 3:
            raise IllegalOrder("at levels 1-2 an order is carried out at once: none waits to be amended",
                               rule="C-1.7")
        if team not in s.order.active:
            raise NotYourTurn("your orders for this turn are in: the mediator is carrying them out", rule="C-1.7")
        waiting = s.pending.get(team, [])
        at = next((i for i, o in enumerate(waiting) if o.get("number") == cmd.number), None)
        if at is None:
            raise IllegalOrder(f"no order number {cmd.number} waits this turn", rule="C-1.7",
                               details={"number": cmd.number})
        if isinstance(cmd, WithdrawOrder):
            del waiting[at]
            ctx.emit(for_team(team, "order_withdrawn", spectators=False, number=cmd.number, rule="C-1.7"))
            return
        if type(cmd.order) not in TURN_ORDERS:
            raise IllegalOrder("only an order of combat operations can replace a recorded one", rule="C-1.7")
        for uid in _units_named(cmd.order):
            ctx.own_unit(team, uid)
        waiting[at] = {**cmd.order.wire_form(), "number": cmd.number}
        ctx.emit(for_team(team, "order_amended", spectators=False, order=dict(waiting[at]), number=cmd.number,
                          rule="C-1.7"))

    def end_turn(self, state: CampaignState, team: str, *, flagged: bool) -> tuple[CampaignState, Sequence[Event]]:
        if state.phase == OVER:
            raise IllegalOrder("the campaign is over", rule="C-10.1")
        if team not in state.order.active:
            raise NotYourTurn(f"{team} is not to act now", rule="C-1.7")
        ctx = Ctx(state.copy())
        s = ctx.state
        ctx.emit(public("turn_ended", team=team, turn=s.turn, flagged=flagged))
        if s.phase == PLANNING:
            s.order, complete = s.order.finish(team)
            if complete:
                deployment.finish_planning(ctx)
                s.phase = OPERATIONS
                s.order = TurnOrder.start(list(s.order.teams), simultaneous=s.level >= 3)
                ctx.emit(public("phase", phase=OPERATIONS, turn=s.turn, rule="C-1.5"))
                deployment.mobilize(ctx)
                self._begin(ctx)
        else:
            s.order, complete = s.order.finish(team)
            if complete:
                if s.level >= 3:
                    self._resolve(ctx)
                peace.end_of_day(ctx)
                if s.phase != OVER:
                    deployment.mobilize(ctx)
            if s.phase != OVER:
                self._begin(ctx)
        fog.sightings(state, ctx)
        return s, ctx.events

    def _begin(self, ctx: Ctx) -> None:
        s = ctx.state
        for t in sorted(s.order.active):
            artillery.expire_interdictions(s, t)
            movement.begin_turn(ctx, t)

    def _resolve(self, ctx: Ctx) -> None:
        """C-1.7 [L3], C-9.3, D-C-6: carry out every recorded order, kind by kind, teams in turn order; what is
        impossible is done as far as possible and noted for the moderator only."""
        s = ctx.state
        pending, s.pending = s.pending, {}
        ctx.silent = True
        ctx.emit(public("resolution", turn=s.turn - 1, rule="C-1.7"))
        queue = [(t, parse(o)) for t in s.order.teams for o in pending.get(t, [])]
        for kind in RESOLUTION_ORDER:
            if kind is Move:
                self._resolve_moves(ctx, [(i, t, c) for i, (t, c) in enumerate(queue) if isinstance(c, Move)])
                continue
            for team, cmd in queue:
                if type(cmd) is kind and s.phase != OVER:
                    _carry_out(ctx, TURN_ORDERS[kind], team, cmd)
        ctx.silent = False

    @staticmethod
    def _resolve_moves(ctx: Ctx, moves: list[tuple[int, str, Move]]) -> None:
        """C-1.7 [L3]: moves are simultaneous — every ordered move advances one cell a round, teams in turn order
        within a round, so nobody's whole march goes before the other side's first step. A move that meets an
        obstacle stops there (C-9.3)."""
        stopped: set[int] = set()
        for k in range(max((len(m.path) for _, _, m in moves), default=0)):
            for i, team, cmd in moves:
                if i in stopped or k >= len(cmd.path) or ctx.state.phase == OVER:
                    continue
                if not _carry_out(ctx, movement.move, team, Move(cmd.unit, (cmd.path[k],))):
                    stopped.add(i)

    def refused(self, state: CampaignState, team: str, error: RuleError) -> tuple[CampaignState, Sequence[Event]]:
        """D-C-6 (revised), C-9.3: the server is the mediator, so a refused order (levels 1–2) costs nothing —
        unless the campaign's house rules switch the 50-point fine on (C-0.3: "penalise_refused_orders": true at
        setup, off by default); then the room calls this after refusing `team`'s order with `error`. Malformed
        orders (BadOrder, UnknownOrder) and out-of-turn ones are not the rules' incorrect orders."""
        if (not state.penalise_refused or state.level >= 3 or team not in state.player_teams
                or type(error) is not IllegalOrder or state.phase != OPERATIONS):
            return state, []
        ctx = Ctx(state.copy())
        war.penalise(ctx, team, int(state.tables["scoring"]["error_penalty"]), "C-9.3",
                       f"incorrect order refused ({error.rule}: {error.message})")
        return ctx.state, ctx.events

    # -- moderator ---------------------------------------------------------------------------------------------
    def moderate(self, state: CampaignState, ruling: Mapping[str, Any]) -> tuple[CampaignState, Sequence[Event]]:
        ctx = Ctx(state.copy())
        moderation.rule(ctx, ruling)
        fog.sightings(state, ctx)
        return ctx.state, ctx.events

    # -- views and snapshots -----------------------------------------------------------------------------------
    def options(self, state: CampaignState, viewer: str, unit: str | None) -> dict[str, Any] | None:
        """Issue 14: the team's counters that may move, or one counter's marches this turn (options.py)."""
        return counter_options(state, viewer, unit)

    def view(self, state: CampaignState, viewer: str) -> dict[str, Any]:
        return fog.view(state, viewer)

    def commander(self, view: Mapping[str, Any], team: str, rng_seed: int) -> Sequence[Mapping[str, Any]] | None:
        """Issue 18: the AI's orders for a team, from its view (ai.py)."""
        return ai.command(view, team, rng_seed)

    def dump(self, state: CampaignState) -> dict[str, Any]:
        return state.dump()

    def load(self, data: Mapping[str, Any]) -> CampaignState:
        return CampaignState.load(data)


def _carry_out(ctx: Ctx, handler: Handler, team: str, cmd: Command) -> bool:
    """Level 3: carry out one recorded order as far as possible; False when nothing of it could be done."""
    try:
        handler(ctx, team, cmd)
    except Dropped:
        return False
    except RuleError as err:
        ctx.emit(umpire("order_dropped", team=team, rule=err.rule, message=err.message))
        return False
    return True


def _teams(raw: Any) -> dict[str, int]:
    """C-1.2: 2–4 teams of distinct colours, 1–3 players each, at most 10 players."""
    if not isinstance(raw, list) or not all(isinstance(t, Mapping) for t in raw):
        raise BadOrder("teams are a list of {colour, seats}", rule="C-1.2", details={"field": "teams"})
    teams: dict[str, int] = {}
    for t in raw:
        colour, seats = t.get("colour"), t.get("seats", 1)
        if not isinstance(colour, str) or colour in teams:
            raise BadOrder("each team has its own colour", rule="C-1.2", details={"field": "teams"})
        if not isinstance(seats, int) or isinstance(seats, bool) or not 1 <= seats <= 3:
            raise BadOrder("a team has 1 to 3 players", rule="C-1.2", details={"field": "teams"})
        teams[colour] = seats
    if not 2 <= len(teams) <= 4:
        raise BadOrder("a campaign has 2 to 4 teams", rule="C-1.2", details={"field": "teams"})
    if sum(teams.values()) > 10:
        raise BadOrder("at most 10 players take part", rule="C-1.2", details={"field": "teams"})
    return teams


def _units_named(cmd: Command) -> list[str]:
    names: list[str] = []
    for attr in ("unit", "regiment"):
        value = getattr(cmd, attr, None)
        if isinstance(value, str):
            names.append(value)
    for attr in ("units", "support"):
        names.extend(getattr(cmd, attr, ()) or ())
    names.extend(uid for uid, _ in getattr(cmd, "pursue", ()) or ())
    for echelon in getattr(cmd, "echelons", ()) or ():
        names.extend(echelon)
    return names


__all__ = ["CampaignEngine"]
