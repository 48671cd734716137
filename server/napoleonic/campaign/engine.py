"""`NapoleonicEngine`: the Napoleonic campaign as a variant of the campaign engine (server.core.engine.Engine).

It reuses the campaign engine's scenario loading and map (server.continental.scenario: the grid, terrain, rivers,
roads, places), its turn order (server.core.turns: red first, team after team, a chess clock per team) and its
dice; it replaces the counters of the Continental War by armies of regiments and companies whose types are the
battle engine's (server.napoleonic.battle.units), with movement points per army. Its part of the game is what happens
around battles: interception (N-START-2, D-N-13), declining battle (N-START-3), reinforcements (D-N-12), battles
and sieges started (N-START-1, N-SIEGE-2), armies frozen while they fight (D-L-1), results applied (N-VICTORY,
N-MORALE-7, D-N-14), quick resolution (D-L-2).

Orders (a team's players):
  {"type": "move", "army", "path": [[x, y], ...], "attack"?: colour}
                                                            in the team's turn; stops in a cell with an enemy
                                                            army (`attack`: which power, when several, D-NAP-6)
  {"type": "posture", "army", "intercept"?: bool, "support"?: bool}
  {"type": "intercept", "army", "target"}                   in the team's turn, against an army seen ending a
                                                            move within 5 cells of it while it was set to intercept
  {"type": "answer", "battle", "choice": "accept" | "withdraw" | "retreat_with_battle", "paths"?: {army: path}}
  {"type": "retreat", "army", "path": [[x, y], ...]}         a beaten army's retreat, 1 to 7 cells (N-VICTORY-4)
  {"type": "reinforce", "battle", "army"}
  {"type": "offer_quick", "battle"} / {"type": "answer_quick", "battle", "accept": bool}
  {"type": "siege", "fortress", "action": "storm" | "lift" | "sortie" | "surrender" | "hold", "howitzers"?: [unit]}
                                                            `howitzers` with the besieger's storm: its companies
                                                            that become howitzers for it (N-SIEGE-9, D-N-15)
  {"type": "terms", "fortress", "terms": {"garrison", "general"}} / {"type": "accept_terms", "fortress"}
  {"type": "appoint", "army", "general"}                    a replacement general (D-N-14)
  {"type": "fortify", "army"}                               in the team's turn: fortify the city the army stands
                                                            in (D-N-16: 10 turns, with an artillery company)
Rulings (the moderator, or the server on behalf of a battle room):
  {"type": "battle_result", "battle", "result"}  BattleEngine's (or SiegeEngine's) result
  {"type": "impose_quick", "battle"} / {"type": "impose_terms", "fortress", "terms"}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from server.continental.grid import Cell
from server.continental.scenario import load_scenario
from server.core.dice import Dice
from server.core.engine import MODERATOR, SPECTATOR, Actor, BaseEngine, ChildRoom, ChildSetup, Engine, Event, FollowUp
from server.core.errors import BadOrder, IllegalOrder, NotYourTurn, NotYourUnit, RuleError, UnknownOrder
from server.core.turns import TurnOrder, in_turn_order
from server.napoleonic.battle.units import UNIT_TYPES

from . import ai, battle_rooms, battles, decisions, fortify, quick, retreats, sieges
from .events import Ctx
from .interception import watch
from .movement import parse_path, path_cost
from .options import options as army_options
from .orders import (
    AcceptTerms,
    Answer,
    AnswerQuick,
    Fortify,
    Intercept,
    MoveArmy,
    OfferQuick,
    Posture,
    Reinforce,
    RetreatArmy,
    SiegeOrder,
    Terms,
    parse,
)
from .records import Army
from .state import FROZEN, GONE, OVER, READY, RUNNING, NapoleonicState, cell_of
from .view import view_of

SCENARIO = "napoleonic"
TURN_ORDERS = ("move", "intercept", "appoint", "posture", "fortify")


class NapoleonicEngine(BaseEngine[NapoleonicState]):
    kind = "napoleonic"
    #: Its battles are fought in battle rooms of their own (battle_rooms.py: the child-room hooks; the lobby lists
    #: them).
    has_child_rooms = True
    #: Orders a team gives whenever the game asks it (the room lets them through out of turn; the engine checks
    #: that the team is the one asked): answers to contact and offers, reinforcements, siege decisions and terms.
    any_time_orders = frozenset({"answer", "reinforce", "offer_quick", "answer_quick", "siege", "terms",
                                 "accept_terms", "retreat"})

    # -- setup -------------------------------------------------------------------------------------------------
    def setup(self, config: Mapping[str, Any], seed: int) -> tuple[NapoleonicState, Sequence[Event]]:
        """2–4 powers of 1–3 players (C-1.2); each army's units start at their type's values (campaign morale
        per unit). `config["armies"]` may replace the scenario's order of battle ({colour: [army, …]})."""
        name = str(config.get("scenario", SCENARIO))
        try:
            scen = load_scenario(name)
        except KeyError as exc:
            raise BadOrder(f"unknown scenario {name!r}", details={"field": "scenario"}) from exc
        teams_cfg = [t if isinstance(t, Mapping) else {"colour": t, "seats": 1}
                     for t in (config.get("teams") or [{"colour": "red"}, {"colour": "blue"}])]
        colours = [str(t.get("colour")) for t in teams_cfg]
        if not 2 <= len(colours) <= 4 or len(set(colours)) != len(colours):
            raise BadOrder("a campaign has 2 to 4 powers of distinct colours", rule="C-1.2")
        order_of_battle = config.get("armies") or scen.raw.get("armies", {})
        for c in colours:
            if c not in scen.raw["states"] or not order_of_battle.get(c):
                raise BadOrder(f"the scenario has no power with armies for {c!r}", rule="C-1.2")
        ordered = list(in_turn_order(colours))
        state = NapoleonicState(
            scenario=name,
            teams=[{"colour": c, "seats": int(next(t for t in teams_cfg if t["colour"] == c).get("seats", 1))}
                   for c in ordered],
            order=TurnOrder.start(ordered, simultaneous=False), dice=Dice.from_seed(seed), armies={},
            lockout_minutes=float(config.get("lockout_minutes", 20)),
        )
        for colour in ordered:
            for spec in order_of_battle[colour]:
                army = _new_army(spec, colour)
                if army.id in state.armies or not state.map.is_land(cell_of(army.cell)):
                    raise BadOrder(f"army {army.id!r} is duplicated or off the land", rule="C-1.2")
                state.armies[army.id] = army
        ctx = Ctx(state)
        ctx.public("campaign_created", scenario=name, title=scen.title, teams=state.teams, rules="C-1.2")
        return state, ctx.events

    # -- turn order --------------------------------------------------------------------------------------------
    def teams(self, state: NapoleonicState) -> Sequence[str]:
        return state.order.teams

    def active_teams(self, state: NapoleonicState) -> frozenset[str]:
        """The team whose turn it is unless it fights a battle (D-L-1, D-NAP-5: the clocks of teams in a running
        battle stop — their battle room has its own), and a team with a decision due (`decisions.deciding`: a
        defender choosing whether to fight, N-START-3; a beaten army's team choosing its retreat, N-VICTORY-4):
        its clock runs while it decides, and if it flags the default holds (D-NAP-4, D-NAP-3). Other answers
        (quick resolution, sieges) are `any_time_orders` and run nobody's clock."""
        return (state.order.active - busy_teams(state)) | frozenset(decisions.deciding(state))

    def is_over(self, state: NapoleonicState) -> bool:
        return len({a.team for a in state.alive_armies()}) < 2

    # -- battle rooms (the child-room hooks of server.core.engine; battle_rooms.py) ----------------------------
    def child_rooms(self, state: NapoleonicState) -> Sequence[ChildRoom]:
        return battle_rooms.child_rooms(state)

    def finished_child_rooms(self, state: NapoleonicState) -> Sequence[ChildRoom]:
        return battle_rooms.child_rooms(state, OVER)

    def child_opened(self, kind: str, data: Mapping[str, Any]) -> str | None:
        return battle_rooms.child_opened(kind, data)

    def child_setup(self, state: NapoleonicState, key: str, seed: int) -> ChildSetup:
        return battle_rooms.child_setup(state, key, seed)

    def child_over(self, state: NapoleonicState, key: str, result: Mapping[str, Any]) -> tuple[NapoleonicState,
                                                                                                Sequence[Event]]:
        return self.moderate(state, battle_rooms.result_ruling(key, result))

    def follow_ups(self, kind: str, data: Mapping[str, Any]) -> Sequence[FollowUp]:
        return battle_rooms.follow_ups(kind, data)

    # -- orders ------------------------------------------------------------------------------------------------
    def apply(self, state: NapoleonicState, actor: Actor, order: Mapping[str, Any]) -> tuple[NapoleonicState,
                                                                                              Sequence[Event]]:
        if actor.moderator:
            return self.moderate(state, order)
        team = actor.team
        if team is None or team not in state.player_teams:
            raise NotYourTurn("only a power's players give orders", rule="C-1.2")
        if not isinstance(order, Mapping):
            raise BadOrder("an order is an object with a type")
        kind = order.get("type")
        if kind in TURN_ORDERS and team not in state.order.active:
            raise NotYourTurn(f"it is {', '.join(sorted(state.order.active))}'s turn", rule="C-1.7")
        if kind in TURN_ORDERS and team in busy_teams(state):
            raise NotYourTurn(f"{team} is fighting a battle: its campaign turn waits", rule="D-L-1",
                              details={"decision": "D-NAP-5"})
        cmd = parse(order)
        ctx = Ctx(state.copy())
        s = ctx.state
        if isinstance(cmd, MoveArmy):
            self._move(ctx, team, self._army(s, team, cmd.army), parse_path(cmd.path), cmd.attack)
        elif isinstance(cmd, Posture):
            army = self._army(s, team, cmd.army)
            for key in ("intercept", "support"):
                if key in cmd.model_fields_set:
                    setattr(army, key, getattr(cmd, key))
            ctx.team(team, "posture", army=army.id, intercept=army.intercept, support=army.support,
                     rule="N-START-2, D-N-12")
        elif isinstance(cmd, Intercept):
            self._intercept(ctx, team, self._army(s, team, cmd.army), cmd.target)
        elif isinstance(cmd, Answer):
            battles.answer(ctx, team, cmd.battle, cmd.choice, cmd.paths)
        elif isinstance(cmd, RetreatArmy):
            retreats.order(ctx, self._army(s, team, cmd.army), parse_path(cmd.path))
        elif isinstance(cmd, Reinforce):
            battles.reinforce(ctx, team, cmd.battle, cmd.army)
        elif isinstance(cmd, OfferQuick):
            quick.offer(ctx, team, cmd.battle)
        elif isinstance(cmd, AnswerQuick):
            quick.answer(ctx, team, cmd.battle, cmd.accept)
        elif isinstance(cmd, SiegeOrder):
            sieges.order(ctx, team, cmd.fortress, cmd.action, cmd.howitzers)
        elif isinstance(cmd, Terms):
            sieges.terms(ctx, team, cmd.fortress, cmd.terms)
        elif isinstance(cmd, AcceptTerms):
            sieges.terms(ctx, team, cmd.fortress, None, accept=True)
        elif isinstance(cmd, Fortify):
            fortify.order(ctx, self._army(s, team, cmd.army))
        else:
            army = self._army(s, team, cmd.army)
            army.general = cmd.general
            ctx.public("general_appointed", army=army.id, general=cmd.general, team=team, rule="D-N-14")
        _pass_busy(ctx)
        return s, ctx.events

    def _army(self, s: NapoleonicState, team: str, army_id: Any) -> Army:
        army = s.armies.get(str(army_id))
        if army is None or army.status in GONE:
            raise BadOrder(f"no army {army_id!r}", details={"army": army_id})
        if army.team != team:
            raise NotYourUnit(f"{army.id} belongs to {army.team}", details={"army": army.id})
        return army

    def _move(self, ctx: Ctx, team: str, army: Army, path: list[Cell], attack: Any = None) -> None:
        """Movement points (D-NAP-1); a move ends in the first cell holding an enemy army: a battle (N-START-1) or,
        if the enemy holds a fortress there, a siege (N-SIEGE-2). Armies that fight are frozen (D-L-1)."""
        s = ctx.state
        if army.status in FROZEN:
            raise IllegalOrder(f"{army.id} is {army.status}: frozen until it ends", rule="D-L-1",
                               details={"army": army.id})
        start = cell_of(army.cell)
        for i, cell in enumerate(path):
            if s.enemies_at(cell, team) and i != len(path) - 1:
                raise IllegalOrder("a move ends where it meets the enemy", rule="N-START-1",
                                   details={"cell": list(cell)})
        cost = path_cost(s, start, path, "D-NAP-1")
        if cost > float(army.points) + 1e-9:
            raise IllegalOrder(f"{army.id} has {army.points} movement points, the path costs {cost}",
                               rule="D-NAP-1", details={"army": army.id, "cost": cost})
        end = path[-1]
        enemies = s.enemies_at(end, team)
        if any(a.status != READY for a in enemies):
            raise IllegalOrder("a battle or siege is going on in that cell", rule="D-L-1",
                               details={"cell": list(end)})
        came_from = path[-2] if len(path) > 1 else start
        army.cell, army.points = list(end), round(float(army.points) - cost, 2)
        s.interceptions = [i for i in s.interceptions if i["target"] != army.id]
        fortify.moved(ctx, army)
        ctx.team(team, "army_moved", army=army.id, path=[list(c) for c in path], cell=army.cell,
                 points=army.points, rule="D-NAP-1")
        if enemies:
            fortress = sieges.fortress_at(s, end)
            if fortress is not None:
                sieges.lay(ctx, army, end, fortress)
            else:
                battles.meet(ctx, army, end, came_from, target=attack)
            return
        watch(ctx, army)

    def _intercept(self, ctx: Ctx, team: str, army: Army, target_id: Any) -> None:
        s = ctx.state
        chance = next((i for i in s.interceptions if i["by"] == army.id and i["target"] == target_id), None)
        target = s.armies.get(str(target_id))
        if chance is None or target is None or target.status != READY or target.cell != chance["cell"]:
            raise IllegalOrder("no interception of that army is possible now", rule="N-START-2",
                               details={"army": army.id, "target": target_id, "decision": "D-N-13"})
        if army.status != READY:
            raise IllegalOrder(f"{army.id} is {army.status}", rule="D-L-1")
        s.interceptions.remove(chance)
        start, end = cell_of(army.cell), cell_of(target.cell)
        army.cell = list(end)
        ctx.public("intercepted", army=army.id, target=target.id, cell=list(end), rule="N-START-2, D-N-13")
        if sieges.fortress_at(s, end) is not None:
            sieges.lay(ctx, army, end, sieges.fortress_at(s, end))  # type: ignore[arg-type]
        else:
            battles.meet(ctx, army, end, start, rule="N-START-2", target=target.team)

    def end_turn(self, state: NapoleonicState, team: str, *, flagged: bool) -> tuple[NapoleonicState,
                                                                                     Sequence[Event]]:
        if team not in state.order.active or team in busy_teams(state):
            if flagged and team in decisions.deciding(state):  # its decisions' clock ran out (D-NAP-4)
                ctx = Ctx(state.copy())
                decisions.by_default(ctx, team, flagged=True)
                _pass_busy(ctx)
                return ctx.state, ctx.events
            raise NotYourTurn(f"{team} is not to act now", rule="C-1.7")
        ctx = Ctx(state.copy())
        _finish_turn(ctx, team, flagged=flagged)
        _pass_busy(ctx)
        return ctx.state, ctx.events

    # -- moderator and server ----------------------------------------------------------------------------------
    def moderate(self, state: NapoleonicState, ruling: Mapping[str, Any]) -> tuple[NapoleonicState,
                                                                                   Sequence[Event]]:
        if not isinstance(ruling, Mapping):
            raise BadOrder("a ruling is an object with a type")
        ctx = Ctx(state.copy())
        kind = ruling.get("type")
        if kind == "battle_result":
            battle = battles.get_battle(ctx.state, ruling.get("battle"), statuses=(RUNNING,))
            result = ruling.get("result")
            if not isinstance(result, Mapping):
                raise BadOrder("battle_result needs the battle engine's result", rule="D-L-1")
            siege = result.get("siege") or {}
            if not isinstance(siege, Mapping):
                raise BadOrder("the result's siege part is an object", rule="N-SIEGE-7")
            capitulated = bool(siege.get("capitulated"))
            retreat = None
            if battle.siege:
                retreat = sieges.battle_over(ctx, battle, str(result.get("winner")), capitulated)
            battles.apply_result(ctx, battle, result, how="capitulation" if capitulated else "battle",
                                 retreat=retreat)
            if battle.siege:
                sieges.after_battle(ctx, battle)
        elif kind == "impose_quick":
            quick.impose(ctx, ruling.get("battle"))
        elif kind == "impose_terms":
            sieges.terms(ctx, None, ruling.get("fortress"), ruling.get("terms"))
        else:
            raise UnknownOrder(f"unknown ruling {kind!r}", details={"type": kind})
        _pass_busy(ctx)
        return ctx.state, ctx.events

    # -- views and snapshots -----------------------------------------------------------------------------------
    def options(self, state: NapoleonicState, viewer: str, unit: str | None) -> dict[str, Any] | None:
        """Issue 14: the team's armies, or one army's marches this turn (options.py), refused as its turn orders
        are (C-1.7, D-L-1)."""
        team = viewer[5:] if viewer.startswith("team:") else ""
        turn: RuleError | None = None
        if team not in state.order.active:
            turn = NotYourTurn(f"it is {', '.join(sorted(state.order.active))}'s turn", rule="C-1.7")
        elif team in busy_teams(state):
            turn = NotYourTurn(f"{team} is fighting a battle: its campaign turn waits", rule="D-L-1")
        return army_options(state, viewer, unit, turn)

    def view(self, state: NapoleonicState, viewer: str) -> dict[str, Any]:
        return view_of(state, viewer)

    def commander(self, view: Mapping[str, Any], team: str, rng_seed: int) -> Sequence[Mapping[str, Any]] | None:
        """Issue 18: the AI's orders for a power, from its view (ai.py)."""
        return ai.command(view, team, rng_seed)

    def dump(self, state: NapoleonicState) -> dict[str, Any]:
        return state.dump()

    def load(self, data: Mapping[str, Any]) -> NapoleonicState:
        return NapoleonicState.load(data)


