"""Fan-out ceiling: one room, N spectators, a rising event rate, our server against bare aiohttp and Node `ws`.

For each N and payload (128 B; the recorded few-KB turn result) the offered event rate rises by `--factor` per
step (every server sees the same series) until fewer than 99.9% of frames arrive or p99 passes 100 ms; one more
step then probes between the last good and the first bad rate. A failed step is run once more before it counts
(the machine is shared; another process's burst should not end a series). Reported per server: the highest sustainable
delivered frames/s, p50/p99/p99.9 end-to-end latency there, server CPU µs per delivered frame, RSS per connection;
and the ratios ours ÷ baseline. The server runs pinned to core 0, this process (the load) to core 1; the load
generator's own CPU use is reported for every step, and a step where it passed 90% is marked `load_bound`.

    python -m bench.fanout [--n 50,200,1000] [--payloads small,turn] [--servers ours,bare,node] [--seconds 2]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench import loadgen, targets
from bench.common import (
    core_ticks,
    cpu_seconds,
    percentile,
    pin_self,
    ratio,
    rss_bytes,
    run,
    self_cpu_seconds,
    write_result,
)
from bench.payloads import frame_size, payload

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


async def run_server(
    kind: str, n: int, payloads: list[str], args: argparse.Namespace,
) -> dict[str, Any]:
    target = await targets.start(kind, cap=args.cap)
    clients: list[loadgen.WsClient] = []
    try:
        idle = rss_bytes(target.pid)
        access = target.rooms[0]
        probes = min(args.probes, max(2, n // 5))
        clients = await loadgen.spectators(
            target.host, target.port, [(access.spectator_token, access.room, i < probes) for i in range(n)]
        )
        await asyncio.sleep(0.2)
        connected = rss_bytes(target.pid)
        out: dict[str, Any] = {
            "server": kind, "n": n, "rss_idle_bytes": idle,
            "rss_per_conn_bytes": round((connected - idle) / n), "by_payload": {},
        }
        for name in payloads:
            data = payload(name, access.room)
            pub = await loadgen.publisher(target.host, target.port, access.moderator_token, access.room, data)
            out["by_payload"][name] = {
                "payload": name,
                "frame_bytes": frame_size(name, access.room),
                **await ceiling(
                    f"{kind:<5} N={n:<5} {name:<5}", [target.pid], clients, [pub], args.start_fps / n, args.factor,
                    args.max_steps, args.seconds, args.retries,
                ),
            }
        out["rss_per_conn_after_load_bytes"] = round((rss_bytes(target.pid) - idle) / n)
        return out
    except Exception:
        print(targets.log_tail(target))
        raise
    finally:
        for c in clients:
            c.close()
        target.stop()


def cpu_per_frame(result: dict[str, Any]) -> float:
    """CPU µs per frame at a ceiling's best step, or at its failed first step when none passed."""
    step = result["at"] or (result["steps"][-1] if result["steps"] else {})
    return float(step.get("cpu_us_per_frame", 0))


