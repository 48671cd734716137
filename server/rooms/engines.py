"""Engine registry: a campaign creation request names a kind or scenario; this finds the engine that plays it and
the configuration it starts from (python-chess's `find_variant` in spirit).

Registered: "drill" (the room's own test engine), "campaign" (the Continental War engine, default scenario), and
every scenario under shared/scenarios/ by its folder name (the campaign engine with `scenario` set).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from server.core.engine import Engine

EngineFactory = Callable[[], Engine[Any]]

SCENARIOS = Path(__file__).resolve().parents[2] / "shared" / "scenarios"


@dataclass(frozen=True, slots=True)
class Entry:
    factory: EngineFactory
    defaults: Mapping[str, Any] = field(default_factory=dict)
    campaign: bool = True
    """False for engines that only battle rooms play (not offered for a new campaign)."""


_ENGINES: dict[str, Entry] = {}


def register(name: str, factory: EngineFactory, defaults: Mapping[str, Any] | None = None, *,
             campaign: bool = True) -> None:
    _ENGINES[name] = Entry(factory, dict(defaults or {}), campaign)


def _entry(name: str) -> Entry:
    try:
        return _ENGINES[name]
    except KeyError:
        raise KeyError(f"no engine or scenario {name!r}; known: {', '.join(sorted(_ENGINES))}") from None


def find_engine(name: str) -> Engine[Any]:
    """The engine for a kind/scenario name; KeyError naming the known ones otherwise."""
    return _entry(name).factory()


def engine_config(name: str, config: Mapping[str, Any]) -> dict[str, Any]:
    """The setup config for `name`: its defaults (e.g. the scenario) under the request's own settings."""
    return {**_entry(name).defaults, **config}


def engine_names() -> list[str]:
    """The engines and scenarios a campaign can be created with, in registration order (the drill, the default,
    first); battle-room engines are left out."""
    return [n for n, e in _ENGINES.items() if e.campaign]


def _register_builtin() -> None:
    from server.rooms.drill import DrillEngine

    register("drill", DrillEngine)
    try:
        from server.campaign.engine import CampaignEngine
    except ImportError:
        return
    register("campaign", CampaignEngine)
    for folder in sorted(SCENARIOS.glob("*/scenario.json")):
        register(folder.parent.name, CampaignEngine, {"scenario": folder.parent.name})
    from server.rooms.napoleonic_engines import register_all
    from server.rooms.skirmish_engines import register_all as register_skirmish

    register_all()
    register_skirmish()


_register_builtin()
