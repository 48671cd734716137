"""The generic replay recorder and player (server.core.replay) over real engines: the field battle and the storm
(D-GEN-1: the same seed and commands give the same events, byte for byte)."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.core.engine import Actor
from server.core.errors import RuleError
from server.core.replay import Recorder, dumps, event_lines, loads, replay, replay_format
from server.napoleonic.battle.engine import BattleEngine
from server.napoleonic.battle.state import BattleState
from server.napoleonic.siege.engine import SiegeEngine

TESTS = Path(__file__).resolve().parents[1]
STORM = TESTS / "napoleonic" / "siege" / "golden" / "storm.replay.json"
FIELD_BATTLE = TESTS / "napoleonic" / "battle" / "golden" / "field_battle.replay.json"
RED = Actor("p-red", "red")


def _small_battle() -> Recorder[BattleState]:
    sides = [{"name": "red", "edge": "south", "attacker": True,
              "units": [{"id": "r1", "type": "infantry", "x": 30, "y": 50, "facing": "N"}]},
             {"name": "blue", "edge": "north",
              "units": [{"id": "b1", "type": "infantry", "x": 30, "y": 44, "facing": "S"}]}]
    return Recorder({"sides": sides, "deployment_zones": False}, 5, BattleEngine())


def test_one_replay_player_for_every_engine_checks_the_format_D_GEN_1() -> None:
    """A file is replayed only by the engine of its kind; the recorder writes that kind."""
    data = loads(STORM.read_text(encoding="utf-8"))
    with pytest.raises(ValueError, match="not a battle replay"):
        replay(data, BattleEngine())
    battle = loads(FIELD_BATTLE.read_text(encoding="utf-8"))
    with pytest.raises(ValueError, match="not a siege replay"):
        replay(battle, SiegeEngine())
    assert (data["format"], battle["format"]) == (replay_format("siege"), replay_format("battle"))
    rec = Recorder(data["config"], int(data["seed"]), SiegeEngine())
    for cmd in data["commands"][:40]:
        if cmd["op"] == "order":
            rec.order(Actor(cmd["actor"]["player"], cmd["actor"]["team"]), cmd["order"])
        else:
            rec.end_turn(cmd["team"], cmd["flagged"])
    again, events = replay(rec.export(), SiegeEngine())
    assert event_lines(events) == event_lines(rec.events) and again.battle.dump() == rec.state.battle.dump()


def test_orders_turns_and_rulings_replay_from_the_file_byte_for_byte_D_GEN_1() -> None:
    rec = _small_battle()
    rec.order(RED, {"type": "formation", "unit": "r1", "formation": "attack_column"})
    rec.end_turn("red")
    rec.moderate({"type": "adjust", "unit": "b1", "morale": 3})
    rec.end_turn("blue")
    data = loads(dumps(rec.export()))
    assert data["format"] == "kriegsspiel/battle-replay/1"
    assert [c["op"] for c in data["commands"]] == ["order", "end_turn", "moderate", "end_turn"]
    state, events = replay(data, BattleEngine())
    assert event_lines(events) == event_lines(rec.events) and state.dump() == rec.state.dump()


def test_a_refused_command_is_not_recorded_and_changes_nothing_D_GEN_1() -> None:
    rec = _small_battle()
    before = rec.state.dump()
    with pytest.raises(RuleError):
        rec.order(RED, {"type": "move", "unit": "r1", "path": [[30, 45]]})
    assert rec.commands == [] and rec.state.dump() == before


def test_an_unknown_command_in_a_file_is_refused() -> None:
    data = _small_battle().export()
    data["commands"] = [{"op": "rewind"}]
    with pytest.raises(ValueError, match="unknown replay command"):
        replay(data, BattleEngine())
