"""Benchmark: the AI commanders (issue 18) — whole games played by the AI from its side's view, its win rate
against a baseline that gives random legal orders, and its decision time per order.

    .venv/bin/python bench/ai.py [--battles 100] [--campaigns 2] [--skirmishes 10] [--storms 0] [--turn-cap N]
                                 [--out DIR]
    (or python -m bench.ai)

- battles: equal forces (the same ten-unit army on both sides, on a field drawn by the map generator: plain, hills,
  forest, with a river, a town, a road by turns), the AI on one side and the random commander of
  tests/napoleonic/battle/driver.py on the other, the AI attacker in half of them and defender in the other half;
  a battle the AI wins counts, a draw or a loss does not; each rate with its 95% Wilson interval. Also AI against
  AI: every battle ends (D-N-2).
- campaigns: the Napoleonic campaign AI against AI, its battles fought by the battle AI on both sides (the child
  room's setup and result through the engine's hooks, as the rooms do), to the end or the turn cap, with the turns
  it took and its storms; the Continental War AI against AI at levels 1–3, to the end (and how it ended) or the
  turn cap, with the attacks its sides ordered and each side's rating at the end (a war that fought, not a stall
  ended by peace).
- skirmishes: the skirmish AI against the random skirmish driver, and AI against AI, to their end.
- storms (`--storms N`): N storms of Dresden played by the storm AI on both sides, the besieger with one of its
  two foot companies turned howitzer and without (N-SIEGE-9), in the same run.
- decision time: each decision of a side's phase or turn, median and p99, against the clock's budget for it (the
  battle's default child clock: 5 minutes a phase).
Writes bench/results/ai.json with the commit and prints this run ÷ the last commit's stored figures.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import statistics
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import against, git_commit, previous_result
from server.core.engine import Actor, Engine
from server.core.errors import RuleError
from server.core.replay import Recorder
from server.core.seeds import child_seed
from server.engines import ENGINES
from server.napoleonic.battle.mapgen import CellTerrain, generate
from server.napoleonic.battle.state import BattleState
from server.rooms.ai_view import ai_view
from tests.napoleonic.battle.driver import play_phase
from tests.skirmish import driver as skirmish_driver

BATTLE = ENGINES.find("battle")
ARMY = ["infantry"] * 5 + ["light_cavalry", "heavy_cavalry", "foot_artillery", "horse_artillery", "infantry"]
FIELDS = [CellTerrain("plain", road=True), CellTerrain("hills", town=True), CellTerrain("forest", road=True),
          CellTerrain("plain", river=True, road=True), CellTerrain("hills", river=True, town=True)]
PHASE_BUDGET_MS = 5 * 60_000
DECISIONS_MS: list[float] = []


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def decide(engine: Engine[Any], state: Any, team: str, seed: int) -> list[Mapping[str, Any]]:
    """What the rooms do (server/rooms/ai_view.py): the view with the options query's answers, the commander."""
    t0 = time.perf_counter()
    orders = list(engine.commander(ai_view(engine, state, team), team, seed) or ())
    DECISIONS_MS.append((time.perf_counter() - t0) * 1000)
    return orders


def give(engine: Engine[Any], state: Any, team: str, orders: list[Mapping[str, Any]], *,
         first_only: bool = False) -> tuple[Any, int]:
    refused = 0
    actor = Actor(f"{team}-1", team, 1)
    for o in orders:
        if engine.is_over(state):  # as the rooms' runner: a peace in the batch ends the game, the rest is moot
            break
        try:
            state, _ = engine.apply(state, actor, o)
            if first_only:
                break
        except RuleError:
            refused += 1
    return state, refused


def battle_config(seed: int) -> dict[str, Any]:
    field = FIELDS[seed % len(FIELDS)]
    bmap = generate(field, seed).map.dump()
    units = {side: [{"id": f"{side[0]}{i}", "type": k} for i, k in enumerate(ARMY)] for side in ("red", "blue")}
    return {"sides": [{"name": "red", "edge": "south", "attacker": True, "units": units["red"]},
                      {"name": "blue", "edge": "north", "units": units["blue"]}], "map": bmap, "turn_limit": 40}


