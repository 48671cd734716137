"""/metrics in the Prometheus text format, written by prometheus-client.

The hot paths count into plain ints and Counters (a `+= 1` per frame, no lock); a collector turns them into
metric families when Prometheus scrapes, and the client library writes the exposition (escaping, `_total` and
histogram conventions), together with its process collector (memory, CPU, open files)."""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Protocol

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, ProcessCollector, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector

from server.net.outbox import Outbox
from server.rooms.hub import Hub

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

    def families(self, *, rooms_owned: int, rooms_followed: int, sessions_by_role: Mapping[str, int],
                 rooms_unloaded: int = 0, fanout_frames: int = 0, view_frames: int = 0,
                 socket_writes: int = 0, write_interval_s: float = 0.0, store_up: bool = True,
                 store_down_s: float = 0.0, store_outages: int = 0, store_flushes: int = 0,
                 store_appends: int = 0) -> Iterator[Metric]:
        def gauge(name: str, help_: str, value: float) -> GaugeMetricFamily:
            return GaugeMetricFamily(name, help_, value=value)

        def counter(name: str, help_: str, value: float) -> CounterMetricFamily:
            return CounterMetricFamily(name, help_, value=value)

        def labelled(family: GaugeMetricFamily | CounterMetricFamily, samples: Mapping[str, float],
                     empty: str) -> GaugeMetricFamily | CounterMetricFamily:
            for label, n in sorted(samples.items()) or [(empty, 0)]:  # one zero sample: the series exists at once
                family.add_metric([label], n)
            return family

        yield gauge("ks_store_up", "1 while the store (Redis) answers this node, 0 while it is out of reach "
                    "(commands are refused as unavailable meanwhile).", 1 if store_up else 0)
        yield gauge("ks_store_down_seconds", "How long the store has been out of reach (0 while it answers).",
                    store_down_s)
        yield counter("ks_store_outages_total", "Times this node lost its store since it started.", store_outages)
        yield counter("ks_store_appends_total", "Commands made durable (fsync on, or Redis).", store_appends)
        yield counter("ks_store_flushes_total", "Fsyncs (embedded) or pipelined round trips (Redis) that made them "
                      "durable: appends ÷ flushes is the mean group of group commit.", store_flushes)
        yield gauge("ks_connections", "Open websocket connections.", self.connections)
        yield counter("ks_connections_total", "Websocket connections accepted.", self.connections_total)
        yield labelled(GaugeMetricFamily("ks_sessions", "Authenticated room subscriptions by role.",
                                         labels=["role"]), sessions_by_role, "player")
        yield gauge("ks_rooms_owned", "Rooms this node owns (holds the lease of).", rooms_owned)
        yield gauge("ks_rooms_followed", "Rooms with a local feed on this node.", rooms_followed)
        yield counter("ks_rooms_unloaded_total", "Owned rooms unloaded after being idle (--room-idle-s).",
                      rooms_unloaded)
        yield labelled(CounterMetricFamily("ks_messages_in_total", "Client messages received, by type.",
                                           labels=["type"]), self.messages_in, "hello")
        yield labelled(CounterMetricFamily("ks_messages_out_total", "Frames written to clients: answers and room "
                                           "events.", labels=["path"]),
                       {"direct": self.messages_out, "fanout": fanout_frames}, "direct")
        yield counter("ks_views_out_total", "`view` frames written to clients (part of the fan-out).", view_frames)
        yield counter("ks_socket_writes_total", "Writes to client sockets; each carries every frame of one turn of "
                      "the event loop for its socket, or of the write interval.", socket_writes)
        yield gauge("ks_write_interval_seconds", "How long a busy socket's broadcast frames wait now (grows as the "
                    "node nears a whole core busy; --write-interval-ms).", write_interval_s)
        yield counter("ks_bytes_out_total", "Bytes of answers, snapshots and pings written to clients.",
                      self.bytes_out)
        yield labelled(CounterMetricFamily("ks_errors_total", "Typed errors answered, by code.", labels=["code"]),
                       self.errors, "internal")
        yield labelled(CounterMetricFamily("ks_closes_total", "Connections closed by the server, by close code.",
                                           labels=["code"]), {str(c): n for c, n in self.closes.items()}, "1000")
        cumulative, buckets = 0, []
        for bound, n in zip((*LATENCY_BUCKETS_MS, float("inf")), self._buckets, strict=True):
            cumulative += n
            buckets.append(("+Inf" if bound == float("inf") else f"{bound:g}", cumulative))
        yield HistogramMetricFamily("ks_command_latency_ms", "Time from a command's arrival to its ack (durable), "
                                    "milliseconds.", buckets=buckets, sum_value=self._latency_sum)


class Node(Protocol):
    """What the collector reads of a node (server/net/node.py)."""

    hub: Hub
    metrics: Metrics
    outbox: Outbox


class _NodeCollector(Collector):
    def __init__(self, node: Node):
        self.node = node

    def collect(self) -> Iterator[Metric]:
        node = self.node
        hub = node.hub
        roles: Counter[str] = Counter()
        for feed in hub.feeds.values():
            roles.update(feed.counts())
        commits = getattr(hub.store.log, "commits", None)  # group commit (server/store/batch.py), when durable
        return node.metrics.families(
            store_flushes=commits.groups if commits is not None else 0,
            store_appends=commits.writes if commits is not None else 0,
            rooms_owned=len(hub.rooms), rooms_followed=len(hub.feeds), rooms_unloaded=hub.unloaded,
            sessions_by_role=roles, fanout_frames=sum(feed.frames_out for feed in hub.feeds.values()),
            view_frames=sum(feed.views_out for feed in hub.feeds.values()), socket_writes=node.outbox.writes,
            write_interval_s=node.outbox.interval,
            store_up=hub.ownership.reach.ok, store_down_s=round(hub.ownership.reach.down_s(), 3),
            store_outages=hub.ownership.reach.outages)


def registry_of(node: Node) -> CollectorRegistry:
    """This node's registry: its own counters and the process's (one registry per node, not the global one, so
    that several apps in one process — the tests — do not share counters)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_NodeCollector(node))
    ProcessCollector(registry=registry)
    return registry


def metrics_response(registry: CollectorRegistry) -> web.Response:
    return web.Response(body=generate_latest(registry), headers={"Content-Type": CONTENT_TYPE_LATEST})