def busy_teams(state: NapoleonicState) -> frozenset[str]:
    """D-L-1, D-NAP-5: the teams with an army (or reinforcement) in a running battle."""
    return frozenset(str(a.team) for a in state.alive_armies()
                     if a.battle is not None and state.battles[str(a.battle)].status == RUNNING)


def _finish_turn(ctx: Ctx, team: str, *, flagged: bool, passed: bool = False) -> None:
    """The team's part of the campaign turn ends (C-1.7): what it left undecided takes its default (issue 12,
    `decisions`; not for a turn passed while it fights, D-NAP-5); the next team's armies get their points back
    (D-NAP-1); sieges that have lasted their turn are stormed (N-SIEGE-5)."""
    s = ctx.state
    if not passed:
        decisions.by_default(ctx, team, flagged=flagged)
    ctx.public("turn_ended", team=team, turn=s.turn, flagged=flagged, **({"passed": True} if passed else {}))
    s.interceptions = [i for i in s.interceptions if s.armies[i["by"]].team != team]
    s.order, complete = s.order.finish(team)
    if complete:
        sieges.end_of_turn(ctx)
        fortify.end_of_turn(ctx)
    nxt = sorted(s.order.active)
    for army in s.alive_armies():
        if army.team in nxt:
            army.points = army.max_points
    ctx.public("turn_begun", turn=s.turn, teams=nxt)


