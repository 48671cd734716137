"""The codec: msgpack and JSON frames in, typed messages or typed protocol errors out."""

from __future__ import annotations

import json

import msgpack
import pytest

from shared.protocol import ProtocolError, decode_client, decode_server, encode
from shared.protocol.client import Chat, Hello, Order
from shared.protocol.codec import encode_json
from shared.protocol.server import Ack, Error


def test_msgpack_and_json_frames_decode_to_the_same_message() -> None:
    obj = {"t": "order", "cid": 7, "room": "c1", "order": {"type": "move", "unit": "u1"}}
    a = decode_client(msgpack.packb(obj))
    b = decode_client(json.dumps(obj))
    assert a == b
    assert isinstance(a, Order) and a.cid == 7


def test_roundtrip_server_messages() -> None:
    for msg in (Ack(cid=3, seq=10), Error(cid=None, code="bad_frame", message="x")):
        assert decode_server(encode(msg)) == msg
        assert decode_server(encode_json(msg)) == msg


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        (b"\xc1\xc1\xc1", "bad_frame"),
        ("{not json", "bad_frame"),
        (msgpack.packb([1, 2, 3]), "bad_message"),
        (msgpack.packb({"cid": 1}), "bad_message"),
        (msgpack.packb({"t": "launch_missiles", "cid": 1}), "unknown_type"),
        (msgpack.packb({"t": "chat", "cid": 1, "room": "c1"}), "bad_message"),
        (msgpack.packb({"t": "chat", "cid": 1, "room": "c1", "channel": "team", "text": "x" * 5000}), "bad_message"),
        (msgpack.packb({"t": "join", "cid": -1, "room": "c1"}), "bad_message"),
        (msgpack.packb({"t": "join", "cid": 1, "room": "../etc"}), "bad_message"),
        (msgpack.packb({"t": "hello", "cid": 1, "token": "short"}), "bad_message"),
    ],
)
def test_hostile_frames_get_typed_errors(frame: bytes | str, code: str) -> None:
    with pytest.raises(ProtocolError) as info:
        decode_client(frame)
    assert info.value.code == code


def test_error_echoes_cid_when_readable() -> None:
    with pytest.raises(ProtocolError) as info:
        decode_client(msgpack.packb({"t": "chat", "cid": 42, "room": "c1"}))
    assert info.value.cid == 42


def test_extra_fields_are_refused() -> None:
    with pytest.raises(ProtocolError):
        decode_client(msgpack.packb({"t": "hello", "cid": 1, "token": "abcdefgh", "admin": True}))


def test_hello_and_chat_parse() -> None:
    assert isinstance(decode_client(json.dumps({"t": "hello", "cid": 0, "token": "abcdefghij"})), Hello)
    msg = decode_client(json.dumps({"t": "chat", "cid": 2, "room": "c1", "channel": "team", "text": "hi"}))
    assert isinstance(msg, Chat) and msg.text == "hi"
