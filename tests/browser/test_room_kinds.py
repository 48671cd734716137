"""Each kind of room in its own view and words (issue 21 and the Continental War): a skirmish and a Continental
campaign replayed on their own table and map, the lobby telling a skirmish by its scenario (it has no levels), a
fortress neither split nor named twice on the map, the skirmish's bar on a phone."""

from __future__ import annotations

import asyncio
import re
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import page_in, sync_api
from tests.browser.test_client import open_link
from tests.conftest import ServerProcess
from tests.net.client import signed_in

expect = sync_api.expect
pytestmark = [pytest.mark.browser, pytest.mark.slow]
SHOTS = Path("/tmp/polish2")


def _shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def _skirmish(web_server: ServerProcess) -> dict[str, Any]:
    made: dict[str, Any] = web_server.http("POST", "/api/campaigns", {
        "name": "the house at the crossroads", "scenario": "skirmish-platoon", "public": True,
        "teams": [{"colour": "red", "seats": 1}, {"colour": "blue", "seats": 1}]})
    return made


def _continental(web_server: ServerProcess) -> dict[str, Any]:
    made: dict[str, Any] = web_server.http("POST", "/api/campaigns", {
        "name": "Continental", "scenario": "continental", "level": 2, "public": True,
        "teams": [{"colour": "red", "seats": 1}, {"colour": "blue", "seats": 1}]})
    return made


def _rule(web_server: ServerProcess, made: dict[str, Any], ruling: dict[str, Any]) -> None:
    """The umpire's ruling over the wire, in a thread of its own (Playwright's sync API owns this thread's loop)."""
    replies: list[dict[str, Any]] = []

    async def run() -> None:
        client = await signed_in(web_server.ws_url, made["moderator_token"], made["room"])
        try:
            replies.append(await client.request({"t": "mod_ruling", "room": made["room"], "ruling": ruling}))
        finally:
            await client.close()

    thread = threading.Thread(target=lambda: asyncio.run(run()))
    thread.start()
    thread.join(30)
    assert replies and replies[0]["t"] != "error", replies


def _replay(page: Any, made: dict[str, Any]) -> None:
    """The umpire's replay page of the finished campaign room."""
    open_link(page, made["moderator_link"], "Moderator|Посредник")
    page.evaluate(f"() => {{ location.hash = 'replay={made['room']}' }}")
    expect(page.get_by_test_id("replay-bar")).to_be_visible()


def test_a_skirmish_and_a_continental_campaign_replay_each_in_its_own_view(web_server: ServerProcess,
                                                                            browser: Any) -> None:
    made = _skirmish(web_server)
    blue = page_in(browser, "en", (1366, 800))
    open_link(blue, _links(made)["blue"], "blue")
    blue.get_by_test_id("sk-deploy").click()
    expect(blue.get_by_test_id("sk-deploy")).to_have_count(0)
    _rule(web_server, made, {"type": "end_game", "winner": "blue", "reason": "ruling"})
    page = page_in(browser, "ru", (1366, 800))
    _replay(page, made)
    expect(page.get_by_test_id("skirmish-table")).to_be_visible()
    expect(page.get_by_test_id("campaign-map")).to_have_count(0)
    expect(page.get_by_test_id("replay-bar")).to_contain_text("Запись: Стычка")
    expect(page.get_by_test_id("sk-turn")).to_contain_text(re.compile(r"Развёртывание|Расстановка"))
    page.get_by_test_id("replay-seek").fill("1000")  # the last event: the umpire's ruling
    expect(page.get_by_test_id("sk-whose")).to_have_text("Победа: Синие")
    _shot(page, "replay-skirmish-ru")
    page = page_in(browser, "en", (390, 844))
    made = _continental(web_server)
    _rule(web_server, made, {"type": "end_campaign", "winner": "red"})
    _replay(page, made)
    expect(page.get_by_test_id("campaign-map")).to_be_visible()
    expect(page.get_by_test_id("skirmish-table")).to_have_count(0)
    _shot(page, "replay-continental-phone")


def _links(made: dict[str, Any]) -> dict[str, str]:
    return {s["team"]: s["link"] for s in made["seats"]}


