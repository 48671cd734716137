"""Fixtures: real server processes on free loopback ports with their own data directories; REDIS_URL from the
environment (.ci/test starts a private Redis) for the tests marked `redis`."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_asyncio import is_async_test

from server import scenarios
from tests.net.client import Client

ROOT = Path(__file__).resolve().parents[1]
scenarios.provide_all()  # the engines read no files: the scenario data is handed to them, as the server does


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProcess:
    """`python -m server` on 127.0.0.1:<free port>; `url`, `ws_url`, `http()` helpers, `kill()` / `start()`."""

    def __init__(self, data_dir: Path, *args: str, env: dict[str, str] | None = None):
        self.port = free_port()
        self.data_dir = data_dir
        self.args = args
        self.env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
        self.env.update(env or {})
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = data_dir.parent / f"server-{self.port}.log"
        self.cwd = ROOT

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self) -> ServerProcess:
        cmd = [sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", str(self.port),
               "--data-dir", str(self.data_dir), "--ping-interval", "0.2", *self.args]
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(cmd, cwd=self.cwd, env=self.env, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"server did not become healthy: {self.log.read_text()[-3000:]}")

    def named_spectator(self, made: dict[str, Any], name: str = "watcher") -> str:
        """A named spectator's personal token (issue 12 item 1: everything, live), from the campaign's moderator:
        the watcher a test needs where the spectators' link now shows only what is public."""
        return str(self.named_spectator_answer(made, name)["token"])

    def named_spectator_link(self, made: dict[str, Any], name: str = "watcher") -> str:
        """The link of a named spectator (see `named_spectator`), for a browser to open."""
        return str(self.named_spectator_answer(made, name)["link"])

    def named_spectator_answer(self, made: dict[str, Any], name: str) -> dict[str, Any]:
        answer: dict[str, Any] = self.http("POST", f"/api/campaigns/{made['campaign']}/spectators", {"name": name},
                                           headers={"Authorization": f"Bearer {made['moderator_token']}"})
        return answer

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    def http(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method,
                                     headers={"Content-Type": "application/json", **(headers or {})})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                raw = r.read()
                return json.loads(raw) if r.headers.get_content_type() == "application/json" else raw.decode()
        except urllib.error.HTTPError as exc:
            with exc:
                raise HttpStatus(exc.code, exc.read().decode()) from None


class HttpStatus(Exception):
    """An HTTP answer other than 2xx: `code` and the body."""

    def __init__(self, code: int, body: str):
        super().__init__(f"HTTP {code}: {body}")
        self.code = code
        self.body = body


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One embedded server for the network tests that do not restart it."""
    proc = ServerProcess(tmp_path_factory.mktemp("server") / "data").start()
    yield proc
    proc.stop()


@pytest.fixture
def server_factory(tmp_path: Path) -> Iterator[Any]:
    """Start dedicated servers (restart tests, Redis nodes); all are stopped at the end."""
    started: list[ServerProcess] = []

    def make(*args: str, data_dir: Path | None = None, env: dict[str, str] | None = None) -> ServerProcess:
        proc = ServerProcess(data_dir or tmp_path / f"data{len(started)}", *args, env=env)
        started.append(proc)
        return proc

    yield make
    for proc in started:
        proc.stop()


@pytest.fixture
def redis_url() -> str:
    url = os.environ.get("REDIS_URL")
    if not url:
        pytest.skip("REDIS_URL is not set (.ci/test starts a private redis-server)")
    return url


@pytest.fixture
def redis_prefix(redis_url: str) -> Iterator[str]:
    """A key prefix of this test's own in the shared Redis, deleted afterwards."""
    import secrets

    import redis

    prefix = f"kstest{secrets.token_hex(4)}"
    yield prefix
    client = redis.Redis.from_url(redis_url)
    for key in client.scan_iter(match=f"{prefix}:*"):
        client.delete(key)
    client.close()


@pytest.fixture(autouse=True)
def _clients_left_open(request: pytest.FixtureRequest) -> None:
    """An async test's websocket clients (tests/net/client.py) that it left open — it failed before closing them —
    are closed when it ends, on its own event loop. Left to the garbage collector, they are collected during the
    next test, whose unraisable ResourceWarnings (an unclosed socket, transport, client session) fail it too: one
    failure shown as two. Nothing else is closed and no warning is filtered (tests/net/test_left_open.py)."""
    if is_async_test(request.node):
        request.getfixturevalue("_close_clients_left_open")


@pytest.fixture
async def _close_clients_left_open() -> AsyncIterator[None]:
    before = set(Client.unclosed)
    yield
    loop = asyncio.get_running_loop()
    for client in [c for c in Client.unclosed - before if c.loop is loop]:  # not a thread's own clients
        await client.close()
