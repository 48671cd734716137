"""The web client for real groups (issue 16): a phone, two tabs on one seat, a restart and an offline spell in the
middle of a battle, a return from the secret module after a reconnect, the Russian interface, the umpire's desk."""

from __future__ import annotations

import re
import signal
from typing import Any

import pytest

from tests.browser.conftest import ARTIFACTS, shot, sync_api
from tests.browser.test_client import battle_tab, end_battle, march, march_to_battle, open_link, say
from tests.conftest import ServerProcess

expect = sync_api.expect
pytestmark = [pytest.mark.browser, pytest.mark.slow]
TWO_TEAMS = [{"colour": "red"}, {"colour": "blue"}]


def phone(browser: Any, lang: str = "en") -> Any:
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-GB", has_touch=True, is_mobile=True,
                              device_scale_factor=2)
    ctx.add_init_script(f"try {{ localStorage.setItem('lang', '{lang}') }} catch (e) {{}}")
    page = ctx.new_page()
    page.set_default_timeout(10_000)
    return page


def viewport(canvas: Any) -> tuple[float, str]:
    return float(canvas.get_attribute("data-scale")), str(canvas.get_attribute("data-offset"))


def touch(cdp: Any, kind: str, points: list[tuple[float, float]]) -> None:
    cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": [
        {"x": x, "y": y, "id": i} for i, (x, y) in enumerate(points)]})


def test_on_a_phone_the_map_fills_the_width_and_a_pinch_or_drag_zooms_and_pans_it(
        web_server: ServerProcess, browser: Any) -> None:
    made = web_server.http("POST", "/api/campaigns", {
        "name": "Phone", "scenario": "napoleonic", "level": 2,
        "teams": [{"colour": "red", "seats": 1}, {"colour": "blue", "seats": 1}]})
    page = phone(browser)
    try:
        open_link(page, made["seats"][0]["link"], "red")
        canvas = page.get_by_test_id("campaign-map")
        expect(canvas).to_have_attribute("data-scale", re.compile(r"\d"))
        box = canvas.bounding_box()
        assert box and round(box["width"]) == 390, box
        expect(page.get_by_text("Tap a force to select it").first).to_be_visible()  # a finger, no Enter or Esc
        expect(page.get_by_text("Enter orders the move")).to_have_count(0)
        shot(page, "phone-campaign")
        # the hint is one line on a phone (its line is cut with "…" when longer): whole in both languages
        status = page.get_by_test_id("map-status")
        for lang in ("ru", "en"):
            page.get_by_test_id("lang").click()
            expect(status).to_have_text(re.compile(r"^(Tap|Коснитесь) "))
            assert status.evaluate("(e) => e.scrollWidth <= e.clientWidth"), (lang, status.inner_text())
        # the bottom sheet is the player's orders; a spectator, who gives none, has the details of what it picks
        expect(page.get_by_test_id("sheet-handle")).to_have_text("Orders")
        watcher = phone(browser, "ru")
        try:
            open_link(watcher, web_server.named_spectator_link(made), "Зрител")
            expect(watcher.get_by_test_id("sheet-handle")).to_have_text("Подробности")
            expect(watcher.get_by_test_id("map-status")).to_have_text("Коснитесь войск, чтобы узнать о них.")
        finally:
            watcher.context.close()
        before = viewport(canvas)
        cdp = page.context.new_cdp_session(page)
        cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        touch(cdp, "touchStart", [(cx - 30, cy), (cx + 30, cy)])
        for step in range(1, 6):
            touch(cdp, "touchMove", [(cx - 30 - 15 * step, cy), (cx + 30 + 15 * step, cy)])
        touch(cdp, "touchEnd", [])
        zoomed = viewport(canvas)
        assert zoomed[0] > before[0] * 1.5, (before, zoomed)
        touch(cdp, "touchStart", [(cx, cy)])
        for step in range(1, 6):
            touch(cdp, "touchMove", [(cx + 12 * step, cy + 8 * step)])
        touch(cdp, "touchEnd", [])
        panned = viewport(canvas)
        assert panned[0] == zoomed[0] and panned[1] != zoomed[1], (zoomed, panned)
        shot(page, "phone-campaign-zoomed")
        # a tap on an army opens the order panel as a bottom sheet
        page.get_by_test_id("zoom-fit").click()
        canvas.focus()
        page.keyboard.press("Tab")
        sheet = page.get_by_test_id("selection")
        expect(sheet).to_have_class(re.compile(r"\bopen\b"))
        sheet_box = sheet.bounding_box()
        assert sheet_box and sheet_box["y"] + sheet_box["height"] >= 843, sheet_box
        shot(page, "phone-order-sheet")
    finally:
        page.context.close()


