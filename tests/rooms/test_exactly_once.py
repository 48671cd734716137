"""Exactly once (issue 12 §9): a command sent again with the same cid by the same seat gets its first answer and is
not applied again — on the same node, after a restart (the window rebuilt from the log, or from a snapshot), on
both stores; the same cid with another message is `cid_reused`; the records keep the request, and records written
before they did still replay."""

from __future__ import annotations

from typing import Any

import pytest

from server.rooms.errors import RoomError
from server.rooms.members import Member
from server.rooms.requests import WINDOW, Answers, Request
from server.store.records import Record
from tests.rooms.conftest import HubMaker
from tests.rooms.helpers import ManualClock, spec


def _chat(text: str) -> dict[str, Any]:
    return {"channel": "team", "text": text}


def _request(cid: int, message: dict[str, Any]) -> Request:
    request = Request.of({"cid": cid, **message})
    assert request is not None
    return request


async def _chats(hub: Any, room_id: str) -> list[str]:
    room = await hub.ownership.owned(room_id)
    return [e.plain_data()["text"] for e in room.history if e.kind == "chat"]


async def test_the_same_cid_twice_is_applied_once_and_answered_alike_on_both_stores(make_hub: HubMaker) -> None:
    hub = await make_hub(ManualClock())
    made = await hub.create_campaign(spec())
    room_id, campaign = made["room"], made["campaign"]
    red = Member(campaign, "player", "red-1", "red", 1)
    message = {"t": "chat", "room": room_id, **_chat("hold the bridge")}
    first = await hub.command(red, room_id, "chat", _chat("hold the bridge"), _request(41, message))
    again = await hub.command(red, room_id, "chat", _chat("hold the bridge"), _request(41, message))
    assert first is not None and again == first
    assert await _chats(hub, room_id) == ["hold the bridge"]
    # another seat may use the same cid: the window is per seat
    red2 = Member(campaign, "player", "red-2", "red", 2)
    other = await hub.command(red2, room_id, "chat", _chat("hold the bridge"), _request(41, message))
    assert other is not None and other > first
    # the same cid with another message is a client's mistake, refused with a typed error; nothing is logged
    with pytest.raises(RoomError) as refused:
        await hub.command(red, room_id, "chat", _chat("retreat"), _request(41, {**message, "text": "retreat"}))
    assert refused.value.code == "cid_reused"
    assert await _chats(hub, room_id) == ["hold the bridge", "hold the bridge"]


@pytest.mark.parametrize("snapshot_every", [1000, 2])
async def test_a_retry_after_a_restart_gets_the_first_answer(make_hub: HubMaker, snapshot_every: int) -> None:
    """The window is rebuilt from the log as the room reopens — or read from the snapshot that replaced it."""
    clock = ManualClock()
    hub = await make_hub(clock, snapshot_every=snapshot_every)
    made = await hub.create_campaign(spec())
    room_id = made["room"]
    red = Member(made["campaign"], "player", "red-1", "red", 1)
    order = {"order": {"type": "move", "counter": "r1", "to": [1, 1]}}
    request = _request(7, {"t": "order", "room": room_id, **order})
    seq = await hub.command(red, room_id, "order", order, request)
    for n in range(3):
        await hub.command(red, room_id, "chat", _chat(f"line {n}"), _request(100 + n, {"text": f"line {n}"}))
    await hub.close()
    await hub.store.close()

    restarted = await make_hub(clock, snapshot_every=snapshot_every)
    assert await restarted.command(red, room_id, "order", order, request) == seq  # not refused as moved already
    room = await restarted.ownership.owned(room_id)
    assert sum(1 for e in room.history if e.kind == "counter_moved") == 1
    # the retried chat is not logged twice either
    assert await restarted.command(red, room_id, "chat", _chat("line 2"), _request(102, {"text": "line 2"}))
    assert await _chats(restarted, room_id) == ["line 0", "line 1", "line 2"]