def ai_battle(seed: int, ai_side: str | None) -> tuple[dict[str, Any], int]:
    """One battle: the AI on `ai_side` (None: on both) against the random commander. Returns its result and the
    AI's refused orders."""
    rec: Recorder[BattleState] = Recorder(battle_config(seed), seed, BATTLE)
    rng = random.Random(seed)
    refused = 0
    while not rec.state.over:
        side = rec.state.active_side
        assert side is not None
        if ai_side is None or side == ai_side:
            state, r = give(BATTLE, rec.state, side, decide(BATTLE, rec.state, side, seed * 1000 + rec.state.turn))
            refused += r
            state, _ = BATTLE.end_turn(state, side, flagged=False)
            rec.state = state
        else:
            play_phase(rec, rng)
    assert rec.state.result is not None
    return rec.state.result, refused


def battles(n: int) -> dict[str, Any]:
    wins = {"attacker": 0, "defender": 0}
    games = {"attacker": 0, "defender": 0}
    refused = 0
    for seed in range(1, n + 1):
        ai_side = "red" if seed % 2 else "blue"
        role = "attacker" if ai_side == "red" else "defender"
        result, r = ai_battle(seed, ai_side)
        refused += r
        games[role] += 1
        wins[role] += result.get("winner") == ai_side
    finished = 0
    for seed in range(1, max(2, n // 4) + 1):
        result, _ = ai_battle(100 + seed, None)
        finished += result.get("winner") is not None or result.get("reason") is not None
    total = sum(wins.values())
    return {"battles": n, "ai_wins": total, "win_rate": round(total / max(1, n), 3),
            "win_rate_ci95": wilson(total, n),
            "win_rate_attacker": round(wins["attacker"] / max(1, games["attacker"]), 3),
            "win_rate_attacker_ci95": wilson(wins["attacker"], games["attacker"]),
            "win_rate_defender": round(wins["defender"] / max(1, games["defender"]), 3),
            "win_rate_defender_ci95": wilson(wins["defender"], games["defender"]),
            "ai_refused_orders": refused, "ai_vs_ai_battles_finished": f"{finished}/{max(2, n // 4)}"}


def wilson(wins: int, n: int, z: float = 1.96) -> list[float]:
    """The 95% Wilson score interval of a win rate (to tell 90% from 85% the sample must be in the hundreds)."""
    if n <= 0:
        return [0.0, 1.0]
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / (1 + z * z / n)
    return [round(max(0.0, centre - half), 3), round(min(1.0, centre + half), 3)]


def napoleonic_campaign(seed: int, turn_cap: int = 60) -> dict[str, Any]:
    """AI against AI, its battles fought by the battle AI on both sides."""
    engine = ENGINES.find("napoleonic")
    cfg = ENGINES.config("napoleonic", {"teams": [{"colour": "red", "seats": 2}, {"colour": "blue", "seats": 2}],
                                        "level": 1, "house_rules": []})
    state, _ = engine.setup(cfg, seed)
    fought = steps = storms = carried = 0
    while not engine.is_over(state) and getattr(state, "turn", 0) <= turn_cap and steps < 5000:
        steps += 1
        for child in engine.child_rooms(state):
            setup = engine.child_setup(state, child.key, child_seed(seed, f"b-bench-{child.key}"))
            child_engine = ENGINES.find(setup.engine)
            cstate, _ = child_engine.setup(setup.config, setup.seed)
            while not child_engine.is_over(cstate):
                team = sorted(child_engine.active_teams(cstate))[0]
                cstate, _ = give(child_engine, cstate, team, decide(child_engine, cstate, team, steps))
                if not child_engine.is_over(cstate):  # an order can end it (the last garrison unit gone)
                    cstate, _ = child_engine.end_turn(cstate, team, flagged=False)
            result = child_engine.result(cstate)
            assert result is not None
            if setup.engine == "siege":
                storms += 1
                carried += result.get("winner") == cstate.besieger
            state, _ = engine.child_over(state, child.key, result)
            fought += 1
        active = sorted(engine.active_teams(state))
        if not active:
            if not engine.child_rooms(state):
                break
            continue
        for team in active:
            state, _ = give(engine, state, team, decide(engine, state, team, steps))
            with contextlib.suppress(RuleError):
                state, _ = engine.end_turn(state, team, flagged=False)
    return {"over": engine.is_over(state), "turns": getattr(state, "turn", 0), "battles": fought,
            "storms": storms, "storms_carried_by_besieger": carried}


def storm(seed: int, howitzers: list[str]) -> bool:
    """One storm of Dresden (N-SIEGE-5), the storm AI on both sides: eight units with two foot companies against
    three battalions and a company; `howitzers` the besieger's companies turned howitzers (N-SIEGE-9). Whether the
    besieger carried it."""
    engine = ENGINES.find("siege")
    besieger = [{"id": f"b{i}", "type": "infantry"} for i in range(5)] + [
        {"id": "bc", "type": "light_cavalry"}, {"id": "ba", "type": "foot_artillery"},
        {"id": "bb", "type": "foot_artillery"}]
    garrison = [{"id": f"g{i}", "type": "infantry"} for i in range(3)] + [{"id": "ga", "type": "foot_artillery"}]
    state, _ = engine.setup({"fortress": "Dresden", "map_seed": 3 + seed,
                             "besieger": {"name": "blue", "general": "Davout", "units": besieger,
                                          "howitzers": howitzers},
                             "garrison": {"name": "red", "general": "Kleist", "units": garrison}}, seed)
    while not engine.is_over(state):
        team = sorted(engine.active_teams(state))[0]
        state, _ = give(engine, state, team, decide(engine, state, team, 1000 + seed))
        if not engine.is_over(state):
            state, _ = engine.end_turn(state, team, flagged=False)
    return (engine.result(state) or {}).get("winner") == "blue"


def storms(n: int) -> dict[str, Any]:
    """The same storms with and without one howitzer (N-SIEGE-9), A/B in one run."""
    with_one = sum(storm(s, ["ba"]) for s in range(1, n + 1))
    without = sum(storm(s, []) for s in range(1, n + 1))
    return {"storms": n, "carried_with_one_howitzer": with_one, "carried_without": without}


def continental_campaign(level: int, seed: int, turn_cap: int = 40) -> dict[str, Any]:
    engine = ENGINES.find("campaign")
    cfg = ENGINES.config("campaign", {"teams": [{"colour": "red", "seats": 1}, {"colour": "blue", "seats": 1}],
                                      "level": level, "house_rules": []})
    state, _ = engine.setup(cfg, seed)
    refused = steps = attacks = 0
    while not engine.is_over(state) and state.turn <= turn_cap and steps < 2000:
        steps += 1
        for team in sorted(engine.active_teams(state)):
            orders = decide(engine, state, team, steps)
            state, r = give(engine, state, team, orders)
            refused += r
            attacks += sum(1 for o in orders if o.get("type") == "attack")
            with contextlib.suppress(RuleError):
                state, _ = engine.end_turn(state, team, flagged=False)
    everything = engine.view(state, "moderator")
    result = everything.get("result") or {}
    ratings: dict[str, float] = {}
    for u in everything.get("units") or ():
        if u.get("cell") is not None:
            ratings[str(u.get("team"))] = round(ratings.get(str(u.get("team")), 0.0) + float(u.get("rating") or 0), 1)
    return {"level": level, "over": engine.is_over(state), "turns": state.turn, "refused": refused,
            "end": result.get("end") if isinstance(result, Mapping) else None,
            "attacks_ordered": attacks, "ratings_at_end": ratings}


def skirmish(name: str, seed: int, ai_side: str | None) -> str | None:
    engine = ENGINES.find(name)
    cfg = ENGINES.config(name, {"teams": [{"colour": "red", "seats": 1}, {"colour": "blue", "seats": 1}]})
    state, _ = engine.setup(cfg, seed)
    rng = random.Random(seed)
    n = 0
    while not engine.is_over(state) and n < 5000:
        n += 1
        team = sorted(engine.active_teams(state))[0]
        if ai_side is None or team == ai_side:
            before = state
            state, _ = give(engine, state, team, decide(engine, state, team, seed * 10_000 + n), first_only=True)
            if state is before:
                state, _ = engine.end_turn(state, team, flagged=False)
            continue
        o = skirmish_driver.choose(state, team, rng)
        if o is None:
            state, _ = engine.end_turn(state, team, flagged=False)
            continue
        try:
            state, _ = engine.apply(state, Actor("p", team), o)
        except RuleError:
            state, _ = engine.apply(state, Actor("p", team), {"type": "pass"})
    return (engine.view(state, "moderator").get("result") or {}).get("winner")


def timed(label: str, work: Callable[[], Any]) -> Any:
    t0 = time.perf_counter()
    out = work()
    print(f"  {label}: {time.perf_counter() - t0:.1f} s", flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--battles", type=int, default=100)
    parser.add_argument("--campaigns", type=int, default=2)
    parser.add_argument("--skirmishes", type=int, default=10)
    parser.add_argument("--storms", type=int, default=0,
                        help="storms of Dresden with and without a howitzer (N-SIEGE-9), A/B in this run")
    parser.add_argument("--turn-cap", type=int, default=0,
                        help="campaign turns (default: 60 Napoleonic, 40 Continental)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    caps = {"turn_cap": args.turn_cap} if args.turn_cap else {}
    print("AI commanders (issue 18)", flush=True)
    DECISIONS_MS.clear()
    battle = timed("battles", lambda: battles(args.battles))
    battle_ms = list(DECISIONS_MS)
    DECISIONS_MS.clear()
    napoleonic = timed("napoleonic campaigns",
                       lambda: [napoleonic_campaign(s, **caps) for s in range(1, args.campaigns + 1)])
    continental = timed("continental campaigns",
                        lambda: [continental_campaign(level, 1, **caps) for level in (1, 2, 3)])
    campaign_ms = list(DECISIONS_MS)
    DECISIONS_MS.clear()
    skirmishes: dict[str, Any] = {}
    for name in ("skirmish", "skirmish-platoon"):
        seeds = range(1, args.skirmishes + 1)
        won = [skirmish(name, s, "red" if s % 2 else "blue") == ("red" if s % 2 else "blue") for s in seeds]
        skirmishes[name] = {"games": len(won), "ai_wins": sum(won), "ai_vs_ai_winner": skirmish(name, 99, None)}
    skirmish_ms = list(DECISIONS_MS)
    figures: dict[str, Any] = {
        **battle,
        "battle_decision_ms_median": round(statistics.median(battle_ms), 2),
        "battle_decision_ms_p99": round(pct(battle_ms, 0.99), 2),
        "battle_decision_share_of_clock_p99": round(pct(battle_ms, 0.99) / PHASE_BUDGET_MS, 6),
        "campaign_decision_ms_median": round(statistics.median(campaign_ms), 2),
        "campaign_decision_ms_p99": round(pct(campaign_ms, 0.99), 2),
        "skirmish_decision_ms_median": round(statistics.median(skirmish_ms), 2),
        "skirmish_decision_ms_p99": round(pct(skirmish_ms, 0.99), 2),
        "napoleonic_campaigns": napoleonic, "continental_campaigns": continental, "skirmishes": skirmishes,
    }
    if args.storms:
        figures["storm_howitzers"] = timed("storms", lambda: storms(args.storms))
    commit = git_commit()
    out_dir = args.out or Path(__file__).resolve().parent / "results"
    previous = previous_result("ai", commit, out_dir)
    ratios = against(figures, previous, ["win_rate", "battle_decision_ms_median", "battle_decision_ms_p99"])
    result = {"bench": "ai", "commit": commit, "figures": figures, "against_previous": ratios}
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "ai.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
