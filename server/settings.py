"""Server settings: command-line flags over environment variables over defaults (docs/operating.md)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 8080
    data_dir: str = "data"
    redis_url: str | None = None
    redis_prefix: str = "ks"
    demo: bool = False
    demo_scenario: str = "napoleonic"  # the engine/scenario of the demo campaign (GET /api/engines lists them)
    node: str | None = None
    public_url: str | None = None  # base of the join links (default http://host:port)
    create_token: str | None = None  # when set, POST /api/campaigns needs "Authorization: Bearer <it>"
    fsync: bool = True  # embedded journal: fsync every record (off: survives a process kill, not a power cut)
    client_dir: str = "client_web/dist"

    max_frame_bytes: int = 64 * 1024  # bigger inbound frames close the socket with 1009
    heartbeat_s: float = 20.0  # websocket ping/pong; a silent peer is dropped after it
    ping_interval_s: float = 5.0  # protocol `ping` measuring round trips for lag credit
    hello_timeout_s: float = 10.0  # no good `hello` by then: closed with 4001
    rate_per_s: float = 20.0  # inbound messages per second per connection (token bucket)
    rate_burst: int = 60
    rate_strikes: int = 200  # messages refused for rate before the socket is closed with 1008
    send_buffer_bytes: int = 2 * 1024 * 1024  # more queued and no progress for stall_s: cut off (4008)
    stall_s: float = 1.0
    socket_send_buffer_bytes: int = 128 * 1024  # SO_SNDBUF of websocket sockets (0: the kernel's autotuning)
    drain_timeout_s: float = 5.0  # bytes queued (here or in the kernel) and none read for this long: cut off (4008)
    lease_ms: int = 10_000
    snapshot_every: int = 200
    room_idle_s: float = 600.0  # an owned room unused this long (nobody here, no command, no timer soon) is unloaded


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    return default if value is None else value.lower() in ("1", "true", "yes", "on")


def parse(argv: Sequence[str] | None = None) -> Settings:
    env = os.environ
    p = argparse.ArgumentParser(prog="python -m server", description="Kriegsspiel server")
    p.add_argument("--host", default=env.get("KS_HOST", "127.0.0.1"))
    p.add_argument("--port", type=int, default=int(env.get("KS_PORT", "8080")))
    p.add_argument("--data-dir", default=env.get("KS_DATA_DIR", "data"))
    p.add_argument("--redis-url", default=env.get("REDIS_URL") or None,
                   help="use Redis for bus and store (default: $REDIS_URL; unset = embedded)")
    p.add_argument("--redis-prefix", default=env.get("KS_REDIS_PREFIX", "ks"))
    p.add_argument("--demo", action="store_true", help="create (once) a demo campaign and print its join links")
    p.add_argument("--demo-scenario", default=env.get("KS_DEMO_SCENARIO", "napoleonic"),
                   help="engine or scenario of the demo campaign (napoleonic, drill, continental, ...)")
    p.add_argument("--node", default=env.get("KS_NODE") or None)
    p.add_argument("--public-url", default=env.get("KS_PUBLIC_URL") or None)
    p.add_argument("--no-fsync", action="store_true", default=not _env_bool("KS_FSYNC", True))
    p.add_argument("--max-frame-bytes", type=int, default=int(env.get("KS_MAX_FRAME_BYTES", 64 * 1024)))
    p.add_argument("--rate", type=float, default=float(env.get("KS_RATE", 20.0)))
    p.add_argument("--rate-burst", type=int, default=int(env.get("KS_RATE_BURST", 60)))
    p.add_argument("--send-buffer-bytes", type=int, default=int(env.get("KS_SEND_BUFFER", 2 * 1024 * 1024)))
    p.add_argument("--socket-send-buffer", type=int, default=int(env.get("KS_SOCKET_SEND_BUFFER", 128 * 1024)),
                   help="SO_SNDBUF of websocket sockets in bytes (0 leaves the kernel's autotuning)")
    p.add_argument("--drain-timeout", type=float, default=float(env.get("KS_DRAIN_TIMEOUT", 5.0)),
                   help="seconds a socket may have bytes queued without its peer reading any before it is cut off")
    p.add_argument("--heartbeat", type=float, default=float(env.get("KS_HEARTBEAT", 20.0)))
    p.add_argument("--ping-interval", type=float, default=float(env.get("KS_PING_INTERVAL", 5.0)))
    p.add_argument("--lease-ms", type=int, default=int(env.get("KS_LEASE_MS", 10_000)))
    p.add_argument("--room-idle-s", type=float, default=float(env.get("KS_ROOM_IDLE_S", 600.0)),
                   help="unload an owned room after this many idle seconds (0: never)")
    p.add_argument("--client-dir", default=env.get("KS_CLIENT_DIR", "client_web/dist"))
    a = p.parse_args(argv)
    return Settings(
        host=a.host, port=a.port, data_dir=a.data_dir, redis_url=a.redis_url, redis_prefix=a.redis_prefix,
        demo=a.demo, demo_scenario=a.demo_scenario, node=a.node, public_url=a.public_url,
        create_token=env.get("KS_CREATE_TOKEN") or None,
        fsync=not a.no_fsync, client_dir=a.client_dir, max_frame_bytes=a.max_frame_bytes, heartbeat_s=a.heartbeat,
        ping_interval_s=a.ping_interval, rate_per_s=a.rate, rate_burst=a.rate_burst,
        send_buffer_bytes=a.send_buffer_bytes, lease_ms=a.lease_ms, socket_send_buffer_bytes=a.socket_send_buffer,
        drain_timeout_s=a.drain_timeout, room_idle_s=a.room_idle_s,
    )
