"""The battlefield generator (N-START-1, N-START-7, N-TERRAIN-1 … N-TERRAIN-6, decision D-N-3)."""

from __future__ import annotations

from collections import deque

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.napoleonic.battle.deployment import EDGES, setup_state, to_map
from server.napoleonic.battle.footprint import Cell
from server.napoleonic.battle.mapgen import (
    RELIEFS,
    ZONE_OPEN_SHARE,
    CellTerrain,
    column_path,
    crossings,
    edge_from,
    generate,
    join_zones,
    render,
    zone_cells_of,
)
from server.napoleonic.battle.terrain import FIELD_SIZE, BattleMap

from .helpers import config, unit

cells = st.builds(CellTerrain, relief=st.sampled_from(sorted(RELIEFS)), river=st.booleans(), town=st.booleans(),
                  road=st.booleans())
seeds = st.integers(min_value=0, max_value=2**63 - 1)


def _bfs(bmap: BattleMap, starts: list[Cell], ok: set[int], diagonal: bool = False) -> set[Cell]:
    steps = [(1, 0), (-1, 0), (0, 1), (0, -1)]
    if diagonal:
        steps += [(1, 1), (1, -1), (-1, 1), (-1, -1)]
    seen = {c for c in starts if bmap.cover[c[1] * bmap.width + c[0]] in ok}
    queue = deque(seen)
    while queue:
        x, y = queue.popleft()
        for dx, dy in steps:
            n = (x + dx, y + dy)
            if bmap.on_map(*n) and n not in seen and bmap.cover[n[1] * bmap.width + n[0]] in ok:
                seen.add(n)
                queue.append(n)
    return seen


ALL_ARMS = {i for i in range(10) if i in (0, 1, 4, 6)}  # open, road, settlement, crossing


def test_field_is_70_by_70_N_START_1() -> None:
    m = generate(CellTerrain("plain"), 1).map
    assert (m.width, m.height) == (FIELD_SIZE, FIELD_SIZE)
    assert len(m.cover) == len(m.elevation) == 70 * 70


@pytest.mark.parametrize("relief", sorted(RELIEFS))
def test_same_seed_same_field_byte_for_byte_D_N_3(relief: str) -> None:
    cell = CellTerrain(relief, river=True, town=True, road=True)
    a, b = generate(cell, 424242, "east"), generate(cell, 424242, "east")
    assert a.map.cover == b.map.cover and a.map.elevation == b.map.elevation
    assert render(a.map) == render(b.map)


@pytest.mark.parametrize("relief", sorted(RELIEFS))
def test_different_seeds_give_different_fields_D_N_3(relief: str) -> None:
    cell = CellTerrain(relief, river=True)
    fields = {generate(cell, seed).map.cover for seed in range(8)}
    assert len(fields) == 8


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cell=cells, seed=seeds, edge=st.sampled_from(EDGES))
def test_zones_passable_open_and_joined_N_START_7_D_N_3(cell: CellTerrain, seed: int, edge: str) -> None:
    """D-N-3: both zones hold no impassable ground (N-TERRAIN-1) nor dense wood (N-TERRAIN-3), are mostly open
    to every arm, and a march column can go from one to the other; no clearing in a zone is cut off."""
    f = generate(cell, seed, edge)
    m = f.map
    assert f.defender_edge == {"north": "south", "south": "north", "east": "west", "west": "east"}[edge]
    zones = {e: zone_cells_of(m, e) for e in (f.attacker_edge, f.defender_edge)}
    for zone in zones.values():
        assert len(zone) == 15 * 60
        kinds = [m.kind(x, y) for x, y in zone]
        assert all({"infantry", "cavalry"} <= k.passable for k in kinds)
        assert sum("artillery" in k.passable for k in kinds) >= ZONE_OPEN_SHARE * len(zone)
    assert column_path(m, f.attacker_edge, f.defender_edge)
    reach = _bfs(m, zones[f.attacker_edge], ALL_ARMS)
    for zone in zones.values():
        open_cells = [c for c in zone if m.cover[c[1] * 70 + c[0]] in ALL_ARMS]
        assert all(c in reach for c in open_cells), "every open zone cell is joined to the other zone"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(relief=st.sampled_from(sorted(RELIEFS)), seed=seeds, edge=st.sampled_from(EDGES), town=st.booleans())
def test_river_spans_the_field_with_two_or_three_crossings_N_TERRAIN_1_D_N_3(relief: str, seed: int, edge: str,
                                                                             town: bool) -> None:
    f = generate(CellTerrain(relief, river=True, town=town), seed, edge)
    m = f.map
    assert 2 <= len(crossings(m)) <= 3
    assert all(m.kind(x, y).name == "crossing" for group in crossings(m) for x, y in group)
    # Without its crossings the river parts the zones, even to a unit stepping diagonally.
    not_river = {code for code in range(10)} - {5, 6}
    reach = _bfs(m, zone_cells_of(m, f.attacker_edge), not_river, diagonal=True)
    assert not reach & set(zone_cells_of(m, f.defender_edge))


def test_no_river_no_river_cells_D_N_3() -> None:
    for seed in range(5):
        rows = "".join(generate(CellTerrain("plain"), seed).map.rows())
        assert "~" not in rows and "+" not in rows


