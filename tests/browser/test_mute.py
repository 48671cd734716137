"""Issue 12 §13 in the browser: the umpire's desk mutes the spectators' chat (and lets it speak again); a muted
spectator's line is refused in words, the room's log says so; the players' chat goes on."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import sync_api
from tests.browser.test_client import open_link
from tests.conftest import ServerProcess

expect = sync_api.expect
pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _say(page: Any, channel: str, text: str) -> None:
    page.get_by_test_id(f"chan-{channel}").click()
    page.get_by_test_id("chat-input").fill(text)
    page.get_by_test_id("chat-send").click()


def test_the_umpire_mutes_the_spectators_from_the_desk(web_server: ServerProcess, new_page: Any) -> None:
    made = web_server.http("POST", "/api/campaigns", {
        "name": "Muted", "scenario": "drill", "level": 2,
        "teams": [{"colour": "red", "seats": 1}, {"colour": "blue", "seats": 1}]})
    # a spectator the umpire names reads the spectators' channel (the shared link shows only what is public)
    named = web_server.http("POST", f"/api/campaigns/{made['campaign']}/spectators", {"name": "Clausewitz"},
                            headers={"Authorization": f"Bearer {made['moderator_token']}"})
    moderator, spectator, red = new_page(), new_page(), new_page()
    open_link(moderator, made["moderator_link"], "moderator")
    open_link(spectator, named["link"], "spectator")
    open_link(red, made["seats"][0]["link"], "red")
    _say(spectator, "spectators", "what a move")
    moderator.get_by_test_id("chan-spectators").click()
    expect(moderator.get_by_test_id("chat-lines")).to_contain_text("what a move")

    moderator.get_by_test_id("mod-mute-all").click()
    expect(spectator.get_by_test_id("turn-log")).to_contain_text("The umpire has muted the spectators' chat")
    _say(spectator, "spectators", "red goes left")
    expect(spectator.get_by_test_id("chat-lines")).to_contain_text("The umpire has muted spectators' chat here")
    expect(moderator.get_by_test_id("chat-lines")).not_to_contain_text("red goes left")
    _say(red, "players", "we hold")  # players are never muted here
    expect(red.get_by_test_id("chat-lines")).to_contain_text("we hold")

    moderator.get_by_test_id("mod-unmute-all").click()
    expect(spectator.get_by_test_id("turn-log")).to_contain_text("Spectators may chat again")
    _say(spectator, "spectators", "thank you")
    expect(moderator.get_by_test_id("chat-lines")).to_contain_text("thank you")
