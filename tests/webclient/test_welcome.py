"""`welcome` lists the battle rooms being fought (issue 16 §2): a client that comes back after a restart or a blip
rebuilds its battle tabs from it, without a reload."""

from __future__ import annotations

import asyncio

from tests.webclient.conftest import Leipzig


async def test_welcome_lists_the_running_battle_rooms_to_every_member(leipzig: Leipzig) -> None:
    for who in ("red-1", "blue-1", "spectator"):
        client = await leipzig.sign_in(who)
        assert client.welcome["rooms"] == [leipzig.room, leipzig.battle_room], who
    moderator = await leipzig.sign_in("moderator")
    assert moderator.welcome["rooms"] == [leipzig.room, leipzig.battle_room, f"s-{leipzig.campaign}"]


async def test_a_battle_that_is_over_is_no_longer_listed(leipzig: Leipzig) -> None:
    moderator = await leipzig.sign_in("moderator", leipzig.battle_room)
    ended = await moderator.request({"t": "mod_ruling", "room": leipzig.battle_room,
                                     "ruling": {"type": "end_battle", "winner": "red", "reason": "umpire"}})
    assert ended["t"] == "ack", ended
    for _ in range(100):  # the result reaches the campaign room a moment after the battle room's ack (D-L-1)
        again = await leipzig.sign_in("blue-1")
        if again.welcome["rooms"] == [leipzig.room]:
            break
        await asyncio.sleep(0.05)
    assert again.welcome["rooms"] == [leipzig.room]
