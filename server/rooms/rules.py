"""A room's own rules as one pure step, beside the engine's `apply`: `step(spec, state, kind, body, member, at)`
gives the new room state and its events, raises a typed refusal, or says there is nothing to do (None: a timer
that found nothing due). No asyncio, no I/O, time passed in: replaying a room's log through `step` rebuilds it.

Commands (the kinds of the log's records):
    setup        the room's first record: engine state, clocks (C-1.9), maybe paused until the moderator starts;
                 `room_opened` carries the commitment to the room's seed, and when the game is over the command that
                 ended it adds `seed_revealed` (D-GEN-4)
    order        a player's (or the moderator's) order for the engine: role → secret module → game over → turn
    end_turn     a team ends its turn (the player's measured lag credited, issue 2 §7)
    flag         a team's clock ran out: its turn ends with the orders it gave (C-1.9); a timer's, at the deadline
                 plus the lag allowance (CLK-5)
    refused      the consequence the engine attaches to an order it refused (D-C-6, C-9.3)
    chat, mute   a line on a channel; the moderator mutes spectators (server/rooms/channels.py, issue 12 §13)
    clock        the moderator pauses, resumes or adjusts the clocks
    ruling       a moderator's ruling: the spectator delay, the spectating policy (a campaign's), else the engine's
    lock/release the secret module (server/rooms/secret_module.py); release by time is a timer's
    downtime     the server was down: nobody's clock is charged for it (issue 2 §5)
    child_over   a child room's result comes back to its parent (D-L-1); the server's
    mod_ai       a seat handed to the AI or back (issue 18, server/rooms/ai_seats.py): the moderator's, or the
                 server's when the AI stands in for an absent player

The order of checks for a command (boardgame.io's master): role, then the secret module, then game over, then
while the clocks are paused (or before the moderator starts the game) a typed `paused` refusal (issue 12 §5, CLK-6),
then whose turn it is (C-1.7, C-1.8). Chat and the moderator's commands go on while paused.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from server.clock import Clocks, ClockSettings
from server.core import errors, seeds
from server.core.engine import Event
from server.core.errors import IllegalOrder, NotYourTurn, RuleError
from server.rooms import ai_seats, channels, secret_module
from server.rooms.errors import RoomError, forbidden, game_over, moderator_only, paused
from server.rooms.members import Member
from server.rooms.spectating import Spectating
from server.rooms.state import Outcome, RoomSpec, RoomState

MAX_SPECTATOR_DELAY_MS = 3_600_000

Step = Callable[[RoomSpec, RoomState, Mapping[str, Any], Member | None, int], Outcome | None]


def step(spec: RoomSpec, state: RoomState, kind: str, body: Mapping[str, Any], member: Member | None,
         at: int) -> Outcome | None:
    """The room's transition for one command at time `at`."""
    handler = STEPS.get(kind)
    if handler is None:
        raise RoomError("bad_message", f"unknown room command {kind!r}")
    outcome = handler(spec, state, body, member, at)
    if outcome is not None and kind != "setup" and spec.engine is not None and "seed" in spec.setup \
            and spec.engine.is_over(outcome[0].game) and not spec.engine.is_over(state.game):
        outcome[1].append(_seed_revealed(spec))
    return outcome


def _seed_revealed(spec: RoomSpec) -> Event:
    """D-GEN-4: the game is over — its seed is revealed, so that anyone can check the committed dice."""
    seed = int(spec.setup["seed"])
    return Event("seed_revealed", {"room": str(spec.id), "seed": seed, "commitment": seeds.commitment(spec.id, seed),
                                   "rule": "D-GEN-4"})


def after_refusal(kind: str, member: Member | None, error: RuleError) -> dict[str, Any] | None:
    """D-C-6, C-9.3: when the engine refuses a player's order as illegal, the `refused` command that lets it record
    a consequence (the player still gets the refusal)."""
    if kind != "order" or not isinstance(error, IllegalOrder) or member is None or member.team is None:
        return None
    return {"team": member.team, "error": type(error).__name__, "message": error.message, "rule": error.rule}


def timers_due(spec: RoomSpec, state: RoomState, now: int) -> list[tuple[str, dict[str, Any]]]:
    """The timer commands due by `now`: returns from the secret module, then flags."""
    due: list[tuple[str, dict[str, Any]]] = [("release", body) for body in secret_module.due_returns(state, now)]
    clocks = state.clocks
    if clocks is not None:
        grace = clocks.settings.lag_cap_ms  # CLK-5: recorded, so that flags logged before it replay as they were
        due += [("flag", {"team": t, "grace_ms": grace} if grace else {"team": t}) for t in spec.teams
                if t in clocks.running() and (clocks.flag_due_ms(t) or now + 1) <= now]
    return due


