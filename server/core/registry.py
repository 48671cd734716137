"""An engine registry: the games a server plays, by name, with the configuration each starts from (python-chess's
`find_variant` in spirit). server/engines.py fills the server's own; the rooms are handed it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from server.core.engine import Engine

EngineFactory = Callable[[], Engine[Any]]
_MEMBERS = sorted({*(n for n in dir(Engine) if not n.startswith("_")), *Engine.__annotations__})


@dataclass(frozen=True, slots=True)
class Entry:
    factory: EngineFactory
    defaults: Mapping[str, Any] = field(default_factory=dict)
    campaign: bool = True
    """False for engines that only child rooms play (not offered for a new campaign)."""


class Registry:
    def __init__(self) -> None:
        self._entries: dict[str, Entry] = {}

    def register(self, name: str, factory: EngineFactory, defaults: Mapping[str, Any] | None = None, *,
                 campaign: bool = True) -> None:
        """Add (or replace, keeping its place) the engine `name`; a factory that does not make an `Engine` is
        refused here, not at the first game."""
        engine = factory()
        missing = [m for m in _MEMBERS if not hasattr(engine, m)]
        if missing:
            raise TypeError(f"engine {name!r} ({type(engine).__name__}) lacks {', '.join(missing)}")
        self._entries[name] = Entry(factory, dict(defaults or {}), campaign)

    def _entry(self, name: str) -> Entry:
        try:
            return self._entries[name]
        except KeyError:
            raise KeyError(f"no engine or scenario {name!r}; known: {', '.join(sorted(self._entries))}") from None

    def find(self, name: str) -> Engine[Any]:
        """The engine for a kind/scenario name; KeyError naming the known ones otherwise."""
        return self._entry(name).factory()

    def config(self, name: str, config: Mapping[str, Any]) -> dict[str, Any]:
        """The setup config for `name`: its defaults (e.g. the scenario) under the request's own settings."""
        return {**self._entry(name).defaults, **config}

    def names(self) -> list[str]:
        """The engines and scenarios a campaign can be created with, in registration order; child-room engines
        are left out."""
        return [n for n, e in self._entries.items() if e.campaign]