def _visible_keys(panel: Any) -> int:
    return int(panel.locator("kbd").evaluate_all("(ks) => ks.filter((k) => k.offsetParent !== null).length"))


def test_on_a_phone_a_battles_orders_show_no_keyboard_keys(web_server: ServerProcess, browser: Any,
                                                          new_page: Any) -> None:
    """The battle's order buttons carry their keyboard shortcut (Q, E, S, ↵) on a desktop; a phone has no keys to
    press, and the badges only crowd the bottom sheet."""
    made, red, _ = march_to_battle(web_server, new_page)
    for page in (red,):
        expect(battle_tab(page)).to_have_count(1, timeout=15_000)
        battle_tab(page).click()
        page.get_by_test_id("battle-field").focus()
        page.keyboard.press("Tab")
        expect(page.get_by_test_id("battle-panel").get_by_role("button", name=re.compile("Wheel left"))).to_be_visible()
        assert _visible_keys(page.get_by_test_id("battle-panel")) > 0
    red.context.close()
    seats = {s["player"]: s["link"] for s in made["seats"]}
    page = phone(browser, "ru")
    try:
        open_link(page, seats["red-2"], "красн")
        battle_tab(page).click()
        field = page.get_by_test_id("battle-field")
        expect(field).to_be_visible()
        field.focus()
        page.keyboard.press("Tab")
        handle = page.get_by_test_id("sheet-handle")
        if handle.get_attribute("aria-expanded") != "true":  # picking a regiment opens the sheet; else open it
            handle.click()
        expect(handle).to_have_attribute("aria-expanded", "true")
        panel = page.get_by_test_id("battle-panel")
        expect(panel.get_by_role("button", name=re.compile("Захождение влево")).first).to_be_visible()
        assert _visible_keys(panel) == 0
        shot(page, "phone-battle-orders")
    finally:
        page.context.close()


def test_two_tabs_on_one_seat_do_not_kick_each_other_for_ever(web_server: ServerProcess, new_page: Any) -> None:
    made = web_server.http("POST", "/api/campaigns", {"name": "Twice", "teams": TWO_TEAMS})
    link = made["seats"][0]["link"]
    first = new_page()
    closes: list[int] = []
    first.on("websocket", lambda ws: ws.on("close", lambda _: closes.append(1)))
    open_link(first, link, "red")
    second = first.context.new_page()
    open_link(second, link, "red")
    banner = first.get_by_test_id("conn-banner")
    expect(banner).to_contain_text("This seat is open in another window")
    first.wait_for_timeout(3000)
    assert len(closes) == 1, "the older tab stops instead of reconnecting"
    expect(second.get_by_test_id("conn-banner")).to_have_count(0)
    shot(first, "seat-open-elsewhere")
    first.get_by_test_id("use-here").click()
    expect(first.get_by_test_id("conn-banner")).to_have_count(0)
    expect(second.get_by_test_id("conn-banner")).to_contain_text("This seat is open in another window")
    say(first, "players", "here now")


def test_a_restart_and_an_offline_spell_mid_battle_keep_the_tabs_and_the_chat(
        web_server: ServerProcess, new_page: Any) -> None:
    _, red, blue = march_to_battle(web_server, new_page)
    expect(battle_tab(red)).to_have_count(1, timeout=15_000)
    battle_tab(red).click()
    expect(red.get_by_test_id("battle-field")).to_be_visible()
    say(red, "players", "before the restart")

    web_server.kill()
    expect(red.get_by_test_id("conn-banner")).to_contain_text("reconnecting")
    web_server.start()
    expect(red.get_by_test_id("conn-banner")).to_have_count(0, timeout=30_000)
    expect(battle_tab(red)).to_have_count(1)  # the battle tab is still there, no reload
    expect(red.get_by_test_id("battle-field")).to_be_visible()

    red.context.set_offline(True)
    red.wait_for_timeout(200)
    expect(red.get_by_test_id("conn-banner")).to_contain_text("offline", timeout=5_000)
    red.get_by_test_id("chat-input").fill("typed while offline")
    red.get_by_test_id("chat-send").click()
    expect(red.get_by_test_id("chat-lines").get_by_test_id("pending-sending")).to_contain_text("typed while offline")
    shot(red, "offline-mid-battle")
    red.context.set_offline(False)
    expect(red.get_by_test_id("conn-banner")).to_have_count(0, timeout=30_000)
    lines = red.get_by_test_id("chat-lines")
    expect(lines).to_contain_text("typed while offline")
    expect(lines.get_by_test_id("pending-sending")).to_have_count(0)
    assert lines.inner_text().count("before the restart") == 1
    expect(battle_tab(red)).to_have_count(1)
    battle_tab(blue).click()
    blue.get_by_test_id("chan-players").click()
    expect(blue.get_by_test_id("chat-lines")).to_contain_text("typed while offline")


