"""The HTTP API: create a campaign (validated, C-1.2, C-0.3), the lobby, /healthz, /metrics; lag credit."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.conftest import HttpStatus, ServerProcess
from tests.net.client import Client, signed_in
from tests.net.test_play import campaign


def test_create_campaign_returns_one_token_per_seat_and_links_with_the_token_in_the_fragment(
        server: ServerProcess) -> None:
    made = campaign(server, teams=[{"colour": "blue", "seats": 1}, {"colour": "red", "seats": 3},
                                   {"colour": "green", "seats": 2}], house_rules=["no winter"], level=3)
    assert [(s["team"], s["seat"]) for s in made["seats"]] == [
        ("red", 1), ("red", 2), ("red", 3), ("blue", 1), ("green", 1), ("green", 2)]  # C-1.7: red first
    tokens = [s["token"] for s in made["seats"]] + [made["moderator_token"], made["spectator_token"]]
    assert len(set(tokens)) == len(tokens)
    for seat in made["seats"]:
        assert seat["link"].endswith("/#token=" + seat["token"])
        assert "?" not in seat["link"]
    assert made["room"] == "c-" + made["campaign"]


@pytest.mark.parametrize("body", [
    {"teams": [{"colour": "red", "seats": 1}]},  # one team
    {"teams": [{"colour": "red", "seats": 1}, {"colour": "red", "seats": 1}]},  # same colour twice
    {"teams": [{"colour": "red", "seats": 3}, {"colour": "blue", "seats": 3}, {"colour": "green", "seats": 3},
               {"colour": "black", "seats": 3}]},  # 12 players > 10 (C-1.2)
    {"teams": [{"colour": "red", "seats": 4}, {"colour": "blue", "seats": 1}]},  # a team of 4
    {"teams": [{"colour": "red"}, {"colour": "blue"}], "level": 4},
    {"teams": [{"colour": "red"}, {"colour": "blue"}], "scenario": "no-such-engine"},
    {"teams": [{"colour": "red"}, {"colour": "blue"}], "clock": {"mode": "hourglass"}},
    {"teams": [{"colour": "red"}, {"colour": "blue"}], "admin": True},
])
def test_bad_campaign_requests_are_refused_with_400(server: ServerProcess, body: dict[str, Any]) -> None:
    with pytest.raises(HttpStatus) as info:
        server.http("POST", "/api/campaigns", body)
    assert info.value.code == 400


def test_lobby_lists_public_campaigns_with_counts(server: ServerProcess) -> None:
    public = campaign(server, name="Open war")
    hidden = campaign(server, name="Private war", public=False)
    lobby = server.http("GET", "/api/lobby")
    rooms = {c["room"]: c for c in lobby["campaigns"]}
    assert public["room"] in rooms and hidden["room"] not in rooms
    assert rooms[public["room"]]["name"] == "Open war" and rooms[public["room"]]["players_online"] == 0
    # (the server is shared by the module's tests: another test's battle may be running)
    assert not [b for b in lobby["battles"] if b["id"].split("-")[0] in (public["campaign"], hidden["campaign"])]


async def test_lobby_counts_connected_players_and_spectators(server: ServerProcess) -> None:
    made = campaign(server)
    red = await signed_in(server.ws_url, made["seats"][0]["token"], made["room"])
    spectators = [await signed_in(server.ws_url, made["spectator_token"], made["room"]) for _ in range(2)]
    entry = next(c for c in server.http("GET", "/api/lobby")["campaigns"] if c["room"] == made["room"])
    assert (entry["players_online"], entry["spectators_online"]) == (1, 2)
    for c in (red, *spectators):
        await c.close()


async def test_lobby_shows_how_many_of_each_teams_seats_are_taken(server: ServerProcess) -> None:
    """Seat occupancy (issue 16 §6): a seat counts once however many rooms or tabs its player has open; the
    moderator and spectators take no seat."""
    made = campaign(server)  # two seats a team
    token = {s["player"]: s["token"] for s in made["seats"]}
    red = await signed_in(server.ws_url, token["red-2"], made["room"])
    blue = await signed_in(server.ws_url, token["blue-1"], made["room"])
    others = [await signed_in(server.ws_url, made[k], made["room"]) for k in ("spectator_token", "moderator_token")]

    def seats() -> dict[str, tuple[int, int]]:
        entry = next(c for c in server.http("GET", "/api/lobby")["campaigns"] if c["room"] == made["room"])
        return {t["colour"]: (t["online"], t["seats"]) for t in entry["teams"]}

    assert seats() == {"red": (1, 2), "blue": (1, 2)}
    second = await signed_in(server.ws_url, token["blue-2"], made["room"])
    assert seats() == {"red": (1, 2), "blue": (2, 2)}
    await red.close()
    for _ in range(50):  # the server notices the closed socket
        if seats()["red"] == (0, 2):
            break
        await asyncio.sleep(0.05)
    assert seats() == {"red": (0, 2), "blue": (2, 2)}
    for c in (blue, second, *others):
        await c.close()


async def test_lobby_counts_are_current_after_the_node_has_reported_its_presence(server: ServerProcess) -> None:
    """The node's own sessions are counted live; its 2-second presence report (for the other nodes) does not
    make a spectator who just joined count 0 or one who left still count."""
    made = campaign(server)

    def counts() -> tuple[int, int]:
        entry = next(c for c in server.http("GET", "/api/lobby")["campaigns"] if c["room"] == made["room"])
        return entry["players_online"], entry["spectators_online"]

    red = await signed_in(server.ws_url, made["seats"][0]["token"], made["room"])
    await asyncio.sleep(2.5)  # the node has now reported (1 player, 0 spectators) to the store
    spectator = await signed_in(server.ws_url, made["spectator_token"], made["room"])
    assert counts() == (1, 1)
    blue = await signed_in(server.ws_url, made["seats"][2]["token"], made["room"])
    assert counts() == (2, 1)
    await spectator.close()
    for _ in range(50):  # the server notices the closed socket
        if counts() == (2, 0):
            break
        await asyncio.sleep(0.05)
    assert counts() == (2, 0)
    await red.close()
    await blue.close()


def test_healthz_and_metrics(server: ServerProcess) -> None:
    assert server.http("GET", "/healthz")["ok"] is True
    text = server.http("GET", "/metrics")
    for name in ("ks_connections ", "ks_rooms_owned ", "ks_rooms_unloaded_total ", "ks_messages_in_total",
                 "ks_messages_out_total", 'ks_command_latency_ms_bucket{le="+Inf"}', "ks_command_latency_ms_count"):
        assert name in text
    assert "# TYPE ks_command_latency_ms histogram" in text


def test_create_token_guards_campaign_creation(server_factory: Any) -> None:
    node = server_factory(env={"KS_CREATE_TOKEN": "let-me-in-please"}).start()
    with pytest.raises(HttpStatus) as info:
        campaign(node)
    assert info.value.code == 403
    made = node.http("POST", "/api/campaigns", {"teams": [{"colour": "red"}, {"colour": "blue"}]},
                     headers={"Authorization": "Bearer let-me-in-please"})
    assert made["campaign"]


async def test_lag_credit_is_measured_by_the_server_and_capped(server: ServerProcess) -> None:
    """Issue 2 §7: the server measures each connection's round trip and credits at most the cap (1 s here)."""
    made = campaign(server, clock={"mode": "per_turn", "turn_ms": 60_000, "lag_cap_ms": 1_000})
    room = made["room"]
    slow = await Client(server.ws_url, pong_delay=1.5).connect()
    await slow.hello(made["seats"][0]["token"])
    await slow.join(room)
    await asyncio.sleep(2.0)
    await slow.request({"t": "end_turn", "room": room})
    stopped = await slow.event("clock_stopped", team="red")
    assert stopped["data"]["lag_credit_ms"] == 1_000
    fast = await signed_in(server.ws_url, made["seats"][2]["token"], room)
    await asyncio.sleep(0.5)
    await fast.request({"t": "end_turn", "room": room})
    stopped = await fast.event("clock_stopped", team="blue")
    assert 0 <= stopped["data"]["lag_credit_ms"] < 500
    await slow.close()
    await fast.close()


