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
BISECTIONS = 2  # steps between the last good and the first bad rate
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


@dataclass
class Contestant:
    """One server in a climb: its processes (CPU summed), its spectators and the moderators feeding its rooms."""

    label: str
    pids: Sequence[int]
    clients: list[loadgen.WsClient]
    publishers: Sequence[loadgen.Publisher]


class _Climb:
    def __init__(self, who: Contestant, seconds: float, retries: int) -> None:
        self.who, self.seconds, self.retries = who, seconds, retries
        self.steps: list[Step] = []
        self.good: Step | None = None
        self.limit: Step | None = None
        self.warmup = 0

    async def _step(self, rate: float) -> Step:
        s = await step(self.who.pids, self.who.clients, self.who.publishers, rate, self.seconds)
        self.steps.append(s)
        return s

    async def warm(self, start_rate: float) -> None:
        self.warmup = await loadgen.pace(self.who.publishers, min(50.0, start_rate), 0.3)  # not measured
        await loadgen.drain(self.who.clients, 10**12, 0, quiet=0.2, limit=1.0)

    async def take(self, rate: float) -> None:
        n = len(self.who.clients)
        s = await self._step(rate)
        for _ in range(self.retries):
            if s.ok or s.alive < n:
                break
            await asyncio.sleep(0.5)  # a failed step is tried again: the machine is shared
            s = await self._step(rate)
        print(f"  {self.who.label} rate={s.rate:>9.1f}/s  "
              f"delivered={s.delivered_fps:>10.0f} fr/s ({s.delivered_ratio:.4f})  "
              f"p50/p99/p99.9={s.p50_ms}/{s.p99_ms}/{s.p999_ms} ms  "
              f"cpu={s.cpu_us_per_frame} µs/fr srv={s.server_cpu_util:.2f} core0={s.server_core_busy:.2f} "
              f"load={s.load_cpu_util:.2f}"
              f"{'' if s.ok else '  FAIL'}", flush=True)
        if s.ok and s.alive == n:
            self.good = s
        else:
            self.limit = s

    async def probe_between(self) -> None:
        """`BISECTIONS` steps halving (geometrically) the gap between the last good and the first bad rate: with
        factor 1.6 the ceiling is then known to within a factor 1.6 ** (1 / 4) = 1.12, not 1.26."""
        last = self.steps[-1] if self.steps else None
        n = len(self.who.clients)
        if self.good is None or last is None or last.ok or last.alive < n:
            return
        low, high = self.good.rate, last.rate
        for _ in range(BISECTIONS):
            s = await self._step(math.sqrt(low * high))
            if s.ok and s.alive == n:
                low = s.rate
                if s.delivered_fps > self.good.delivered_fps:
                    self.good = s
            else:
                high = s.rate

    def result(self) -> dict[str, Any]:
        best = self.good
        return {
            "max_sustainable_fps": best.delivered_fps if best else 0.0,
            "at": asdict(best) if best else None,
            "load_bound": bool(best and best.load_bound),
            "limit_reached": self.limit is not None,
            "events_per_room": self.warmup + sum(s.sent for s in self.steps),
            "steps": [asdict(s) for s in self.steps],
        }


async def ceilings(
    contestants: Sequence[Contestant], start_rate: float, factor: float, max_steps: int, seconds: float,
    retries: int = 1,
) -> list[dict[str, Any]]:
    """Raise the per-room rate from `start_rate` by `factor` until a step fails, then bisect between the last
    good and the first bad rate (`BISECTIONS` steps); every server climbs in lockstep, taking its step at a rate
    in turn (the order reversed from one rate to the next), so that other work on a shared machine falls on all
    of them alike.
    Returns, per contestant, the steps and the best sustainable one."""
    climbs = [_Climb(c, seconds, retries) for c in contestants]
    try:
        for climb in climbs:
            await climb.warm(start_rate)
        for k, rate in enumerate(rates(start_rate, factor, max_steps)):
            going = [c for c in (climbs if k % 2 == 0 else climbs[::-1]) if c.limit is None]
            if not going:
                break
            for climb in going:
                await climb.take(rate)
        for climb in climbs:
            await climb.probe_between()
    finally:
        for c in contestants:
            for p in c.publishers:
                p.close()
    return [climb.result() for climb in climbs]


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


def ours_vs(rows: list[dict[str, Any]], baseline: str) -> dict[str, Any]:
    """Ours ÷ `baseline` from one run's rows (one per server): throughput at the ceiling and CPU per frame there."""
    by = {r["server"]: r for r in rows}
    if "ours" not in by or baseline not in by:
        return {}
    return {
        "throughput": ratio(by["ours"]["max_sustainable_fps"], by[baseline]["max_sustainable_fps"]),
        "cpu_per_frame": ratio(cpu_per_frame(by["ours"]), cpu_per_frame(by[baseline])),
    }


def ours_vs_bare(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return ours_vs(rows, "bare")


def ratio_fields(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """`ratios_ours_vs_<baseline>` for each Python baseline in the run (bare aiohttp, picows, our server at an
    earlier commit: `ours@REF`)."""
    kinds = [r["server"] for r in rows]
    return {f"ratios_ours_vs_{b}": ours_vs(rows, b) for b in ("bare", "picows", *kinds)
            if b in kinds and (b in ("bare", "picows") or b.startswith("ours@"))}