async def test_spectators_and_cid_0_are_not_deduplicated(make_hub: HubMaker) -> None:
    """Spectators share one token, so two of them may pick the same cid; cid 0 opts out."""
    hub = await make_hub(ManualClock())
    made = await hub.create_campaign(spec())
    room_id = made["room"]
    watcher = Member(made["campaign"], "spectator", "spectator")
    message = {"t": "chat", "room": room_id, "channel": "spectators", "text": "hurrah"}
    body = {"channel": "spectators", "text": "hurrah"}
    await hub.command(watcher, room_id, "chat", body, _request(5, message))
    await hub.command(watcher, room_id, "chat", body, _request(5, message))
    assert Request.of({**message, "cid": 0}) is None
    room = await hub.ownership.owned(room_id)
    assert [e.plain_data()["text"] for e in room.history if e.kind == "chat"] == ["hurrah", "hurrah"]


def test_records_keep_their_request_and_old_records_read_back() -> None:
    new = Record(3, 1000, "chat", {"text": "x"}, {"player": "red-1"}, (), (9, "ab" * 16))
    assert Record.unpack(new.pack()) == new
    old = Record(3, 1000, "chat", {"text": "x"}, {"player": "red-1"})  # the six-item format of every older room
    assert old.pack()[0] == 0x96 and Record.unpack(old.pack()) == old and Record.unpack(old.pack()).request is None


def test_the_window_keeps_each_seats_last_requests() -> None:
    answers = Answers()
    actor = {"role": "player", "player": "red-1"}
    from server.rooms.requests import Answer

    for cid in range(1, WINDOW + 11):
        answers.keep(actor, (cid, "d"), Answer(seq=cid))
    assert answers.find(actor, Request(5, "d")) is None  # fell out of the window
    assert answers.find(actor, Request(WINDOW + 10, "d")) == Answer(seq=WINDOW + 10)
    again = Answers()
    again.load(answers.dump())
    assert again.dump() == answers.dump()


@pytest.mark.parametrize("message", [
    {"t": "chat", "room": "c-0001", "channel": "team", "text": "hold the bridge"},
    {"t": "mod_ruling", "room": "c-0001", "ruling": {"type": "emit", "kind": "bench", "data": {"pad": "x" * 40}}},
    {"t": "order", "room": "c-0001", "order": {"unit": "u1", "type": "move", "to": [3, 4]}},
    {"t": "end_turn", "room": "c-0001"},
    {"t": "mod_ruling", "room": "c-0001", "ruling": {"list": [1, 2.5, None, True, b"\x00raw", {"deep": [[{}]]}]}},
    {"t": "mod_secret_module", "player": "p-2", "minutes": 5},  # an int read as a float; `reason` by default
    {"t": "mod_clock", "room": "c-0001", "action": "pause"},
    {"t": "mod_mute", "room": "c-0001", "who": "spectators"},
    {"t": "mod_ai", "player": "red", "on": False},
    {"t": "leave", "room": "c-0001"},
])
def test_the_sessions_digest_is_the_one_logged_records_keep(message: dict[str, Any]) -> None:
    """Issue 12 §9 across an upgrade: the session digests a command from its validated fields less the cid
    (`Request.of_message`, no dump), and a retry must match the digest a record logged before kept (`Request.of` of
    the whole dump, defaults filled in)."""
    from shared.protocol.codec import decode_client, encode

    msg = decode_client(encode({"cid": 41, **message}))
    whole = Request.of(msg.model_dump(by_alias=True))
    assert whole is not None
    assert Request.of_message(msg) == whole
    assert Request.of_rest(41, msg.model_dump(by_alias=True, exclude={"cid"})) == whole
    assert whole.digest == _request(41, msg.model_dump(by_alias=True, exclude={"cid"})).digest


def test_no_client_message_has_a_nested_model_or_an_alias() -> None:
    """`Request.of_message` digests a message's fields as validated, which is its dump only while no field is a
    model of its own or renamed by an alias: a message type that breaks this must digest its dump instead."""
    import typing

    from pydantic import BaseModel

    from shared.protocol.client import ClientMessage

    union = typing.get_args(ClientMessage)[0]
    for model in typing.get_args(union):
        for name, field in model.model_fields.items():
            assert field.alias is None, (model.__name__, name)
            inner = [field.annotation, *typing.get_args(field.annotation)]
            assert not any(isinstance(t, type) and issubclass(t, BaseModel) for t in inner), (model.__name__, name)


def test_a_message_with_cid_0_has_no_request() -> None:
    from shared.protocol.codec import decode_client, encode

    assert Request.of_message(decode_client(encode({"cid": 0, "t": "end_turn", "room": "c-0001"}))) is None
