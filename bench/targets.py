"""The servers under test, each started as a real process on loopback (pinned to core 0 when there are two).

- `ours`: `python -m server` (the project's server) through bench/servers/ours.py, which registers the bench
  engine; its rooms are campaigns created through the HTTP API with `"scenario": "bench"`. Started with
  `--no-fsync` (the journal survives a process kill, not a power cut; the Redis store has no fsync either; with
  `durable`, bench/durable.py's, fsync is on) and the inbound rate limit lifted for the publishing moderator.
- `bare`: bench/servers/bare_aiohttp.py, the barest aiohttp broadcast.
- `picows`: bench/servers/picows_server.py, a broadcast built for speed on picows (frames packed once, coalesced per
  socket per loop turn): the most one Python process can deliver.
- `node`: bench/node/broadcast.js on npm `ws` (needs `npm ci` in bench/node once).
- `ours@REF`: our server as it was at git ref REF (its tree checked out with `git archive`, bench/common.py), run
  beside this tree's in the same run: is a change in the figures the code's or the machine's?
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import loadgen
from bench.common import ROOT, checkout, free_port, python, taskset_prefix

SERVER_CORE = 0
NODE_DIR = ROOT / "bench" / "node"
KINDS = ("ours", "bare", "picows", "node")


@dataclass(frozen=True)
class Access:
    """A room and the tokens to watch it (spectator) and to put events into it (moderator)."""

    room: str
    spectator_token: str
    moderator_token: str
    player_tokens: tuple[str, ...] = ("bench-player-1", "bench-player-2")


@dataclass
class Target:
    """A running server and the rooms prepared on it."""

    kind: str
    proc: subprocess.Popen[bytes]
    port: int
    host: str = "127.0.0.1"
    rooms: list[Access] = field(default_factory=list)
    log: Path | None = None
    clients: list[loadgen.WsClient] = field(default_factory=list)

    @property
    def pid(self) -> int:
        return self.proc.pid

    async def spectators(self, n: int, probes: int, room: int = 0) -> list[loadgen.WsClient]:
        """`n` spectators of one room, the first `probes` of them measuring latency; closed when the server stops."""
        access = self.rooms[room]
        clients = await loadgen.spectators(
            self.host, self.port, [(access.spectator_token, access.room, i < probes) for i in range(n)]
        )
        self.clients += clients
        return clients

    async def publisher(self, data: dict[str, Any], room: int = 0) -> loadgen.Publisher:
        """The moderator of a room, putting events carrying `data` into it; closed when the server stops."""
        access = self.rooms[room]
        pub = await loadgen.publisher(self.host, self.port, access.moderator_token, access.room, data)
        self.clients.append(pub.ws)
        return pub

    def stop(self) -> None:
        for c in self.clients:
            c.close()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(90 if os.environ.get("BENCH_PROFILE") else 3)  # figures taken: no long goodbyes
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


def split_kind(kind: str) -> tuple[str, Path]:
    """A server kind's base kind and the tree its code runs from (`ours@REF`: REF's tree; anything else: this one)."""
    base, at, ref = kind.partition("@")
    if not at:
        return kind, ROOT
    if base != "ours" or not ref:
        raise ValueError(f"only our server runs from another commit (ours@REF), not {kind!r}")
    return base, checkout(ref)


def node_ready() -> bool:
    return shutil.which("node") is not None and (NODE_DIR / "node_modules" / "ws").is_dir()


def _argv(kind: str, port: int, cap: int, redis_url: str | None, data_dir: str, prefix: str,
          durable: bool = False) -> list[str]:
    if kind == "ours":
        argv = [python(), "-m", "bench.servers.ours", "--host", "127.0.0.1", "--port", str(port), "--data-dir",
                data_dir, *([] if durable else ["--no-fsync"]), "--rate", "1000000", "--rate-burst", "1000000",
                "--send-buffer-bytes", str(cap)]
        return argv + (["--redis-url", redis_url, "--redis-prefix", prefix] if redis_url else [])
    if kind == "bare":
        argv = [python(), "-m", "bench.servers.bare_aiohttp", "--port", str(port), "--cap", str(cap)]
        return argv + (["--redis-url", redis_url] if redis_url else [])
    if kind == "picows":
        argv = [python(), "-m", "bench.servers.picows_server", "--port", str(port), "--cap", str(cap)]
        return argv + (["--redis-url", redis_url] if redis_url else [])
    if kind == "node":
        if redis_url:
            raise ValueError("the node baseline has no Redis relay")
        return ["node", str(NODE_DIR / "broadcast.js"), "--port", str(port), "--cap", str(cap)]
    raise ValueError(f"unknown server kind {kind!r}; one of {KINDS}")


async def _wait_port(host: str, port: int, proc: subprocess.Popen[bytes], limit: float = 30.0) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode} before listening")
        try:
            _, writer = await asyncio.open_connection(host, port)
            writer.close()
            await writer.wait_closed()
            return
        except OSError:
            await asyncio.sleep(0.05)
    raise TimeoutError(f"nothing listening on {host}:{port} after {limit}s")


def _spawn(argv: list[str], log: Path, root: Path = ROOT) -> subprocess.Popen[bytes]:
    # The server reads REDIS_URL and KS_* from the environment: only the flags given here may choose its backend.
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL" and not k.startswith("KS_")}
    env["PYTHONPATH"] = str(root)
    with log.open("wb") as out:
        return subprocess.Popen(argv, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT)


def _http_json(url: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        out: dict[str, Any] = json.loads(resp.read())
        return out


async def start(
    kind: str, *, cap: int = 2 << 20, redis_url: str | None = None, rooms: int = 1, core: int | None = SERVER_CORE,
    redis_prefix: str = "ks", existing: list[Access] | None = None, durable: bool = False,
    flags: Sequence[str] = (),
) -> Target:
    """Start a server of `kind` and prepare `rooms` rooms a spectator can join (or take `existing` ones: a second
    node of the same cluster)."""
    port = free_port()
    data_dir = tempfile.mkdtemp(prefix="bench-data-")
    log = Path(data_dir) / "server.log"
    pin = taskset_prefix(core) if core is not None else []
    base, root = split_kind(kind)
    argv = pin + _argv(base, port, cap, redis_url, data_dir, redis_prefix, durable) + list(flags)
    proc = _spawn(argv, log, root)
    target = Target(kind=kind, proc=proc, port=port, log=log)
    try:
        await _wait_port(target.host, port, proc)
        if existing is not None:
            target.rooms = list(existing)
        elif base == "ours":
            await asyncio.to_thread(_prepare_ours, target, rooms)
        else:
            target.rooms = [Access(f"c-bench{i:05d}", "bench-spectator", "bench-moderator") for i in range(rooms)]
    except BaseException:
        target.stop()
        raise
    return target


@contextlib.asynccontextmanager
async def serving(kind: str, **options: Any) -> AsyncIterator[Target]:
    """A server started by `start(kind, **options)` for the length of a block: its log's tail printed when the
    block fails, its clients closed and the server stopped at the end."""
    target = await start(kind, **options)
    try:
        yield target
    except Exception:
        print(log_tail(target))
        raise
    finally:
        target.stop()


def _prepare_ours(target: Target, rooms: int) -> None:
    """A campaign per room through the HTTP API, played by the bench engine."""
    base = f"http://{target.host}:{target.port}"
    for i in range(rooms):
        made = _http_json(f"{base}/api/campaigns", {
            "name": f"bench-{i}", "scenario": "bench", "teams": [{"colour": "red"}, {"colour": "blue"}],
        })
        players = tuple(seat["token"] for seat in made["seats"])
        target.rooms.append(Access(made["room"], made["spectator_token"], made["moderator_token"], players))


def log_tail(target: Target, lines: int = 20) -> str:
    if target.log is None or not target.log.exists():
        return ""
    return "\n".join(target.log.read_text(errors="replace").splitlines()[-lines:])