def test_a_silent_socket_is_noticed_within_seconds(web_server: ServerProcess, new_page: Any) -> None:
    """The browser does not always say it went offline: the heartbeat notices a socket that hears nothing."""
    made = web_server.http("POST", "/api/campaigns", {"name": "Quiet", "teams": TWO_TEAMS})
    page = new_page()
    open_link(page, made["seats"][0]["link"], "red")
    page.wait_for_timeout(1000)  # a few of the server's pings: the client learns their rhythm
    assert web_server.proc is not None
    web_server.proc.send_signal(signal.SIGSTOP)  # the server hangs: the socket stays open, silent
    try:
        expect(page.get_by_test_id("conn-banner")).to_contain_text("reconnecting", timeout=8_000)
    finally:
        web_server.proc.send_signal(signal.SIGCONT)
    expect(page.get_by_test_id("conn-banner")).to_have_count(0, timeout=30_000)


def send_red_away(web_server: ServerProcess, new_page: Any, reason: str = "") -> tuple[Any, Any, Any]:
    """A campaign whose umpire sends red's player to the secret module from the desk: (red, moderator, desk)."""
    made = web_server.http("POST", "/api/campaigns", {"name": "Away", "teams": TWO_TEAMS})
    red, moderator = new_page(), new_page()
    open_link(red, made["seats"][0]["link"], "red")
    open_link(moderator, made["moderator_link"], "Moderator")
    desk = moderator.get_by_test_id("moderator-desk")
    expect(desk.get_by_test_id("mod-player").locator("option[value='red-1']")).to_have_count(1)
    desk.get_by_test_id("mod-player").select_option("red-1")
    desk.get_by_test_id("mod-reason").fill(reason)
    desk.get_by_test_id("mod-lock").click()
    return red, moderator, desk


def test_a_player_released_while_away_returns_to_the_army(web_server: ServerProcess, new_page: Any) -> None:
    red, _, desk = send_red_away(web_server, new_page)
    expect(red.get_by_test_id("secret-banner")).to_contain_text("You are in the secret module")
    secret = red.get_by_test_id("room-tabs").locator("[data-room^='s-']")
    expect(secret).to_have_count(1)
    secret.click()
    # red drops off; meanwhile the umpire brings red back; red reconnects
    red.context.set_offline(True)
    expect(red.get_by_test_id("conn-banner")).to_contain_text("offline")
    desk.get_by_test_id("mod-release").click()
    red.context.set_offline(False)
    expect(red.get_by_test_id("conn-banner")).to_have_count(0, timeout=30_000)
    expect(red.get_by_test_id("secret-banner")).to_have_count(0)
    expect(red.get_by_test_id("back-banner")).to_contain_text("You are back from the secret module")
    expect(secret).to_have_count(0)
    expect(red.get_by_test_id("campaign-map")).to_be_visible()
    expect(red.get_by_test_id("error-line")).not_to_contain_text("forbidden")
    expect(red.get_by_test_id("end-turn")).to_be_visible()
    shot(red, "back-from-the-secret-module")


LATIN = re.compile(r"[A-Za-z]{2,}")
ALLOWED = re.compile(r"^(English|Enter|Esc|Tab|Ctrl|Shift|JSON|[IVXLCDM]+)$")  # keys, Roman numerals (III корпус)


def _latin_words(page: Any) -> list[str]:
    text = page.evaluate("() => document.body.innerText")
    text = re.sub(r"\b[A-Z]+(?:-[A-Za-z0-9.]+)+\b", " ", text)  # rule IDs (C-1.5, N-START-1, D-N-14)
    return sorted({w for w in LATIN.findall(text) if not ALLOWED.match(w)})


