"""Server settings: command-line flags over environment variables over defaults (docs/operating.md)."""

from __future__ import annotations

import argparse
import ipaddress
import os
import socket
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import urlsplit, urlunsplit


@dataclass(frozen=True, slots=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 8080
    data_dir: str = "data"
    redis_url: str | None = None
    redis_prefix: str = "ks"
    redis_wait_s: float = 0.0  # at start, how long to wait for an unreachable Redis before giving up (0: at once)
    demo: bool = False
    demo_scenario: str = "napoleonic"  # the engine/scenario of the demo campaign (GET /api/engines lists them)
    node: str | None = None
    public_url: str | None = None  # base of the join links (default http://host:port)
    create_token: str | None = None  # when set, POST /api/campaigns needs "Authorization: Bearer <it>"
    fsync: bool = True  # embedded journal: fsync every record (off: survives a process kill, not a power cut)
    group_commit: bool = True  # appends of many rooms in the same moment share one fsync / one Redis round trip
    client_dir: str = "client_web/dist"
    metrics_port: int | None = None  # serve /metrics on this port only (not on the public one)
    shutdown_timeout_s: float = 10.0  # at shutdown: how long requests and sockets get to finish
    debug: bool = False  # tracebacks instead of one-line errors, debug logging
    create_per_hour: float = 30.0  # campaigns created per client address and hour (0: no limit; loopback: none)
    create_burst: int = 10  # ... and at once
    trusted_proxies: tuple[str, ...] = ()  # networks whose X-Forwarded-For names the client (server/net/limits.py)
    max_body_bytes: int = 256 * 1024  # larger HTTP request bodies are refused (413)
    archive_dir: str = "data/archive"  # where archived campaigns' export files go (admin archive, retention)
    retention_days: float = 0.0  # archive campaigns over and idle this many days, every retention_every_s (0: off)
    retention_every_s: float = 3600.0

    max_frame_bytes: int = 64 * 1024  # bigger inbound frames close the socket with 1009
    heartbeat_s: float = 20.0  # websocket ping/pong; a silent peer is dropped after it
    ping_interval_s: float = 5.0  # protocol `ping` measuring round trips for lag credit
    hello_timeout_s: float = 10.0  # no good `hello` by then: closed with 4001
    rate_per_s: float = 20.0  # inbound messages per second per connection (token bucket)
    rate_burst: int = 60
    rate_strikes: int = 200  # messages refused for rate before the socket is closed with 1008
    token_rate_per_s: float = 0.0  # inbound messages per second per token, all its connections (0: = rate_per_s)
    token_burst: int = 0  # (0: = rate_burst)
    address_rate_per_s: float = 0.0  # per client address, all its connections (0: 5 x rate_per_s)
    address_burst: int = 0  # (0: 5 x rate_burst)
    max_connections_per_address: int = 64  # websockets open at once from one client address (0: no cap)
    send_buffer_bytes: int = 2 * 1024 * 1024  # more queued and no progress for stall_s: cut off (4008)
    stall_s: float = 1.0
    socket_send_buffer_bytes: int = 128 * 1024  # SO_SNDBUF of websocket sockets (0: the kernel's autotuning)
    write_interval_ms: float = 40.0  # on a busy node a socket's broadcast frames leave at most this often (outbox.py)
    write_interval_busy: float = 0.8  # ... as often as keeps the node under this share of a core (0: always)
    drain_timeout_s: float = 5.0  # bytes queued (here or in the kernel) and none read for this long: cut off (4008)
    lease_ms: int = 2_000
    snapshot_every: int = 200
    room_idle_s: float = 600.0  # an owned room unused this long (nobody here, no command, no timer soon) is unloaded
    open_journals: int | None = None  # embedded journal files held open at once (None: 1024, at most a quarter of
    # the process's file limit)


def redacted(url: str) -> str:
    """`url` with its password (if any) replaced by ***: safe to print or log."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


def join_link(public_url: str, token: str) -> str:
    """A join link: the token rides in the URL fragment, which browsers never send to a server."""
    return f"{public_url.rstrip('/')}/#token={token}"


def default_client_dir() -> str:
    """The built web client: beside the installed package (a source checkout or an editable install), else under
    the working directory; the first that holds index.html, else the package's one (the 'not built' page)."""
    beside_package = Path(__file__).resolve().parent.parent / "client_web" / "dist"
    for candidate in (beside_package, Path.cwd() / "client_web" / "dist"):
        if (candidate / "index.html").is_file():
            return str(candidate)
    return str(beside_package)


def public_url_for(host: str, port: int) -> str:
    """The default base of the join links: the listening address, or this machine's name when it listens on every
    interface (0.0.0.0 is not an address a browser elsewhere can open)."""
    if host in ("", "0.0.0.0", "::"):
        host = socket.gethostname()
    elif ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}"


