"""Slow consumers: 2% of the spectators of a busy room stop reading. The healthy ones' p99 should stay within 1.5×
of the same run without them, the server's memory bounded, and the stalled ones cut off within 10 s.

Per server, on the same connections: phase A (everyone reads) for `--without` seconds; phase B (the stalled ones stop
reading) for up to `--limit` seconds or until the server let go of every stalled socket. Beside it, a control
server of the same kind with the same healthy spectators and none stalled is fed at the same time throughout, so
that other work on a shared machine falls on both alike. Reported: healthy p99 in A and B, B ÷ A and B ÷ the
control's p99 over the same seconds, delivered ratio of the healthy, the time from stall to cut-off of each stalled
socket, server RSS growth during B, and the bytes the kernels held for the stalled sockets. Ours against bare
aiohttp (same send-buffer cap).

A cut-off is read from the kernel's table of connections (/proc/net/tcp), sampled every 0.25 s: the server's end
of a stalled connection no longer established, or no longer held by the server process. The stalled client
itself may learn it much later or never: a server that closes a socket whose peer reads nothing leaves its FIN
queued behind the unsent bytes. When the client's kernel learns it (a reset, or the FIN), its end of the
connection leaves the established state: recorded as `client_saw_close_s` (the paused client process itself is
not told: its event loop no longer polls the socket).

    python -m bench.slow [--n 200] [--stalled 0.02] [--rate 50] [--payload turn] [--servers ours,bare]
                         [--without 10] [--limit 30]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from dataclasses import dataclass
from typing import Any

from bench import cli, loadgen, targets
from bench.common import cpu_seconds, percentile, ratio, rss_bytes
from bench.payloads import frame_size, payload

ESTABLISHED = 1
SAMPLE_S = 0.25


class StallWatch:
    """The stalled connections as the kernel has them: when the server let go of each, and the most bytes queued
    at each end (the server's send queue, the client's unread receive queue)."""

    def __init__(self, stalled: list[loadgen.WsClient], server_port: int, stall_at: float) -> None:
        self.stalled, self.port, self.stall_at = stalled, server_port, stall_at
        self.cut: dict[int, float] = {}
        self.client_learnt: dict[int, float] = {}
        self.server_queue = [0] * len(stalled)
        self.client_queue = [0] * len(stalled)
        self.timeline: list[tuple[float, int | None, int | None]] = []  # the first stalled socket: s, server, client

    async def sample(self) -> None:
        """Read in a thread: the kernel takes tens of ms to list a thousand connections, which would otherwise
        stall the load generator's event loop (and show as latency on every server)."""
        ends = await asyncio.to_thread(loadgen.tcp_ends, self.port)
        now = time.perf_counter()
        for i, c in enumerate(self.stalled):
            server_end, client_end = ends.get((self.port, c.local_port)), ends.get((c.local_port, self.port))
            if server_end is not None:
                self.server_queue[i] = max(self.server_queue[i], server_end.send_queue)
            if client_end is not None:
                self.client_queue[i] = max(self.client_queue[i], client_end.receive_queue)
            held = server_end is not None and server_end.state == ESTABLISHED and server_end.inode != 0
            if i == 0 and (held or 0 not in self.cut):
                self.timeline.append((round(now - self.stall_at, 2),
                                      server_end.send_queue if server_end is not None and held else None,
                                      client_end.receive_queue if client_end is not None else None))
            if i not in self.cut and (not held or c.closed_at is not None):
                self.cut[i] = round(now - self.stall_at, 2)
            if i not in self.client_learnt and (client_end is None or client_end.state != ESTABLISHED):
                self.client_learnt[i] = round(now - self.stall_at, 2)

    @property
    def alive(self) -> int:
        return len(self.stalled) - len(self.cut)

    def figures(self) -> dict[str, Any]:
        cut = [self.cut.get(i) for i in range(len(self.stalled))]
        known = [x for x in cut if x is not None]
        return {
            "cut_off_s": cut,
            "all_cut_within_s": max(known) if len(known) == len(cut) else None,
            "client_saw_close_s": [self.client_learnt.get(i) for i in range(len(self.stalled))],
            "stalled_server_send_queue_max_bytes": max(self.server_queue, default=0),
            "stalled_client_receive_queue_max_bytes": max(self.client_queue, default=0),
            "first_stalled_timeline": {"columns": ["s after the stall", "server send queue bytes",
                                                   "client unread bytes"], "rows": self.timeline},
        }


