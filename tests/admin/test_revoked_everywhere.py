"""A revoked token's sessions are closed on every node, not only on the one that revoked it (4010)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.net.client import signed_in
from tests.net.test_play import campaign

pytestmark = pytest.mark.redis


async def test_a_token_reissued_on_one_node_closes_its_session_on_another(
        server_factory: Any, redis_url: str, redis_prefix: str) -> None:
    args = ("--redis-url", redis_url, "--redis-prefix", redis_prefix)
    first, second = server_factory(*args).start(), server_factory(*args).start()
    made = campaign(first)
    red = await signed_in(second.ws_url, made["seats"][0]["token"], made["room"])
    blue = await signed_in(second.ws_url, made["seats"][2]["token"], made["room"])
    fresh = first.http("POST", f"/api/campaigns/{made['campaign']}/tokens", {"player": "red-1"},
                       headers={"Authorization": "Bearer " + made["moderator_token"]})
    assert await red.wait_closed(within=10) == 4010
    assert blue.closed_code is None  # another seat's session is left alone
    back = await signed_in(second.ws_url, fresh["token"], made["room"])
    for c in (red, blue, back):
        await c.close()
