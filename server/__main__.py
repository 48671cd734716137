"""`python -m server --host H --port N [--data-dir D] [--redis-url URL] [--demo]` (REDIS_URL selects Redis);
`python -m server admin COMMAND …` the operator's commands (server/admin/cli.py).

What goes wrong at start (a port in use, a locked data directory, an unreachable Redis, a bad flag) is said in one
line with what to do, exit status 1 or 2, no traceback (`--debug` shows it). At a stop (SIGTERM, SIGINT) the
server closes its sockets (1001: clients reconnect to another node), saves and releases its rooms, and says so."""

from __future__ import annotations

import asyncio
import errno
import gc
import ipaddress
import logging
import signal
import socket
import sys
from collections.abc import Sequence
from pathlib import Path

from aiohttp import web

from server.settings import Settings, parse, redacted

GC_THRESHOLDS = (50_000, 20, 100)
"""Every command and frame allocates a few dozen containers: with the default 700 the young generation was
collected every few commands (5% of the server's CPU under bench.rooms); long-lived objects (sessions, rooms) are
few and cycles rare, so collecting less often costs a little memory and no correctness."""

SWITCH_INTERVAL_S = 0.0005
"""How long the event loop's thread may keep the GIL while another thread waits for it (Python's default: 5 ms). The
store's fsync runs in a thread (group commit, server/store/embedded/log.py): with the default, each flush waited up
to 5 ms after its fsync to take the GIL back from the busy loop before its commands could be answered. The other
threads (snapshots, file deletions) are rare, so the loop gives the GIL up seldom either way."""

log = logging.getLogger("server")


class StartError(Exception):
    """A start-up failure the operator can fix: its message is the one line printed."""


def _new_loop() -> tuple[asyncio.AbstractEventLoop, str]:
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop(), "asyncio"
    return uvloop.new_event_loop(), "uvloop"


def listen(host: str, port: int, what: str) -> list[socket.socket]:
    """Bound, listening sockets for every address of `host` (as asyncio's create_server), before anything is
    opened: a port in use is found before the store is touched or a demo link printed."""
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise StartError(f"cannot listen on {host!r}: {exc.strerror} (check --host / KS_HOST)") from exc
    socks: list[socket.socket] = []
    try:
        for family, kind, proto, _, address in dict.fromkeys((i[0], i[1], i[2], i[3], i[4]) for i in infos):
            sock = socket.socket(family, kind, proto)
            socks.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
            sock.listen(1024)
            sock.setblocking(False)
    except OSError as exc:
        for sock in socks:
            sock.close()
        where = f"{host}:{port}"
        if exc.errno == errno.EADDRINUSE:
            raise StartError(f"the {what} port {where} is already in use (another server running?): stop it or "
                             f"choose another port") from exc
        if exc.errno == errno.EACCES:
            raise StartError(f"not allowed to listen on {where}: use a port above 1023, or grant the "
                             f"capability to bind low ports") from exc
        if exc.errno == errno.EADDRNOTAVAIL:
            raise StartError(f"{host} is not an address of this machine: use one it has (or 0.0.0.0)") from exc
        raise StartError(f"cannot listen on {where}: {exc.strerror}") from exc
    return socks


def explain(exc: BaseException, settings: Settings) -> str | None:
    """The one line for a failure the operator can fix, or None for a bug (shown with its traceback)."""
    from server.store.embedded import DataDirLocked

    if isinstance(exc, StartError):
        return str(exc)
    if isinstance(exc, DataDirLocked):
        return (f"the data directory {settings.data_dir} is in use by another server process (its LOCK is held): "
                f"stop that server, or choose another --data-dir")
    if isinstance(exc, PermissionError):
        return f"permission denied: {exc.filename or exc}: run as a user who may write it, or choose another " \
               f"--data-dir"
    try:
        import redis.exceptions
    except ImportError:  # pragma: no cover - redis is a dependency
        return None
    if settings.redis_url and isinstance(exc, redis.exceptions.AuthenticationError | redis.exceptions.ResponseError):
        return f"Redis at {redacted(settings.redis_url)} refused us: {exc} (check the password in --redis-url)"
    if settings.redis_url and isinstance(exc, redis.exceptions.ConnectionError | OSError | TimeoutError):
        return (f"cannot reach Redis at {redacted(settings.redis_url)} ({exc}): start it, or point --redis-url / "
                f"REDIS_URL at it")
    if settings.redis_url and isinstance(exc, ValueError) and "redis" in str(exc).lower():
        return f"--redis-url {redacted(settings.redis_url)} is not a Redis URL: {exc}"
    return None


