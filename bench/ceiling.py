"""The ceiling: an offered event rate raised step by step until fewer than 99.9% of frames arrive or p99 passes
100 ms (the issue's criteria), measured per step, and the comparisons of two servers' ceilings. Used by
bench/fanout.py, bench/rooms.py and bench/relay.py alike.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from bench import loadgen, targets
from bench.common import core_ticks, cpu_seconds, percentile, ratio, self_cpu_seconds

LOSS_LIMIT = 0.999
P99_LIMIT_MS = 100.0
LOAD_BOUND = 0.9


@dataclass
class Step:
    rate: float  # events/s offered into the room
    sent: int
    seconds: float
    delivered_ratio: float
    delivered_fps: float  # frames/s that reached spectators
    p50_ms: float
    p99_ms: float
    p999_ms: float
    samples: int
    server_cpu_util: float
    cpu_us_per_frame: float
    load_cpu_util: float
    server_core_busy: float  # the server's core, busy by anything (the server, softirq, other work on the machine)
    alive: int
    gaps: int

    @property
    def ok(self) -> bool:
        return self.delivered_ratio >= LOSS_LIMIT and self.p99_ms <= P99_LIMIT_MS

    @property
    def load_bound(self) -> bool:
        return self.load_cpu_util > LOAD_BOUND


async def step(
    pids: Sequence[int], clients: list[loadgen.WsClient], publishers: Sequence[loadgen.Publisher], rate: float,
    seconds: float,
) -> Step:
    """Offer `rate` events/s into each publisher's room for `seconds`, wait for the frames to drain, and measure
    (server CPU summed over `pids`). Every client follows exactly one of the rooms, all rooms alike."""
    probes = [c for c in clients if c.probe]
    loadgen.take_latencies(probes)
    gaps0 = sum(c.gaps for c in probes)
    base = loadgen.frames(clients)
    for c in clients:
        c.lazy(True)
    core0 = core_ticks(targets.SERVER_CORE)
    cpu0, load0, t0 = sum(map(cpu_seconds, pids)), self_cpu_seconds(), time.perf_counter()
    sent = await loadgen.pace(publishers, rate, seconds)
    expected = sent * len(clients)
    got = await loadgen.drain(clients, expected, base)
    wall = time.perf_counter() - t0
    cpu = sum(map(cpu_seconds, pids)) - cpu0
    load = self_cpu_seconds() - load0
    core1 = core_ticks(targets.SERVER_CORE)
    lat = [x * 1000 for x in loadgen.take_latencies(probes)]
    return Step(
        rate=round(rate, 2), sent=sent, seconds=round(wall, 3),
        delivered_ratio=round(got / expected, 5) if expected else 0.0,
        delivered_fps=round(got / seconds, 1),
        p50_ms=round(percentile(lat, 0.5), 3), p99_ms=round(percentile(lat, 0.99), 3),
        p999_ms=round(percentile(lat, 0.999), 3), samples=len(lat),
        server_cpu_util=round(cpu / wall, 3), cpu_us_per_frame=round(cpu / got * 1e6, 2) if got else math.inf,
        load_cpu_util=round(load / wall, 3), alive=loadgen.alive(clients),
        server_core_busy=round((core1[0] - core0[0]) / max(1, core1[1] - core0[1]), 3),
        gaps=sum(c.gaps for c in probes) - gaps0,
    )


def rates(start: float, factor: float, steps: int) -> list[float]:
    return [start * factor**k for k in range(steps)]


async def ceiling(
    label: str, pids: Sequence[int], clients: list[loadgen.WsClient], publishers: Sequence[loadgen.Publisher],
    start_rate: float, factor: float, max_steps: int, seconds: float, retries: int = 1,
) -> dict[str, Any]:
    """Raise the per-room rate from `start_rate` until a step fails, then probe once between the last good and
    the first bad rate. Returns the steps and the best sustainable one."""
    n = len(clients)
    steps: list[Step] = []
    limit: Step | None = None
    warmup = 0
    try:
        warmup = await loadgen.pace(publishers, min(50.0, start_rate), 0.3)  # not measured
        await loadgen.drain(clients, 10**12, 0, quiet=0.2, limit=1.0)
        good: Step | None = None
        for rate in rates(start_rate, factor, max_steps):
            s = await step(pids, clients, publishers, rate, seconds)
            steps.append(s)
            for _ in range(retries):
                if s.ok or s.alive < n:
                    break
                await asyncio.sleep(0.5)  # a failed step is tried again: the machine is shared
                s = await step(pids, clients, publishers, rate, seconds)
                steps.append(s)
            print(f"  {label} rate={s.rate:>9.1f}/s  "
                  f"delivered={s.delivered_fps:>10.0f} fr/s ({s.delivered_ratio:.4f})  "
                  f"p50/p99/p99.9={s.p50_ms}/{s.p99_ms}/{s.p999_ms} ms  "
                  f"cpu={s.cpu_us_per_frame} µs/fr srv={s.server_cpu_util:.2f} core0={s.server_core_busy:.2f} "
                  f"load={s.load_cpu_util:.2f}"
                  f"{'' if s.ok else '  FAIL'}", flush=True)
            if not s.ok or s.alive < n:
                limit = s
                break
            good = s
        last = steps[-1]
        if good is not None and not last.ok and last.alive == n:
            mid = math.sqrt(good.rate * last.rate)
            s = await step(pids, clients, publishers, mid, seconds)
            steps.append(s)
            if s.ok and s.delivered_fps > good.delivered_fps:
                good = s
    finally:
        for p in publishers:
            p.close()
    best = good
    return {
        "max_sustainable_fps": best.delivered_fps if best else 0.0,
        "at": asdict(best) if best else None,
        "load_bound": bool(best and best.load_bound),
        "limit_reached": limit is not None,
        "events_per_room": warmup + sum(s.sent for s in steps),
        "steps": [asdict(s) for s in steps],
    }


def cpu_per_frame(result: dict[str, Any]) -> float:
    """CPU µs per frame at a ceiling's best step, or at its failed first step when none passed."""
    step = result["at"] or (result["steps"][-1] if result["steps"] else {})
    return float(step.get("cpu_us_per_frame", 0))


def common_step(mine: list[dict[str, Any]], theirs: list[dict[str, Any]]) -> dict[str, Any] | None:
    ok_m = {s["rate"]: s for s in mine if s["delivered_ratio"] >= LOSS_LIMIT and s["p99_ms"] <= P99_LIMIT_MS}
    ok_t = {s["rate"]: s for s in theirs if s["delivered_ratio"] >= LOSS_LIMIT and s["p99_ms"] <= P99_LIMIT_MS}
    common = sorted(set(ok_m) & set(ok_t))
    if not common:
        return None
    rate = common[-1]
    return {"rate": rate, "ours": ok_m[rate]["p99_ms"], "baseline": ok_t[rate]["p99_ms"]}




def ours_vs_bare(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Ours ÷ bare from one run's rows (one per server): throughput at the ceiling and CPU per frame there."""
    by = {r["server"]: r for r in rows}
    if "ours" not in by or "bare" not in by:
        return {}
    return {
        "throughput": ratio(by["ours"]["max_sustainable_fps"], by["bare"]["max_sustainable_fps"]),
        "cpu_per_frame": ratio(cpu_per_frame(by["ours"]), cpu_per_frame(by["bare"])),
    }