def test_no_english_is_left_in_the_russian_interface(web_server: ServerProcess, new_page: Any) -> None:
    """Lobby, campaign map, battle and the umpire's desk in Russian: no Latin word on the page but the language
    switch, key names and rule IDs."""
    lobby = new_page("ru")
    lobby.goto(web_server.url + "/")
    expect(lobby.get_by_test_id("create-form")).to_contain_text("Создать кампанию")
    expect(lobby.get_by_test_id("create-scenario")).to_have_value("napoleonic")
    lobby.wait_for_timeout(500)
    assert _latin_words(lobby) == [], _latin_words(lobby)
    shot(lobby, "lobby-ru")

    made, red, blue = march_to_battle(web_server, new_page)
    moderator = new_page("ru")
    open_link(moderator, made["moderator_link"], "Посредник")
    for page in (red, blue):
        page.get_by_test_id("lang").click()
    for page in (red, moderator):
        expect(battle_tab(page)).to_have_count(1, timeout=15_000)
        assert _latin_words(page) == [], _latin_words(page)
        battle_tab(page).click()
        expect(page.get_by_test_id("battle-field")).to_be_visible()
        page.get_by_test_id("battle-field").focus()
        page.keyboard.press("Tab")
        page.wait_for_timeout(300)
        assert _latin_words(page) == [], _latin_words(page)
    shot(red, "battle-ru")
    shot(moderator, "moderator-desk-ru")


def test_the_umpire_rules_through_the_desks_forms_and_everyone_reads_it(web_server: ServerProcess,
                                                                        new_page: Any) -> None:
    made, red, _ = march_to_battle(web_server, new_page)
    moderator, spectator = new_page(), new_page()
    open_link(moderator, made["moderator_link"], "Moderator")
    open_link(spectator, web_server.named_spectator_link(made), "Spectator")  # everything, live (issue 12)
    for page in (moderator, red, spectator):
        expect(battle_tab(page)).to_have_count(1, timeout=15_000)
        battle_tab(page).click()
    desk = moderator.get_by_test_id("moderator-desk")
    # a clock change is announced to the players as a sentence (red's order phase: its clock runs)
    desk.get_by_test_id("mod-team").select_option("red")
    desk.get_by_test_id("mod-minutes").fill("2")
    desk.get_by_test_id("mod-adjust").click()
    expect(red.get_by_test_id("turn-log")).to_contain_text("The umpire added 2:00 to Red's clock")
    kinds = desk.get_by_test_id("mod-ruling-type")
    expect(kinds.locator("option")).to_have_count(3)  # end the battle, adjust a unit, share a regiment's fire
    kinds.select_option("adjust")
    fields = desk.get_by_test_id("mod-ruling-fields")
    unit = fields.locator("[data-field=unit]")
    first = unit.locator("option").first.get_attribute("value")
    unit.select_option(first)
    fields.locator("[data-field=morale]").fill("3")
    desk.get_by_test_id("mod-rule-form").click()
    expect(red.get_by_test_id("turn-log")).to_contain_text("The umpire set")
    expect(red.get_by_test_id("turn-log")).to_contain_text("morale 3")
    desk.get_by_test_id("mod-delay").fill("1")
    desk.get_by_test_id("mod-delay-set").click()
    expect(moderator.get_by_test_id("turn-log")).to_contain_text("delays what spectators see by 1:00")
    desk.get_by_test_id("mod-audit-show").click()
    expect(desk.get_by_test_id("mod-audit")).to_contain_text("The umpire set")
    with moderator.expect_download() as download:
        desk.get_by_test_id("mod-audit-download").click()
    saved = ARTIFACTS / "audit.json"
    download.value.save_as(saved)
    assert '"kind": "adjusted"' in saved.read_text()
    shot(moderator, "moderator-desk-forms")
    kinds.select_option("end_battle")
    desk.get_by_test_id("mod-ruling-fields").locator("[data-field=winner]").select_option("red")
    desk.get_by_test_id("mod-ruling-fields").locator("[data-field=reason]").fill("the umpire's ruling")
    desk.get_by_test_id("mod-rule-form").click()
    expect(red.get_by_test_id("battle-result")).to_contain_text("Red", timeout=10_000)
    expect(red.get_by_test_id("state-line")).to_contain_text("is over: Red won")


