"""The one codec: msgpack binary frames (the default) and JSON text frames (for debugging).

Inbound frames are parsed and validated once at the edge; outbound messages are packed without re-validation.
"""

from __future__ import annotations

import json
from typing import Any

import msgpack
from pydantic import BaseModel, TypeAdapter, ValidationError

from shared.protocol.bounds import nested_within
from shared.protocol.client import ClientMessage
from shared.protocol.server import ErrorCode, ServerMessage

_client_adapter: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
_server_adapter: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)


class ProtocolError(Exception):
    """A frame that is not a valid message; `code` is the protocol error code, `cid` echoed when readable."""

    def __init__(self, code: ErrorCode, message: str, cid: int | None = None):
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message
        self.cid = cid


def _json_int(text: str) -> int:
    """JSON integers as msgpack carries them (-2**63 … 2**64-1): a larger one could be accepted in an order and then
    not be packed into the room's log, which closes the room."""
    value = int(text)
    if not -(2**63) <= value < 2**64:
        raise ValueError(f"integer out of range: {text[:24]}")
    return value


def _unpack(frame: bytes | str) -> Any:
    try:
        if isinstance(frame, str):
            obj = json.loads(frame, parse_int=_json_int)
        else:
            obj = msgpack.unpackb(frame, raw=False, strict_map_key=True)
    except (ValueError, RecursionError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError,
            TypeError) as exc:  # RecursionError: JSON nested thousands deep
        kind = "JSON" if isinstance(frame, str) else "msgpack"
        raise ProtocolError("bad_frame", f"frame is not valid {kind}: {exc}") from None
    why = nested_within(obj)  # the decoders let no integer out of msgpack's range through
    if why is not None:
        raise ProtocolError("bad_frame", f"frame refused: {why}")
    return obj


def decode_client(frame: bytes | str) -> ClientMessage:
    """Parse and validate one client frame, raising ProtocolError with the right code."""
    obj = _unpack(frame)
    if not isinstance(obj, dict):
        raise ProtocolError("bad_message", "a message is a map with a 't' field")
    cid = obj.get("cid") if type(obj.get("cid")) is int else None  # not a bool, not 5.0
    t = obj.get("t")
    if not isinstance(t, str):
        raise ProtocolError("bad_message", "missing message type 't'", cid)
    try:
        return _client_adapter.validate_python(obj)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        if any(e["type"] == "union_tag_invalid" for e in errors):
            raise ProtocolError("unknown_type", f"unknown message type {t!r}", cid) from None
        detail = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in errors[:5])
        raise ProtocolError("bad_message", f"invalid {t!r} message: {detail}", cid) from None


def decode_server(frame: bytes | str) -> ServerMessage:
    """Parse a server frame (clients, tests and tools)."""
    return _server_adapter.validate_python(_unpack(frame))


_packer = msgpack.Packer(use_bin_type=True)
"""One packer for the process: `msgpack.packb` builds a new Packer per call, which was most of the cost of
encoding small messages (bench/codec.py). The server is one thread per event loop and packing never yields."""


def pack(obj: Any) -> bytes:
    """Any value as msgpack (the bytes `msgpack.packb(obj, use_bin_type=True)` gives), with the one packer."""
    return _packer.pack(obj)  # type: ignore[no-any-return]


def pack_array_header(n: int) -> bytes:
    return _packer.pack_array_header(n)  # type: ignore[no-any-return]


def encode(message: BaseModel | dict[str, Any]) -> bytes:
    """Pack a message (a model, or an already-built dict on the hot path) as one msgpack frame."""
    obj = message.model_dump(by_alias=True) if isinstance(message, BaseModel) else message
    return _packer.pack(obj)  # type: ignore[no-any-return]


def encode_with(head: dict[str, Any], key: str, packed: bytes) -> bytes:
    """The msgpack of `head` with one more entry, `key`, whose value is already packed: a big part (an event's
    data, a view's state) is packed once and framed for many messages without packing it again."""
    n = len(head)
    if n >= 15:
        raise ValueError("encode_with takes a head of at most 14 entries")
    return bytes((0x81 + n,)) + pack(head)[1:] + pack(key) + packed


def encode_json(message: BaseModel | dict[str, Any]) -> str:
    obj = message.model_dump(by_alias=True) if isinstance(message, BaseModel) else message
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
