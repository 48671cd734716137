"""The generated storm field (N-SIEGE-6, N-SIEGE-11, D-N-15, D-N-16)."""

from __future__ import annotations

import pytest

from server.napoleonic.battle.footprint import footprint
from server.napoleonic.siege.fortress import Fortress
from server.napoleonic.siege.siege_map import (
    BREACH_WIDTH,
    DITCH_DEPTH,
    GUN_FACING,
    PARALLEL_ROWS,
    WALL_DEPTH,
    WALL_Y,
    generate,
)

DRESDEN = Fortress("Dresden")


def kinds(field, y: int) -> str:  # type: ignore[no-untyped-def]
    return "".join(field.map.kind(x, y).name[0] for x in range(field.map.width))


@pytest.mark.parametrize("seed", [1, 7, 42, 2026])
def test_wall_crosses_the_field_with_two_four_cell_breaches_N_SIEGE_6_D_N_15(seed: int) -> None:
    f = generate(DRESDEN, seed)
    assert (f.map.width, f.map.height) == (70, 70)
    for y in range(WALL_Y, WALL_Y + WALL_DEPTH):
        row = [f.map.kind(x, y).name for x in range(70)]
        assert row.count("breach") == 2 * BREACH_WIDTH
        assert row.count("wall") == 70 - 2 * BREACH_WIDTH
        for b in f.breaches:
            assert row[b:b + BREACH_WIDTH] == ["breach"] * BREACH_WIDTH
            assert row[b - 1] == "wall" and row[b + BREACH_WIDTH] == "wall"


@pytest.mark.parametrize("seed", [1, 7, 42])
def test_two_cell_ditch_before_wall_and_forts_N_SIEGE_12_D_N_15(seed: int) -> None:
    f = generate(DRESDEN, seed)
    for x in range(70):
        if f.map.kind(x, WALL_Y + WALL_DEPTH).name == "fort":
            continue
        assert [f.map.kind(x, WALL_Y + WALL_DEPTH + i).name for i in range(DITCH_DEPTH)] == ["ditch"] * DITCH_DEPTH
    for fx in f.forts:
        bottom = max(y for y in range(70) if f.map.kind(fx, y).name == "fort")
        assert [f.map.kind(fx + 2, bottom + 1 + i).name for i in range(DITCH_DEPTH)] == ["ditch", "ditch"]
        assert f.map.kind(fx - 1, bottom).name == "ditch" and f.map.kind(fx - 2, bottom).name == "ditch"
        assert f.map.kind(fx - 3, bottom).name == "open"


def test_forts_stand_in_front_of_the_wall_flanks_N_SIEGE_6() -> None:
    f = generate(DRESDEN, 7)
    west, east = f.forts
    assert west < 15 and east > 50
    assert f.map.kind(west, WALL_Y + WALL_DEPTH).name == "fort" and f.map.kind(west, WALL_Y - 1).name != "fort"
    assert set(f.sections) == {"fort_west", "fort_east", "wall_west", "wall_centre", "wall_east"}


def test_town_behind_the_wall_with_open_ground_between_N_SIEGE_6() -> None:
    f = generate(DRESDEN, 7)
    assert "s" in kinds(f, 3)
    for y in range(WALL_Y - 10, WALL_Y):
        assert set(kinds(f, y)) <= {"o", "r"}, f"row {y} must be open ground"


def test_parallels_on_the_attacker_side_give_artillery_cover_D_N_15() -> None:
    f = generate(DRESDEN, 7)
    for y in PARALLEL_ROWS:
        assert kinds(f, y).count("p") > 40
        assert f.in_zone("besieger", 35, y), "artillery deploys in the parallels"
        assert f.map.kind(35, y).accuracy_penalty == 1


def test_gun_positions_one_per_ten_wall_cells_at_least_two_N_SIEGE_11_D_N_16() -> None:
    f = generate(DRESDEN, 7)
    assert len(f.guns) == 6  # 62 cells of wall
    taken: set[tuple[int, int]] = set()
    for g in f.guns:
        cells = footprint(g.anchor, 4, 2, GUN_FACING)
        assert all(c in f.sections[g.section] for c in cells)
        assert not taken & set(cells)
        taken.update(cells)
        parapet = [(x, y + 1) for x, y in cells]
        assert any(f.map.kind(*c).name in ("wall", "fort") and c not in cells for c in parapet), "behind a parapet"
    assert {g.section for g in f.guns} >= {"fort_west", "fort_east"}
    assert len(generate(Fortress("Tiny", gun_positions=1), 7).guns) == 2
    assert len(generate(Fortress("Big", gun_positions=9), 7).guns) == 9


def test_same_seed_same_field_other_seed_other_field_N_SIEGE_6() -> None:
    assert generate(DRESDEN, 11).dump() == generate(DRESDEN, 11).dump()
    assert any(generate(DRESDEN, s).dump() != generate(DRESDEN, 11).dump() for s in (12, 13, 14))


def test_deployment_zones_garrison_behind_the_ditch_besieger_south_N_START_7() -> None:
    f = generate(DRESDEN, 7)
    assert f.in_zone("garrison", 35, 20) and f.in_zone("garrison", 30, WALL_Y)
    assert f.in_zone("garrison", f.forts[0] + 1, WALL_Y + 4)
    assert not f.in_zone("garrison", 35, WALL_Y + WALL_DEPTH)
    assert not f.in_zone("besieger", 35, 40) and f.in_zone("besieger", 35, 60)
    assert not f.in_zone("besieger", 2, 60) and not f.in_zone("besieger", 35, 66)