async def serve(settings: Settings, loop_name: str) -> None:
    from server.net.app import NODE, create_app  # here: `admin` commands do not load the server

    public = listen(settings.host, settings.port, "public")
    private = listen(settings.host, settings.metrics_port, "metrics") if settings.metrics_port is not None else []
    app = create_app(settings)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=settings.shutdown_timeout_s)
    scraper = web.Application()
    scraper.router.add_get("/metrics", lambda _: _scrape(app))
    metrics_runner = web.AppRunner(scraper, access_log=None)
    print(_banner(settings, loop_name), flush=True)  # before the demo's links, which end up last on the screen
    try:
        await runner.setup()  # opens the store and the bus, starts the hub, makes the demo campaign
        for sock in public:
            await web.SockSite(runner, sock).start()
        if private:
            await metrics_runner.setup()
            for sock in private:
                await web.SockSite(metrics_runner, sock).start()
        if not settings.create_token and not _loopback(settings.host):
            print("note: anyone who can reach this server may create campaigns: set KS_CREATE_TOKEN to require a "
                  "token (docs/operating.md, Limits)", flush=True)
        stopped_by = await _until_signal()
        node = app[NODE]
        sessions, rooms = len(node.sessions), len(node.hub.rooms)
        print(f"Stopping ({stopped_by}): closing {sessions} connection(s) with 1001 so clients reconnect, "
              f"saving and releasing {rooms} room(s) ...", flush=True)
    finally:
        await metrics_runner.cleanup()
        await runner.cleanup()  # sessions closed, rooms snapshotted and released, store closed
        for sock in public + private:
            sock.close()
    print(f"Stopped: {sessions} connection(s) closed, {rooms} room(s) saved and released, {_store(settings)} "
          f"closed.", flush=True)


async def _scrape(app: web.Application) -> web.Response:
    from server.net.app import NODE
    from server.net.metrics import metrics_response

    node = app.get(NODE)
    if node is None:
        return web.Response(status=503, text="starting")
    return metrics_response(node.registry)


async def _until_signal() -> str:
    loop = asyncio.get_running_loop()
    stop: asyncio.Future[str] = loop.create_future()

    def stop_by(sig: signal.Signals) -> None:
        if not stop.done():
            stop.set_result(sig.name)

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop_by, sig)
    try:
        return await stop
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)


def _loopback(host: str) -> bool:
    try:
        return all(ipaddress.ip_address(info[4][0]).is_loopback for info in socket.getaddrinfo(host or None, 0))
    except (OSError, ValueError):
        return False


def _store(settings: Settings) -> str:
    return f"Redis {redacted(settings.redis_url)}" if settings.redis_url else f"embedded store {settings.data_dir}"


def _banner(settings: Settings, loop_name: str) -> str:
    metrics = f"metrics on port {settings.metrics_port}" if settings.metrics_port is not None else "metrics /metrics"
    client = Path(settings.client_dir)
    web_client = f"web client {client}" if (client / "index.html").is_file() else f"web client not built ({client})"
    return (f"Kriegsspiel server on {settings.public_url} (listening on {settings.host}:{settings.port}; websocket "
            f"/ws; {_store(settings)}; {metrics}; {web_client}; {loop_name})")


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["admin"]:  # the operator's commands (server/admin)
        from server.admin.cli import main as admin

        return admin(argv[1:], explain)
    settings = parse(argv)
    logging.basicConfig(level=logging.DEBUG if settings.debug else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)
    loop, loop_name = _new_loop()
    gc.set_threshold(*GC_THRESHOLDS)
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    try:
        loop.run_until_complete(serve(settings, loop_name))
    except KeyboardInterrupt:  # a second Ctrl-C during the stop
        return 130
    except Exception as exc:
        line = None if settings.debug else explain(exc, settings)
        if line is None:
            if not settings.debug:
                log.error("unexpected failure (run with --debug for more):", exc_info=exc)
                return 1
            raise
        print(f"error: {line}", file=sys.stderr, flush=True)
        return 1
    finally:
        loop.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