def test_the_defender_and_the_beaten_army_decide_from_the_state_line_N_START_3_N_VICTORY_4(
        web_server: ServerProcess, new_page: Any) -> None:
    """What a team must decide is in the line at the top, with its buttons and its clock: the defender's fight or
    withdraw (its clock runs, outlined, the tab's title calls it), the attacker sent to the battle the campaign waits
    for, and after the battle the beaten army's retreat, planned on the map up to seven cells."""
    made = web_server.http("POST", "/api/campaigns", {
        "name": "Decisions", "scenario": "napoleonic", "level": 2, "clock": {"mode": "per_turn", "turn_ms": 300_000},
        "teams": [{"colour": "red", "seats": 2}, {"colour": "blue", "seats": 2}]})
    seats = {s["player"]: s["link"] for s in made["seats"]}
    red, blue, moderator = new_page(), new_page(), new_page()
    open_link(red, seats["red-2"], "red")
    open_link(blue, seats["blue-1"], "blue")  # not Ney's seat: whatever the general's fate, blue-1 stays at the table
    open_link(moderator, made["moderator_link"], "Moderator")
    march(red, "III Prussian Corps", ("ArrowDown", "ArrowDown", "ArrowLeft"))  # onto Ney at Leipzig

    line = blue.get_by_test_id("state-line")
    expect(line).to_contain_text(re.compile(r"You decide: fight at Leipzig\? \d:\d\d"))
    expect(blue.get_by_test_id("clock-blue")).to_have_class(re.compile(r"\bto-move\b"))  # its clock runs, and shows it
    expect(blue.get_by_test_id("clock-red")).to_have_class(re.compile(r"\bto-move\b"))  # red's turn goes on
    assert blue.title().startswith("▶ You decide"), blue.title()
    expect(red.get_by_test_id("state-line")).to_contain_text("Your turn")
    shot(blue, "decision-in-the-state-line")
    blue.get_by_test_id("state-accept").click()

    expect(red.get_by_test_id("state-line")).to_contain_text("The campaign waits while you fight the Battle of Leipzig",
                                                            timeout=15_000)
    expect(red.get_by_test_id("clocks").locator(".to-move")).to_have_count(0)  # the campaign's clocks stand still
    red.get_by_test_id("state-go-battle").click()
    expect(red.get_by_test_id("battle-field")).to_be_visible()
    expect(battle_tab(moderator)).to_have_count(1, timeout=15_000)
    battle_tab(moderator).click()
    end_battle(moderator, "red", "the umpire's ruling")

    expect(line).to_contain_text("III Corps was beaten and must retreat: choose where, up to 7 cells", timeout=15_000)
    expect(blue.get_by_test_id("state-retreat-suggested")).to_be_visible()
    blue.get_by_test_id("state-retreat-show").click()
    expect(blue.get_by_test_id("retreat")).to_be_visible()
    blue.keyboard.press("ArrowLeft")
    blue.keyboard.press("ArrowLeft")
    expect(blue.get_by_test_id("retreat").get_by_test_id("path-cost")).to_have_text("2 of 7 cells")
    shot(blue, "retreat-planned")
    blue.get_by_test_id("retreat-here").click()
    made_line = blue.get_by_test_id("turn-log").locator('[data-kind="retreat_made"]')
    expect(made_line).to_contain_text("III Corps leaves Leipzig in retreat, where its team chose")
    expect(blue.get_by_test_id("selection")).to_contain_text("20,18")
    expect(line).not_to_contain_text("must retreat")


def _fits(page: Any) -> None:
    """Nothing on the page is wider than the phone: no sideways scrolling, every tab on screen."""
    width = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1] == 390, width
    # the tabs are redrawn as events come: measured in one go
    tabs = page.evaluate("""() => [...document.querySelectorAll('[data-testid=room-tabs] button')].map((b) => {
        const r = b.getBoundingClientRect(); return [b.innerText, r.left, r.right]; })""")
    assert all(left >= 0 and right <= 390 for _, left, right in tabs), tabs


def test_on_a_phone_nothing_runs_off_the_side_and_the_field_fills_the_width(web_server: ServerProcess, browser: Any,
                                                                            new_page: Any) -> None:
    """In Russian (the longer words) the lobby, the campaign with its tabs and the battle fit a 390 px phone; the
    battle's canvas is as wide as the phone and the 70×70 field is fitted to that width, not to a 300 px strip."""
    lobby = phone(browser, "ru")
    try:
        lobby.goto(web_server.url + "/")
        expect(lobby.get_by_test_id("create-scenario")).to_have_value("napoleonic")
        _fits(lobby)
    finally:
        lobby.context.close()
    made, _, _ = march_to_battle(web_server, new_page)
    blue = phone(browser, "ru")
    try:
        open_link(blue, {s["player"]: s["link"] for s in made["seats"]}["blue-1"], "Синие")
        expect(battle_tab(blue)).to_have_count(1, timeout=15_000)
        _fits(blue)
        battle_tab(blue).click()
        field = blue.get_by_test_id("battle-field")
        expect(field).to_have_attribute("data-scale", re.compile(r"\d"))
        box = field.bounding_box()
        assert box and round(box["width"]) == 390 and box["height"] >= 380, box
        assert float(field.get_attribute("data-scale")) * 70 >= 370, field.get_attribute("data-scale")
        _fits(blue)
        shot(blue, "phone-battle")
    finally:
        blue.context.close()


