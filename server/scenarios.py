"""Scenario files, read at the edge: shared/scenarios/<name>/scenario.json and its tables, handed to the campaign
engines (server.continental.scenario.provide) so that no engine reads a file (DESIGN: data, not code; pure engines)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from server.continental import scenario

ROOT = Path(__file__).resolve().parents[1] / "shared" / "scenarios"


def names() -> list[str]:
    """The scenario folders, by name."""
    return sorted(folder.parent.name for folder in ROOT.glob("*/scenario.json"))


def read(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A scenario's data and its tables (the file its `tables` names, else tables.json)."""
    folder = ROOT / name
    raw: dict[str, Any] = json.loads((folder / "scenario.json").read_text(encoding="utf-8"))
    tables: dict[str, Any] = json.loads((folder / raw.get("tables", "tables.json")).read_text(encoding="utf-8"))
    return raw, tables


SKIRMISH = ROOT / "skirmish"
SKIRMISH_NAMES = {"squad": "skirmish", "platoon": "skirmish-platoon", "platoon_tanks": "skirmish-tanks"}
"""Skirmish scenario file → the name a game is created with (POST /api/campaigns {"scenario": ...})."""


def skirmish_scenarios() -> dict[str, dict[str, Any]]:
    """Every skirmish scenario under shared/scenarios/skirmish/, by the name it is created with (the engine reads
    no file: the data goes to `setup` as `config["scenario"]`)."""
    stems = sorted((p.stem for p in SKIRMISH.glob("*.json")),
                   key=lambda n: (list(SKIRMISH_NAMES).index(n) if n in SKIRMISH_NAMES else len(SKIRMISH_NAMES), n))
    return {SKIRMISH_NAMES.get(stem, f"skirmish-{stem}"):
            json.loads((SKIRMISH / f"{stem}.json").read_text(encoding="utf-8")) for stem in stems}


def provide_all() -> list[str]:
    """Read every scenario folder and hand its data to the engines; returns their names."""
    found = names()
    for name in found:
        scenario.provide(name, *read(name))
    return found
