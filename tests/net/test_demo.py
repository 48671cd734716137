"""`python -m server --demo` prints the join links of a ready demo campaign, the same ones at every start."""

from __future__ import annotations

import re
from typing import Any

from tests.net.client import signed_in


async def test_demo_prints_working_links_and_the_same_ones_after_a_restart(server_factory: Any) -> None:
    node = server_factory("--demo").start()
    node.stop()
    first = node.log.read_text()
    node.start()
    node.stop()
    links = re.findall(r"(red seat 1|blue seat 2|moderator|spectators):\s+(http://\S+/#token=(\S+))", first)
    assert [who for who, _, _ in links] == ["red seat 1", "blue seat 2", "moderator", "spectators"]
    assert node.log.read_text().count(links[0][1]) == 2  # printed again, unchanged

    node.start()
    made = node.http("GET", "/api/lobby")["campaigns"][0]
    red = await signed_in(node.ws_url, links[0][2], made["room"])
    assert red.welcome["role"] == "player" and red.welcome["team"] == "red"
    snap = await red.wait(lambda m: m["t"] == "snapshot")
    assert snap["clocks"]["paused"] is True  # the moderator starts the game
    assert made["scenario"] == "napoleonic" and snap["state"]["scenario"] == "napoleonic"  # 1813, issue 6
    assert {a["team"] for a in snap["state"]["armies"]} >= {"red"}
    await red.close()


def test_the_demo_can_be_watched_from_the_lobby(server_factory: Any) -> None:
    """Issue 16 §6: the demo's row leads somewhere for a visitor too — its spectators' link is in the lobby."""
    node = server_factory("--demo").start()
    try:
        demo = node.http("GET", "/api/lobby")["campaigns"][0]
        spectators = re.search(r"spectators:\s+(http://\S+)", node.log.read_text())
        assert spectators and demo["spectator_link"] == spectators.group(1)
        assert [t["online"] for t in demo["teams"]] == [0, 0]
    finally:
        node.stop()