def test_the_secret_module_shows_the_player_why_and_the_umpire_whom_to_talk_with_D_N_14(
        web_server: ServerProcess, new_page: Any) -> None:
    """Sent away, the player is one click from the secret module's page, which says what it is, why and for how
    long; the umpire's page there lists who is held, with a channel to each and a button that brings them back — no
    clock, ruling or lockout controls that mean nothing in that room."""
    red, moderator, _ = send_red_away(web_server, new_page, "your general fell at the bridge")
    red.get_by_test_id("secret-banner").get_by_test_id("open-secret").click()  # one click from the banner

    page = red.get_by_test_id("secret-room")
    expect(page).to_contain_text("Here you talk with the umpire alone")
    expect(page).to_contain_text("The umpire's reason: your general fell at the bridge")
    expect(page.locator(".countdown")).to_have_text(re.compile(r"^(19:5\d|20:00)$"))
    expect(red.get_by_test_id("chan-secret:red-1")).to_be_visible()

    moderator.get_by_test_id("room-tabs").locator("[data-room^='s-']").click()
    expect(moderator.get_by_test_id("state-line")).to_contain_text("In the secret module: Red, seat 1 — back in")
    expect(moderator.get_by_test_id("moderator-desk")).to_have_count(0)
    expect(moderator.get_by_test_id("secret-held")).to_contain_text("Red, seat 1")
    moderator.get_by_test_id("chan-secret:red-1").click()
    moderator.get_by_test_id("chat-input").fill("You may name a successor.")
    moderator.get_by_test_id("chat-send").click()
    expect(red.get_by_test_id("chat-lines")).to_contain_text("The umpire You may name a successor.")
    shot(moderator, "secret-module-umpire")
    shot(red, "secret-module")
    moderator.get_by_test_id("release-red-1").click()
    expect(red.get_by_test_id("back-banner")).to_contain_text("You are back from the secret module")
    expect(red.get_by_test_id("campaign-map")).to_be_visible()
    expect(moderator.get_by_test_id("secret-held")).to_have_count(0)


def test_the_umpire_shares_a_regiments_fire_from_a_form_with_a_list_of_units_N_FIRE_4(web_server: ServerProcess,
                                                                                       new_page: Any) -> None:
    made, red, _ = march_to_battle(web_server, new_page)
    moderator = new_page()
    open_link(moderator, made["moderator_link"], "Moderator")
    expect(battle_tab(moderator)).to_have_count(1, timeout=15_000)
    battle_tab(moderator).click()
    desk = moderator.get_by_test_id("moderator-desk")
    desk.get_by_test_id("mod-ruling-type").select_option("assign_fire")
    fields = desk.get_by_test_id("mod-ruling-fields")
    expect(desk.get_by_test_id("mod-rule-form")).to_be_disabled()  # no targets picked yet
    fields.locator("[data-field=shooter]").select_option("bulow-1")
    fields.locator("[data-field=targets]").select_option(["ney-1", "ney-2"])
    desk.get_by_test_id("mod-rule-form").click()
    battle_tab(red).click()
    expect(red.get_by_test_id("turn-log").locator('[data-kind="fire_assigned"]')).to_contain_text("1st infantry")


def test_a_ruling_with_nothing_to_pick_or_not_json_says_so_D_L_2(web_server: ServerProcess, new_page: Any) -> None:
    """A ruling that needs a battle when none is fought cannot be sent and says why; a ruling written out that is
    not JSON says so instead of doing nothing."""
    made = web_server.http("POST", "/api/campaigns", {"name": "Quiet front", "scenario": "napoleonic", "teams": [
        {"colour": "red", "seats": 1}, {"colour": "blue", "seats": 1}]})
    moderator = new_page()
    open_link(moderator, made["moderator_link"], "Moderator")
    desk = moderator.get_by_test_id("moderator-desk")
    # reconnaissance is the Continental campaign's (C-8.3): no empty "false answers" row in a Napoleonic one
    expect(desk).to_contain_text("Audit trail")
    expect(desk.get_by_test_id("mod-false-answers")).to_be_hidden()
    desk.get_by_test_id("mod-ruling-type").select_option("impose_quick")  # no battle is being fought
    expect(desk.get_by_test_id("mod-ruling-note")).to_have_text("Nothing to pick as Battle now")
    expect(desk.get_by_test_id("mod-rule-form")).to_be_disabled()
    desk.get_by_test_id("mod-ruling-advanced").click()
    desk.get_by_test_id("mod-ruling").fill('{"type": "note"')
    desk.get_by_test_id("mod-rule").click()
    expect(desk.get_by_test_id("mod-ruling-error")).to_contain_text("That is not JSON")


