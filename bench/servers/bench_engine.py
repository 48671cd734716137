"""The bench engine: lets the moderator's ruling `{"type": "emit", "kind", "data"}` become one room event.

It is how a benchmark puts events of a chosen size and rate into one of our rooms through the real command path
(hello → join → `mod_ruling` → decode and validate → room → engine → durable log → bus → feed → sockets) without
touching the server's code: `bench/servers/ours.py` registers it in the engine registry before starting the server,
and the benchmark creates its campaigns with `"scenario": "bench"`. No rule of the game is played here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from server.core.engine import Actor, BaseEngine, Event
from server.core.errors import UnknownOrder


class BenchEngine(BaseEngine[dict[str, Any]]):
    """`views_change` (BENCH_VIEWS=1, set by bench/servers/ours.py): each event changes what every viewer sees, so
    the room sends a `view` to each socket after each command (one more frame per event and spectator, which the
    baselines do not send). Off by default: the view stays the same and the benchmarks compare the same frames."""

    kind = "bench"
    views_change = False

    def setup(self, config: Mapping[str, Any], seed: int) -> tuple[dict[str, Any], Sequence[Event]]:
        return {"teams": list(config.get("teams") or ["red", "blue"]), "emitted": 0}, []

    def teams(self, state: dict[str, Any]) -> Sequence[str]:
        return list(state["teams"])

    def active_teams(self, state: dict[str, Any]) -> frozenset[str]:
        return frozenset()

    def apply(self, state: dict[str, Any], actor: Actor, order: Mapping[str, Any]) -> tuple[dict[str, Any],
                                                                                             Sequence[Event]]:
        raise UnknownOrder("the bench engine takes no orders, only the moderator's emit ruling")

    def end_turn(self, state: dict[str, Any], team: str, *, flagged: bool) -> tuple[dict[str, Any], Sequence[Event]]:
        return state, []

    def moderate(self, state: dict[str, Any], ruling: Mapping[str, Any]) -> tuple[dict[str, Any], Sequence[Event]]:
        if ruling.get("type") != "emit" or not isinstance(ruling.get("data"), Mapping):
            raise UnknownOrder("the bench engine knows only {'type': 'emit', 'kind': str, 'data': {...}}")
        new = {**state, "emitted": int(state["emitted"]) + 1}
        return new, [Event(str(ruling.get("kind", "bench")), ruling["data"])]

    def view(self, state: dict[str, Any], viewer: str) -> dict[str, Any]:
        return {"emitted": state["emitted"] if self.views_change else 0}

    def is_over(self, state: dict[str, Any]) -> bool:
        return False

    def dump(self, state: dict[str, Any]) -> dict[str, Any]:
        return dict(state)

    def load(self, data: Mapping[str, Any]) -> dict[str, Any]:
        return dict(data)
