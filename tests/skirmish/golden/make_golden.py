"""Regenerate the golden replay of a whole platoon game (only when the rules change on purpose; review the diff of
the events file).

    .venv/bin/python -m tests.skirmish.golden.make_golden
"""

from __future__ import annotations

import random
from pathlib import Path

from server.core.replay import Recorder, dumps, event_lines

from ..driver import ENGINE, play
from ..helpers import scenario_file

HERE = Path(__file__).parent
SEED = 1941


def main() -> None:
    rec = Recorder({"scenario": scenario_file("platoon")}, SEED, ENGINE)
    counts = play(rec, random.Random(SEED))
    (HERE / "platoon.replay.json").write_text(dumps(rec.export()), encoding="utf-8")
    (HERE / "platoon.events.jsonl").write_text("\n".join(event_lines(rec.events)) + "\n", encoding="utf-8")
    print(f"{len(rec.commands)} commands, {len(rec.events)} events, {counts}, result: {rec.state.result}")


if __name__ == "__main__":
    main()