def test_the_lobby_shows_each_teams_seats_taken_and_leads_to_join_or_watch(web_server: ServerProcess,
                                                                           new_page: Any) -> None:
    made = web_server.http("POST", "/api/campaigns", {
        "name": "Tuesday's 1813", "scenario": "napoleonic", "open_spectating": True,
        "teams": [{"colour": "red", "seats": 2}, {"colour": "blue", "seats": 2}]})
    red = new_page()
    open_link(red, made["seats"][0]["link"], "red")
    lobby = new_page()
    lobby.goto(web_server.url + "/")
    row = lobby.get_by_test_id("lobby-campaigns").locator(f"li[data-room='{made['room']}']")
    expect(row.get_by_test_id("seats-red")).to_have_text("■ 1/2")
    expect(row.get_by_test_id("seats-blue")).to_have_text("● 0/2")
    expect(row.get_by_test_id("seats-red")).to_have_attribute("title", "Red: 1 of 2 seats taken")
    expect(row.get_by_test_id("join")).to_be_visible()
    expect(row.get_by_test_id("watch")).to_be_visible()
    shot(lobby, "lobby")


SMALL_TEXT = """() => { const small = []; const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    while (walk.nextNode()) {
        const el = walk.currentNode.parentElement;
        if (!walk.currentNode.textContent.trim() || !el.getClientRects().length) continue;
        const size = parseFloat(getComputedStyle(el).fontSize);
        if (size < 14) small.push([el.tagName, size, walk.currentNode.textContent.trim().slice(0, 30)]);
    }
    return small; }"""


def test_every_order_is_reachable_by_keyboard_its_key_shown_text_at_least_14_px_and_the_log_read_out(
        web_server: ServerProcess, new_page: Any) -> None:
    """Issue 16 §7: on the campaign and in the battle, no text under 14 px; the battle's orders carry their keys
    (on the button and for assistive tools) and work from the keyboard alone; Ctrl+Enter ends the turn as its button
    says; new log lines are read out by a polite live region."""
    _, red, blue = march_to_battle(web_server, new_page)
    assert red.evaluate(SMALL_TEXT) == []
    expect(battle_tab(red)).to_have_count(1, timeout=15_000)
    battle_tab(red).click()
    field = red.get_by_test_id("battle-field")
    expect(field).to_be_visible()
    field.focus()
    red.keyboard.press("Tab")  # the first of red's units
    orders = red.get_by_test_id("battle-panel").locator("button[aria-keyshortcuts]")
    expect(orders.first).to_be_visible()
    for button in orders.all():
        keys = str(button.get_attribute("aria-keyshortcuts"))
        shown = button.locator("kbd").inner_text()
        assert shown == ("↵" if keys == "Enter" else keys.upper()), (keys, shown)
    assert red.evaluate(SMALL_TEXT) == []
    live = red.get_by_test_id("log-live")
    expect(live).to_have_attribute("aria-live", "polite")
    red.keyboard.press("a")  # about face, by key alone
    expect(red.get_by_test_id("turn-log").locator('[data-kind="about_face"]')).to_have_count(1)
    expect(live).to_contain_text("faces about")
    red.keyboard.press("Control+Enter")
    expect(red.get_by_test_id("end-turn")).to_have_count(0)
    battle_tab(blue).click()
    expect(blue.get_by_test_id("end-turn")).to_be_visible()