def next_due(state: RoomState) -> int | None:
    """When the room's next timer falls due (a clock deadline, the end of a lockout), if any."""
    due: list[int] = [a.until_ms for a in state.away.values()]
    clocks = state.clocks
    if clocks is not None:
        due += [d for t in clocks.running() if (d := clocks.flag_due_ms(t)) is not None]
    return min(due) if due else None


def downtime(last_at: int, outages: Sequence[tuple[int, int]], alive: int | None, now: int) -> list[tuple[int, int]]:
    """The stretches since the room's last record when nobody served it, merged: the service's outages, and the
    time since its last owner's last mark of life if that owner died holding it (`alive`)."""
    spans = [(max(a, last_at), min(b, now)) for a, b in outages]
    if alive is not None:
        spans.append((max(last_at, alive), now))
    merged: list[tuple[int, int]] = []
    for a, b in sorted(s for s in spans if s[1] > s[0]):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


# --- turns and clocks -------------------------------------------------------------------------------------------

def _turn_event(spec: RoomSpec, state: RoomState, ending: str | None, at: int) -> Event:
    return Event("turn", {"active": sorted(spec.active(state.game)), "ended": ending,
                          "clocks": state.clocks.view(at) if state.clocks is not None else None})


def _before(spec: RoomSpec, state: RoomState) -> tuple[frozenset[str], Hashable]:
    """What `_turn_changes` compares after a command: the active teams and the engine's turn mark before it."""
    return spec.active(state.game), spec.mark(state.game)


def _turn_changes(spec: RoomSpec, state: RoomState, was: tuple[frozenset[str], Hashable], events: list[Event],
                  at: int, *, ending: str | None = None, lag_ms: int = 0) -> Outcome:
    """Clocks follow the engine's active teams: the ending team's clock stops (lag credit), the clocks of newly
    active teams start; when the engine's turn mark changed (a new decision is due: the skirmish's next order,
    D-S-4), the clocks of the teams that stay active stop and start afresh too. A `turn` event carries the
    active teams and every clock's remaining time."""
    before, mark = was
    after = spec.active(state.game)
    fresh = spec.mark(state.game) != mark
    clocks = state.clocks
    if clocks is not None:
        for team in sorted(before):
            if (team == ending or team not in after or fresh) and team in clocks.running():
                clocks, evs = clocks.end_turn(team, at, lag_ms if team == ending else 0)
                events += evs
        for team in spec.teams:
            if team in after and team not in clocks.running():
                clocks, evs = clocks.start_turn(team, at)
                events += evs
    if clocks is not state.clocks:
        state = state.with_clocks(clocks)
    if ending is not None or after != before or (fresh and after):
        events.append(_turn_event(spec, state, ending, at))
    return state, events


def options(spec: RoomSpec, state: RoomState, member: Member | None, unit: str | None) -> dict[str, Any] | None:
    """Issue 14: the legal options of `unit` (None: the team's own) for `member`, from the engine's `options` —
    read-only, nothing is logged. Refused as an order is (role, secret module, game over); out of its turn a team
    is answered with `active` false and the reason. Answered as the member sees the room (its viewer class), so
    it names nothing the member's view does not; None when the engine answers no options."""
    viewer = options_viewer(spec, state, member)
    assert spec.engine is not None
    return spec.engine.options(state.game, viewer, unit)


def options_viewer(spec: RoomSpec, state: RoomState, member: Member | None) -> str:
    """Whom the options are for (the member's viewer class), once the member may ask them (as an order)."""
    _player_checks(spec, state, member, phase=False)
    assert member is not None
    return secret_module.viewer_of(spec, state, member)


def _player_checks(spec: RoomSpec, state: RoomState, member: Member | None, *, phase: bool = True) -> None:
    """Role, then the secret module, then game over, then paused (CLK-6), then phase (C-1.7/C-1.8: only the teams
    to act give orders)."""
    if member is None or member.role == "spectator":
        raise forbidden("spectators watch; they do not command")
    if spec.engine is None:
        raise forbidden(f"the {spec.kind} room takes no orders")
    if member.role == "moderator":
        return
    secret_module.refuse_commands(state, member)
    if spec.engine.is_over(state.game):
        raise game_over()
    if state.clocks is not None and state.clocks.paused:
        raise paused()
    if phase and member.team not in spec.active(state.game):
        raise NotYourTurn(f"{member.team} is not to act now", rule="C-1.8")


