"""Fencing (issue 12 §10): each new holder of a room's lease gets the next epoch, a renewal keeps it, and the log's
append refuses — inside the write — a record whose epoch is not the current holder's; a tenure lapses before its
lease could run out."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.rooms.tenure import Tenure
from server.store import Store
from server.store.embedded import open_embedded
from server.store.records import Fenced, LoggedEvent, Record


def _record(index: int) -> Record:
    return Record(index, 1000 + index, "chat", {"text": f"m{index}"}, {"player": "red-1"},
                  (LoggedEvent(index, 1000 + index, "chat", {"text": f"m{index}"}, frozenset({"team:red"})),))


@pytest.mark.redis
async def test_each_new_holder_gets_the_next_epoch_and_a_stale_epoch_cannot_write(redis_store: Store) -> None:
    leases, log = redis_store.leases, redis_store.log
    first = await leases.acquire("c-f", "node-a", 5_000)
    assert first is not None
    assert await leases.acquire("c-f", "node-a", 5_000) == first  # a renewal keeps the epoch
    assert await leases.renew(["c-f", "c-none"], "node-a", 5_000) == {"c-f": first, "c-none": None}
    assert await leases.acquire("c-f", "node-b", 5_000) is None
    assert await leases.holder("c-f") == "node-a"
    await log.append("c-f", _record(1), epoch=first)
    await leases.release("c-f", "node-a")
    with pytest.raises(Fenced):  # released: nobody holds it, so nobody's epoch may write
        await log.append("c-f", _record(2), epoch=first)
    second = await leases.acquire("c-f", "node-b", 5_000)
    assert second is not None and second > first
    with pytest.raises(Fenced):  # the old holder, back from a stop, is refused inside the write
        await log.append("c-f", _record(2), epoch=first)
    assert await leases.renew(["c-f"], "node-a", 5_000) == {"c-f": None}
    await log.append("c-f", _record(2), epoch=second)
    assert [r.index for r in await log.read("c-f", 0)] == [1, 2]


async def test_the_embedded_store_takes_the_next_epoch_at_each_start(tmp_path: Path) -> None:
    store = open_embedded(tmp_path, fsync=False)
    first = await store.leases.acquire("c-e", "n", 5_000)
    await store.log.append("c-e", _record(1), epoch=first)
    await store.close()
    store = open_embedded(tmp_path, fsync=False)
    second = await store.leases.acquire("c-e", "n", 5_000)
    assert first is not None and second == first + 1
    with pytest.raises(Fenced):
        await store.log.append("c-e", _record(2), epoch=first)
    await store.log.append("c-e", _record(2), epoch=second)
    await store.close()


def test_a_tenure_lapses_before_its_lease_could_run_out() -> None:
    now = [100.0]
    tenure = Tenure(2_000, 7, clock=lambda: now[0])
    assert not tenure.holds()
    tenure.renewed(now[0])
    now[0] += 1.5
    assert tenure.holds() and 99 <= tenure.left_ms() <= 100
    now[0] += 0.2
    assert not tenure.holds()  # 1.7 s after asking: within the lease's 2 s, but past its margin
