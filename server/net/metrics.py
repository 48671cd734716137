"""Counters for /metrics, written in the Prometheus text exposition format (version 0.0.4) by hand: a handful of
counters, gauges and one histogram do not justify a dependency."""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Mapping

LATENCY_BUCKETS_MS = (0.5, 1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500)


class Metrics:
    def __init__(self) -> None:
        self.connections = 0
        self.connections_total = 0
        self.messages_in: Counter[str] = Counter()
        self.messages_out = 0
        self.bytes_out = 0
        self.errors: Counter[str] = Counter()
        self.closes: Counter[int] = Counter()
        self._buckets = [0] * (len(LATENCY_BUCKETS_MS) + 1)
        self._latency_sum = 0.0
        self._latency_count = 0

    def observe_command(self, ms: float) -> None:
        self._buckets[bisect_left(LATENCY_BUCKETS_MS, ms)] += 1
        self._latency_sum += ms
        self._latency_count += 1

    def render(self, *, rooms_owned: int, rooms_followed: int, sessions_by_role: Mapping[str, int],
               rooms_unloaded: int = 0, fanout_frames: int = 0, view_frames: int = 0, socket_writes: int = 0) -> str:
        out: list[str] = []

        def metric(name: str, kind: str, help_: str, samples: list[tuple[str, float]]) -> None:
            out.append(f"# HELP {name} {help_}")
            out.append(f"# TYPE {name} {kind}")
            out.extend(f"{name}{labels} {value:g}" for labels, value in samples)

        metric("ks_connections", "gauge", "Open websocket connections.", [("", self.connections)])
        metric("ks_connections_total", "counter", "Websocket connections accepted.", [("", self.connections_total)])
        metric("ks_sessions", "gauge", "Authenticated room subscriptions by role.",
               [(f'{{role="{r}"}}', n) for r, n in sorted(sessions_by_role.items())] or [('{role="player"}', 0)])
        metric("ks_rooms_owned", "gauge", "Rooms this node owns (holds the lease of).", [("", rooms_owned)])
        metric("ks_rooms_followed", "gauge", "Rooms with a local feed on this node.", [("", rooms_followed)])
        metric("ks_rooms_unloaded_total", "counter", "Owned rooms unloaded after being idle (--room-idle-s).",
               [("", rooms_unloaded)])
        metric("ks_messages_in_total", "counter", "Client messages received, by type.",
               [(f'{{type="{t}"}}', n) for t, n in sorted(self.messages_in.items())] or [('{type="hello"}', 0)])
        metric("ks_messages_out_total", "counter", "Frames written to clients: answers and room events.",
               [('{path="direct"}', self.messages_out), ('{path="fanout"}', fanout_frames)])
        metric("ks_views_out_total", "counter", "`view` frames written to clients (part of the fan-out).",
               [("", view_frames)])
        metric("ks_socket_writes_total", "counter",
               "Writes to client sockets; each carries every frame of one turn of the event loop for its socket.",
               [("", socket_writes)])
        metric("ks_bytes_out_total", "counter", "Bytes of answers, snapshots and pings written to clients.",
               [("", self.bytes_out)])
        metric("ks_errors_total", "counter", "Typed errors answered, by code.",
               [(f'{{code="{c}"}}', n) for c, n in sorted(self.errors.items())] or [('{code="internal"}', 0)])
        metric("ks_closes_total", "counter", "Connections closed by the server, by close code.",
               [(f'{{code="{c}"}}', n) for c, n in sorted(self.closes.items())] or [('{code="1000"}', 0)])
        out.append("# HELP ks_command_latency_ms Time from a command's arrival to its ack (durable), milliseconds.")
        out.append("# TYPE ks_command_latency_ms histogram")
        cumulative = 0
        for bound, n in zip((*LATENCY_BUCKETS_MS, float("inf")), self._buckets, strict=True):
            cumulative += n
            le = "+Inf" if bound == float("inf") else f"{bound:g}"
            out.append(f'ks_command_latency_ms_bucket{{le="{le}"}} {cumulative}')
        out.append(f"ks_command_latency_ms_sum {self._latency_sum:g}")
        out.append(f"ks_command_latency_ms_count {self._latency_count}")
        return "\n".join(out) + "\n"