def test_no_english_in_russian_decisions_retreat_secret_module_and_desk(web_server: ServerProcess,
                                                                        new_page: Any) -> None:
    """The Russian scan beyond the first screens: the defender's decision with the reinforcements it may send, the
    umpire's forms in a battle, the beaten army's retreat and the secret module's page."""
    made = web_server.http("POST", "/api/campaigns", {
        "name": "Русская", "scenario": "napoleonic", "level": 2, "clock": {"mode": "per_turn", "turn_ms": 300_000},
        "teams": [{"colour": "red", "seats": 2}, {"colour": "blue", "seats": 2}]})
    seats = {s["player"]: s["link"] for s in made["seats"]}
    red, blue, moderator = new_page(), new_page("ru"), new_page("ru")
    open_link(red, seats["red-2"], "red")
    open_link(blue, seats["blue-1"], "Синие")
    open_link(moderator, made["moderator_link"], "Посредник")
    march(red, "III Prussian Corps", ("ArrowDown", "ArrowDown", "ArrowLeft"))
    expect(blue.get_by_test_id("state-accept")).to_be_visible()
    expect(blue.get_by_test_id("battles").get_by_test_id("reinforce").first).to_be_visible()
    assert _latin_words(blue) == [], _latin_words(blue)
    blue.get_by_test_id("state-accept").click()
    expect(battle_tab(moderator)).to_have_count(1, timeout=15_000)
    battle_tab(moderator).click()
    desk = moderator.get_by_test_id("moderator-desk")
    for ruling in ("assign_fire", "adjust", "end_battle"):
        desk.get_by_test_id("mod-ruling-type").select_option(ruling)
        assert _latin_words(moderator) == [], (ruling, _latin_words(moderator))
    desk.get_by_test_id("mod-ruling-fields").locator("[data-field=winner]").select_option("red")
    desk.get_by_test_id("mod-rule-form").click()
    expect(blue.get_by_test_id("state-retreat-show")).to_be_visible(timeout=15_000)
    blue.get_by_test_id("state-retreat-show").click()
    expect(blue.get_by_test_id("retreat")).to_be_visible()
    assert _latin_words(blue) == [], _latin_words(blue)
    moderator.get_by_test_id("room-tabs").locator("[data-room^='c-']").click()
    desk = moderator.get_by_test_id("moderator-desk")
    desk.get_by_test_id("mod-player").select_option("blue-1")
    desk.get_by_test_id("mod-reason").fill("генерал пал")
    desk.get_by_test_id("mod-lock").click()
    blue.get_by_test_id("open-secret").click()
    expect(blue.get_by_test_id("secret-room")).to_be_visible()
    assert _latin_words(blue) == [], _latin_words(blue)
    moderator.get_by_test_id("room-tabs").locator("[data-room^='s-']").click()
    expect(moderator.get_by_test_id("secret-held")).to_be_visible()
    assert _latin_words(moderator) == [], _latin_words(moderator)


def test_a_level_3_order_is_listed_until_the_turn_is_carried_out_and_can_be_withdrawn_or_replaced_C_1_7(
        web_server: ServerProcess, new_page: Any) -> None:
    made = web_server.http("POST", "/api/campaigns", {"name": "Level three", "scenario": "continental", "level": 3,
                                                      "teams": TWO_TEAMS})
    red, blue = new_page(), new_page()
    open_link(red, made["seats"][0]["link"], "red")
    open_link(blue, made["seats"][1]["link"], "blue")
    for page in (red, blue):  # planning done (C-1.5): the operations begin, both teams at once at level 3
        page.get_by_test_id("end-turn").click()
    expect(red.get_by_test_id("turn-log")).to_contain_text("The operations phase begins (turn 1)")
    expect(red.get_by_test_id("end-turn")).to_be_visible()
    canvas = red.get_by_test_id("campaign-map")

    def plan_west() -> None:
        canvas.focus()
        for _ in range(20):  # a division that can step west (fortresses cannot move, C-T4)
            red.keyboard.press("Tab")
            red.keyboard.press("ArrowLeft")
            red.wait_for_timeout(100)
            if red.get_by_test_id("path-cost").count():
                return
        raise AssertionError("no division of red's can step west")

    plan_west()
    red.keyboard.press("Enter")
    waiting = red.get_by_test_id("pending-orders")
    expect(waiting).to_contain_text(re.compile(r"1\. march .+ → "))
    waiting.get_by_test_id("withdraw-1").click()
    expect(waiting).to_have_count(0)
    expect(red.get_by_test_id("turn-log")).to_contain_text("Order 1 withdrawn")
    red.keyboard.press("Escape")
    plan_west()
    red.keyboard.press("Enter")
    expect(waiting).to_contain_text("2. march")
    before = waiting.inner_text()
    red.keyboard.press("ArrowLeft")
    red.keyboard.press("ArrowLeft")
    red.get_by_test_id("order-amend").click()
    expect(red.get_by_test_id("turn-log")).to_contain_text("Order 2 amended")
    expect(waiting).to_contain_text("2. march")
    assert waiting.inner_text() != before
