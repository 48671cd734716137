"""Frames written during one turn of the event loop leave together at its end: one send() per socket per turn.

A command's events, the views they release and its `ack` reach a socket in one write; so do the events of every
command a turn runs (a burst of orders read in one go, a batch from the bus). The flush is a `call_soon` scheduled
by the first frame of the turn, so it adds no timer and no wait: it runs as soon as the code that is running now
gives the loop back. Under load this is what keeps the system calls per frame below one.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Protocol

log = logging.getLogger(__name__)


class Flushable(Protocol):
    def flush(self) -> None:
        """Write the frames held since the last flush."""
        ...


class Outbox:
    """The sockets holding frames this turn; one callback flushes them all."""

    __slots__ = ("held", "writes")

    def __init__(self) -> None:
        self.held: list[Flushable] | None = None
        """The sockets with frames this turn (None: none yet, no flush scheduled). A socket's first frame of a turn
        appends it here itself when the list exists (flow.py: a call less per socket); `hold` starts it."""
        self.writes = 0
        """Sockets flushed: one write each (a socket closed meanwhile writes nothing but counts)."""

    def hold(self, socket: Flushable) -> None:
        """`socket` has its first frame of the turn: flush it at the end of the turn."""
        held = self.held
        if held is None:
            self.held = [socket]
            asyncio.get_running_loop().call_soon(self.flush)
        else:
            held.append(socket)

    def flush(self) -> None:
        held, self.held = self.held, None
        if held:
            self.writes += len(held)
            for socket in held:
                try:
                    socket.flush()
                except Exception:  # one broken socket must not leave the others holding their frames
                    log.exception("flushing a socket failed")