def _setup(spec: RoomSpec, state: RoomState, body: Mapping[str, Any], member: Member | None, at: int) -> Outcome:
    opened: dict[str, Any] = {"room": str(spec.id), "kind": spec.kind, "teams": list(spec.teams)}
    if spec.engine is not None and "seed" in body:  # D-GEN-4: the commitment now, the seed when the game is over
        opened["commitment"] = seeds.commitment(spec.id, int(body["seed"]))
    events: list[Event] = [Event("room_opened", opened)]
    game = None
    if spec.engine is not None:
        game, opening = spec.engine.setup(body.get("config") or {}, int(body.get("seed", 0)))
        events += opening
    clocks = Clocks.create(ClockSettings.load(body["clock"]), list(spec.teams)) if body.get("clock") else None
    policy = Spectating.load(body.get("spectating"))  # the campaign's (issue 12 item 1)
    ai = ai_seats.at_setup(spec, body)  # issue 18: a team created as played by the AI
    state, events = _turn_changes(spec, RoomState(game, clocks, spectating=policy, ai=ai),
                                  (frozenset(), spec.mark(game)), events, at)
    if state.clocks is not None and body.get("clocks_paused"):
        clocks, paused = state.clocks.pause(at)  # the moderator starts the game by resuming them
        state = state.with_clocks(clocks)
        events += [*paused, _turn_event(spec, state, None, at)]
    return state, events


def _order(spec: RoomSpec, state: RoomState, body: Mapping[str, Any], member: Member | None, at: int) -> Outcome:
    order = body.get("order")
    kind = order.get("type") if isinstance(order, Mapping) else None
    # an engine names orders a team gives out of its turn (answers, offers); the engine checks who may
    in_turn = spec.engine is None or kind not in spec.engine.any_time_orders
    _player_checks(spec, state, member, phase=in_turn)
    ai_seats.refuse_stale(state, member, body)
    assert spec.engine is not None and member is not None and member.actor is not None
    if in_turn and state.clocks is not None and member.team is not None and \
            (late := state.clocks.late_ms(member.team, at, int(body.get("lag_ms", 0)))):
        raise NotYourTurn(f"{member.team}'s time ran out {late} ms before this order, after its link's lag",
                          rule="CLK-5", details={"late_ms": late})
    before = _before(spec, state)
    game, events = spec.engine.apply(state.game, member.actor, body["order"])
    return _turn_changes(spec, state.with_game(game), before, list(events), at)


def _end_turn(spec: RoomSpec, state: RoomState, body: Mapping[str, Any], member: Member | None, at: int) -> Outcome:
    _player_checks(spec, state, member)
    ai_seats.refuse_stale(state, member, body)
    assert spec.engine is not None and member is not None
    if member.role == "moderator":
        raise forbidden("the moderator does not end a team's turn; its players or its clock do")
    team = str(member.team)
    lag_ms = int(body.get("lag_ms", 0))
    if state.clocks is not None and (late := state.clocks.late_ms(team, at, lag_ms)):
        # CLK-5: within the measured lag (capped) a late end_turn was sent in time; later, the flag has the turn
        raise NotYourTurn(f"{team}'s time ran out {late} ms before this end_turn, after its link's lag",
                          rule="CLK-5", details={"late_ms": late})
    before = _before(spec, state)
    game, events = spec.engine.end_turn(state.game, team, flagged=False)
    return _turn_changes(spec, state.with_game(game), before, list(events), at, ending=team, lag_ms=lag_ms)


def _flag(spec: RoomSpec, state: RoomState, body: Mapping[str, Any], member: Member | None,
          at: int) -> Outcome | None:
    """The team's clock ran out: its turn ends with the orders it had given (issue 2 §7, C-1.9)."""
    team = str(body["team"])
    if state.clocks is None or spec.engine is None:
        return None
    clocks, events = state.clocks.flag_if_due(team, at, int(body.get("grace_ms", 0)))
    if not events:
        return None
    before = _before(spec, state)
    try:
        game, more = spec.engine.end_turn(state.game, team, flagged=True)
    except RuleError as exc:  # the engine has moved on; the clock stays flagged and is not re-armed
        return state.with_clocks(clocks), [*events, Event("flag_not_applied", {
            "team": team, "code": exc.code, "message": exc.message, "rule": exc.rule})]
    events += more
    return _turn_changes(spec, state.with_game(game).with_clocks(clocks), before, events, at, ending=team)


