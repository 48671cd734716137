"""Engine registry: a campaign creation request names a kind or scenario; this finds the engine that plays it.

Engines register a factory under one or more names (python-chess's `find_variant` in spirit). The drill engine is
always registered; the campaign and battle engines register themselves here when their packages are importable.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from server.core.engine import Engine

EngineFactory = Callable[[], Engine[Any]]

_ENGINES: dict[str, EngineFactory] = {}

# Modules that register engines when present (built by their own issues); missing ones are skipped.
_OPTIONAL = ("server.campaign.register", "server.battle.register")


def register(name: str, factory: EngineFactory) -> None:
    _ENGINES[name] = factory


def _load_optional() -> None:
    for module in _OPTIONAL:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name is None or not module.startswith(exc.name):
                raise


def find_engine(name: str) -> Engine[Any]:
    """The engine for a kind/scenario name; KeyError naming the known ones otherwise."""
    if name not in _ENGINES:
        _load_optional()
    try:
        return _ENGINES[name]()
    except KeyError:
        raise KeyError(f"no engine {name!r}; known: {', '.join(sorted(_ENGINES))}") from None


def engine_names() -> list[str]:
    _load_optional()
    return sorted(_ENGINES)


def _register_builtin() -> None:
    from server.rooms.drill import DrillEngine

    register("drill", DrillEngine)


_register_builtin()
