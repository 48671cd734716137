"""Frames built once for many sockets follow RFC 6455 at every length encoding (server frames: FIN, no mask)."""

from __future__ import annotations

import struct

import pytest

from server.net.frames import frame


def _parse(wire: bytes) -> list[tuple[int, bytes]]:
    """An independent reading of RFC 6455 §5.2 for unmasked, unfragmented frames: (opcode, payload)."""
    out = []
    pos = 0
    while pos < len(wire):
        b0, b1 = wire[pos], wire[pos + 1]
        assert b0 & 0x80 and not b0 & 0x70, "FIN set, RSV bits clear"
        assert not b1 & 0x80, "servers do not mask"
        n, pos = b1 & 0x7F, pos + 2
        if n == 126:
            (n,), pos = struct.unpack_from("!H", wire, pos), pos + 2
            assert n >= 126
        elif n == 127:
            (n,), pos = struct.unpack_from("!Q", wire, pos), pos + 8
            assert n >= 65536
        out.append((b0 & 0x0F, wire[pos:pos + n]))
        pos += n
    return out


@pytest.mark.parametrize("size", [0, 125, 126, 65535, 65536, 300_000])
def test_frames_follow_rfc_6455_at_every_length(size: int) -> None:
    payload = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    assert _parse(frame(payload) + frame("é" * 3)) == [(0x2, payload), (0x1, "é".encode() * 3)]
