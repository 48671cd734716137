"""Issue 12 §11: every engine config a `POST /api/campaigns` can set is validated by a bounded model
(shared/protocol/configs.py). The drill with 10,000 counters that froze a server at its first join is a typed 400
and nothing is created; the largest config allowed joins, its work bounded by the model (no wall clock here)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from shared.protocol.configs import DRILL_MAX_COUNTERS, DRILL_MAX_SIDE, NAPOLEONIC_MAX_ARMIES
from tests.conftest import HttpStatus, ServerProcess
from tests.net.client import signed_in
from tests.net.test_play import campaign

ARMY = {"id": "a", "cell": [10, 17], "units": [{"id": "a-0", "type": "infantry"}]}


@pytest.mark.parametrize(("scenario", "config", "field"), [
    ("drill", {"counters": 10_000}, "counters"),
    ("drill", {"width": 1_000_000, "height": 1_000_000}, "width"),
    ("drill", {"counters": "3"}, "counters"),  # strict: not coerced
    ("drill", {"surprise": 1}, "surprise"),  # unknown fields refused
    ("continental", {"mediator": "x" * 1_000}, "mediator"),
    ("napoleonic", {"armies": {"red": [ARMY] * (NAPOLEONIC_MAX_ARMIES + 1)}}, "armies"),
    ("napoleonic", {"armies": {"red": [{**ARMY, "units": [{"id": "u", "type": "infantry"}] * 61}]}}, "units"),
    ("napoleonic", {"battle_clock": {"turn_ms": 10**12}}, "battle_clock"),
])
def test_an_unbounded_config_is_a_typed_400_and_creates_nothing(server: ServerProcess, scenario: str,
                                                                 config: dict[str, Any], field: str) -> None:
    name = f"bounds {scenario} {field}"
    with pytest.raises(HttpStatus) as err:
        campaign(server, name=name, scenario=scenario, config=config)
    assert err.value.code == 400
    body = json.loads(err.value.body)
    assert body["error"] == "bad_request" and any(field in map(str, d["loc"]) for d in body["details"]), body
    assert name not in [c["name"] for c in server.http("GET", "/api/lobby")["campaigns"]]


async def test_the_largest_drill_allowed_joins_with_its_work_bounded(server: ServerProcess) -> None:
    made = campaign(server, config={"width": DRILL_MAX_SIDE, "height": DRILL_MAX_SIDE,
                                    "counters": DRILL_MAX_COUNTERS})
    mod = await signed_in(server.ws_url, made["moderator_token"], made["room"])
    red = await signed_in(server.ws_url, made["seats"][0]["token"], made["room"])
    full = await mod.wait(lambda m: m["t"] == "snapshot" and m["room"] == made["room"])
    mine = await red.wait(lambda m: m["t"] == "snapshot" and m["room"] == made["room"])
    # the work of a join is the view: a team's sight compares its counters with the enemy's, at most 16 x 16
    assert len(full["state"]["counters"]) == 2 * DRILL_MAX_COUNTERS
    assert len([c for c in mine["state"]["counters"] if c["team"] == "red"]) == DRILL_MAX_COUNTERS
    assert DRILL_MAX_COUNTERS**2 <= 256
    await mod.close()
    await red.close()
