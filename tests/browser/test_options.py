"""Issue 14 with issue 17 §2 in real Chromium: the battle view offers a unit's orders from the server's options
answer, and every order it offers is accepted when ordered — a move to a cell it offers, each turn and formation
button it enables — while what it does not offer is disabled with its reason."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser.conftest import sync_api
from tests.browser.scripted import room_log
from tests.browser.test_client import battle_tab, march_to_battle, plan_a_step, say
from tests.conftest import ServerProcess

expect = sync_api.expect
pytestmark = [pytest.mark.browser, pytest.mark.slow]

# the order buttons enabled (a refused order's wrapper, `wheel--90-refused`, also starts with `wheel-` and has no
# `disabled` of its own: clicking it orders nothing)
OFFERED = ("button[data-testid^=wheel-]:not([disabled]), button[data-testid=about-face]:not([disabled]), "
           "button[data-testid^=formation-]:not([disabled])")


def orders_logged(web_server: ServerProcess, room: str) -> int:
    return sum(1 for r in room_log(web_server.data_dir, room) if r.kind == "order")


def accepted(page: Any, web_server: ServerProcess, room: str, before: int) -> None:
    """The order just given was logged, and nothing was refused (at the unit or on the error line)."""
    deadline = 50
    while orders_logged(web_server, room) <= before and deadline:
        page.wait_for_timeout(100)
        deadline -= 1
    assert orders_logged(web_server, room) == before + 1, (
        f"the order offered was not accepted: {page.get_by_test_id('error-line').inner_text()!r} "
        f"{[r.kind for r in room_log(web_server.data_dir, room)][-8:]}")
    # answered (the view after it came first) and the options asked again for that view are in: the panel stays
    expect(page.get_by_test_id("battle-field")).to_have_attribute("data-settled", "true")
    expect(page.get_by_test_id("refusal-at-unit")).to_have_count(0)
    expect(page.get_by_test_id("error-line")).to_be_empty()
    expect(page.get_by_test_id("options-points")).to_be_visible()


def test_every_order_the_battle_view_offers_is_accepted_when_ordered_issue_14(web_server: ServerProcess,
                                                                              new_page: Any) -> None:
    _, red, blue = march_to_battle(web_server, new_page)
    pages = {"red": red, "blue": blue}
    for page in pages.values():
        tab = battle_tab(page)
        expect(tab).to_have_count(1, timeout=15_000)
        tab.click()
        expect(page.get_by_test_id("battle-field")).to_be_visible()
    room = str(battle_tab(red).get_attribute("data-room"))
    turn = red.get_by_test_id("battle-turn").inner_text()
    side = "red" if re.search(r"Red", turn.split("·")[-1]) else "blue"
    page = pages[side]
    field = page.get_by_test_id("battle-field")
    # A chat line redraws the page with the same view: the order buttons stay the elements they were (rebuilt, they
    # would swallow a click that lands as they are replaced).
    field.focus()
    page.keyboard.press("Tab")
    expect(page.get_by_test_id("options-points")).to_be_visible(timeout=10_000)
    page.get_by_test_id("options-points").evaluate("el => { el.dataset.mark = 'kept'; }")
    say(page, f"team:{side}", "steady, lads")
    expect(page.locator("[data-testid=options-points][data-mark=kept]")).to_have_count(1)
    given = {"turn": 0, "move": 0}
    for _ in range(6):  # six units in turn: one offered order each, moves and turns alternating
        field.focus()
        page.keyboard.press("Tab")
        points = page.get_by_test_id("options-points")
        expect(points).to_be_visible(timeout=10_000)
        expect(field).to_have_attribute("data-settled", "true")
        before = orders_logged(web_server, room)
        if given["move"] <= given["turn"] and int(field.get_attribute("data-reach") or 0) > 0:
            # a cell the options offer: the first of the arrow keys' cells next to the anchor that is in reach
            if plan_a_step(page):
                page.get_by_test_id("battle-move").click()
                accepted(page, web_server, room, before)
                given["move"] += 1
            else:
                page.keyboard.press("Escape")
            continue
        offered = page.locator(OFFERED)
        if offered.count():
            offered.first.click()
            accepted(page, web_server, room, before)
            given["turn"] += 1
        disabled = page.locator("[data-testid$=-refused] [data-testid=refusal-reason]")
        if disabled.count():
            assert disabled.first.inner_text().strip(), "a disabled order says why"
    assert given["move"] and given["turn"], given

    # In Russian the server's reasons (in English) give way to the name, from the rulebook, of the rule that refused
    # the order: a disabled order says which rule in the viewer's language, not only "the rules do not allow it".
    page.get_by_test_id("lang").click()
    named = page.locator("[data-testid$=-refused]:has(a.rule[href^='/rules/ru/']) [data-testid=refusal-reason]")
    for _ in range(8):
        field.focus()
        page.keyboard.press("Tab")
        expect(page.get_by_test_id("options-points").or_(page.get_by_test_id("options-inactive"))).to_be_visible()
        if named.count():
            break
    expect(named.first).to_contain_text(re.compile(r"Правила не допускают такой приказ: «[^»]+»"))
    # The client's own reasons are already in the viewer's words: a cell beyond a unit's reach (one that may still
    # move) says so in Russian
    for _ in range(16):
        field.focus()
        page.keyboard.press("Tab")
        expect(field).to_have_attribute("data-settled", "true")
        if int(field.get_attribute("data-reach") or 0) > 0:
            break
    else:
        raise AssertionError("no unit may move")
    field.focus()
    for _ in range(20):
        page.keyboard.press("ArrowUp")
    expect(page.get_by_test_id("battle-move-refused").get_by_test_id("refusal-reason")).to_contain_text(
        "Не дойти в этот ход")
