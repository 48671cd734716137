"""Tests run by tests/net/test_left_open.py in a pytest of their own, in this order (not collected by the suite:
the file's name is not a test module's): tests that leave websocket clients open, each followed by one that
collects the garbage as any test doing some work would, and a resource leaked that is not a client."""

from __future__ import annotations

import gc
from typing import Any

import aiohttp

from tests.conftest import ServerProcess
from tests.net.client import Client, signed_in

LEFT: list[Any] = []


async def test_fails_with_clients_open(server: ServerProcess) -> None:
    teams = [{"colour": "red", "seats": 1}, {"colour": "blue", "seats": 1}]
    made = server.http("POST", "/api/campaigns", {"name": "Left open", "scenario": "drill", "level": 2, "teams": teams})
    page = await signed_in(server.ws_url, made["seats"][0]["token"], made["room"])
    other = await Client(server.ws_url).connect()
    assert page.ws is not None and other.ws is not None
    raise AssertionError("deliberately, with two clients open")


async def test_after_a_failure() -> None:
    gc.collect()


async def test_passes_with_a_client_open(server: ServerProcess) -> None:
    LEFT.append(await Client(server.ws_url).connect())


async def test_after_a_pass() -> None:
    LEFT.clear()
    gc.collect()


async def test_leaves_a_session_open() -> None:
    LEFT.append(aiohttp.ClientSession())  # not a test client: its warning is the next test's, as before


async def test_after_the_session() -> None:
    LEFT.clear()
    gc.collect()
