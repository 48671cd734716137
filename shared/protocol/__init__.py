"""The wire protocol: typed messages by direction, one codec, a generated JSON Schema (docs/protocol.md)."""

from shared.protocol.client import ClientMessage
from shared.protocol.codec import ProtocolError, decode_client, decode_server, encode
from shared.protocol.server import ErrorCode, ServerMessage

__all__ = [
    "ClientMessage",
    "ErrorCode",
    "ProtocolError",
    "ServerMessage",
    "decode_client",
    "decode_server",
    "encode",
]
