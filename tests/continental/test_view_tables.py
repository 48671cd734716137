"""The campaign view carries what a client needs to price a path in the engine's own unit (C-4.3, C-T4, D-C-2)
and the legend of the state map (issue 7)."""

from __future__ import annotations

from server.continental.grid import neighbours
from server.continental.movement import step_cost
from server.continental.state import CampaignState
from server.core.engine import MODERATOR, PUBLIC, SPECTATOR, team_viewer
from tests.continental.helpers import ENGINE, place, start


def _client_step(view: dict[str, object], state: CampaignState, arm: str, a: tuple[int, int],
                 b: tuple[int, int]) -> float | None:
    """The client's pricing (client_web/src/campaign/model.ts stepCost), from the view alone."""
    tables = view["tables"]
    assert isinstance(tables, dict)
    speeds, crossing = tables["speeds_km"], tables["river_crossing_turns"]
    m = view["map"]
    assert isinstance(m, dict)
    rivers = {tuple(c) for c in m["rivers"]}
    roads = {tuple(c) for c in m["roads"]}
    terrain = m["terrain"].get(f"{b[0]}-{b[1]}", "plain")
    on_road = a in roads and b in roads
    if b in rivers and not on_road:
        return None if crossing[arm] is None else float(crossing[arm])
    v = speeds["road"][arm] if on_road else speeds.get(terrain, {}).get(arm)
    if not isinstance(v, (int, float)) or v <= 0:
        return None
    km = 15 if a[0] != b[0] and a[1] != b[1] else 10
    return km / v


def test_every_viewer_gets_the_speed_table_and_crossing_turns_C_T4_D_C_2() -> None:
    s = start(2)
    for viewer in (MODERATOR, SPECTATOR, team_viewer("red"), team_viewer("blue"), PUBLIC):
        tables = ENGINE.view(s, viewer)["tables"]
        assert tables["speeds_km"] == s.tables["speeds_km"]
        assert tables["river_crossing_turns"] == s.tables["river_crossing_turns"]
        assert ENGINE.view(s, viewer)["map"]["legend"]["states"] == {"R": "red", "B": "blue", "G": "green", "~": None}


def test_a_path_priced_from_the_view_costs_what_the_engine_charges_C_4_3_D_C_2() -> None:
    """Steps next to the river (47/48 at latitude 20) and along the Rotgrad road, for a rifle and a tank division:
    the fraction of the turn computed from the view equals the engine's step cost, river crossings included."""
    s = start(2)
    view = ENGINE.view(s, team_viewer("red"))
    checked = 0
    for arm in ("RD", "TD"):
        for origin in ((47, 20), (36, 20), (47, 23)):
            uid = place(s, "red", arm, origin)
            unit = s.units[uid]
            for b in neighbours(origin):
                if not s.map.is_land(b) or s.map.is_bridge(b):
                    continue
                engine, _ = step_cost(s, unit, origin, b)
                assert _client_step(view, s, arm, origin, b) == engine, (arm, origin, b)
                checked += 1
            del s.units[uid]
    assert checked > 20