def _port(value: str) -> int:
    port = int(value)
    if not 0 <= port <= 65535:
        raise ValueError(value)
    return port


def _positive(kind: type[int] | type[float]) -> Callable[[str], Any]:
    def check(value: str) -> Any:
        number = kind(value)
        if number < 0:
            raise ValueError(value)
        return number

    check.__name__ = {int: "non-negative integer", float: "non-negative number"}[kind]
    return check


def _networks(value: str) -> tuple[str, ...]:
    nets = tuple(part.strip() for part in value.split(",") if part.strip())
    for net in nets:
        ipaddress.ip_network(net, strict=False)  # ValueError: not a network
    return nets


_port.__name__ = "port (0-65535)"
_networks.__name__ = "list of networks (10.0.0.0/8,fd00::/8)"


class _Help(argparse.HelpFormatter):
    """Every flag's help ends with its default, unless the help says itself what happens when it is not set."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "default" not in text and action.default not in (None, argparse.SUPPRESS):
            text += " (default: %(default)s)"
        return text


def _on(env: Mapping[str, str], name: str, default: bool = False) -> bool:
    value = env.get(name, "")
    return default if value == "" else value.lower() in ("1", "true", "yes", "on")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """One line saying what is wrong and where to look, exit status 2 (argparse's own usage block is long)."""
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def _parser(env: Mapping[str, str]) -> _Parser:
    p = _Parser(prog="python -m server", description="Kriegsspiel server: campaigns, battle rooms, the moderator. "
                "Every flag can also be set by the environment variable named in its help (the flag wins); "
                "KS_CREATE_TOKEN (environment only) makes creating a campaign need 'Authorization: Bearer <it>'.",
                formatter_class=_Help)

    def flag(name: str, var: str | None, default: Any, kind: Callable[[str], Any], help_: str) -> None:
        text = help_ + (f" [env {var}]" if var else "")
        raw = env.get(var) if var else None
        if raw is not None and raw != "":
            try:
                default = kind(raw)
            except ValueError:
                p.error(f"{var}={raw!r} is not a valid {getattr(kind, '__name__', 'value')} (for {name})")
        p.add_argument(name, type=kind, default=default, help=text)

    flag("--host", "KS_HOST", "127.0.0.1", str, "address to listen on (0.0.0.0: every interface)")
    flag("--port", "KS_PORT", 8080, _port, "port to listen on")
    flag("--public-url", "KS_PUBLIC_URL", None, str,
         "base of the join links the server prints and returns (default: http://<host>:<port>); behind a proxy, "
         "the address players open")
    flag("--data-dir", "KS_DATA_DIR", "data", str, "embedded store's directory (and the demo's links file)")
    flag("--redis-url", "REDIS_URL", None, str, "use Redis for the store and the bus (unset: embedded store)")
    flag("--redis-prefix", "KS_REDIS_PREFIX", "ks", str, "namespace of every Redis key and channel")
    flag("--redis-wait", "KS_REDIS_WAIT", 0.0, _positive(float),
         "at start, seconds to wait for an unreachable Redis, asking again with back-off, before giving up with "
         "one line (0: give up at once); once started, a node never exits for Redis")
    flag("--archive-dir", "KS_ARCHIVE_DIR", None, str,
         "where archived campaigns' export files go (admin archive, retention; default: <data-dir>/archive)")
    flag("--retention-days", "KS_RETENTION_DAYS", 0.0, _positive(float),
         "archive campaigns whose game is over and that nobody used for this many days (0: never)")
    flag("--retention-every", "KS_RETENTION_EVERY", 3600.0, _positive(float),
         "seconds between the server's retention rounds (with --retention-days)")
    flag("--node", "KS_NODE", None, str, "this node's name for leases and forwarded commands (default: random)")
    flag("--metrics-port", "KS_METRICS_PORT", None, _port,
         "serve /metrics on this port only, not on the public one (default: on the public port)")
    flag("--demo-scenario", "KS_DEMO_SCENARIO", "napoleonic", str,
         "engine or scenario of the demo campaign (napoleonic, drill, continental, ...)")
    p.add_argument("--demo", action="store_true", default=_on(env, "KS_DEMO"),
                   help="create (once) a demo campaign and print its join links [env KS_DEMO=1]")
    p.add_argument("--no-fsync", action="store_true", default=not _on(env, "KS_FSYNC", True),
                   help="embedded journal without fsync: survives a killed process, not a power cut [env KS_FSYNC=0]")
    p.add_argument("--no-group-commit", action="store_true", default=not _on(env, "KS_GROUP_COMMIT", True),
                   help="make each command durable on its own (one fsync, or one Redis round trip, per command) "
                        "instead of sharing one with the other rooms' commands of the same moment "
                        "[env KS_GROUP_COMMIT=0]")
    flag("--max-frame-bytes", "KS_MAX_FRAME_BYTES", 64 * 1024, _positive(int),
         "larger inbound websocket frames close the socket (1009)")
    flag("--rate", "KS_RATE", 20.0, _positive(float), "inbound messages per second per connection (token bucket)")
    flag("--rate-burst", "KS_RATE_BURST", 60, _positive(int), "burst of the per-connection token bucket")
    flag("--token-rate", "KS_TOKEN_RATE", 0.0, _positive(float),
         "inbound messages per second per token over all its connections (0: as --rate)")
    flag("--token-burst", "KS_TOKEN_BURST", 0, _positive(int), "burst of the per-token bucket (0: as --rate-burst)")
    flag("--address-burst", "KS_ADDRESS_BURST", 0, _positive(int),
         "burst of the per-address bucket (0: 5 x --rate-burst)")
    flag("--address-rate", "KS_ADDRESS_RATE", 0.0, _positive(float),
         "inbound messages per second per client address over all its connections (0: 5 x --rate; loopback "
         "addresses are not limited)")
    flag("--max-connections-per-address", "KS_MAX_CONNECTIONS_PER_ADDRESS", 64, _positive(int),
         "websockets one client address may hold open at once (0: no cap; loopback addresses are not capped)")
    flag("--send-buffer-bytes", "KS_SEND_BUFFER", 2 * 1024 * 1024, _positive(int),
         "per-socket outbound queue; over it with no progress the socket is closed (4008)")
    flag("--socket-send-buffer", "KS_SOCKET_SEND_BUFFER", 128 * 1024, _positive(int),
         "SO_SNDBUF of websocket sockets in bytes (0 leaves the kernel's autotuning)")
    flag("--write-interval-ms", "KS_WRITE_INTERVAL_MS", 40.0, _positive(float),
         "on a busy node, a socket's broadcast frames (events, views) leave at most once per this many milliseconds, "
         "the first after a quiet spell at once; answers to its own messages never wait (0: every turn of the event "
         "loop)")
    flag("--write-interval-busy", "KS_WRITE_INTERVAL_BUSY", 0.8, float,
         "the share of a CPU core the node keeps under by holding busy sockets' frames: none held while it uses "
         "less, up to --write-interval-ms while it uses more (0: always the whole interval)")
    flag("--drain-timeout", "KS_DRAIN_TIMEOUT", 5.0, _positive(float),
         "seconds a socket may have bytes queued without its peer reading any before it is cut off (4008)")
    flag("--heartbeat", "KS_HEARTBEAT", 20.0, _positive(float), "websocket ping interval in seconds; a silent "
         "peer is dropped (a proxy's idle timeout must be longer)")
    flag("--ping-interval", "KS_PING_INTERVAL", 5.0, _positive(float),
         "seconds between protocol pings measuring each connection's round trip (lag credit)")
    flag("--lease-ms", "KS_LEASE_MS", 2_000, _positive(int),
         "room lease time-to-live under Redis in milliseconds (a dead owner's rooms move after about this long; "
         "renewed every half second)")
    flag("--room-idle-s", "KS_ROOM_IDLE_S", 600.0, _positive(float),
         "unload an owned room after this many idle seconds (0: never)")
    flag("--open-journals", "KS_OPEN_JOURNALS", None, _positive(int),
         "embedded store: journal files held open at once; the least recently written beyond it are closed and "
         "opened again at their next write (default: 1024, at most a quarter of the process's file limit)")
    flag("--shutdown-timeout", "KS_SHUTDOWN_TIMEOUT", 10.0, _positive(float),
         "at shutdown, seconds open requests and sockets get to finish")
    flag("--create-per-hour", "KS_CREATE_PER_HOUR", 30.0, _positive(float),
         "campaigns one client address may create per hour (0: no limit; loopback addresses are not limited)")
    flag("--create-burst", "KS_CREATE_BURST", 10, _positive(int), "campaigns one client address may create at once")
    flag("--trusted-proxies", "KS_TRUSTED_PROXIES", (), _networks,
         "comma-separated networks of your reverse proxies (10.0.0.0/8,...): their X-Forwarded-For names the "
         "client whose campaign creation is limited (default: none, the peer is the client)")
    flag("--max-body-bytes", "KS_MAX_BODY_BYTES", 256 * 1024, _positive(int),
         "larger HTTP request bodies are refused with 413")
    flag("--client-dir", "KS_CLIENT_DIR", None, str,
         "the built web client (default: client_web/dist beside the installed package, else under the current "
         "directory)")
    p.add_argument("--debug", action="store_true", default=_on(env, "KS_DEBUG"),
                   help="show tracebacks instead of one-line errors, and debug logging [env KS_DEBUG=1]")
    return p


def parse(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> Settings:
    env = os.environ if env is None else env
    a = _parser(env).parse_args(sys.argv[1:] if argv is None else argv)
    return Settings(
        host=a.host, port=a.port, data_dir=a.data_dir, redis_url=a.redis_url or None, redis_prefix=a.redis_prefix,
        redis_wait_s=a.redis_wait,
        demo=a.demo, demo_scenario=a.demo_scenario, node=a.node or None,
        public_url=(a.public_url or public_url_for(a.host, a.port)).rstrip("/"),
        create_token=env.get("KS_CREATE_TOKEN") or None, metrics_port=a.metrics_port,
        shutdown_timeout_s=a.shutdown_timeout, debug=a.debug, create_per_hour=a.create_per_hour,
        create_burst=a.create_burst, trusted_proxies=a.trusted_proxies,
        max_body_bytes=a.max_body_bytes, archive_dir=a.archive_dir or str(Path(a.data_dir) / "archive"),
        retention_days=a.retention_days, retention_every_s=a.retention_every,
        fsync=not a.no_fsync, group_commit=not a.no_group_commit, client_dir=a.client_dir or default_client_dir(),
        max_frame_bytes=a.max_frame_bytes,
        heartbeat_s=a.heartbeat, ping_interval_s=a.ping_interval, rate_per_s=a.rate, rate_burst=a.rate_burst,
        send_buffer_bytes=a.send_buffer_bytes, lease_ms=a.lease_ms, socket_send_buffer_bytes=a.socket_send_buffer,
        drain_timeout_s=a.drain_timeout, write_interval_ms=a.write_interval_ms,
        write_interval_busy=a.write_interval_busy, room_idle_s=a.room_idle_s, token_rate_per_s=a.token_rate,
        token_burst=a.token_burst, address_rate_per_s=a.address_rate, address_burst=a.address_burst,
        max_connections_per_address=a.max_connections_per_address, open_journals=a.open_journals or None,
    )
