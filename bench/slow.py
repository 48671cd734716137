"""Slow consumers: 2% of the spectators of a busy room stop reading. The healthy ones' p99 should stay within 1.5×
of the same run without them, the server's memory bounded, and the stalled ones cut off within 10 s.

Per server, on the same connections: phase A (everyone reads) for `--seconds`; phase B (the stalled ones stop
reading) for up to `--limit` seconds or until every stalled socket was closed by the server. Reported: healthy
p99 in A and B and their ratio, delivered ratio of the healthy, the time from stall to cut-off of each stalled
socket, server RSS growth during B. Ours against bare aiohttp (same send-buffer cap).

    python -m bench.slow [--n 200] [--stalled 0.02] [--rate 50] [--payload turn] [--servers ours,bare]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path
from typing import Any

from bench import loadgen, targets
from bench.common import cpu_seconds, percentile, pin_self, ratio, rss_bytes, run, write_result
from bench.payloads import frame_size, payload


async def phase(
    pid: int, healthy: list[loadgen.WsClient], stalled: list[loadgen.WsClient], pub: loadgen.Publisher,
    rate: float, seconds: float,
) -> dict[str, Any]:
    """Publish at `rate` for `seconds`, sampling server RSS; healthy clients read lazily, then drain."""
    probes = [c for c in healthy if c.probe]
    loadgen.take_latencies(probes)
    base = loadgen.frames(healthy)
    for c in healthy:
        c.lazy(True)
    rss: list[int] = [rss_bytes(pid)]
    cpu0, t0 = cpu_seconds(pid), time.perf_counter()
    stop = asyncio.Event()

    async def sample() -> None:
        while not stop.is_set():
            rss.append(rss_bytes(pid))
            await asyncio.sleep(0.25)

    sampler = asyncio.create_task(sample())
    sent = await loadgen.pace([pub], rate, seconds)
    got = await loadgen.drain(healthy, sent * len(healthy), base)
    stop.set()
    await sampler
    lat = [x * 1000 for x in loadgen.take_latencies(probes)]
    wall = time.perf_counter() - t0
    return {
        "sent": sent, "seconds": round(wall, 3),
        "healthy_delivered_ratio": round(got / (sent * len(healthy)), 5) if sent else 0.0,
        "p50_ms": round(percentile(lat, 0.5), 3), "p99_ms": round(percentile(lat, 0.99), 3),
        "p999_ms": round(percentile(lat, 0.999), 3), "samples": len(lat),
        "server_cpu_util": round((cpu_seconds(pid) - cpu0) / wall, 3),
        "rss_start_bytes": rss[0], "rss_max_bytes": max(rss), "rss_end_bytes": rss[-1],
        "stalled_alive": sum(1 for c in stalled if c.closed_at is None),
        "_latencies": lat,
    }


async def run_server(kind: str, args: argparse.Namespace) -> dict[str, Any]:
    target = await targets.start(kind, cap=args.cap)
    clients: list[loadgen.WsClient] = []
    try:
        access = target.rooms[0]
        n_stalled = max(1, round(args.n * args.stalled))
        probes = min(10, max(2, args.n // 10))
        plan = [(access.spectator_token, access.room, i < probes) for i in range(args.n)]
        clients = await loadgen.spectators(target.host, target.port, plan)
        stalled, healthy = clients[-n_stalled:], clients[:-n_stalled]
        pub = await loadgen.publisher(target.host, target.port, access.moderator_token, access.room,
                                      payload(args.payload, access.room))
        try:
            await loadgen.pace([pub], args.rate, 0.3)
            await loadgen.drain(clients, 10**12, 0, quiet=0.2, limit=1.0)
            without = await phase(target.pid, healthy, stalled, pub, args.rate, args.seconds)
            without.pop("_latencies")
            stall_at = time.perf_counter()
            for c in stalled:
                c.stall()
            with_slow: dict[str, Any] | None = None
            chunks: list[dict[str, Any]] = []
            deadline = stall_at + args.limit
            while time.perf_counter() < deadline:
                chunk = await phase(target.pid, healthy, stalled, pub, args.rate,
                                    min(args.seconds, deadline - time.perf_counter()))
                chunks.append(chunk)
                if chunk["stalled_alive"] == 0:
                    break
            with_slow = _merge(chunks)
        finally:
            pub.close()
        cut = [round(c.closed_at - stall_at, 2) if c.closed_at is not None else None for c in stalled]
        cut_known = [x for x in cut if x is not None]
        return {
            "server": kind, "n": args.n, "stalled": n_stalled,
            "frame_bytes": frame_size(args.payload, access.room),
            "without_slow": without, "with_slow": with_slow,
            "p99_ratio_with_vs_without": ratio(with_slow["p99_ms"], without["p99_ms"]),
            "cut_off_s": cut,
            "all_cut_within_s": max(cut_known) if len(cut_known) == len(cut) else None,
            "rss_growth_bytes": with_slow["rss_max_bytes"] - without["rss_end_bytes"],
        }
    except Exception:
        print(targets.log_tail(target))
        raise
    finally:
        for c in clients:
            c.close()
        target.stop()


def _merge(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """Phase B may run in several chunks (to notice cut-offs early); its figures are taken over all of them."""
    lat = [x for c in chunks for x in c.pop("_latencies")]
    sent = sum(c["sent"] for c in chunks)
    return {
        "sent": sent, "seconds": round(sum(c["seconds"] for c in chunks), 3),
        "healthy_delivered_ratio": round(
            sum(c["healthy_delivered_ratio"] * c["sent"] for c in chunks) / sent, 5) if sent else 0.0,
        "p50_ms": round(percentile(lat, 0.5), 3), "p99_ms": round(percentile(lat, 0.99), 3),
        "p999_ms": round(percentile(lat, 0.999), 3), "samples": len(lat),
        "server_cpu_util": max(c["server_cpu_util"] for c in chunks),
        "rss_start_bytes": chunks[0]["rss_start_bytes"], "rss_max_bytes": max(c["rss_max_bytes"] for c in chunks),
        "rss_end_bytes": chunks[-1]["rss_end_bytes"], "stalled_alive": chunks[-1]["stalled_alive"],
        "chunks": len(chunks),
    }


def table(result: dict[str, Any]) -> str:
    lines = [f"{'server':<6} {'N':>5} {'stalled':>7} {'p99 A':>8} {'p99 B':>8} {'B÷A':>6} {'healthy':>8} "
             f"{'cut within s':>12} {'RSS +MiB':>8}"]
    for r in result["rows"]:
        lines.append(
            f"{r['server']:<6} {r['n']:>5} {r['stalled']:>7} {r['without_slow']['p99_ms']:>8.2f} "
            f"{r['with_slow']['p99_ms']:>8.2f} {r['p99_ratio_with_vs_without']!s:>6} "
            f"{r['with_slow']['healthy_delivered_ratio']:>8.4f} {r['all_cut_within_s']!s:>12} "
            f"{r['rss_growth_bytes'] / 2**20:>8.1f}"
        )
    return "\n".join(lines)


async def amain(args: argparse.Namespace) -> dict[str, Any]:
    rows = [await run_server(kind, args) for kind in args.servers.split(",") if kind]
    return {
        "targets": {"p99_ratio_at_most": 1.5, "cut_off_within_s": 10},
        "settings": {k: v for k, v in vars(args).items() if k != "out"},
        "rows": rows,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=200)
    p.add_argument("--stalled", type=float, default=0.02, help="fraction of spectators that stop reading")
    p.add_argument("--rate", type=float, default=50.0, help="events/s into the room")
    p.add_argument("--payload", default="turn", choices=["small", "turn"])
    p.add_argument("--servers", default="ours,bare")
    p.add_argument("--seconds", type=float, default=3.0, help="phase A, and each chunk of phase B")
    p.add_argument("--limit", type=float, default=30.0, help="longest phase B")
    p.add_argument("--cap", type=int, default=2 << 20)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    pin_self(1)
    result = run(amain(args))
    print(table(result))
    print("wrote", write_result("slow", result, args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
