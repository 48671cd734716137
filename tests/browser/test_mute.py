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
    # a spectator the umpire names sees everything (the `spectator` class); the shared link only what is public
    named = web_server.http("POST", f"/api/campaigns/{made['campaign']}/spectators", {"name": "Clausewitz"},
                            headers={"Authorization": f"Bearer {made['moderator_token']}"})
    moderator, spectator, red, link = new_page(), new_page(), new_page(), new_page()
    open_link(moderator, made["moderator_link"], "moderator")
    open_link(spectator, named["link"], "spectator")
    open_link(red, made["seats"][0]["link"], "red")
    open_link(link, made["spectator_link"], "spectator")
    _say(spectator, "spectators", "what a move")
    moderator.get_by_test_id("chan-spectators").click()
    expect(moderator.get_by_test_id("chat-lines")).to_contain_text("what a move")
    # issue 12 item 1: the link (public class) hears its own line and so does the named spectator; the named
    # spectator's and the umpire's lines (full view) never reach the link; players have no spectators' tab
    _say(link, "spectators", "hello from the link")
    expect(link.get_by_test_id("chat-lines")).to_contain_text("hello from the link")
    expect(spectator.get_by_test_id("chat-lines")).to_contain_text("hello from the link")
    expect(moderator.get_by_test_id("chat-lines")).to_contain_text("hello from the link")
    _say(moderator, "spectators", "the blue reserve waits behind the hill")
    expect(spectator.get_by_test_id("chat-lines")).to_contain_text("the blue reserve")
    expect(red.get_by_test_id("chan-spectators")).to_have_count(0)
    expect(link.get_by_test_id("chat-lines")).not_to_contain_text("the blue reserve")
    link.reload()  # the history on join: the public lines only
    link.get_by_test_id("chan-spectators").click()
    expect(link.get_by_test_id("chat-lines")).to_contain_text("hello from the link")
    expect(link.get_by_test_id("chat-lines")).not_to_contain_text("what a move")
    expect(link.get_by_test_id("chat-lines")).not_to_contain_text("the blue reserve")

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
