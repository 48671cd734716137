"""What the kernel holds of a socket's outbound bytes.

A peer that stops reading is invisible to a byte cap on the transport's own buffer until the kernel refuses more,
and by default the kernel takes several MiB first (send-buffer autotuning up to `tcp_wmem`'s maximum, plus the
peer's open receive window). Websocket sockets therefore get a bounded `SO_SNDBUF` (which also turns autotuning
off), and the session's stall check reads the bytes still queued in the kernel (`SIOCOUTQ`: written but not yet
acknowledged by the peer) to tell a slow reader from one that reads nothing at all.
"""

from __future__ import annotations

import array
import asyncio
import contextlib
import fcntl
import socket
import struct
import sys
import termios

_OUTQ = getattr(termios, "TIOCOUTQ", None) if sys.platform.startswith("linux") else None  # == SIOCOUTQ


def socket_of(transport: asyncio.BaseTransport | None) -> socket.socket | None:
    sock = transport.get_extra_info("socket") if transport is not None else None
    return sock if sock is not None and hasattr(sock, "setsockopt") else None


def bound_send_buffer(transport: asyncio.BaseTransport | None, size: int) -> int | None:
    """Cap the kernel's send buffer of the transport's socket at `size` bytes (Linux doubles the figure for its
    bookkeeping); returns the size the kernel reports, or None when there is no socket to tune."""
    sock = socket_of(transport)
    if sock is None or size <= 0:
        return None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, size)
        return int(sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF))
    except OSError:
        return None


def kernel_unsent(fd: int) -> int | None:
    """Bytes in the socket's kernel send queue not yet acknowledged by the peer (Linux), else None."""
    if _OUTQ is None or fd < 0:
        return None
    buf = array.array("i", [0])
    try:
        fcntl.ioctl(fd, _OUTQ, buf, True)
    except OSError:
        return None
    return int(buf[0])


def reset(transport: asyncio.Transport) -> None:
    """Drop the connection at once: with SO_LINGER 0 the kernel discards what the peer never read and sends a
    reset, instead of keeping an orphan socket that waits on a closed window to deliver it."""
    sock = socket_of(transport)
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()
