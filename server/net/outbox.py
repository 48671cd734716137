"""Frames written during one turn of the event loop leave together at its end: one send() per socket per turn;
and on a busy node a socket just written to waits out a short write interval before its next write.

A command's events, the views they release and its `ack` reach a socket in one write; so do the events of every
command a turn runs (a burst of orders read in one go, a batch from the bus). The flush is a `call_soon` scheduled
by the first frame of the turn, so it adds no timer and no wait: it runs as soon as the code that is running now
gives the loop back.

A send() costs the kernel about as much for one small frame as for several (on loopback ~8 µs, as much as our
whole share of a frame), so on a busy node the system calls per frame, not the bytes, bound what it delivers. When
the node is short of CPU, a socket's broadcast frames (events, views) therefore leave at most once per `interval`:
the first after a quiet spell at the end of its turn, the ones close behind it together when the interval is up
(one timer for all the sockets waiting). An answer to the socket's own message (an ack, an error, a snapshot) never
waits, and takes the frames held before it along. The interval follows the load (`Load`): none while the node has
CPU to spare, so a node under its aim adds no latency, and as much as keeps it there (up to `most_s`) when not.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Protocol

log = logging.getLogger(__name__)


class Flushable(Protocol):
    def flush(self) -> None:
        """The turn is over: write the frames held since the last write, or wait out the write interval."""
        ...

    def send_held(self) -> None:
        """Write the frames held since the last write, now."""
        ...


class Load:
    """How long a busy socket's broadcast frames wait (`Outbox.interval`): just long enough to keep the node under
    `aim` of a core. Every `SAMPLE_S` the process's CPU time over the loop's time (`busy`) moves the interval by
    (busy − aim) × `most_s` × `GAIN`, kept between 0 and `most_s`: none while the node stays under `aim`, more while
    it is over, all of `most_s` when even that is not enough. `aim` ≤ 0: always `most_s`."""

    SAMPLE_S = 0.1
    GAIN = 1.0

    __slots__ = ("_cpu", "_due", "_wall", "aim", "busy", "current", "most_s")

    def __init__(self, most_s: float, aim: float = 0.8) -> None:
        self.most_s = most_s
        self.aim = aim
        self.busy = 0.0
        """The share of a core the process used in the last sample."""
        self.current = most_s if aim <= 0 else 0.0
        self._wall = self._due = 0.0
        self._cpu = time.process_time()

    def interval(self, now: float) -> float | None:
        """The interval from the loop time `now` on, or None when it is not time to look again."""
        if now < self._due:
            return None
        cpu = time.process_time()
        if self._wall:
            self.adjust((cpu - self._cpu) / max(now - self._wall, 1e-6))
        self._wall, self._cpu, self._due = now, cpu, now + self.SAMPLE_S
        return self.current

    def adjust(self, busy: float) -> None:
        """One sample: the node used `busy` of a core."""
        self.busy = busy
        if self.aim > 0:
            self.current = min(self.most_s, max(0.0, self.current + (busy - self.aim) * self.most_s * self.GAIN))


class Outbox:
    """The sockets holding frames this turn (one callback flushes them all) and those waiting out the interval
    (one timer writes them all)."""

    __slots__ = ("held", "interval", "later", "load", "now", "writes")

    def __init__(self, interval_s: float = 0.0, load: Load | None = None) -> None:
        self.held: list[Flushable] | None = None
        """The sockets with frames this turn (None: none yet, no flush scheduled). A socket's first frame of a turn
        appends it here itself when the list exists (flow.py: a call less per socket); `hold` starts it."""
        self.interval = interval_s
        """A socket written to less than this long ago holds its broadcast frames until it is up (seconds); set by
        `load` when there is one."""
        self.load = load
        self.later: list[Flushable] = []
        """The sockets waiting out the interval; one timer writes them all."""
        self.now = 0.0
        """The loop's time at the start of the current flush (one clock read for all its sockets)."""
        self.writes = 0
        """Socket writes (a socket closed meanwhile writes nothing but counts)."""

    def hold(self, socket: Flushable) -> None:
        """`socket` has its first frame of the turn: flush it at the end of the turn."""
        held = self.held
        if held is None:
            self.held = [socket]
            asyncio.get_running_loop().call_soon(self.flush)
        else:
            held.append(socket)

    def defer(self, socket: Flushable, due: float) -> None:
        """`socket` waits out the interval: written at `due` (loop time), or with the first socket waiting."""
        self.writes -= 1
        later = self.later
        later.append(socket)
        if len(later) == 1:
            asyncio.get_running_loop().call_at(due, self._send_later)

    def flush(self) -> None:
        held, self.held = self.held, None
        if held:
            self.now = now = asyncio.get_running_loop().time()
            if self.load is not None:
                interval = self.load.interval(now)
                if interval is not None:
                    self.interval = interval
            self.writes += len(held)
            for socket in held:
                try:
                    socket.flush()
                except Exception:  # one broken socket must not leave the others holding their frames
                    log.exception("flushing a socket failed")

    def _send_later(self) -> None:
        later, self.later = self.later, []
        self.now = asyncio.get_running_loop().time()
        self.writes += len(later)
        for socket in later:
            try:
                socket.send_held()
            except Exception:
                log.exception("flushing a socket failed")
