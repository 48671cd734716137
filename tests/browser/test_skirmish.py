"""The WWII skirmish in the web client (issue 21 item 4): a platoon game created through the HTTP API, played in
Chromium from two browser contexts — deployment, then orders one at a time as the dice give them (S-5, D-S-4):
a unit picked on the 40 × 30 table, its move range shown from the server's `reach`, a cell clicked, the order
given; the other side sees whose order it is and how many each side has left change; hits chosen by their owner
(D-S-9). A spectator sees the ambush the attacker does not (D-S-13). English and Russian, desktop and a phone."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.conftest import page_in, shot, sync_api
from tests.browser.test_client import open_link
from tests.conftest import ServerProcess

expect = sync_api.expect
pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(autouse=True)
def patient() -> Iterator[None]:
    """A whole platoon's view after each order on a busy machine: expectations wait 20 s here, not 5."""
    expect.set_options(timeout=20_000)
    yield
    expect.set_options(timeout=5_000)


def _create(web_server: ServerProcess) -> dict[str, Any]:
    made: dict[str, Any] = web_server.http("POST", "/api/campaigns", {
        "name": "the house at the crossroads", "scenario": "skirmish-platoon", "open_spectating": True,
        "teams": [{"colour": "red", "seats": 1}, {"colour": "blue", "seats": 1}],
        "clock": {"mode": "per_turn", "turn_ms": 600_000}})
    return made


def _links(made: dict[str, Any]) -> dict[str, str]:
    return {s["team"]: s["link"] for s in made["seats"]}


def _acting(pages: dict[str, Any]) -> str:
    """The team whose page offers an order or a choice now (the server's `active`, as each page shows it), once
    both pages agree and the other page shows the same order counts (its view has caught up)."""
    def offers(page: Any) -> bool:
        return bool(page.get_by_test_id("sk-order").count() or page.get_by_test_id("sk-hits").count())

    def counts(page: Any) -> str:
        return str(page.get_by_test_id("skirmish-bar").evaluate(
            "(b) => [...b.querySelectorAll('.sk-orders')].map((e) => e.innerText).join('|')"))

    for _ in range(150):
        found = [t for t, p in pages.items() if offers(p)]
        if len(found) == 1 and counts(pages["red"]) == counts(pages["blue"]):
            pages["red"].wait_for_timeout(300)
            if [t for t, p in pages.items() if offers(p)] == found and counts(pages["red"]) == counts(pages["blue"]):
                return found[0]
        pages["red"].wait_for_timeout(100)
    raise AssertionError("no page offers an order")


def _figures(page: Any) -> list[dict[str, str]]:
    """The figures drawn on the table: id, side, status."""
    found: list[dict[str, str]] = page.evaluate(
        "() => [...document.querySelectorAll('[data-testid=skirmish-table] [data-figure]')]"
        ".map((g) => ({id: g.dataset.figure, side: g.dataset.side, status: g.dataset.status}))")
    return found


def _reach_cells(page: Any) -> list[tuple[int, int]]:
    cells = page.evaluate("() => [...document.querySelectorAll('[data-testid=sk-reach] [data-cell]')]"
                          ".map((r) => r.dataset.cell)")
    return [(int(c.split(",")[0]), int(c.split(",")[1])) for c in cells]


def _orders_left(page: Any, team: str) -> int:
    text = page.get_by_test_id(f"sk-orders-{team}").inner_text()
    return int(re.findall(r"\d+", text)[0])


def _give_an_order(page: Any, team: str) -> str:
    """Choose hits if asked; else pick the unit of the first own figure free to act, move it by a clicked cell of
    its range (the farthest towards the enemy) and give the order. Returns what was done."""
    if page.get_by_test_id("sk-hits").count():
        boxes = page.get_by_test_id("sk-hits").locator("input[type=checkbox]")
        need = int(re.findall(r"\((\d+) \S+ (\d+)\)", page.get_by_test_id("sk-hits-send").inner_text())[0][1])
        for i in range(need):
            boxes.nth(i).check()
        expect(page.get_by_test_id("sk-hits-send")).to_be_enabled()
        page.get_by_test_id("sk-hits-send").click()
        return "hits"
    free = [f["id"] for f in _figures(page) if f["side"] == team and f["status"] == "in_action"]
    for fid in free:
        page.locator(f"[data-figure='{fid}']").click()
        if _reach_cells(page):
            break
    else:
        page.get_by_test_id("sk-pass").click()
        return "pass"
    expect(page.get_by_test_id("sk-picked")).to_be_visible()
    cells = sorted(_reach_cells(page), key=lambda c: c[1] if team == "red" else -c[1])  # red attacks northwards
    cell = cells[0]
    page.locator(f"[data-testid=sk-reach] [data-cell='{cell[0]},{cell[1]}']").click(force=True)
    expect(page.get_by_test_id("sk-send")).to_be_enabled()
    page.get_by_test_id("sk-send").click()
    for _ in range(100):
        if not page.get_by_test_id("sk-picked").count():
            return f"move to {cell}"
        refused = page.get_by_test_id("error-line").inner_text().strip()
        assert not refused, refused
        page.wait_for_timeout(100)
    raise AssertionError("the order was neither carried out nor refused")


