"""Issue 17 in real Chromium: a field that zoom and pan change, a refusal said at the unit, a finished battle
replayed event by event (each side seeing only its own), opened from the battle's end and from the lobby, and an
after-action report whose figures are the room log's."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import pytest

from tests.browser.conftest import shot, sync_api
from tests.browser.scripted import fight_in_thread, release_from_the_secret_module, room_log, visible_events
from tests.browser.test_client import battle_tab, end_battle, march_to_battle, say, watch_battle
from tests.conftest import ServerProcess

expect = sync_api.expect
pytestmark = [pytest.mark.browser, pytest.mark.slow]

PIXELS = """(id) => {
    const c = document.querySelector(`[data-testid=${id}]`);
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let h = 0;
    for (let i = 0; i < d.length; i += 4 * 61) h = (h * 31 + d[i] + 7 * d[i + 1] + 13 * d[i + 2]) >>> 0;
    return h;
}"""


def viewport(canvas: Any) -> tuple[float, str, int]:
    return (float(canvas.get_attribute("data-scale")), str(canvas.get_attribute("data-offset")),
            int(canvas.get_attribute("data-visible-units")))


def test_zooming_and_panning_the_field_changes_what_is_drawn(web_server: ServerProcess, new_page: Any) -> None:
    """The engaged battle of the preview: zooming in shows fewer units bigger, with their labels, and the minimap;
    a drag pans to others; the legend opens; the whole field comes back with 0."""
    page = new_page()
    page.goto(f"{web_server.url}/#preview=battle&still")
    canvas = page.get_by_test_id("battle-field")
    expect(canvas).to_be_visible()
    page.wait_for_timeout(400)
    scale0, _, seen0 = viewport(canvas)
    pixels0 = page.evaluate(PIXELS, "battle-field")
    assert seen0 >= 40  # the whole field: every unit of the 25-against-25 battle on the field
    expect(page.get_by_test_id("minimap")).to_be_hidden()
    canvas.focus()
    for _ in range(4):
        page.keyboard.press("+")
    page.wait_for_timeout(100)  # painted in the next frame
    scale1, offset1, seen1 = viewport(canvas)
    assert scale1 > scale0 * 2 and seen1 < seen0
    assert page.evaluate(PIXELS, "battle-field") != pixels0
    expect(page.get_by_test_id("minimap")).to_be_visible()
    labels_close = int(canvas.get_attribute("data-labels"))
    box = canvas.bounding_box()
    assert box
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2 + 250, box["y"] + box["height"] / 2 + 120, steps=8)
    page.mouse.up()
    _, offset2, _ = viewport(canvas)
    assert offset2 != offset1
    assert labels_close > 0
    page.get_by_test_id("battle-legend").locator("summary").click()
    expect(page.get_by_test_id("battle-legend")).to_contain_text("dense forest")
    expect(page.get_by_test_id("battle-legend")).to_contain_text("Canister")
    shot(page, "field-zoomed")
    canvas.focus()
    page.keyboard.press("0")
    page.wait_for_timeout(100)
    assert viewport(canvas)[0] == scale0
    expect(page.get_by_test_id("minimap")).to_be_hidden()


def test_a_refused_order_is_said_at_the_unit_in_words_with_its_rule(web_server: ServerProcess, new_page: Any) -> None:
    """A move the engine refuses (far beyond the unit's points) is said beside the unit, in words, with the rule
    linked to the rulebook — not only on the error line."""
    _, red, _ = march_to_battle(web_server, new_page)
    tab = battle_tab(red)
    expect(tab).to_have_count(1, timeout=15_000)
    tab.click()
    field = red.get_by_test_id("battle-field")
    expect(field).to_be_visible()
    field.focus()
    red.keyboard.press("Tab")
    for _ in range(14):
        red.keyboard.press("ArrowLeft")
    red.keyboard.press("Enter")
    at_unit = red.get_by_test_id("refusal-at-unit")
    expect(at_unit).to_be_visible()
    expect(at_unit.locator("a.rule")).to_have_attribute("href", re.compile(r"^/rules/en/\w+\.html#"))
    assert len(at_unit.inner_text()) > 15
    shot(red, "field-refusal")


def _tokens(made: dict[str, Any]) -> dict[str, str]:
    return {s["player"]: s["token"] for s in made["seats"]}


def test_a_finished_battle_replays_event_by_event_each_side_seeing_only_its_own_and_reports_the_log(
        web_server: ServerProcess, new_page: Any) -> None:
    """Issue 17 items 4 and 5. A battle is fought for six turns (tests/browser/scripted.py), the sides talk in their
    own channels, the umpire ends it. The spectator opens the replay from the battle's end and steps through it
    event by event — exactly the events the log has for spectators, in order — then plays it; blue's player replays
    it as blue and gets every event blue may see and none of red's; the after-action report's losses, falls and
    dice are the log's, and its JSON download says the same; a newcomer from the lobby gets nothing without a
    token while the campaign is played (issue 12), the umpire opens it all from there."""
    made, red, blue, spectator, moderator = watch_battle(web_server, new_page)
    room = str(battle_tab(spectator).get_attribute("data-room"))
    say(red, "team:red", "red plan: hold the village")
    say(blue, "team:blue", "blue plan: turn their flank")
    tokens = _tokens(made)
    fight_in_thread(web_server.ws_url, {"red": tokens["red-1"], "blue": tokens["blue-1"]}, room, turns=6)
    # the spectator's page plays each turn's resolution in turn before it shows the next; on a loaded machine six
    # of them take longer than the fight itself
    expect(spectator.get_by_test_id("battle-turn")).to_contain_text("Turn 7", timeout=60_000)
    shot(spectator, "battle-mid")
    end_battle(moderator, "red", "the umpire calls it")
    expect(spectator.get_by_test_id("battle-result")).to_contain_text("Red", timeout=10_000)

    log = room_log(web_server.data_dir, room)
    seen = {viewer: visible_events(log, viewer) for viewer in ("spectator", "team:red", "team:blue")}
    assert any(e.kind == "fire" for e in seen["spectator"]) and any(e.kind == "losses" for e in seen["spectator"])

    # the spectator, from the battle's end: event by event, in the log's order
    spectator.get_by_test_id("open-replay").click()
    bar = spectator.get_by_test_id("replay-bar")
    expect(bar).to_be_visible(timeout=10_000)
    expect(bar).to_have_attribute("data-events", str(len(seen["spectator"])))
    seqs = [e.seq for e in seen["spectator"]]
    stepped = [bar.get_attribute("data-seq")]
    for _ in range(8):
        bar.get_by_test_id("replay-next").click()
        stepped.append(bar.get_attribute("data-seq"))
    events_stepped = [int(x) for x in stepped if x]  # (a step where only the view changed has no event)
    assert len(events_stepped) >= 6 and events_stepped == seqs[: len(events_stepped)]
    expect(bar.get_by_test_id("replay-position")).to_contain_text(re.compile(r"^.*\b9 / \d+ events"))
    # by turn, then played at speed: it moves on by itself and pauses
    bar.get_by_test_id("replay-next-turn").click()
    at_turn = int(bar.get_attribute("data-at") or 0)
    assert at_turn > 8
    bar.get_by_test_id("replay-speed").select_option("8")
    bar.get_by_test_id("replay-play").click()
    spectator.wait_for_timeout(1500)
    bar.get_by_test_id("replay-play").click()
    assert int(bar.get_attribute("data-at") or 0) > at_turn + 3
    chats = [e for e in seen["spectator"] if e.kind == "chat"]
    assert chats == []  # neither side's channel reaches the spectators
    shot(spectator, "replay")

    # blue's player, as blue: its own channel, never red's. A beaten general may fall (a roll), and a player in the
    # secret module replays nothing but the public view (issue 12 item 2): the umpire brings blue's players back
    if release_from_the_secret_module(web_server.ws_url, made["moderator_token"], ["blue-1", "blue-2"]):
        expect(blue.get_by_test_id("back-banner")).to_be_visible(timeout=10_000)
        battle_tab(blue).click()
    blue.get_by_test_id("open-replay").click()
    blue_bar = blue.get_by_test_id("replay-bar")
    expect(blue_bar).to_have_attribute("data-events", str(len(seen["team:blue"])), timeout=10_000)
    blue_chat = [e.data["text"] for e in seen["team:blue"] if e.kind == "chat"]
    assert "blue plan: turn their flank" in blue_chat and "red plan: hold the village" not in blue_chat
    assert len(seen["team:blue"]) < len([e for r in log for e in r.events])  # something was hidden from blue
    blue_bar.focus()
    for _ in range(120):  # the teams spoke before the fighting: step on to blue's own line
        if blue_bar.get_attribute("data-kind") == "chat":
            break
        blue.keyboard.press("ArrowRight")
    expect(blue_bar.get_by_test_id("replay-event")).to_contain_text("blue plan: turn their flank")

    # the after-action report: the log's figures
    spectator.get_by_test_id("replay-live").click()
    spectator.get_by_test_id("open-report").click()
    report = spectator.get_by_test_id("report")
    expect(report).to_be_visible(timeout=10_000)
    losses = Counter[str]()
    for e in seen["spectator"]:
        if e.kind == "losses":
            losses[e.data["unit"]] += e.data["amount"]
    side_of = {u["id"]: u["side"] for e in seen["spectator"] if e.kind in ("battle_started", "arrived")
               for u in e.data.get("units", [])}
    over = next(e.data for e in seen["spectator"] if e.kind == "battle_over")
    side_of.update({u["id"]: u["side"] for u in over["units"]})
    rows = report.get_by_test_id("report-units").locator("tr[data-unit]")
    shown = {rows.nth(i).get_attribute("data-unit"): int(rows.nth(i).get_attribute("data-losses") or -1)
             for i in range(rows.count())}
    assert {u: n for u, n in shown.items() if n} == dict(losses)
    final = {u["id"]: u["status"] for u in over["units"]}
    fell = {e.data["unit"]: e.data["status"] for e in seen["spectator"] if e.kind == "fallen"}
    for side in ("red", "blue"):
        row = report.get_by_test_id("report-sides").locator(f"tr[data-side={side}]")
        mine = [u for u, s in side_of.items() if s == side]
        assert int(row.get_attribute("data-losses") or -1) == sum(losses[u] for u in mine)
        assert int(row.get_attribute("data-destroyed") or -1) == sum(final.get(u) == "destroyed" for u in mine)
        assert int(row.get_attribute("data-taken") or -1) == sum(final.get(u) == "prisoner" for u in mine)
        assert int(row.get_attribute("data-dispersed") or -1) == sum(fell.get(u) == "dispersed" for u in mine)
    rolls = Counter(e.data.get("side") or side_of.get(e.data.get("unit"), "") for e in seen["spectator"]
                    if e.kind == "roll" and e.data.get("need") is not None)
    for side in ("red", "blue"):
        dice = report.get_by_test_id("report-dice").locator(f"li[data-side={side}]")
        expect(dice).to_contain_text(f"{rolls[side]} roll" if rolls[side] else "no rolls")
    death = [e.data for e in seen["spectator"] if e.kind == "roll" and e.data.get("purpose") == "general_death"]
    if death:
        fate = "fell" if death[0]["success"] else "came through"
        expect(report.get_by_test_id("report-general")).to_contain_text(fate)
    fetch = "async (id) => (await fetch(document.querySelector(`[data-testid=${id}]`).href)).text()"
    downloaded = json.loads(spectator.evaluate(fetch, "report-json"))
    assert {u["id"]: u["losses"] for u in downloaded["units"] if u["losses"]} == dict(losses)
    csv = spectator.evaluate(fetch, "report-csv")
    assert len(csv.strip().splitlines()) == 2 + len(downloaded["units"]) + len(downloaded["sides"])
    shot(spectator, "report")
    spectator.get_by_test_id("report-close").click()

    # a newcomer, from the lobby: the finished battle, its replay and its report
    newcomer = new_page("ru")
    newcomer.goto(web_server.url + "/")
    entry = newcomer.get_by_test_id("lobby-finished").locator(f"li[data-room='{room}']")
    expect(entry).to_contain_text("Красные")
    entry.get_by_test_id("report").click()
    # issue 12 item 2: without a token nothing, while the campaign is being played ...
    expect(newcomer.get_by_test_id("replay-note")).to_contain_text("401", timeout=10_000)
    # ... the umpire, from the lobby in a tab that holds its token, gets it all (the token goes in a header)
    newcomer.evaluate("token => sessionStorage.setItem('token', token)", made["moderator_token"])
    newcomer.goto(web_server.url + "/")
    entry = newcomer.get_by_test_id("lobby-finished").locator(f"li[data-room='{room}']")
    entry.get_by_test_id("report").click()
    expect(newcomer.get_by_test_id("report")).to_be_visible(timeout=10_000)
    expect(newcomer.get_by_test_id("report")).to_contain_text("Отчёт о сражении")
    shot(newcomer, "report-ru")
    # on a phone the report keeps its width: its wide tables scroll each on its own, the text does not go sideways
    newcomer.set_viewport_size({"width": 390, "height": 844})
    expect(newcomer.get_by_test_id("report-units")).to_be_visible()
    widths = newcomer.evaluate("() => { const d = document.querySelector('.report-dialog');"
                               " return [d.scrollWidth, d.clientWidth]; }")
    assert widths[0] <= widths[1], widths
    shot(newcomer, "report-ru-phone")
    newcomer.set_viewport_size({"width": 1400, "height": 860})
    newcomer.get_by_test_id("report-close").click()
    everything = str(len(visible_events(log, "moderator")))
    expect(newcomer.get_by_test_id("replay-bar")).to_have_attribute("data-events", everything)
    newcomer.get_by_test_id("replay-next-turn").click()
    shot(newcomer, "replay-ru")
