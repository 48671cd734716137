"""A Napoleonic campaign of 1813 in which Bülow (red) has marched onto Ney (blue) at Leipzig and blue has accepted
battle: a battle room is being fought."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.conftest import ServerProcess
from tests.net.client import Client, join_when_spawned, signed_in


class Leipzig:
    def __init__(self, server: ServerProcess, made: dict[str, Any]):
        self.server = server
        self.made = made
        self.campaign: str = made["campaign"]
        self.room: str = made["room"]
        self.battle_room = f"b-{self.campaign}-1"
        self.tokens = {s["player"]: s["token"] for s in made["seats"]}
        self.tokens["moderator"] = made["moderator_token"]
        self.tokens["spectator"] = server.named_spectator(made)  # everything, live (issue 12)
        self.clients: list[Client] = []

    async def sign_in(self, who: str, room: str | None = None) -> Client:
        client = await signed_in(self.server.ws_url, self.tokens[who], room)
        self.clients.append(client)
        return client


@pytest.fixture
async def leipzig(server: ServerProcess) -> AsyncIterator[Leipzig]:
    if "napoleonic" not in server.http("GET", "/api/engines")["engines"]:
        pytest.fail("the Napoleonic campaign is not in this server")
    made = server.http("POST", "/api/campaigns", {
        "name": "1813", "scenario": "napoleonic", "level": 2,
        "teams": [{"colour": "red", "seats": 2}, {"colour": "blue", "seats": 2}]})
    game = Leipzig(server, made)
    red = await game.sign_in("red-2", game.room)
    blue = await game.sign_in("blue-2", game.room)
    moved = await red.request({"t": "order", "room": game.room, "order": {
        "type": "move", "army": "bulow", "path": [[23, 19], [23, 18], [22, 18]]}})
    assert moved["t"] == "ack", moved
    await blue.event("contact")
    answered = await blue.request({"t": "order", "room": game.room,
                                   "order": {"type": "answer", "battle": "1", "choice": "accept"}})
    assert answered["t"] == "ack", answered
    await join_when_spawned(red, game.battle_room)
    yield game
    await asyncio.gather(*(c.close() for c in game.clients))