def test_a_skirmish_is_played_order_by_order_from_two_browsers_S_5_D_S_4_D_S_9(
        web_server: ServerProcess, new_page: Any) -> None:
    made = _create(web_server)
    links = _links(made)
    red, blue = new_page(), new_page()
    for p in (red, blue):
        p.set_default_timeout(20_000)
    open_link(red, links["red"], "red")
    open_link(blue, links["blue"], "blue")
    pages = {"red": red, "blue": blue}
    for page in pages.values():
        expect(page.get_by_test_id("skirmish-table")).to_be_visible()
        expect(page.get_by_test_id("sk-turn")).to_contain_text("Deployment")
    # S-3.2: the defender (blue, the Soviet platoon) deploys first; the attacker sees none of it until he has too
    expect(blue.get_by_test_id("sk-deploy")).to_be_visible()
    expect(red.get_by_test_id("sk-deploy")).to_have_count(0)
    blue.get_by_test_id("sk-deploy").click()
    expect(red.get_by_test_id("sk-deploy")).to_be_visible()
    assert "blue" not in (red.get_by_test_id("skirmish-table").get_attribute("data-figures") or "")
    # red's platoon, still to deploy, has no place on the table: not a pile of figures and labels in its corner
    expect(red.locator("[data-figure]")).to_have_count(0)
    expect(red.locator(".unit-label")).to_have_count(0)
    red.get_by_test_id("sk-deploy").click()
    expect(red.get_by_test_id("sk-turn")).to_contain_text("Turn 1 of 8")
    expect(red.get_by_test_id("skirmish-table")).to_have_attribute("data-figures", re.compile(r"blue:\d+"))
    # D-S-13: the ambush in the wood (3rd squad) stays hidden from the attacker, seen by its own side
    red_sees = red.get_by_test_id("skirmish-table").get_attribute("data-figures") or ""
    blue_sees = blue.get_by_test_id("skirmish-table").get_attribute("data-figures") or ""
    assert int(re.findall(r"blue:(\d+)", red_sees)[0]) < int(re.findall(r"blue:(\d+)", blue_sees)[0])
    # S-5.1, S-5.2: the initiative and each side's orders are rolled and shown as dice
    expect(red.get_by_test_id("sk-side-red").locator(".die")).to_have_count(2)
    done: list[str] = []
    for n in range(8):
        team = _acting(pages)
        page, other = pages[team], pages["blue" if team == "red" else "red"]
        if not page.get_by_test_id("sk-hits").count():
            expect(page.get_by_test_id("sk-whose")).to_have_text("Your order")
            expect(other.get_by_test_id("sk-whose")).to_contain_text("to order")
            before = (other.get_by_test_id("sk-turn").inner_text(), _orders_left(other, team))
        if team == "blue" and blue.get_by_test_id("sk-ambush-s3").count():
            # S-9.3, D-S-13: the ambush springs from the wood at the places the server offers; firing at once at an
            # attacker out of its sight is refused in words (D-S-8), without a target it is placed
            blue.get_by_test_id("sk-ambush-s3").click()
            expect(blue.locator(".ambush-spot")).to_have_count(11)
            target = next(f["id"] for f in _figures(blue) if f["side"] == "red")
            blue.locator(f"[data-figure='{target}']").click()
            # the target by what the player knows of it (its side and role), never its raw id ("g.1")
            expect(blue.get_by_test_id("sk-target")).to_contain_text("Target: Red · ")
            expect(blue.get_by_test_id("sk-target")).not_to_contain_text(target)
            blue.get_by_test_id("sk-send").click()
            expect(blue.get_by_test_id("error-line")).to_contain_text("D-S-8")
            blue.locator(f"[data-figure='{target}']").click()
            expect(blue.get_by_test_id("sk-target")).to_have_count(0)
            blue.get_by_test_id("sk-send").click()
            expect(blue.get_by_test_id("turn-log")).to_contain_text("An ambush is sprung")
            expect(blue.locator("[data-figure^='s3.'][data-status=in_action]")).to_have_count(11)
            done.append("blue: ambush")
            continue
        what = _give_an_order(page, team)
        done.append(f"{team}: {what}")
        if what != "hits":
            # one order fewer (none when nothing of the side is left to order, S-5.6), or the next turn's dice
            for _ in range(200):
                now = (other.get_by_test_id("sk-turn").inner_text(), _orders_left(other, team))
                if now[0] != before[0] or now[1] < before[1]:
                    break
                other.wait_for_timeout(100)
            else:
                raise AssertionError(f"{team}'s order did not reach the other side: {before}")
        if n == 1:
            shot(page, "skirmish-order")
    moves = [d for d in done if "move" in d]
    assert moves, done
    # the rest of the turn given up (the End turn button); random fire at its end hits figures: their owner picks
    # them on the table (D-S-9), and the survival test is listed figure by figure (D-S-12)
    chosen: list[str] = []
    for _ in range(40):
        team = _acting(pages)
        page = pages[team]
        if page.get_by_test_id("sk-hits").count():
            boxes = page.get_by_test_id("sk-hits").locator("input[type=checkbox]")
            candidates = [str(b.get_attribute("data-testid"))[len("sk-hit-"):] for b in boxes.all()]
            need = int(re.findall(r"(\d+)\)", page.get_by_test_id("sk-hits-send").inner_text())[0])
            expect(page.get_by_test_id("sk-hits-send")).to_be_disabled()
            pick = candidates[-need:]  # the last of the list: not the default order's first choice
            for fid in pick:
                page.locator(f"[data-figure='{fid}']").click()
                expect(page.get_by_test_id(f"sk-hit-{fid}")).to_be_checked()
            shot(page, "skirmish-hits")
            page.get_by_test_id("sk-hits-send").click()
            for fid in pick:  # the survival test may soon put it back in action: the log tells
                expect(page.get_by_test_id("turn-log")).to_contain_text(f"Figure {fid} is hit")
            chosen += pick
        elif chosen and red.get_by_test_id("sk-survival").count():
            break
        else:
            bar = page.get_by_test_id("skirmish-bar").inner_text()
            page.get_by_test_id("end-turn").click()
            expect(page.get_by_test_id("skirmish-bar")).not_to_have_text(bar, timeout=20_000)
    assert chosen, "random fire hit nobody in the first turns"
    expect(red.get_by_test_id("sk-survival").locator("li").first).to_contain_text(re.compile(r"needs \d\+"))
    # every order the page gave was carried out: the turn log has the dice before each order (S-5.6)
    expect(red.get_by_test_id("turn-log")).to_contain_text("the next order")