@pytest.mark.parametrize("relief", sorted(RELIEFS))
def test_town_cell_yields_a_settlement_N_TERRAIN_5_D_N_3(relief: str) -> None:
    for seed in range(4):
        f = generate(CellTerrain(relief, town=True, river=seed % 2 == 0), seed)
        assert len(f.town) >= 20
        assert all(f.map.kind(x, y).name == "settlement" for x, y in f.town)
        assert generate(CellTerrain(relief, town=False), seed).town == ()


def test_plains_have_a_road_from_edge_to_edge_N_TERRAIN_6_D_N_3() -> None:
    for seed in range(6):
        m = generate(CellTerrain("plain", river=seed % 2 == 1), seed).map
        south = [(x, 69) for x in range(70) if m.kind(x, 69).is_road]
        reach = _bfs(m, south, {1, 6})
        assert any(y == 0 for _, y in reach), "a road (with its bridge) runs from the attacker's edge to the other"


def test_relief_follows_the_campaign_terrain_D_N_3() -> None:
    def count(relief: str, symbols: str) -> int:
        return sum(sum(ch in symbols for ch in "".join(generate(CellTerrain(relief), s).map.rows()))
                   for s in range(6))

    assert count("forest", "fF") > 2 * count("plain", "fF")
    assert count("swamp", "mW") > 0 and count("plain", "M") == 0
    assert count("mountains", "M") > 0
    hills = sum(sum(generate(CellTerrain("hills"), s).map.elevation) for s in range(6))
    plain = sum(sum(generate(CellTerrain("plain"), s).map.elevation) for s in range(6))
    assert hills > plain > 0


@pytest.mark.parametrize("relief", ["hills", "mountains"])
def test_hills_have_slopes_one_level_per_cell_N_TERRAIN_4(relief: str) -> None:
    for seed in range(4):
        m = generate(CellTerrain(relief), seed).map
        assert max(m.elevation) >= 2
        for y in range(70):
            for x in range(70):
                for dx, dy in ((1, 0), (0, 1), (1, 1), (-1, 1)):
                    if m.on_map(x + dx, y + dy):
                        assert abs(m.height_at(x, y) - m.height_at(x + dx, y + dy)) <= 1


def test_attacker_edge_faces_the_cell_it_came_from_D_N_3() -> None:
    assert [edge_from(d) for d in ("N", "E", "S", "W")] == ["north", "east", "south", "west"]
    assert edge_from("ne") == "north" and edge_from("SW") == "south"
    with pytest.raises(ValueError):
        edge_from("up")
    cell = CellTerrain("hills", river=True, town=True)
    south = generate(cell, 99, "south").map
    for edge in EDGES:
        turned = generate(cell, 99, edge).map
        for y in range(70):
            for x in range(70):
                tx, ty = to_map(turned, edge, x, 69 - y)
                assert turned.kind(tx, ty) == south.kind(x, y)
                assert turned.height_at(tx, ty) == south.height_at(x, y)


def test_campaign_names_and_features_D_N_3() -> None:
    c = CellTerrain.from_campaign("swamp", ["swamp", "river", "city"], road=True)
    assert (c.relief, c.river, c.town, c.road) == ("swamp", True, True, True)
    assert CellTerrain("marsh").relief == "swamp" and CellTerrain("mountain").relief == "mountains"
    assert CellTerrain.from_campaign("plain", ["plain"]) == CellTerrain("plain")
    with pytest.raises(ValueError):
        CellTerrain("sea")


def test_render_is_rows_of_terrain_symbols() -> None:
    m = generate(CellTerrain("hills", river=True, town=True), 5).map
    flat = render(m, heights=False).splitlines()
    assert BattleMap.from_rows(flat, m.elevation_rows()) == m
    shown = render(m).splitlines()
    assert len(shown) == 70 and all(len(r) == 70 for r in shown)
    assert any(ch.isdigit() for row in shown for ch in row)


def test_zones_cut_off_by_a_ridge_are_joined_by_a_track_D_N_3() -> None:
    rows = ["." * 70] * 34 + ["M" * 70] + ["~" * 70] + ["." * 70] * 34
    walled = BattleMap.from_rows(rows)
    assert not column_path(walled, "south", "north")
    joined, repaired = join_zones(walled, "south")
    assert repaired and column_path(joined, "south", "north")
    assert join_zones(joined, "south") == (joined, False)
    sideways, repaired = join_zones(BattleMap.from_rows(["".join(r[i] for r in rows) for i in range(70)]), "west")
    assert repaired and column_path(sideways, "west", "east")


@pytest.mark.parametrize("relief", sorted(RELIEFS))
def test_full_armies_deploy_on_generated_fields_N_START_1_N_START_7(relief: str) -> None:
    """25 units a side (N-START-1) find room in their zones (N-START-7) on every kind of field."""
    kinds = ["infantry"] * 15 + ["light_cavalry"] * 3 + ["heavy_cavalry"] * 3 + ["foot_artillery"] * 2 + \
        ["horse_artillery"] * 2
    for seed in range(2):
        m = generate(CellTerrain(relief, river=True, town=True, road=True), seed, "south").map
        cfg = config([unit(f"r{i}", k) for i, k in enumerate(kinds)], [unit(f"b{i}", k) for i, k in enumerate(kinds)],
                     map=m.dump())
        state = setup_state(cfg, seed)
        assert sum(1 for _ in state.field_units()) == 50