async def test_campaign_creation_chooses_the_engine_by_scenario(server: ServerProcess) -> None:
    names = server.http("GET", "/api/engines")["engines"]
    assert {"drill", "campaign", "continental"} <= set(names)
    made = campaign(server, scenario="continental", level=1, clock=None)
    red = await signed_in(server.ws_url, made["seats"][0]["token"], made["room"])
    snap = await red.wait(lambda m: m["t"] == "snapshot")
    assert snap["state"]["scenario"] == "continental" and snap["clocks"] == {}
    await red.close()


async def test_open_spectating_puts_the_spectators_link_in_the_lobby(server: ServerProcess) -> None:
    open_ = campaign(server, open_spectating=True)
    closed = campaign(server)
    rooms = {c["room"]: c for c in server.http("GET", "/api/lobby")["campaigns"]}
    assert rooms[open_["room"]]["spectator_link"] == open_["spectator_link"]
    assert rooms[closed["room"]]["spectator_link"] is None
    token = open_["spectator_link"].split("#token=")[1]
    watcher = await signed_in(server.ws_url, token, open_["room"])
    assert watcher.welcome["role"] == "spectator"
    await watcher.close()


@pytest.mark.parametrize("backend", ["embedded", pytest.param("redis", marks=pytest.mark.redis)])
async def test_the_moderator_reissues_a_lost_token_and_the_old_one_stops_working(
        request: pytest.FixtureRequest, backend: str) -> None:
    args: tuple[str, ...] = ()
    if backend == "redis":  # the prefix is cleaned up after the servers have stopped
        args = ("--redis-url", request.getfixturevalue("redis_url"), "--redis-prefix",
                request.getfixturevalue("redis_prefix"))
    node = request.getfixturevalue("server_factory")(*args).start()
    made = campaign(node)
    old = made["seats"][0]["token"]
    red = await signed_in(node.ws_url, old, made["room"])
    mod = {"Authorization": "Bearer " + made["moderator_token"]}
    path = f"/api/campaigns/{made['campaign']}/tokens"
    with pytest.raises(HttpStatus) as info:
        node.http("POST", path, {"player": "red-1"}, headers={"Authorization": "Bearer " + old})
    assert info.value.code == 403
    with pytest.raises(HttpStatus) as info:
        node.http("POST", path, {"player": "green-1"}, headers=mod)
    assert info.value.code == 400
    fresh = node.http("POST", path, {"player": "red-1"}, headers=mod)
    assert fresh["player"] == "red-1" and fresh["link"].endswith("#token=" + fresh["token"])
    assert await red.wait_closed() == 4010
    await red.close()
    node.stop()
    node.start()
    gone = await Client(node.ws_url).connect()
    assert (await gone.hello(old))["code"] == "bad_token"
    await gone.close()
    back = await signed_in(node.ws_url, fresh["token"], made["room"])
    assert back.welcome["player"] == "red-1" and back.welcome["team"] == "red"
    other = await signed_in(node.ws_url, made["seats"][1]["token"])  # the teammate's token is untouched
    await back.close()
    await other.close()