def test_the_lobby_tells_a_skirmish_by_its_scenario_and_a_campaign_by_its_level(web_server: ServerProcess,
                                                                                 browser: Any) -> None:
    skirmish, continental = _skirmish(web_server), _continental(web_server)
    for lang, size in (("ru", (390, 844)), ("en", (1366, 800))):
        page = page_in(browser, lang, size)
        page.goto(web_server.url + "/")
        rows = page.get_by_test_id("lobby-campaigns")
        row = rows.locator(f"li[data-room='{skirmish['room']}'] .muted")
        expect(row).to_have_text(re.compile(r"^(Skirmish|Стычка)[^·]*$"))
        expect(rows.locator(f"li[data-room='{continental['room']}'] .muted")).to_contain_text(
            re.compile(r" · (Level|Уровень) 2$"))
        _shot(page, f"lobby-{lang}")
        page.context.close()


def test_on_a_phone_the_skirmish_bar_keeps_each_sides_dice_on_its_line(web_server: ServerProcess,
                                                                        browser: Any) -> None:
    made = _skirmish(web_server)
    for lang in ("ru", "en"):
        page = page_in(browser, lang, (390, 844))
        for team, who in (("blue", "blue|син"), ("red", "red|красн")):
            open_link(page, _links(made)[team], who)
            if lang == "ru":  # the first visit deploys both sides (the click waits for the button: a page still
                page.get_by_test_id("sk-deploy").click()  # drawing had none yet, and the side stayed undeployed)
        bar = page.get_by_test_id("skirmish-bar")
        expect(bar).to_contain_text(re.compile(r"(Turn|Ход) 1"))
        expect(page.get_by_test_id("sk-side-red").locator(".die")).to_have_count(2)
        for team in ("red", "blue"):
            side = page.get_by_test_id(f"sk-side-{team}")
            # the side's name, its orders and its dice on one line: the dice sit level with the name
            tops = side.evaluate("(s) => [s.firstElementChild, ...s.querySelectorAll('.die')].map((e) => "
                                 "{ const r = e.getBoundingClientRect(); return Math.round(r.top + r.height / 2) })")
            assert max(tops) - min(tops) <= 4, (lang, team, tops)
        width = bar.evaluate("(b) => [b.scrollWidth, b.clientWidth]")
        assert width[0] <= width[1], width
        _shot(page, f"skirmish-bar-phone-{lang}")
        page.context.close()


def test_a_fortress_on_the_continental_map_is_offered_no_split_and_named_once_C_3_6_C_4_9(
        web_server: ServerProcess, browser: Any) -> None:
    made = _continental(web_server)
    # a split is an order of the turns, not of planning (C-1.5): both sides end planning first
    planners = [page_in(browser, "en", (1366, 800)) for _ in range(2)]
    for planner, team in zip(planners, ("red", "blue"), strict=True):
        open_link(planner, _links(made)[team], team)
        planner.get_by_test_id("end-turn").click()
    expect(planners[0].get_by_test_id("turn-log")).to_contain_text("The operations phase begins (turn 1)")
    for planner in planners:
        planner.context.close()
    for lang, size in (("ru", (1366, 800)), ("en", (390, 844))):
        page = page_in(browser, lang, size)
        open_link(page, _links(made)["red"], "red|красн")
        page.get_by_test_id("campaign-map").focus()
        title = page.get_by_test_id("selection").locator("h3")
        seen: list[str] = []
        for _ in range(60):  # the counters in turn: the fortress of Fort Rot, then the divisions
            page.keyboard.press("Tab")
            name = title.inner_text().strip() if title.count() else ""
            seen.append(name)
            orders = page.get_by_test_id("unit-orders")
            if re.search(r"Fort Rot|Форт Рот", name):
                # a fortress's garrison stays in it (C-3.6): nothing offered that moves it or breaks it up
                expect(orders.get_by_test_id("order-split")).to_have_count(0)
                expect(orders.get_by_test_id("order-facing")).to_have_count(0)
                _shot(page, f"fortress-{lang}")
            elif re.search(r"\d+ (RD|с\.д\.)$", name):
                expect(orders.get_by_test_id("order-split")).to_be_visible()  # a division splits (C-4.9)
        assert any(re.search(r"Fort Rot|Форт Рот", n) for n in seen), seen
        page.context.close()
