"""Websocket frames built once and written to many sockets.

A server's frames are not masked and, without permessage-deflate, identical for every socket: the fan-out frames an
event's payload once and writes the same bytes to each transport. aiohttp still owns the sockets (handshake,
reading, pings, close); its writes and these are whole frames, so they interleave safely.
"""

from __future__ import annotations

import struct

_LEN2 = struct.Struct("!BBH")
_LEN3 = struct.Struct("!BBQ")
_BINARY = 0x82  # FIN + binary
_TEXT = 0x81  # FIN + text


def frame(payload: bytes | str) -> bytes:
    """One complete unmasked websocket frame carrying `payload` (bytes: binary, str: text)."""
    if isinstance(payload, str):
        data, first = payload.encode(), _TEXT
    else:
        data, first = payload, _BINARY
    n = len(data)
    if n < 126:
        return bytes((first, n)) + data
    if n < 65536:
        return _LEN2.pack(first, 126, n) + data
    return _LEN3.pack(first, 127, n) + data