@dataclass
class Side:
    """One server in a phase: its process, the spectators that keep reading, its moderator, and (on the server
    under test, in phase B) the stalled sockets watched."""

    pid: int
    healthy: list[loadgen.WsClient]
    pub: loadgen.Publisher
    watch: StallWatch | None = None


async def phase(sides: list[Side], rate: float, seconds: float) -> list[dict[str, Any]]:
    """Publish at `rate` into every side's room at once for `seconds`, sampling server RSS (and the stalled
    sockets); healthy clients read lazily, then drain. One result per side."""
    everyone = [c for side in sides for c in side.healthy]
    loadgen.take_latencies([c for c in everyone if c.probe])
    bases = [loadgen.frames(side.healthy) for side in sides]
    for c in everyone:
        c.lazy(True)
    rss: list[list[int]] = [[rss_bytes(side.pid)] for side in sides]
    cpu0, t0 = [cpu_seconds(side.pid) for side in sides], time.perf_counter()
    stop = asyncio.Event()

    async def sample() -> None:
        while not stop.is_set():
            for side, samples in zip(sides, rss, strict=True):
                samples.append(rss_bytes(side.pid))
                if side.watch is not None:
                    await side.watch.sample()
            await asyncio.sleep(SAMPLE_S)

    sampler = asyncio.create_task(sample())
    sent = await loadgen.pace([side.pub for side in sides], rate, seconds)
    await loadgen.drain(everyone, sent * len(everyone), sum(bases))
    stop.set()
    await sampler
    wall = time.perf_counter() - t0
    out: list[dict[str, Any]] = []
    for side, base, samples, cpu in zip(sides, bases, rss, cpu0, strict=True):
        got = loadgen.frames(side.healthy) - base
        lat = [x * 1000 for x in loadgen.take_latencies([c for c in side.healthy if c.probe])]
        out.append({
            "sent": sent, "seconds": round(wall, 3),
            "healthy_delivered_ratio": round(got / (sent * len(side.healthy)), 5) if sent else 0.0,
            "p50_ms": round(percentile(lat, 0.5), 3), "p99_ms": round(percentile(lat, 0.99), 3),
            "p999_ms": round(percentile(lat, 0.999), 3), "samples": len(lat),
            "server_cpu_util": round((cpu_seconds(side.pid) - cpu) / wall, 3),
            "rss_start_bytes": samples[0], "rss_max_bytes": max(samples), "rss_end_bytes": samples[-1],
            "stalled_alive": side.watch.alive if side.watch is not None else None,
            "_latencies": lat,
        })
    return out


