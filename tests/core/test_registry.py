"""The engine registry is explicit: every engine is imported by name (server/engines.py), and one that is not a
whole Engine is refused when it is registered, not at the first game."""

from __future__ import annotations

import pytest

from server.core.registry import Registry
from server.drill import DrillEngine
from server.engines import ENGINES


class HalfAnEngine:
    kind = "half"

    def setup(self, config: object, seed: int) -> None: ...


def test_an_engine_missing_part_of_the_interface_is_refused_at_registration() -> None:
    registry = Registry()
    with pytest.raises(TypeError) as err:
        registry.register("half", HalfAnEngine)  # type: ignore[arg-type]
    assert "apply" in str(err.value) and "child_rooms" in str(err.value)
    registry.register("drill", DrillEngine, {"max_turns": 3})
    assert registry.names() == ["drill"] and registry.config("drill", {"width": 5}) == {"max_turns": 3, "width": 5}
    with pytest.raises(KeyError):
        registry.find("chess")


def test_the_server_plays_every_built_in_game() -> None:
    assert ENGINES.names()[:2] == ["drill", "campaign"] and {"continental", "napoleonic"} <= set(ENGINES.names())
    assert {ENGINES.find(n).kind for n in ("battle", "siege")} == {"battle", "siege"}
