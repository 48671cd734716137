"""Group commit: the durable writes of many rooms arriving in the same moment share one fsync pass (embedded) or one
pipelined round trip (Redis), and each writer is answered only once its own write is durable.

A write waits in a queue; the first one starts the flusher, which runs at the next turn of the event loop and takes
everything queued by then. While a flush is under way (a thread doing the fsync, a pipeline waiting for Redis's
reply) the next writes queue up, and are taken together as soon as it returns: the groups grow with the store's
latency, and a lone write waits no longer than its own flush. With `in_flight` above 1, that many flushers take
turns, each with what was queued when it looked.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

T = TypeVar("T")

Flush = Callable[[Sequence[T]], Awaitable[Sequence[BaseException | None]]]
"""Makes a group of writes durable; for each write in order, None (durable) or the error that refused it."""


class GroupCommit(Generic[T]):
    """`grouped` False (--no-group-commit): each write is flushed on its own as it comes, through the same `flush`
    (the benchmark's baseline: one fsync, one round trip, per command)."""

    def __init__(self, flush: Flush[T], *, grouped: bool = True, in_flight: int = 1):
        self._flush = flush
        self.grouped = grouped
        self.in_flight = in_flight
        """Flushes under way at once. 1 for the embedded store (its groups go out one after the other anyway);
        more for Redis, where a group waiting for its reply held back every command that came meanwhile."""
        self._queued: list[tuple[T, asyncio.Future[None]]] = []
        self._flushers: set[asyncio.Task[None]] = set()
        self.groups = 0
        """Flushes so far (with `writes`: the mean group size; /metrics shows both)."""
        self.writes = 0

    async def write(self, item: T) -> None:
        """Returns once `item` is durable; raises what refused it. A writer cancelled while waiting does not take
        its write back: it is flushed with its group (its outcome is unknown to it, as after a lost reply)."""
        if not self.grouped:
            self.groups += 1
            self.writes += 1
            (refused,) = await self._flush([item])
            if refused is not None:
                raise refused
            return
        done = asyncio.get_running_loop().create_future()
        self._queued.append((item, done))
        if len(self._flushers) < self.in_flight:
            self._flushers.add(asyncio.create_task(self._run()))
        await done

    async def _run(self) -> None:
        try:
            while self._queued:
                group, self._queued = self._queued, []
                try:
                    outcomes: Sequence[BaseException | None] = await self._flush([item for item, _ in group])
                except Exception as exc:  # every writer of the group gets it (Redis unreachable, a disk error)
                    outcomes = [exc] * len(group)
                except BaseException:  # the flusher itself cancelled (the loop shutting down)
                    for _, done in group:
                        done.cancel()
                    raise
                self.groups += 1
                self.writes += len(group)
                _answer(group, outcomes)
        finally:  # at once, not in a done callback: a write queued before that ran would find no flusher coming
            self._flushers.discard(asyncio.current_task())


def _answer(group: list[tuple[T, asyncio.Future[None]]], outcomes: Sequence[BaseException | None]) -> None:
    for (_, done), outcome in zip(group, outcomes, strict=True):
        if done.done():  # its writer was cancelled
            continue
        if outcome is None:
            done.set_result(None)
        else:
            done.set_exception(outcome)
