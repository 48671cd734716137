"""The siege as the view shows it (C-1.3: sieges are public): the sides, the first turn of the storm, the sortie and
hold flags and the terms on the table — what the web client needs to offer each side only its decisions."""

from __future__ import annotations

from tests.napoleonic.campaign.helpers import BLUE, RED, E, army, end_turns, game


def test_view_shows_the_sides_and_storm_turn_of_a_siege_N_SIEGE_2_N_SIEGE_5() -> None:
    s = game([army("blucher", (25, 18), (("infantry", 2), ("foot_artillery", 1)))],
             [army("nap", (24, 18), (("infantry", 2),))])
    s, _ = E.apply(s, RED, {"type": "move", "army": "blucher", "path": [[24, 18]]})
    for viewer in ("team:red", "team:blue", "spectator"):
        (siege,) = E.view(s, viewer)["sieges"]
        assert siege == {"fortress": "Dresden", "cell": [24, 18], "phase": "invested", "battle": None,
                         "besieger": "red", "garrison": "blue", "storm_from": 2, "sortied": False, "holds": False,
                         "proposal": None, "proposer": None}
    s = end_turns(s, "red")
    s, _ = E.apply(s, BLUE, {"type": "siege", "fortress": "Dresden", "action": "hold"})
    assert E.view(s, "team:red")["sieges"][0]["holds"] is True