async def run_server(kind: str, args: argparse.Namespace) -> dict[str, Any]:
    """The server under test, and beside it a control server of the same kind with the same healthy spectators and
    none stalled, fed at the same time: other work on the machine falls on both alike."""
    async with targets.serving(kind, cap=args.cap) as target, targets.serving(kind, cap=args.cap) as control:
        room = target.rooms[0].room
        n_stalled = max(1, round(args.n * args.stalled))
        probes = min(10, max(2, args.n // 10))
        clients = await target.spectators(args.n, probes)
        stalled, healthy = clients[-n_stalled:], clients[:-n_stalled]
        test = Side(target.pid, healthy, await target.publisher(payload(args.payload, room)))
        ctrl = Side(control.pid, await control.spectators(len(healthy), probes),
                    await control.publisher(payload(args.payload, control.rooms[0].room)))
        await loadgen.pace([test.pub, ctrl.pub], args.rate, 0.3)
        await loadgen.drain(clients + ctrl.healthy, 10**12, 0, quiet=0.2, limit=1.0)
        without, control_a = await phase([test, ctrl], args.rate, args.without)
        without.pop("_latencies")
        control_a.pop("_latencies")
        test.watch = watch = StallWatch(stalled, target.port, time.perf_counter())
        for c in stalled:
            c.stall()
        chunks: list[dict[str, Any]] = []
        beside: list[dict[str, Any]] = []
        deadline = watch.stall_at + args.limit
        while time.perf_counter() < deadline:
            chunk, other = await phase([test, ctrl], args.rate, min(args.seconds, deadline - time.perf_counter()))
            chunks.append(chunk)
            beside.append(other)
            if watch.alive == 0:
                break
        with_slow, control_b = _merge(chunks), _merge(beside)
        return {
            "server": kind, "n": args.n, "stalled": n_stalled,
            "frame_bytes": frame_size(args.payload, room),
            "without_slow": without, "with_slow": with_slow,
            "control_during_without": control_a, "control_during_with": control_b,
            "p99_ratio_with_vs_without": ratio(with_slow["p99_ms"], without["p99_ms"]),
            "p99_ratio_with_vs_control": ratio(with_slow["p99_ms"], control_b["p99_ms"]),
            **watch.figures(),
            **_memory(without, with_slow),
        }


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
        "chunks": [{k: c[k] for k in ("seconds", "p99_ms", "healthy_delivered_ratio", "rss_max_bytes", "stalled_alive")}
                   for c in chunks],
    }


def _memory(without: dict[str, Any], with_slow: dict[str, Any]) -> dict[str, Any]:
    """RSS growth in phase B, and the part of it the stalled sockets account for: beyond phase A's own growth rate
    (ours keeps a room's recent events in memory, so it grows with every event until its history is full)."""
    per_s = (without["rss_end_bytes"] - without["rss_start_bytes"]) / without["seconds"]
    growth = with_slow["rss_max_bytes"] - without["rss_end_bytes"]
    return {
        "rss_growth_bytes": growth,
        "rss_growth_without_stalled_per_s": round(per_s),
        "rss_growth_from_stalled_bytes": round(growth - per_s * with_slow["seconds"]),
    }


def table(result: dict[str, Any]) -> str:
    lines = [f"{'server':<6} {'N':>5} {'stalled':>7} {'p99 A':>8} {'p99 B':>8} {'B÷A':>6} {'control B':>9} "
             f"{'B÷ctl':>6} {'healthy':>8} {'cut within s':>12} {'kernel MiB':>10} {'RSS +MiB':>8} "
             f"{'of it stalled':>13}"]
    for r in result["rows"]:
        lines.append(
            f"{r['server']:<6} {r['n']:>5} {r['stalled']:>7} {r['without_slow']['p99_ms']:>8.2f} "
            f"{r['with_slow']['p99_ms']:>8.2f} {r['p99_ratio_with_vs_without']!s:>6} "
            f"{r['control_during_with']['p99_ms']:>9.2f} {r['p99_ratio_with_vs_control']!s:>6} "
            f"{r['with_slow']['healthy_delivered_ratio']:>8.4f} {r['all_cut_within_s']!s:>12} "
            f"{r['stalled_server_send_queue_max_bytes'] / 2**20:>10.1f} {r['rss_growth_bytes'] / 2**20:>8.1f} "
            f"{r['rss_growth_from_stalled_bytes'] / 2**20:>13.1f}"
        )
    return "\n".join(lines)


async def amain(args: argparse.Namespace) -> dict[str, Any]:
    rows = [await run_server(kind, args) for kind in cli.servers(args)]
    return {
        "targets": {"p99_ratio_at_most": 1.5, "cut_off_within_s": 10},
        "settings": cli.settings(args),
        "rows": rows,
    }


def main(argv: list[str] | None = None) -> int:
    p = cli.parser(__doc__, seconds=3.0, seconds_help="each chunk of phase B (cut-offs are looked for between)")
    p.add_argument("--n", type=int, default=200)
    p.add_argument("--stalled", type=float, default=0.02, help="fraction of spectators that stop reading")
    p.add_argument("--rate", type=float, default=50.0, help="events/s into the room")
    p.add_argument("--payload", default="turn", choices=["small", "turn"])
    p.add_argument("--without", type=float, default=10.0, help="phase A (no one stalled)")
    p.add_argument("--limit", type=float, default=30.0, help="longest phase B")
    return cli.main("slow", p.parse_args(argv), amain, table)


if __name__ == "__main__":
    raise SystemExit(main())