def _pass_busy(ctx: Ctx) -> None:
    """D-L-1, D-NAP-5: the campaign turn goes on while battles are fought. A team whose campaign turn is on (or
    comes up) while it fights a battle passes it — its clock is stopped and nobody waits for it — unless every
    team is fighting, when the turn waits with all clocks stopped until a battle ends."""
    s = ctx.state
    for _ in range(2 * len(s.order.teams) + 2):
        busy = busy_teams(s)
        current = sorted(s.order.active)
        if not current or not set(current) <= busy or set(s.order.teams) <= busy:
            return
        team = current[0]
        running = sorted({str(a.battle) for a in s.alive_armies(team) if a.battle is not None
                          and s.battles[str(a.battle)].status == RUNNING}, key=int)
        ctx.public("turn_passed", team=team, turn=s.turn, battles=running, rule="D-L-1, D-NAP-5")
        _finish_turn(ctx, team, flagged=False, passed=True)


def _new_army(spec: Mapping[str, Any], team: str) -> Army:
    units = []
    for u in spec["units"]:
        t = UNIT_TYPES.get(str(u.get("type")))
        if t is None:
            raise BadOrder(f"unit {u.get('id')!r}: unknown type {u.get('type')!r}", rule="N-START-1")
        units.append({"id": str(u["id"]), "type": t.name, "morale": int(u.get("morale", t.morale)),
                      "loss_tolerance": int(u.get("loss_tolerance", t.loss_tolerance)),
                      "guns": int(u.get("guns", t.guns)), "accuracy": int(u.get("accuracy", t.accuracy))})
    points = float(spec.get("movement_points", 6))
    general, base = spec.get("general"), spec.get("base")
    return Army(str(spec["id"]), str(spec.get("name", spec["id"])), team, None if general is None else str(general),
                int(spec.get("seat", 1)), list(cell_of(spec["cell"])), points, points,
                None if base is None else str(base), READY, bool(spec.get("intercept", False)),
                bool(spec.get("support", False)), None, units)


if TYPE_CHECKING:
    _satisfies_protocol: Engine[NapoleonicState] = NapoleonicEngine()

__all__ = ["MODERATOR", "SPECTATOR", "NapoleonicEngine"]