def _refused(spec: RoomSpec, state: RoomState, body: Mapping[str, Any], member: Member | None,
             at: int) -> Outcome | None:
    if spec.engine is None:
        return None
    error_type = getattr(errors, str(body["error"]), None)  # the error's class, named in the record
    if not (isinstance(error_type, type) and issubclass(error_type, IllegalOrder)):
        error_type = IllegalOrder
    error = error_type(str(body["message"]), rule=body.get("rule"))
    before = _before(spec, state)
    game, events = spec.engine.refused(state.game, str(body["team"]), error)
    if not events:
        return None
    return _turn_changes(spec, state.with_game(game), before, list(events), at)


def _clock(spec: RoomSpec, state: RoomState, body: Mapping[str, Any], member: Member | None, at: int) -> Outcome:
    moderator_only(member, "change clocks")
    clocks = state.clocks
    if clocks is None:
        raise RoomError("bad_order", "this room plays without clocks", rule="C-1.9")
    action = body["action"]
    if action == "pause":
        clocks, events = clocks.pause(at)
    elif action == "resume":
        clocks, events = clocks.resume(at)
    else:
        team = body.get("team")
        if team not in spec.teams:
            raise RoomError("bad_order", f"no team {team!r} in this room")
        clocks, events = clocks.adjust(str(team), int(body.get("delta_ms", 0)), at)
    state = state.with_clocks(clocks)
    return state, [*events, _turn_event(spec, state, None, at)]


def _ruling(spec: RoomSpec, state: RoomState, body: Mapping[str, Any], member: Member | None, at: int) -> Outcome:
    moderator_only(member, "give rulings")
    ruling = body["ruling"]
    if ruling.get("type") == "spectator_delay":
        return _spectator_delay(state, ruling)
    if ruling.get("type") == "spectating":
        return _spectating(spec, state, ruling)
    if spec.engine is None:
        raise forbidden(f"the {spec.kind} room takes no rulings")
    before = _before(spec, state)
    game, events = spec.engine.moderate(state.game, ruling)
    return _turn_changes(spec, state.with_game(game), before, list(events), at)


def _spectator_delay(state: RoomState, ruling: Mapping[str, Any]) -> Outcome:
    """The moderator delays what spectators see of a live battle, so that they cannot leak it to players."""
    ms = ruling.get("ms")
    if isinstance(ms, bool) or not isinstance(ms, int) or not 0 <= ms <= MAX_SPECTATOR_DELAY_MS:
        raise RoomError("bad_order", f"a spectator delay is 0 to {MAX_SPECTATOR_DELAY_MS} ms")
    return replace(state, spectator_delay_ms=ms), [Event("spectator_delay", {"ms": ms})]


def _spectating(spec: RoomSpec, state: RoomState, ruling: Mapping[str, Any]) -> Outcome:
    """Issue 12 item 1: the moderator changes the campaign's spectating policy (server/rooms/spectating.py); its
    battles follow it."""
    if spec.kind != "campaign":
        raise forbidden("a battle follows its campaign's spectating policy: change it in the campaign room")
    policy = state.spectating.changed(ruling)
    return replace(state, spectating=policy), [Event("spectating", {**policy.dump(), "rule": "issue 12"})]


def _downtime(spec: RoomSpec, state: RoomState, body: Mapping[str, Any], member: Member | None,
              at: int) -> Outcome | None:
    """The server was down: its clocks are charged nothing for the outage (issue 2 §5)."""
    if state.clocks is None:
        return None
    clocks, events = state.clocks.skip_downtime(int(body["from"]), int(body["to"]))
    state = state.with_clocks(clocks)
    return state, [*events, _turn_event(spec, state, None, at)]


def _child_over(spec: RoomSpec, state: RoomState, body: Mapping[str, Any], member: Member | None,
                at: int) -> Outcome:
    """D-L-1: a child room's game is over; its result is applied here by the engine (the server's command)."""
    if member is None or not member.is_server or spec.engine is None:
        raise forbidden("only the server reports a child room's result")
    before = _before(spec, state)
    game, events = spec.engine.child_over(state.game, str(body["child"]), body["result"])
    return _turn_changes(spec, state.with_game(game), before, list(events), at)


STEPS: dict[str, Step] = {
    "setup": _setup, "order": _order, "end_turn": _end_turn, "flag": _flag, "refused": _refused, "chat": channels.say,
    "clock": _clock, "ruling": _ruling, "lock": secret_module.lock, "release": secret_module.release,
    "downtime": _downtime, "child_over": _child_over, "mute": channels.mute, "mod_ai": ai_seats.hand_over,
}
