"""Building new fortresses (N-SIEGE-1, D-N-16)."""

from __future__ import annotations

import pytest

from server.core.errors import IllegalOrder
from server.napoleonic.siege.fortress import (
    Fortification,
    Fortress,
    begin_fortifying,
    fortification_turn,
    gun_positions_for,
)


def test_fortress_needs_a_city_and_artillery_D_N_16() -> None:
    with pytest.raises(IllegalOrder) as e:
        begin_fortifying("Leipzig", "a1", 0, 3, is_city=True, fortified=False)
    assert e.value.rule == "D-N-16"
    with pytest.raises(IllegalOrder) as e:
        begin_fortifying("field", "a1", 2, 3, is_city=False, fortified=False)
    assert e.value.rule == "D-N-16"
    with pytest.raises(IllegalOrder) as e:
        begin_fortifying("Dresden", "a1", 2, 3, is_city=True, fortified=True)
    assert e.value.rule == "N-SIEGE-1"


def test_ten_turns_in_the_city_build_a_fortress_D_N_16() -> None:
    work, events = begin_fortifying("Leipzig", "a1", 1, 3, is_city=True, fortified=False)
    assert events[0].kind == "fortifying_begun" and work.needed == 10
    built: Fortress | None = None
    for _turn in range(10):
        assert work is not None and built is None
        work, built, events = fortification_turn(work, army_in_city=True, artillery=1)  # type: ignore[assignment]
    assert work is None and built == Fortress("Leipzig")
    assert events[-1].kind == "fortress_built"


def test_leaving_the_city_abandons_the_work_D_N_16() -> None:
    work, _ = begin_fortifying("Stettin", "a1", 1, 3, is_city=True, fortified=False, coastal=True, needed=3)
    w2, built, _ = fortification_turn(work, army_in_city=True, artillery=1)
    assert w2 is not None and w2.done == 1 and built is None
    gone, built, events = fortification_turn(w2, army_in_city=False, artillery=1)
    assert gone is None and built is None and events[0].kind == "fortifying_abandoned"
    lost, _, events = fortification_turn(w2, army_in_city=True, artillery=0)
    assert lost is None and "artillery" in events[0].data["reason"]
    w3, _, _ = fortification_turn(w2, army_in_city=True, artillery=1)
    assert w3 is not None
    _, port, _ = fortification_turn(w3, army_in_city=True, artillery=1)
    assert port == Fortress("Stettin", port=True) and Fortification.load(w3.dump()) == w3


def test_gun_positions_one_per_ten_wall_cells_at_least_two_D_N_16() -> None:
    assert gun_positions_for(62) == 6
    assert gun_positions_for(15) == 2
    assert gun_positions_for(0) == 2
