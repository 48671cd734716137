"""Issue 12 §13: the moderator mutes a spectator (by player id or the name it chats under) or all spectators of a
room; players' chat goes on; a muted spectator's line is refused with `muted` and nothing is logged."""

from __future__ import annotations

from typing import Any

import pytest

from server.engines import ENGINES
from server.rooms import rules
from server.rooms.errors import RoomError
from server.rooms.members import Member
from server.rooms.state import RoomSpec, RoomState

SETUP: dict[str, Any] = {"engine": "drill", "campaign": "k", "teams": ["red", "blue"],
                         "players": {"red-1": "red", "blue-1": "blue"}, "seed": 1,
                         "config": {"teams": ["red", "blue"]}}
RED = Member("k", "player", "red-1", "red", 1)
MOD, SPECTATOR = Member("k", "moderator", "moderator"), Member("k", "spectator", "spectator")


def _room() -> tuple[RoomSpec, RoomState]:
    spec = RoomSpec.of("c-k", SETUP, ENGINES)
    outcome = rules.step(spec, RoomState(None, None), "setup", SETUP, None, 1_000)
    assert outcome is not None
    return spec, outcome[0]


def _step(spec: RoomSpec, state: RoomState, kind: str, body: dict[str, Any], member: Member) -> RoomState:
    outcome = rules.step(spec, state, kind, body, member, 2_000)
    assert outcome is not None
    return outcome[0]


def _says(spec: RoomSpec, state: RoomState, member: Member, name: str = "") -> None:
    channel = "spectators" if member.role == "spectator" else "players"
    _step(spec, state, "chat", {"channel": channel, "text": "hello", "name": name}, member)


def test_the_moderator_mutes_all_spectators_and_players_still_chat() -> None:
    spec, state = _room()
    _says(spec, state, SPECTATOR, "troll")
    muted = _step(spec, state, "mute", {"who": "spectators", "muted": True}, MOD)
    with pytest.raises(RoomError) as err:
        _says(spec, muted, SPECTATOR, "troll")
    assert err.value.code == "muted"
    _says(spec, muted, RED)
    again = _step(spec, muted, "mute", {"who": "spectators", "muted": False}, MOD)
    _says(spec, again, SPECTATOR, "troll")


def test_the_moderator_mutes_one_spectator_by_the_name_it_chats_under() -> None:
    spec, state = _room()
    muted = _step(spec, state, "mute", {"who": "troll", "muted": True}, MOD)
    with pytest.raises(RoomError) as err:
        _says(spec, muted, SPECTATOR, "troll")
    assert err.value.code == "muted"
    _says(spec, muted, SPECTATOR, "fan")
    assert RoomState.load(spec, muted.dump(spec)).muted == frozenset({"troll"})  # kept in snapshots


@pytest.mark.parametrize("member", [RED, SPECTATOR])
def test_only_the_moderator_mutes(member: Member) -> None:
    spec, state = _room()
    with pytest.raises(RoomError) as err:
        rules.step(spec, state, "mute", {"who": "spectators", "muted": True}, member, 2_000)
    assert err.value.code == "forbidden"


def test_muting_twice_or_unmuting_nobody_is_a_bad_order() -> None:
    spec, state = _room()
    with pytest.raises(RoomError) as err:
        rules.step(spec, state, "mute", {"who": "spectators", "muted": False}, MOD, 2_000)
    assert err.value.code == "bad_order"
