"""Time for the rooms: the service clock (ms) and timers at its instants, behind one small interface so that tests
drive time by hand (tests/rooms/helpers.py `ManualScheduler`) and the rules never read a clock.

A timer runs an async job at a given instant; the scheduler owns the job's task, and `stop` cancels a waiting
timer and a running job alike and waits for it to end.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Protocol

log = logging.getLogger(__name__)

Job = Callable[[], Awaitable[None]]


def wall_ms() -> int:
    return time.time_ns() // 1_000_000


class Timer(Protocol):
    def cancel(self) -> None:
        """The job will not start (one already running goes on)."""
        ...

    async def stop(self) -> None:
        """Cancel it, and cancel a running job and wait until it has ended."""
        ...


class Scheduler(Protocol):
    def now(self) -> int:
        """The service clock, ms."""
        ...

    def at(self, when_ms: int, job: Job) -> Timer:
        """Run `job` once the clock reads `when_ms` (at once when that is past)."""
        ...


class LoopTimer:
    __slots__ = ("_handle", "_job", "task")

    def __init__(self, delay_s: float, job: Job):
        self._job = job
        self.task: asyncio.Task[None] | None = None
        self._handle: asyncio.TimerHandle | None = asyncio.get_running_loop().call_later(delay_s, self._start)

    def _start(self) -> None:
        self._handle = None
        self.task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        try:
            await self._job()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("timer job %r failed", self._job)

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    async def stop(self) -> None:
        """A cancellation can be lost inside a library call (seen under the Redis store, about one shutdown in 25
        of the keep-alive loop: the task stayed "cancelling" and went on), so it is cancelled until it is done."""
        self.cancel()
        task = self.task
        if task is None or task is asyncio.current_task():
            return
        while not task.done():
            task.cancel()
            await asyncio.wait({task}, timeout=1.0)
        with contextlib.suppress(asyncio.CancelledError):
            task.result()


class LoopScheduler:
    """The event loop's timers on a clock (the wall clock by default)."""

    def __init__(self, now: Callable[[], int] = wall_ms):
        self.now = now

    def at(self, when_ms: int, job: Job) -> LoopTimer:
        return LoopTimer(max(0.0, (when_ms - self.now()) / 1000), job)