async def test_replay_of_a_finished_room_over_http(server: ServerProcess) -> None:
    """GET /api/rooms/{room}/replay: 409 while the game runs; once it is over, the views after each completed
    turn and the final one, for the viewer class asked for (C-1.7, C-1.8: red, then blue)."""
    made = campaign(server, config={"max_turns": 2})
    room = made["room"]
    token = {(s["team"], s["seat"]): s["token"] for s in made["seats"]}
    red = await signed_in(server.ws_url, token[("red", 1)], room)
    blue = await signed_in(server.ws_url, token[("blue", 1)], room)
    with pytest.raises(HttpStatus) as running:
        server.http("GET", f"/api/rooms/{room}/replay?as=full")
    assert running.value.code == 409
    for y in (1, 2):
        assert (await red.request({"t": "order", "room": room,
                                   "order": {"type": "move", "counter": "r1", "to": [1, y]}}))["t"] == "ack"
        assert (await red.request({"t": "end_turn", "room": room}))["t"] == "ack"
        assert (await blue.request({"t": "end_turn", "room": room}))["t"] == "ack"
    full = server.http("GET", f"/api/rooms/{room}/replay?as=full")
    assert [t["turn"] for t in full["turns"]] == [1, 2] and full["final"]["state"]["turn"] == 3
    assert [c["y"] for t in full["turns"] for c in t["state"]["counters"] if c["id"] == "r1"] == [1, 2]
    blue_view = server.http("GET", f"/api/rooms/{room}/replay?as=team:blue")
    assert blue_view["viewer"] == "team:blue"
    assert all(c["team"] == "blue" for t in blue_view["turns"] for c in t["state"]["counters"])
    # issue 17, event by event: red's hidden moves are in red's steps and not in blue's
    steps = server.http("GET", f"/api/rooms/{room}/replay?as=team:red&by=event")["steps"]
    assert [e["kind"] for s in steps for e in s["events"]].count("counter_moved") == 2
    assert steps[0]["state"]["turn"] == 1 and all("patch" in s for s in steps[1:])
    blue_steps = server.http("GET", f"/api/rooms/{room}/replay?as=team:blue&by=event")["steps"]
    assert "counter_moved" not in [e["kind"] for s in blue_steps for e in s["events"]]
    for path, code in ((f"/api/rooms/{room}/replay?as=full&by=frame", 400),
                       (f"/api/rooms/{room}/replay?as=team:green", 400), ("/api/rooms/c-nothing/replay", 404),
                       ("/api/rooms/..%2Fetc/replay", 404)):
        with pytest.raises(HttpStatus) as refused:
            server.http("GET", path)
        assert refused.value.code == code, path
    await red.close()
    await blue.close()


