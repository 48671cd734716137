"""The golden storm: a full storm of Dresden played by scripted orders from a seed to the garrison's capitulation,
replayed byte for byte (D-GEN-1; N-SIEGE-5 … N-SIEGE-13). Regenerate with
`python -m tests.napoleonic.siege.golden.make_golden`
only when the rules change on purpose, and review the diff of the events file."""

from __future__ import annotations

import json
from pathlib import Path

from server.core.replay import event_lines, loads, replay
from server.napoleonic.siege.engine import SiegeEngine

GOLDEN = Path(__file__).parent / "golden"


def test_golden_storm_replays_byte_for_byte_N_SIEGE_5_D_GEN_1() -> None:
    data = loads((GOLDEN / "storm.replay.json").read_text(encoding="utf-8"))
    assert data["format"] == "kriegsspiel/siege-replay/1"
    state, events = replay(data, SiegeEngine())
    expected = (GOLDEN / "storm.events.jsonl").read_text(encoding="utf-8").splitlines()
    got = event_lines(events)
    assert len(got) == len(expected)
    for i, (a, b) in enumerate(zip(got, expected, strict=True)):
        assert a == b, f"event {i} differs"
    result = state.battle.result
    assert result is not None and result["winner"] == "blue" and result["retreats"] is None
    assert result["siege"]["capitulated"] is True and result["siege"]["howitzers"] == ["b-art1"]


def test_golden_storm_shows_the_siege_rules_N_SIEGE_7_N_SIEGE_11_N_SIEGE_13() -> None:
    lines = [json.loads(x) for x in (GOLDEN / "storm.events.jsonl").read_text(encoding="utf-8").splitlines()]
    kinds = {x["kind"] for x in lines}
    assert {"ladders", "climbed", "fortress_gun", "capitulation", "storm_over"} <= kinds
    ladders = {x["data"]["unit"]: x["data"]["turn"] for x in lines if x["kind"] == "ladders"}
    climbs = [x for x in lines if x["kind"] == "climbed"]
    assert climbs and all(ladders[c["data"]["unit"]] < _turn_of(lines, c) for c in climbs)
    fire = [x["data"] for x in lines if x["kind"] == "fire"]
    howitzer = [f for f in fire if f["unit"] == "b-art1" and f.get("hit")]
    assert howitzer and all(h["losses"] == 4 for h in howitzer)
    wall_fire = [f for f in fire if f["unit"] == "r-wall1"]
    assert any(f["distance"] > 6 for f in wall_fire), "the wall's +2 range shows"
    over = next(x["data"] for x in lines if x["kind"] == "storm_over")
    assert over["prisoners"]["blue"]


def _turn_of(lines: list[dict], event: dict) -> int:  # type: ignore[type-arg]
    turn = 1
    for x in lines:
        if x["kind"] in ("battle_turn", "turn"):  # "turn" in logs written before issue 14
            turn = x["data"]["turn"]
        if x is event:
            return turn
    raise AssertionError("event not found")