def compare(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Ours ÷ each baseline, per N and payload: throughput, CPU per frame, p99 at the highest common rate, memory."""
    out: list[dict[str, Any]] = []
    by = {(r["server"], r["n"]): r for r in rows}
    for (kind, n), ours in by.items():
        if kind != "ours":
            continue
        for base_kind in ("bare", "node"):
            base = by.get((base_kind, n))
            if base is None:
                continue
            for name, mine in ours["by_payload"].items():
                theirs = base["by_payload"].get(name)
                if theirs is None:
                    continue
                common = _common_step(mine["steps"], theirs["steps"])
                out.append({
                    "n": n, "payload": name, "baseline": base_kind,
                    "throughput": ratio(mine["max_sustainable_fps"], theirs["max_sustainable_fps"]),
                    "cpu_per_frame": ratio(cpu_per_frame(mine), cpu_per_frame(theirs)),
                    "p99_at_common_rate_ms": common,
                    "rss_per_conn_delta_bytes": ours["rss_per_conn_bytes"] - base["rss_per_conn_bytes"],
                })
    return out


def _common_step(mine: list[dict[str, Any]], theirs: list[dict[str, Any]]) -> dict[str, Any] | None:
    ok_m = {s["rate"]: s for s in mine if s["delivered_ratio"] >= LOSS_LIMIT and s["p99_ms"] <= P99_LIMIT_MS}
    ok_t = {s["rate"]: s for s in theirs if s["delivered_ratio"] >= LOSS_LIMIT and s["p99_ms"] <= P99_LIMIT_MS}
    common = sorted(set(ok_m) & set(ok_t))
    if not common:
        return None
    rate = common[-1]
    return {"rate": rate, "ours": ok_m[rate]["p99_ms"], "baseline": ok_t[rate]["p99_ms"]}


def table(result: dict[str, Any]) -> str:
    lines = [f"{'server':<6} {'N':>5} {'payload':<7} {'max fr/s':>10} {'p50':>7} {'p99':>7} {'p99.9':>7} "
             f"{'µs/fr':>7} {'KiB/conn':>8} {'load':>5}"]
    for r in result["rows"]:
        for name, p in r["by_payload"].items():
            at = p["at"] or {}
            lines.append(
                f"{r['server']:<6} {r['n']:>5} {name:<7} {p['max_sustainable_fps']:>10.0f} "
                f"{at.get('p50_ms', float('nan')):>7.2f} {at.get('p99_ms', float('nan')):>7.2f} "
                f"{at.get('p999_ms', float('nan')):>7.2f} {at.get('cpu_us_per_frame', float('nan')):>7.2f} "
                f"{r['rss_per_conn_bytes'] / 1024:>8.1f} {at.get('load_cpu_util', float('nan')):>5.2f}"
                + ("" if p["limit_reached"] else "  (limit not reached)")
            )
    for c in result["ratios"]:
        lines.append(
            f"ours÷{c['baseline']:<4} N={c['n']:<5} {c['payload']:<5} throughput {c['throughput']}  "
            f"cpu/frame {c['cpu_per_frame']}  p99@common {c['p99_at_common_rate_ms']}  "
            f"mem/conn {c['rss_per_conn_delta_bytes']:+d} B"
        )
    return "\n".join(lines)


async def amain(args: argparse.Namespace) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    servers = [s for s in args.servers.split(",") if s]
    if "node" in servers and not targets.node_ready():
        print("skipping node: run `npm ci` in bench/node first")
        servers.remove("node")
    for n in (int(x) for x in args.n.split(",")):
        for kind in servers:
            rows.append(await run_server(kind, n, args.payloads.split(","), args))
    return {
        "criteria": {"delivered_at_least": LOSS_LIMIT, "p99_ms_at_most": P99_LIMIT_MS},
        "settings": {k: v for k, v in vars(args).items() if k != "out"},
        "rows": rows,
        "ratios": compare(rows),
    }


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", default="50,200,1000", help="spectator counts, comma-separated")
    p.add_argument("--payloads", default="small,turn")
    p.add_argument("--servers", default=",".join(targets.KINDS))
    p.add_argument("--seconds", type=float, default=2.0, help="length of each rate step")
    p.add_argument("--start-fps", type=float, default=4000.0, help="delivered frames/s offered at the first step")
    p.add_argument("--factor", type=float, default=1.6)
    p.add_argument("--max-steps", type=int, default=12)
    p.add_argument("--retries", type=int, default=1, help="a failed step is run again this many times")
    p.add_argument("--probes", type=int, default=10, help="spectators that parse frames and measure latency")
    p.add_argument("--cap", type=int, default=2 << 20, help="send-buffer cap per socket, every server")
    p.add_argument("--out", type=Path, default=None)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    pin_self(1)
    result = run(amain(args))
    print(table(result))
    print("wrote", write_result("fanout", result, args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
