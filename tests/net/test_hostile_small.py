"""Issue 12 §14, the small ones, against a real server process: depth bound at decode, strict types, integers
msgpack cannot hold, overlong room ids. Each gets a typed error; the connection, the room and the lobby carry on."""

from __future__ import annotations

import json
from typing import Any

import msgpack
import pytest

from tests.conftest import HttpStatus, ServerProcess
from tests.net.client import signed_in
from tests.net.test_play import campaign


def _deep(levels: int) -> dict[str, Any]:
    junk: dict[str, Any] = {}
    inner = junk
    for _ in range(levels):
        inner["j"] = {}
        inner = inner["j"]
    return junk


async def test_a_junk_field_nested_1022_deep_is_a_bad_frame_and_the_room_carries_on(server: ServerProcess) -> None:
    made = campaign(server)
    red = await signed_in(server.ws_url, made["seats"][0]["token"], made["room"])
    assert red.ws is not None
    order = {"type": "move", "counter": "r1", "to": [1, 1], "junk": _deep(1_020)}
    await red.ws.send_bytes(msgpack.packb({"t": "order", "cid": 90, "room": made["room"], "order": order}))
    err = await red.wait(lambda m: m["t"] == "error")
    assert err["code"] == "bad_frame" and "nested" in err["message"]
    seen = len([m for m in red.inbox if m["t"] == "ev"])
    reply = await red.request({"t": "order", "room": made["room"],
                               "order": {"type": "move", "counter": "r1", "to": [1, 1]}})
    assert reply["t"] == "ack", reply
    # the same room, not reopened: its events go on from where they were, no new `room_opened`
    await red.wait(lambda m: m["t"] == "ev" and m["kind"] == "counter_moved")
    assert not any(m["t"] == "ev" and m["kind"] == "room_opened" for m in red.inbox[seen:])
    await red.close()


@pytest.mark.parametrize(("field", "value"), [("cid", "77"), ("cid", True), ("cid", 5.0), ("since", "3"),
                                              ("delta_ms", "1000"), ("delta_ms", 1000.0)])
async def test_strict_types_are_refused_not_coerced(server: ServerProcess, field: str, value: Any) -> None:
    made = campaign(server)
    mod = await signed_in(server.ws_url, made["moderator_token"], made["room"])
    assert mod.ws is not None
    if field == "since":
        message: dict[str, Any] = {"t": "join", "cid": 5, "room": made["room"], "since": value}
    elif field == "delta_ms":
        message = {"t": "mod_clock", "cid": 5, "room": made["room"], "action": "adjust", "team": "red",
                   "delta_ms": value}
    else:
        message = {"t": "chat", "room": made["room"], "channel": "players", "text": "hello", "cid": value}
    await mod.ws.send_str(json.dumps(message))
    err = await mod.wait(lambda m: m["t"] == "error")
    assert err["code"] == "bad_message" and field in err["message"]
    assert not any(m["t"] == "ack" for m in mod.inbox)
    await mod.close()


def test_a_config_integer_of_2_64_is_a_typed_400_and_no_campaign_is_listed(server: ServerProcess) -> None:
    name = "huge integer"
    for config in ({"x": 2**64}, {"x": -(2**63) - 1}, {"deep": _deep(40)}):
        with pytest.raises(HttpStatus) as err:
            campaign(server, name=name, config=config)
        assert err.value.code == 400 and json.loads(err.value.body)["error"] == "bad_request"
    assert name not in [c["name"] for c in server.http("GET", "/api/lobby")["campaigns"]]
    assert server.http("GET", "/healthz")["ok"] is True


@pytest.mark.parametrize("path", ["/api/rooms/b-" + "a" * 300 + "-1/replay", "/api/rooms/c-" + "a" * 300 + "/replay",
                                  "/api/rooms/c-a%2F..%2Fb/replay"])
def test_an_overlong_or_strange_room_id_is_a_typed_404(server: ServerProcess, path: str) -> None:
    with pytest.raises(HttpStatus) as err:
        server.http("GET", path)
    assert err.value.code == 404 and json.loads(err.value.body)["error"] == "no_such_room"


def test_an_overlong_campaign_id_for_tokens_is_a_typed_4xx(server: ServerProcess) -> None:
    with pytest.raises(HttpStatus) as err:
        server.http("POST", "/api/campaigns/" + "a" * 300 + "/tokens", {"player": "red-1"},
                    headers={"Authorization": "Bearer " + "x" * 32})
    assert 400 <= err.value.code < 500 and "error" in json.loads(err.value.body)
