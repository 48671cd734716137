"""Regenerate the golden replay (only when the rules change on purpose; review the diff of the events file).

    /work/venv/bin/python -m tests.napoleonic.battle.golden.make_golden
"""

from __future__ import annotations

import random
from pathlib import Path

from server.core.replay import Recorder, dumps, event_lines
from server.napoleonic.battle.engine import BattleEngine

from ..driver import close_battle_config, play_phase

HERE = Path(__file__).parent
SEED = 1812


def main() -> None:
    rng = random.Random(SEED)
    rec = Recorder(close_battle_config(rng, 10, turn_limit=20), SEED, BattleEngine())
    while not rec.state.over:
        play_phase(rec, rng, retreat_chance=0.0)
    (HERE / "field_battle.replay.json").write_text(dumps(rec.export()), encoding="utf-8")
    (HERE / "field_battle.events.jsonl").write_text("\n".join(event_lines(rec.events)) + "\n", encoding="utf-8")
    reason = rec.state.result and rec.state.result["reason"]
    print(f"{len(rec.commands)} commands, {len(rec.events)} events, result: {reason}")


if __name__ == "__main__":
    main()