def test_the_skirmish_on_a_phone_and_in_russian_fits_and_shows_the_dice_and_the_range(
        web_server: ServerProcess, browser: Any, new_page: Any) -> None:
    made = _create(web_server)
    links = _links(made)
    blue = new_page()
    blue.set_default_timeout(20_000)
    open_link(blue, links["blue"], "blue")
    blue.get_by_test_id("sk-deploy").click()
    for lang, size in (("en", (1400, 860)), ("ru", (1400, 860)), ("en", (390, 844)), ("ru", (390, 844))):
        page = page_in(browser, lang, size)
        try:
            open_link(page, links["red"], "red|красн")
            expect(page.get_by_test_id("sk-turn")).to_be_visible()  # the view is drawn: bar and panel in one pass
            if page.get_by_test_id("sk-deploy").count():
                page.get_by_test_id("sk-deploy").click()
            expect(page.get_by_test_id("sk-turn")).to_contain_text(re.compile(r"(Turn|Ход) 1"))
            team = "red"
            page.wait_for_timeout(500)
            if not page.get_by_test_id("sk-order").count():  # the dice gave blue the first order: its seat
                team = "blue"
                open_link(page, links["blue"], "blue|син")
                expect(page.get_by_test_id("sk-order")).to_be_visible()
            width = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
            assert width[0] <= width[1], (lang, size, width)
            table = page.get_by_test_id("skirmish-table").bounding_box()
            assert table and table["width"] >= min(size[0], 1000) * 0.9 - 320, table
            # a squad picked (its commander in the middle of the line): its move range shown from the server's reach
            squad = next(f["id"] for f in _figures(page) if f["side"] == team and f["status"] == "in_action"
                         and re.fullmatch(r".\d\.1", f["id"]))
            page.locator(f"[data-figure='{squad}']").click()
            expect(page.get_by_test_id("sk-reach")).to_be_visible()
            assert len(_reach_cells(page)) > 10
            expect(page.get_by_test_id("sk-picked")).to_be_visible()
            # an enemy figure clicked: the target, with the cover its ground gives (D-S-7)
            enemy = next(f["id"] for f in _figures(page) if f["side"] != team)
            page.locator(f"[data-figure='{enemy}']").click()
            expect(page.get_by_test_id("sk-target")).to_contain_text(re.compile(r"(Blue|Red|Синие|Красные) · "))
            expect(page.get_by_test_id("sk-target")).not_to_contain_text(enemy)
            expect(page.get_by_test_id("sk-send")).to_be_enabled()
            name = f"skirmish{'-phone' if size[0] < 500 else ''}{'-ru' if lang == 'ru' else ''}"
            if lang == "ru":
                # the words of the bar and the orders (unit names are the scenario's own: "1. Zug")
                body = page.get_by_test_id("skirmish-bar").inner_text() + str(page.get_by_test_id(
                    "skirmish-panel").evaluate(
                    "(p) => [...p.querySelectorAll('h3, p, button, summary')].map((e) => e.innerText).join(' ')"))
                names = {"Zug", "Gruppe", "leichter", "Granatwerfer", "Trupp"}  # the German units' own names
                latin = [w for w in re.findall(r"[A-Za-z]{3,}", body) if w not in names]
                assert latin == [], latin
            shot(page, name)
        finally:
            page.context.close()


