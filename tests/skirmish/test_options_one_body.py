"""The options query for one body computes only that body (options.legal_orders `only`): the same entries as the
whole side's answer filtered to it, for units, single figures and the army (D-S-5, S-6)."""

from __future__ import annotations

from server.engines import ENGINES
from server.skirmish.options import legal_orders

from .helpers import ACTORS


def _matches(entry: dict[str, object], body: str) -> bool:
    return body in (entry.get("body"), entry.get("unit"), entry.get("figure"))


def test_one_bodys_options_are_the_whole_answer_filtered_to_it_S_6_D_S_5() -> None:
    engine = ENGINES.find("skirmish-platoon")
    s, _ = engine.setup(ENGINES.config("skirmish-platoon", {"teams": ["red", "blue"]}), 11)
    while s.stage != "orders":
        (team,) = engine.active_teams(s)
        s, _ = engine.apply(s, ACTORS[team], {"type": "deploy"})
    (team,) = engine.active_teams(s)
    whole = legal_orders(s, team)
    bodies = [e["body"] for e in whole["orders"] if "body" in e]
    assert "army" in bodies and len(bodies) > 10
    for body in bodies[:4] + bodies[-3:]:
        one = engine.options(s, f"team:{team}", body)
        assert one is not None
        assert one["orders"] == [e for e in whole["orders"] if _matches(e, body)], body
