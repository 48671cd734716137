"""Issue 18 §4 in the browser: "play against the computer" from the lobby. A team ticked "the computer plays it"
is marked in the lobby's list, its turns are played by the AI while the person plays the other team, and the
moderator is told who is played by the computer; the enemy is not."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser.conftest import shot, sync_api
from tests.browser.test_client import open_link
from tests.conftest import ServerProcess

expect = sync_api.expect
pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_a_campaign_against_the_computer_is_created_in_the_lobby_and_the_ai_plays_its_turns(
        web_server: ServerProcess, new_page: Any) -> None:
    creator = new_page()
    creator.goto(web_server.url + "/")
    expect(creator.get_by_test_id("lobby")).to_be_visible()
    creator.get_by_test_id("create-name").fill("Against the computer")
    expect(creator.get_by_test_id("create-scenario").locator("option[value=continental]")).to_have_count(1)
    creator.get_by_test_id("create-scenario").select_option("continental")
    creator.get_by_test_id("create-level").select_option("1")
    creator.get_by_test_id("create-clock").select_option("per_turn")
    creator.get_by_test_id("create-minutes").fill("5")
    creator.get_by_test_id("create-ai-blue").check()
    creator.get_by_test_id("create-ai-stand-in").fill("3")
    creator.get_by_test_id("create-submit").click()
    expect(creator.get_by_test_id("link-moderator")).to_be_visible()
    red_link = creator.get_by_test_id("link-red-1").locator("input").input_value()
    moderator_link = creator.get_by_test_id("link-moderator").locator("input").input_value()

    row = creator.get_by_test_id("lobby-campaigns").locator("li", has_text="Against the computer")
    expect(row.get_by_test_id("ai-blue")).to_have_text(re.compile(r"\(AI\)"))
    expect(row.get_by_test_id("ai-red")).to_have_count(0)
    expect(row.get_by_test_id("seats-blue")).to_have_attribute("title", re.compile("played by the computer"))
    shot(creator, "lobby-ai")

    lobby = web_server.http("GET", "/api/lobby")["campaigns"]
    entry = next(c for c in lobby if c["name"] == "Against the computer")
    assert [(t["colour"], t.get("ai")) for t in entry["teams"]] == [("red", 0), ("blue", 1)]

    red, moderator = new_page(), new_page()
    open_link(red, red_link, "red")
    open_link(moderator, moderator_link, "Moderator")
    expect(moderator.get_by_test_id("state-line")).to_contain_text("Played by the computer")
    expect(red.get_by_test_id("state-line")).not_to_contain_text("computer")  # the enemy is not told

    # The planning turn (C-1.5): red ends it (the computer has nothing to say in it), then in the operations phase
    # each time red ends its turn the computer plays blue's, and red is to move again with nobody at blue's seat.
    red.get_by_test_id("end-turn").click()
    expect(red.get_by_test_id("turn-log")).to_contain_text("The operations phase begins")
    for turn in (1, 2):
        expect(red.get_by_test_id("end-turn")).to_be_enabled()
        red.get_by_test_id("end-turn").click()
        expect(moderator.get_by_test_id("turn-log")).to_contain_text(f"Blue ended turn {turn}", timeout=20_000)
        expect(red.get_by_test_id("turn-log")).to_contain_text(f"Turn {turn + 1}: Red to move")
        expect(red.get_by_test_id("clock-red")).to_have_class(re.compile(r"\bto-move\b"))
    shot(moderator, "ai-moderator")
