"""Small Napoleonic campaigns for the tests: the real scenario map with an order of battle of the test's own."""

from __future__ import annotations

from typing import Any

from server.core.engine import Actor
from server.napoleonic.campaign.engine import NapoleonicEngine
from server.napoleonic.campaign.state import NapoleonicState

E = NapoleonicEngine()
RED = Actor("red-1", "red", 1)
RED2 = Actor("red-2", "red", 2)
BLUE = Actor("blue-1", "blue", 1)
BLUE2 = Actor("blue-2", "blue", 2)
MOD = Actor("moderator", None, moderator=True)


def army(aid: str, cell: tuple[int, int], units: Any = (("infantry", 2),), points: float = 6, **kw: Any
         ) -> dict[str, Any]:
    specs = []
    for kind, n in units:
        specs += [{"id": f"{aid}-{kind[:3]}{i}", "type": kind} for i in range(1, n + 1)]
    return {"id": aid, "name": aid.title(), "general": kw.pop("general", f"General {aid}"), "seat": kw.pop("seat", 1),
            "cell": list(cell), "movement_points": points, "base": kw.pop("base", None), "units": specs, **kw}


def game(red: list[dict[str, Any]], blue: list[dict[str, Any]], seed: int = 1, seats: int = 2) -> NapoleonicState:
    state, _ = E.setup({"teams": [{"colour": "red", "seats": seats}, {"colour": "blue", "seats": seats}],
                        "armies": {"red": red, "blue": blue}}, seed)
    return state


def kinds(events: Any) -> list[str]:
    return [e.kind for e in events]


def event(events: Any, kind: str) -> dict[str, Any]:
    return dict(next(e for e in events if e.kind == kind).data)


def end_turns(state: NapoleonicState, *teams: str) -> NapoleonicState:
    for t in teams:
        state, _ = E.end_turn(state, t, flagged=False)
    return state
