"""Abuse limits of the HTTP API (issue 19, item 6): a capped body size, the create token, campaign creation
rate-limited per client address (the proxy's X-Forwarded-For only when the proxy is trusted); every refusal is
JSON with its status and a message saying what to do."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest
from aiohttp.test_utils import make_mocked_request

from server.net.limits import CreateLimits, FloodLimits
from server.net.ratelimit import Buckets
from server.settings import Settings
from tests.conftest import HttpStatus, ServerProcess

TEAMS = {"teams": [{"colour": "red"}, {"colour": "blue"}]}


def refused(node: ServerProcess, body: Any = TEAMS, headers: dict[str, str] | None = None,
            raw: bytes | None = None) -> tuple[int, dict[str, Any], dict[str, str]]:
    data = raw if raw is not None else json.dumps(body).encode()
    req = urllib.request.Request(node.url + "/api/campaigns", data=data, method="POST",
                                 headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read()), dict(r.headers)
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, json.loads(exc.read()), dict(exc.headers)


def test_a_body_over_the_cap_is_refused_with_413_and_a_message(server: ServerProcess) -> None:
    status, body, _ = refused(server, raw=b'{"name": "' + b"x" * (300 * 1024) + b'"}')
    assert status == 413 and body["error"] == "too_large" and body["max_bytes"] == 256 * 1024
    assert "larger than this server accepts" in body["message"]


def test_a_chunked_body_over_the_cap_is_refused_too(server: ServerProcess) -> None:
    def chunks() -> Any:
        for _ in range(40):
            yield b"x" * 10_000

    req = urllib.request.Request(server.url + "/api/campaigns", data=chunks(), method="POST",
                                 headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"})
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(req, timeout=10)
    with info.value as exc:
        assert exc.code == 413 and json.loads(exc.read())["error"] == "too_large"


def test_the_create_token_is_asked_for_with_a_message(server_factory: Any) -> None:
    node = server_factory(env={"KS_CREATE_TOKEN": "let-me-in-please"}).start()
    for headers in ({}, {"Authorization": "Bearer wrong"}):
        status, body, _ = refused(node, headers=headers)
        assert status == 403 and body["error"] == "forbidden" and "Authorization: Bearer" in body["message"]
    status, _, _ = refused(node, headers={"Authorization": "Bearer let-me-in-please"})
    assert status == 201


def test_creation_is_limited_per_client_address_behind_a_trusted_proxy(server_factory: Any) -> None:
    node = server_factory(env={"KS_TRUSTED_PROXIES": "127.0.0.0/8", "KS_CREATE_BURST": "2",
                               "KS_CREATE_PER_HOUR": "4"}).start()
    player = {"X-Forwarded-For": "198.51.100.9, 203.0.113.7"}  # the proxy appended the address it saw
    assert [refused(node, headers=player)[0] for _ in range(2)] == [201, 201]
    status, body, headers = refused(node, headers=player)
    assert status == 429 and body["error"] == "rate_limited" and "203.0.113.7" in body["message"]
    assert 1 <= body["retry_after_s"] <= 900 and headers["Retry-After"] == str(body["retry_after_s"])
    assert refused(node, headers={"X-Forwarded-For": "203.0.113.8"})[0] == 201  # another address, its own budget
    assert [refused(node)[0] for _ in range(3)] == [201] * 3  # the proxy's own (loopback) requests: not limited
    with pytest.raises(HttpStatus) as info:  # a bad request still gets its 400, not a 429
        node.http("POST", "/api/campaigns", {"teams": []}, headers={"X-Forwarded-For": "203.0.113.9"})
    assert info.value.code == 400


def _request(peer: str, forwarded: str | None = None) -> Any:
    headers = {"X-Forwarded-For": forwarded} if forwarded else {}
    return make_mocked_request("POST", "/api/campaigns", headers=headers, transport=_Transport(peer))


class _Transport:
    def __init__(self, peer: str):
        self.peer = peer

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return (self.peer, 40000) if name == "peername" else default

    def is_closing(self) -> bool:
        return False


def test_x_forwarded_for_counts_only_from_a_trusted_proxy() -> None:
    open_ = CreateLimits(Settings())
    assert open_.client(_request("198.51.100.1", "203.0.113.7")) == "198.51.100.1"  # forged header ignored
    behind = CreateLimits(Settings(trusted_proxies=("10.0.0.0/8",)))
    assert behind.client(_request("10.0.0.5", "203.0.113.7, 10.0.0.9")) == "203.0.113.7"
    assert behind.client(_request("10.0.0.5", "192.0.2.1, 203.0.113.7")) == "203.0.113.7"  # not the forged left one
    assert behind.client(_request("10.0.0.5")) == "10.0.0.5"


def test_the_bucket_refills_at_the_hourly_rate() -> None:
    now = [0.0]
    limits = CreateLimits(Settings(create_per_hour=60, create_burst=2), clock=lambda: now[0])
    req = _request("198.51.100.1")
    assert limits.check(req) is None and limits.check(req) is None
    third = limits.check(req)
    assert third is not None and third.status == 429 and third.headers["Retry-After"] == "60"
    now[0] += 60
    assert limits.check(req) is None and limits.check(req) is not None
    unlimited = CreateLimits(Settings(create_per_hour=0), clock=lambda: now[0])
    assert all(unlimited.check(req) is None for _ in range(100))


def test_buckets_are_shared_by_key_and_refill() -> None:
    """Issue 12 §13: one bucket per key (a token, an address), whatever the connections behind it."""
    now = [0.0]
    buckets = Buckets(2.0, 3, clock=lambda: now[0])
    assert [buckets.allow("spectators") for _ in range(4)] == [True, True, True, False]
    assert buckets.allow("red-1")  # another key has its own
    assert buckets.take("spectators") == pytest.approx(0.5)
    now[0] += 0.5
    assert buckets.allow("spectators") and not buckets.allow("spectators")


def test_flood_limits_cap_an_address_and_leave_loopback_alone() -> None:
    settings = Settings(trusted_proxies=("127.0.0.1/32",), max_connections_per_address=2, rate_per_s=10, rate_burst=5)
    flood = FloodLimits(settings, CreateLimits(settings))
    assert flood.address(_request("127.0.0.1")) is None  # the operator's own tools
    outside = flood.address(_request("127.0.0.1", "203.0.113.9"))  # behind the trusted proxy
    assert outside == "203.0.113.9"
    assert flood.connect(outside) is None and flood.connect(outside) is None
    third = flood.connect(outside)
    assert third is not None and third.status == 429 and json.loads(third.text or "")["error"] == "too_many_connections"
    flood.disconnect(outside)
    assert flood.connect(outside) is None
    assert flood.connect(None) is None  # loopback is never counted
    over = [flood.over("k/spectator", None) for _ in range(6)]
    assert over[:5] == [None] * 5 and over[5] is not None and "token" in over[5][0]
    assert 0 < over[5][1] <= 0.1  # one token comes back in a tenth of a second at 10 a second
    assert flood.over("k/red-1", outside) is None
