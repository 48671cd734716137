"""Server messages are the protocol's models: the fan-out's fast builders (`ev` and `view` without validating their
data each time) build exactly what the models validate, and models go on the wire by their fields' wire names."""

from __future__ import annotations

from typing import get_args

import msgpack

from shared.protocol.codec import decode_server, encode, encode_with
from shared.protocol.server import (
    ERROR_CODES,
    Ack,
    ChatLine,
    ErrorCode,
    Event,
    Snapshot,
    View,
    ack_message,
    event_head,
    event_message,
    view_head,
    wire,
)


def test_the_fast_builders_build_the_models_messages_field_for_field() -> None:
    message = event_message("c-1", 7, 1000, "moved", {"to": [1, 2]})
    assert Event.model_validate(message).model_dump() == message
    assert list(message) == list(Event.model_fields)
    assert {**event_head("c-1", 7, 1000, "moved"), "data": {"to": [1, 2]}} == message
    head = view_head("b-1-2", 9, {"paused": False}, 5)
    view = {**head, "state": {"units": []}}
    assert View.model_validate(view).model_dump() == view and set(view) == set(View.model_fields)
    for seq in (3, None):
        assert Ack.model_validate(ack_message(5, seq)).model_dump() == ack_message(5, seq)
    spliced = encode_with(event_head("c-1", 7, 1000, "moved"), "data", msgpack.packb({"to": [1, 2]}))
    assert isinstance(decode_server(spliced), Event) and spliced == encode(message)


def test_models_go_on_the_wire_by_their_wire_names() -> None:
    line = {"channel": "players", "from": "red-1", "role": "player", "team": "red", "name": "Ney", "text": "hi",
            "at_ms": 3}
    snapshot = Snapshot(room="c-1", seq=1, kind="campaign", state={}, clocks={}, server_ms=3,
                        chat=[ChatLine.model_validate(line)])
    assert wire(snapshot)["chat"] == [line]
    assert decode_server(encode(snapshot)) == snapshot


def test_error_codes_are_the_protocols() -> None:
    assert frozenset(get_args(ErrorCode)) == ERROR_CODES and "locked_out" in ERROR_CODES
