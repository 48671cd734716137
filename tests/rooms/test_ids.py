"""Room ids are a type: parsed once, their parts read by name; anything else is no room at all."""

from __future__ import annotations

import pytest

from server.rooms.errors import RoomError
from server.rooms.ids import RoomId


def test_a_room_id_names_its_kind_campaign_and_child() -> None:
    battle = RoomId("b-3f2a-12")
    assert (battle.kind, battle.campaign, battle.child) == ("battle", "3f2a", "12")
    assert battle == "b-3f2a-12" and {battle: 1}["b-3f2a-12"] == 1  # the id's text, as the wire and store have it
    assert battle.parent == RoomId.campaign_room("3f2a") == "c-3f2a"
    assert RoomId("s-3f2a").kind == "secret_module" and RoomId("s-3f2a").parent is None
    assert RoomId.child_room("3f2a", "12") == battle and RoomId.secret_room("x") == "s-x"
    assert RoomId(battle) is battle


@pytest.mark.parametrize("text", ["", "c", "c-", "x-1", "b-3f2a", "b--1", "s-", "-c-1"])
def test_text_that_is_not_a_room_id_is_no_such_room(text: str) -> None:
    assert RoomId.parse(text) is None
    with pytest.raises(RoomError) as err:
        RoomId(text)
    assert err.value.code == "no_such_room"
