"""The golden replay of a whole platoon game (D-GEN-1: same seed and orders, same events byte for byte) and
snapshots that continue the game identically."""

from __future__ import annotations

from pathlib import Path

from server.core.engine import Actor
from server.core.replay import dumps, event_lines, loads, replay

from .helpers import ENGINE

GOLDEN = Path(__file__).parent / "golden"


def test_golden_platoon_game_replays_every_event_byte_for_byte_D_GEN_1_D_S_15() -> None:
    data = loads((GOLDEN / "platoon.replay.json").read_text(encoding="utf-8"))
    assert data["format"] == "kriegsspiel/skirmish-replay/1" and data["config"]["scenario"]["id"] == "platoon"
    state, events = replay(data, ENGINE)
    expected = (GOLDEN / "platoon.events.jsonl").read_text(encoding="utf-8")
    assert "\n".join(event_lines(events)) + "\n" == expected
    assert ENGINE.is_over(state) and state.turn == 8 and state.result is not None
    assert loads(dumps(data)) == data
    kinds = {e.kind for e in events}
    assert {"ambush_sprung", "hits_to_choose", "hits_by_default", "random_fire", "survival_test", "morale",
            "game_over"} <= kinds


def test_a_snapshot_taken_mid_game_continues_identically() -> None:
    data = loads((GOLDEN / "platoon.replay.json").read_text(encoding="utf-8"))
    cut = len(data["commands"]) // 2
    state, _ = replay(dict(data, commands=data["commands"][:cut]), ENGINE)
    again = ENGINE.load(ENGINE.dump(state))
    assert again.dump() == state.dump()
    a, b = state, again
    for cmd in data["commands"][cut:]:
        if cmd["op"] == "order":
            actor = Actor(cmd["actor"]["player"], cmd["actor"]["team"])
            a, ea = ENGINE.apply(a, actor, cmd["order"])
            b, eb = ENGINE.apply(b, actor, cmd["order"])
        else:
            a, ea = ENGINE.end_turn(a, cmd["team"], flagged=cmd["flagged"])
            b, eb = ENGINE.end_turn(b, cmd["team"], flagged=cmd["flagged"])
        assert event_lines(ea) == event_lines(eb)
    assert a.dump() == b.dump() and ENGINE.is_over(b)
