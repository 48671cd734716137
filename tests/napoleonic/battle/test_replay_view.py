"""Golden replay (D-GEN-1: same seed and orders, same events byte for byte), snapshots, and views per viewer."""

from __future__ import annotations

from pathlib import Path

from server.core.replay import dumps, event_lines, loads, replay
from server.napoleonic.battle.state import BattleState

from .helpers import ENGINE, battle, unit

GOLDEN = Path(__file__).parent / "golden"


def test_golden_replay_reproduces_every_event_byte_for_byte_D_GEN_1() -> None:
    data = loads((GOLDEN / "field_battle.replay.json").read_text(encoding="utf-8"))
    state, events = replay(data, ENGINE)
    expected = (GOLDEN / "field_battle.events.jsonl").read_text(encoding="utf-8")
    assert "\n".join(event_lines(events)) + "\n" == expected
    assert state.over
    assert loads(dumps(data)) == data


def test_snapshot_round_trip_continues_identically() -> None:
    data = loads((GOLDEN / "field_battle.replay.json").read_text(encoding="utf-8"))
    cut = dict(data, commands=data["commands"][:60])
    state, _ = replay(cut, ENGINE)
    again = ENGINE.load(ENGINE.dump(state))
    assert isinstance(again, BattleState) and again.dump() == state.dump()
    rest = dict(data, commands=data["commands"][60:])
    from server.core.engine import Actor

    a, b = state, again
    for cmd in rest["commands"]:
        if cmd["op"] == "order":
            actor = Actor(cmd["actor"]["player"], cmd["actor"]["team"])
            a, ea = ENGINE.apply(a, actor, cmd["order"])
            b, eb = ENGINE.apply(b, actor, cmd["order"])
        else:
            a, ea = ENGINE.end_turn(a, cmd["team"], flagged=cmd["flagged"])
            b, eb = ENGINE.end_turn(b, cmd["team"], flagged=cmd["flagged"])
        assert event_lines(ea) == event_lines(eb)


def _hidden_field() -> BattleState:
    rows = ["." * 70 for _ in range(70)]
    for y in range(20, 30):
        rows[y] = "F" * 70
    return battle([unit("r1", "infantry", 30, 50)],
                  [unit("b1", "infantry", 37, 10, facing="S"), unit("b2", "infantry", 37, 40, facing="S")],
                  map={"rows": rows}, hidden=True)


def test_side_view_shows_only_enemies_in_line_of_sight_D_N_7() -> None:
    s = _hidden_field()
    red = ENGINE.view(s, "team:red")
    ids = {u["id"] for u in red["units"]}
    assert ids == {"r1", "b2"}  # b1 is behind the forest
    enemy = next(u for u in red["units"] if u["id"] == "b2")
    assert "morale" not in enemy and "loss_tolerance" not in enemy
    assert {u["id"] for u in ENGINE.view(s, "spectator")["units"]} == {"r1", "b1", "b2"}
    assert {u["id"] for u in ENGINE.view(s, "moderator")["units"]} == {"r1", "b1", "b2"}
    assert ENGINE.view(s, "public")["units"] == []


def test_hidden_battle_order_events_go_to_the_own_side_only() -> None:
    s = _hidden_field()
    from .helpers import RED

    _, ev = ENGINE.apply(s, RED, {"type": "about_face", "unit": "r1"})
    assert all(e.audience is not None and "team:red" in e.audience and "team:blue" not in e.audience for e in ev)


def test_open_battle_everyone_sees_everything() -> None:
    s = battle([unit("r1", "infantry", 30, 50)], [unit("b1", "infantry", 37, 10, facing="S")])
    assert {u["id"] for u in ENGINE.view(s, "team:blue")["units"]} == {"r1", "b1"}