async def test_a_replay_takes_the_viewers_token_from_its_header_and_gives_what_it_may_see(
        server: ServerProcess) -> None:
    """Issue 12 item 2 over HTTP: a campaign that keeps its replays private, played to its end — without a token
    (or with one in the URL) 401; red's token in `Authorization: Bearer` gives red's view and refuses the full one
    and blue's (403); the spectators' link the public view; the moderator any; a made-up token 401."""
    made = campaign(server, config={"max_turns": 1}, public_replays=False)
    room = made["room"]
    token = {(s["team"], s["seat"]): s["token"] for s in made["seats"]}
    red = await signed_in(server.ws_url, token[("red", 1)], room)
    blue = await signed_in(server.ws_url, token[("blue", 1)], room)
    assert (await red.request({"t": "order", "room": room,
                               "order": {"type": "move", "counter": "r1", "to": [1, 1]}}))["t"] == "ack"
    assert (await red.request({"t": "end_turn", "room": room}))["t"] == "ack"
    assert (await blue.request({"t": "end_turn", "room": room}))["t"] == "ack"
    await red.close()
    await blue.close()

    def bearer(who: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {who}"}

    def status(path: str, headers: dict[str, str] | None = None) -> int:
        try:
            server.http("GET", path, headers=headers)
        except HttpStatus as exc:
            return exc.code
        return 200

    path = f"/api/rooms/{room}/replay"
    assert status(path) == 401 and status(f"{path}?as=full") == 401
    assert status(f"{path}?as=full&token={made['moderator_token']}") == 401  # a token goes in the header only
    assert status(path, bearer("made-up")) == 401
    mine = server.http("GET", path, headers=bearer(token[("red", 1)]))
    assert mine["viewer"] == "team:red"
    assert all(c["team"] == "red" for t in mine["turns"] for c in t["state"]["counters"])
    for wanted in ("full", "team:blue", "spectator"):
        assert status(f"{path}?as={wanted}", bearer(token[("red", 1)])) == 403, wanted
    assert server.http("GET", path, headers=bearer(made["spectator_token"]))["viewer"] == "public"
    assert status(f"{path}?as=spectator", bearer(made["spectator_token"])) == 403
    assert server.http("GET", f"{path}?as=team:blue", headers=bearer(made["moderator_token"]))["viewer"] == \
        "team:blue"
    assert server.http("GET", path, headers=bearer(made["moderator_token"]))["viewer"] == "moderator"
    other = campaign(server)
    assert status(path, bearer(other["moderator_token"])) == 403  # another campaign's moderator