def test_a_skirmish_is_created_from_the_lobby_and_the_umpire_rules_from_the_desk_S_5_2_D_S_15(
        web_server: ServerProcess, new_page: Any) -> None:
    lobby = new_page()
    lobby.goto(web_server.url + "/")
    lobby.get_by_test_id("create-name").fill("squad against squad")
    expect(lobby.get_by_test_id("create-level")).to_be_visible()  # the Napoleonic campaign first: it has levels
    lobby.get_by_test_id("create-scenario").select_option("skirmish")
    expect(lobby.get_by_test_id("create-scenario")).to_contain_text("Skirmish: squad against squad")
    expect(lobby.get_by_test_id("create-level")).to_be_hidden()  # the squad game has none to choose
    lobby.get_by_test_id("create-clock").select_option("per_turn")
    lobby.get_by_test_id("create-minutes").fill("3")
    lobby.get_by_test_id("create-submit").click()
    expect(lobby.get_by_test_id("link-moderator")).to_be_visible()
    links = {key: lobby.get_by_test_id(f"link-{key}").locator("input").input_value()
             for key in ("red-1", "blue-1", "moderator", "spectators")}
    red, blue, moderator = new_page(), new_page(), new_page()
    for p in (red, blue, moderator):
        p.set_default_timeout(20_000)
    open_link(red, links["red-1"], "red")
    open_link(blue, links["blue-1"], "blue")
    open_link(moderator, links["moderator"], "Moderator")
    # the umpire's tabs: the game is titled by what it is, a skirmish, not a campaign
    expect(moderator.get_by_test_id("room-tabs").locator("[data-room^='c-']")).to_have_text(
        "Skirmish: squad against squad")
    # the squad game begins with the terrain (D-S-2): the side to place asks the server to place the rest
    pages = {"red": red, "blue": blue}
    for _ in range(100):
        placers = [t for t, p in pages.items() if p.get_by_test_id("sk-auto-terrain").count()]
        if placers:
            break
        red.wait_for_timeout(100)
    (placer,) = placers
    pages[placer].get_by_test_id("sk-auto-terrain").click()
    for team in ("blue", "red"):  # S-3.2: the defender first
        expect(pages[team].get_by_test_id("sk-deploy")).to_be_visible()
        pages[team].get_by_test_id("sk-deploy").click()
    expect(moderator.get_by_test_id("sk-turn")).to_contain_text("Turn 1 of 8")
    # the moderator sees every figure of both sides
    expect(moderator.get_by_test_id("skirmish-table")).to_have_attribute(
        "data-figures", re.compile(r"red:\d+ blue:\d+|blue:\d+ red:\d+"))
    desk = moderator.get_by_test_id("moderator-desk")
    kinds = desk.get_by_test_id("mod-ruling-type")
    expect(kinds.locator("option")).to_have_count(5)
    kinds.select_option("set_orders")
    fields = desk.get_by_test_id("mod-ruling-fields")
    fields.locator("[data-field=side]").select_option("red")
    fields.locator("[data-field=left]").fill("1")
    desk.get_by_test_id("mod-rule-form").click()
    expect(red.get_by_test_id("sk-orders-red")).to_contain_text("1 of")
    expect(red.get_by_test_id("turn-log")).to_contain_text("The umpire sets Red's orders left to 1")
    kinds.select_option("end_game")
    fields.locator("[data-field=winner]").select_option("blue")
    fields.locator("[data-field=reason]").fill("the umpire's ruling")
    desk.get_by_test_id("mod-rule-form").click()
    expect(red.get_by_test_id("sk-result")).to_contain_text("Blue won", timeout=10_000)
    expect(blue.get_by_test_id("sk-whose")).to_have_text("Blue won")
    # the finished game is replayed event by event on the same table, as the player's side saw it
    red.get_by_test_id("replay-load").click()
    expect(red.get_by_test_id("replay-bar")).to_be_visible()
    expect(red.get_by_test_id("sk-turn")).to_contain_text(re.compile(r"Placing the terrain|Deployment"))
    expect(red.get_by_test_id("skirmish-table")).to_be_visible()
