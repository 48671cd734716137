"""Engine registry entries of the skirmish (server/skirmish): one per scenario file under
shared/scenarios/skirmish/. The scenario data is read here, at the edge — the engine reads no file — and handed
to `setup` as `config["scenario"]`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from server.rooms.engines import register
from server.skirmish.engine import SkirmishEngine

SCENARIOS = Path(__file__).resolve().parents[2] / "shared" / "scenarios" / "skirmish"
NAMES = {"squad": "skirmish", "platoon": "skirmish-platoon", "platoon_tanks": "skirmish-tanks"}
"""Scenario file → the name a campaign is created with (POST /api/campaigns {"scenario": ...})."""


def load_scenario(stem: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SCENARIOS / f"{stem}.json").read_text(encoding="utf-8"))
    return data


def register_all() -> None:
    stems = [p.stem for p in sorted(SCENARIOS.glob("*.json"))]
    for stem in sorted(stems, key=lambda n: (list(NAMES).index(n) if n in NAMES else len(NAMES), n)):
        register(NAMES.get(stem, f"skirmish-{stem}"), SkirmishEngine, {"scenario": load_scenario(stem)})
