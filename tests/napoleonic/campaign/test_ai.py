"""Issue 18 item 2: the Napoleonic campaign AI (server/napoleonic/campaign/ai.py) answers a contact from its view
(N-START-3): it withdraws from a much stronger enemy, but an army that has already declined battle
`DECLINE_LIMIT` times and is caught again fights, so a pursuit ends in a battle and the campaign in a result."""

from __future__ import annotations

from typing import Any

from server.napoleonic.campaign.ai import DECLINE_LIMIT, command


def army(aid: str, team: str, units: int) -> dict[str, Any]:
    return {"id": aid, "team": team, "status": "battle", "cell": [5, 5], "units": units, "points": 4}


def battle(bid: str, status: str) -> dict[str, Any]:
    return {"id": bid, "cell": [5, 5], "status": status, "attacker": "blue", "defender": "red",
            "armies": {"blue": ["grande"], "red": ["bulow"]}}


def view(declined: int) -> dict[str, Any]:
    return {"armies": [army("bulow", "red", 4), army("grande", "blue", 14)], "scenario": None, "active": [],
            "battles": [*(battle(f"b{i}", "declined") for i in range(declined)), battle("now", "contact")]}


def answer(v: dict[str, Any]) -> str:
    return next(o["choice"] for o in command(v, "red", 1) if o["type"] == "answer")


def test_the_weaker_side_withdraws_N_START_3() -> None:
    assert answer(view(0)) == "withdraw"
    assert answer(view(DECLINE_LIMIT - 1)) == "withdraw"


def test_an_army_caught_again_after_declining_fights_N_START_3() -> None:
    assert answer(view(DECLINE_LIMIT)) == "accept"


def test_an_army_on_a_place_the_enemy_holds_searches_on_instead_of_standing_N_SIEGE_4() -> None:
    """Control of a place changes only by a siege (N-SIEGE-4); an army standing on Dresden, which red holds, with
    no red army in sight (D-NAP sight range 3) takes Dresden for no aim: it marches to search (before, it stood
    there for the rest of the campaign, and the campaign ran to the turn cap)."""
    from server.rooms.ai_view import ai_view

    from .helpers import E, army, end_turns, game

    state = game([army("bulow", (20, 21), (("infantry", 2), ("foot_artillery", 1)))],
                 [army("grande", (24, 18), (("infantry", 6), ("foot_artillery", 1)))])
    state.control["Dresden"] = "red"
    state = end_turns(state, "red")
    orders = command(ai_view(E, state, "blue"), "blue", 1)
    moves = [o for o in orders if o["type"] == "move" and o["army"] == "grande"]
    assert moves, orders
    assert moves[0]["path"][-1] != [24, 18]


def test_a_siege_that_has_lasted_its_turn_is_stormed_with_howitzers_N_SIEGE_9_D_N_15() -> None:
    """The AI storms its siege once it has lasted its turn (N-SIEGE-2, N-SIEGE-5), turning half its besieging army's
    field companies (rounded up, D-N-15) into howitzers (N-SIEGE-9) — `bench/ai.py --storms 20`: a storm of Dresden,
    eight units with two foot companies against four, carried 10 times in 20 with one howitzer, 0 without."""
    from server.core.engine import Actor
    from server.rooms.ai_view import ai_view

    from .helpers import E, army, end_turns, game

    state = game([army("r1", (22, 18), (("infantry", 3), ("foot_artillery", 2), ("horse_artillery", 1)))],
                 [army("b1", (24, 18), (("infantry", 2),))])
    state, _ = E.apply(state, Actor("red-1", "red", 1), {"type": "move", "army": "r1", "path": [[23, 18], [24, 18]]})
    assert not [o for o in command(ai_view(E, state, "red"), "red", 1) if o["type"] == "siege"], "not before its turn"
    state = end_turns(state, "red", "blue")
    orders = [o for o in command(ai_view(E, state, "red"), "red", 1) if o["type"] == "siege"]
    assert orders == [{"type": "siege", "fortress": "Dresden", "action": "storm",
                       "howitzers": ["r1-foo1", "r1-foo2"]}]
    state, events = E.apply(state, Actor("red-1", "red", 1), orders[0])
    assert any(e.kind == "battle_started" for e in events)
