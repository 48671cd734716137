"""Issue 18 item 5: the AI is shown the options query's answer for each unit it plays (server/rooms/ai_view.py,
issue 14) and keeps a unit's orders only when the first of them is among what the room offers that unit now."""

from __future__ import annotations

from server.engines import ENGINES
from server.napoleonic.battle.commander import command, offered
from server.rooms.ai_view import ai_view

from .helpers import battle, unit

ENGINE = ENGINES.find("battle")


def test_the_ai_view_has_each_own_units_options_D_N_7() -> None:
    s = battle([unit("r1", "infantry", 30, 50), unit("r2", "heavy_cavalry", 40, 50)],
               [unit("b1", "infantry", 30, 20, facing="S")])
    view = ai_view(ENGINE, s, "red")
    assert set(view["unit_options"]) == {"r1", "r2"}, "one answer per unit of the side on the field, none of blue's"
    assert view["unit_options"]["r1"] == ENGINE.options(s, "team:red", "r1")


def test_an_order_the_options_do_not_offer_is_dropped_N_INF_2() -> None:
    s = battle([unit("r1", "infantry", 30, 50)], [unit("b1", "infantry", 30, 20, facing="S")])
    view = ai_view(ENGINE, s, "red")
    planned = command(view, "red", 1)
    assert planned and all(offered(view["unit_options"]["r1"], o) for o in planned[:1])
    closed = {**view, "unit_options": {"r1": {**view["unit_options"]["r1"], "moves": [], "formations": [],
                                              "wheels": []}}}
    assert not [o for o in command(closed, "red", 1) if o.get("unit") == "r1"]


def test_offered_reads_the_menu() -> None:
    menu = {"active": True, "moves": [{"to": [3, 4]}], "wheels": [{"degrees": 45}], "charge": False,
            "formations": [{"formation": "limbered"}], "targets": [{"unit": "b1"}], "about_face": None,
            "refused": [{"order": "leave_melee"}]}
    assert offered(menu, {"type": "move", "path": [[3, 5], [3, 4]]})
    assert not offered(menu, {"type": "move", "path": [[3, 5]]})
    assert offered(menu, {"type": "wheel", "degrees": 45}) and not offered(menu, {"type": "wheel", "degrees": 90})
    assert offered(menu, {"type": "limber"}) and not offered(menu, {"type": "unlimber"})
    assert offered(menu, {"type": "targets", "targets": [{"unit": "b1", "guns": 4}]})
    assert not offered(menu, {"type": "targets", "targets": [{"unit": "b2", "guns": 4}]})
    assert not offered(menu, {"type": "charge"}) and not offered(menu, {"type": "about_face"})
    assert not offered(menu, {"type": "leave_melee"}) and offered(menu, {"type": "retreat"})
    assert not offered({**menu, "active": False}, {"type": "move", "path": [[3, 4]]})


def test_a_unit_moving_into_a_cell_its_neighbour_frees_is_kept_and_nothing_the_ai_gives_is_refused_D_GEN_2() -> None:
    """The options are the room's answer before the phase's orders: a move into a cell that one of the side's own
    earlier orders frees is not among them, yet the engine accepts it in order. Dropping such a unit used to leave
    the units planned around its move to be refused (seeds 2 and 3: two refusals each, whole battles against
    random orders, bench/ai.py's harness)."""
    from bench.ai import ai_battle

    for seed in (2, 3):
        _, refused = ai_battle(seed, "red")
        assert refused == 0, f"seed {seed}: {refused} of the AI's orders refused"
