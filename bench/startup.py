"""Start-up and memory of a large host (issue 20 item 3): N campaigns on the embedded store and on Redis.

Per store: time from `python -m server` to `/healthz` 200 over N campaigns x M records (started twice: the second
start finds the files in the page cache), the rooms open then (`ks_rooms_owned`: rooms open lazily, so none),
RSS per unloaded campaign (the server on N campaigns ÷ the same server on none) and RSS per open idle campaign
room (K campaign rooms opened by a spectator joining and leaving; the room stays open, idle) beside the room's
state (its deep size in Python, measured in this process on the same code). Targets: healthy ≤ 2 s, an unloaded
campaign costs only its index entry, an open idle room ≤ 64 KiB beyond its state.

The K rooms measured are opened after `--warm` others (default 50, one batch of joins), which are not counted:
what a node spends once, on its first rooms, is no room's — the store client's connections (redis-py opens one per
request in flight: ~50 for a batch of 50 joins, 18 KiB each), code run for the first time. Counted from the first
room, as before 6 December 2026, the figure is printed too (`rss_per_open_room_from_start_bytes`): with K = 200
those fixed costs added ~34 KiB per room on Redis and ~18 on the embedded store.

    python -m bench.startup [--campaigns 10000] [--records 20] [--stores embedded,redis] [--open 200] [--warm 50]
                            [--compare-with REF] [--out DIR]

Redis: a private redis-server when installed (else `--redis-url`/REDIS_URL, under a fresh key prefix deleted
afterwards). `--compare-with REF` also runs the server code of that git ref (checked out with `git archive`) on the
same data, as the "before" figures of the same run. The result goes to bench/results/startup.json with the last
commit's figures inside ("previous"), and this run ÷ those is printed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import cli, loadgen
from bench.common import ROOT, against, checkout, free_port, git_commit, previous_result, rss_bytes, write_result

KIB = 1024
TARGET_HEALTHY_S = 2.0
TARGET_ROOM_BEYOND_STATE = 64 * KIB


@dataclass(frozen=True)
class Made:
    """What the generator made: a spectator's way into each campaign room, and one room's state size."""

    joins: list[tuple[str, str]]  # (spectator token, campaign room)
    state_bytes: int


def deep_size(obj: Any, seen: set[int] | None = None) -> int:
    """Bytes of an object and everything it holds (containers, dataclass and slotted objects), each object once."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    size = sys.getsizeof(obj)
    if isinstance(obj, str | bytes | bytearray | int | float | bool | type(None)):
        return size
    if isinstance(obj, dict):
        return size + sum(deep_size(k, seen) + deep_size(v, seen) for k, v in obj.items())
    if isinstance(obj, list | tuple | set | frozenset):
        return size + sum(deep_size(x, seen) for x in obj)
    if hasattr(obj, "__dict__"):
        size += deep_size(vars(obj), seen)
    for cls in type(obj).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if isinstance(name, str) and hasattr(obj, name):
                size += deep_size(getattr(obj, name), seen)
    return size


async def make_data(store: Any, campaigns: int, records: int) -> Made:
    """Campaigns with running 5-minute turn clocks, each campaign room `records` long (chat lines), written by this
    code through the hub, as the server writes them."""
    from server.bus.local import LocalBus
    from server.engines import ENGINES
    from server.rooms.hub import Hub
    from server.rooms.ids import RoomId
    from server.rooms.members import Member

    hub = Hub(store, LocalBus(), ENGINES)
    joins: list[tuple[str, str]] = []
    state_bytes = 0
    try:
        for i in range(campaigns):
            made = await hub.create_campaign({
                "name": "Bench", "scenario": "drill", "level": 2, "clock": {"mode": "per_turn", "turn_ms": 300_000},
                "teams": [{"colour": "red", "seats": 1}, {"colour": "blue", "seats": 1}]})
            red = Member(made["campaign"], "player", "red-1", "red", 1)
            for n in range(records - 1):
                await hub.submit(made["room"], "chat", {"channel": "team", "text": f"line {n}"}, red)
            joins.append((made["spectator_token"], made["room"]))
            if i == 0:
                state_bytes = deep_size(hub.rooms[made["room"]].state)
            for room_id in [r for r in hub.rooms if RoomId(r).campaign == made["campaign"]]:
                await hub.rooms[room_id].save_snapshot()  # unloaded as an idle room is: snapshot, closed, released
                await hub.ownership.drop(room_id)
                await hub.ownership.release(room_id)
    finally:
        await hub.close()
        await store.close()
    return Made(joins, state_bytes)


@contextlib.contextmanager
def private_redis() -> Iterator[str | None]:
    from bench.relay import private_redis as relay_redis

    with relay_redis() as url:
        yield url


@dataclass
class Server:
    proc: subprocess.Popen[bytes]
    port: int

    def http(self, path: str) -> bytes:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=5) as r:
            body: bytes = r.read()
            return body

    def rooms_owned(self) -> float | None:
        for line in self.http("/metrics").decode().splitlines():
            if line.startswith("ks_rooms_owned "):
                return float(line.split()[1])
        return None

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


def start(code_root: Path, store_args: list[str]) -> tuple[Server, float]:
    """A server of the code at `code_root` on a store, and the seconds from its start to /healthz 200."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL" and not k.startswith("KS_")}
    env["PYTHONPATH"] = str(code_root)
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", str(port),
                             "--no-fsync", *store_args], cwd=code_root, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server = Server(proc, port)
    try:
        while True:
            try:
                if server.http("/healthz"):
                    break
            except OSError:
                time.sleep(0.01)
            if proc.poll() is not None:
                raise RuntimeError(f"server at {code_root} exited with {proc.returncode}")
        return server, time.perf_counter() - started
    except BaseException:
        server.stop()
        raise


async def open_rooms(port: int, joins: list[tuple[str, str]]) -> None:
    """Each room opened by a spectator who joins it and leaves: the room stays open, idle, with nobody in it."""
    for batch in range(0, len(joins), 50):
        clients = await loadgen.spectators("127.0.0.1", port, [(t, r, False) for t, r in joins[batch:batch + 50]])
        for c in clients:
            c.close()
    await asyncio.sleep(0.5)


def measure(code_root: Path, empty_args: list[str], full_args: list[str], made: Made, campaigns: int,
            opened: int, warm: int) -> dict[str, Any]:
    """Time to healthy (twice), RSS per unloaded campaign and per open idle room, for one tree's server (its
    modules compiled first: a start measures the data, not Python compiling a fresh checkout)."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", "server", "shared"], cwd=code_root, check=False,
                   stdout=subprocess.DEVNULL)
    empty, _ = start(code_root, empty_args)
    try:
        time.sleep(0.5)
        rss_empty = rss_bytes(empty.proc.pid)
    finally:
        empty.stop()
    healthy = []
    for attempt in (1, 2):
        server, seconds = start(code_root, full_args)
        healthy.append(round(seconds, 3))
        if attempt == 1:
            server.stop()
    try:
        time.sleep(0.5)
        owned_at_start = server.rooms_owned()
        rss_full = rss_bytes(server.proc.pid)
        warm = min(warm, max(0, len(made.joins) - opened))
        if warm:
            asyncio.run(open_rooms(server.port, made.joins[:warm]))
        owned_warm = server.rooms_owned()
        rss_warm = rss_bytes(server.proc.pid)
        asyncio.run(open_rooms(server.port, made.joins[warm:warm + opened]))
        rss_open = rss_bytes(server.proc.pid)
        owned_after = server.rooms_owned()
    finally:
        server.stop()
    newly = max(1.0, (owned_after or 0) - (owned_warm or 0))
    per_room = (rss_open - rss_warm) / newly
    from_start = (rss_open - rss_full) / max(1.0, (owned_after or 0) - (owned_at_start or 0))
    return {
        "healthy_s": healthy,
        "healthy_first_s": healthy[0],
        "healthy_again_s": healthy[1],
        "rooms_owned_at_start": owned_at_start,
        "rss_empty_bytes": rss_empty,
        "rss_bytes": rss_full,
        "rss_per_unloaded_campaign_bytes": round((rss_full - rss_empty) / max(1, campaigns)),
        "rooms_warm": warm,
        "rooms_opened": newly,
        "rss_per_open_room_bytes": round(per_room),
        "rss_per_open_room_from_start_bytes": round(from_start),
        "room_state_bytes": made.state_bytes,
        "rss_per_open_room_beyond_state_bytes": round(per_room - made.state_bytes),
    }


def run_store(store: str, a: argparse.Namespace, base: Path) -> dict[str, dict[str, Any]]:
    """Data for `store`, then every tree's figures on it."""
    trees = [("this", ROOT)] + ([(a.compare_with, checkout(a.compare_with))] if a.compare_with else [])
    with contextlib.ExitStack() as stack:
        if store == "embedded":
            data, empty = base / "data", base / "empty"
            empty.mkdir()
            from server.store.embedded import open_embedded

            t0 = time.perf_counter()
            made = asyncio.run(make_data(open_embedded(data, fsync=False), a.campaigns, a.records))
            full_args, empty_args = ["--data-dir", str(data)], ["--data-dir", str(empty)]
        else:
            url = a.redis_url or stack.enter_context(private_redis()) or os.environ.get("REDIS_URL") \
                or "redis://127.0.0.1:6379/0"
            prefix = f"benchstart{secrets.token_hex(4)}"
            stack.callback(lambda: asyncio.run(_forget(url, prefix)))
            t0 = time.perf_counter()
            made = asyncio.run(_make_redis(url, prefix, a.campaigns, a.records))
            full_args = ["--redis-url", url, "--redis-prefix", prefix, "--data-dir", str(base / "unused")]
            empty_args = ["--redis-url", url, "--redis-prefix", prefix + "empty", "--data-dir", str(base / "unused")]
        print(f"{store}: {a.campaigns} campaigns x {a.records} records made in {time.perf_counter() - t0:.1f} s",
              flush=True)
        out: dict[str, dict[str, Any]] = {}
        for name, root in trees:
            if store == "embedded":  # each tree on its own copy: a server may rewrite what it starts on
                copy = base / f"data-{len(out)}"
                shutil.copytree(data, copy)
                full_args = ["--data-dir", str(copy)]
            out[name] = measure(root, empty_args, full_args, made, a.campaigns, a.open, a.warm)
            print(f"  {store:<8} {name:>12}: {line(out[name])}", flush=True)
        return out


async def _make_redis(url: str, prefix: str, campaigns: int, records: int) -> Made:
    from server.backends import open_redis

    store, bus = await open_redis(url, prefix)
    await bus.close()
    return await make_data(store, campaigns, records)


async def _forget(url: str, prefix: str) -> None:
    from bench.relay import _forget as forget

    await forget(url, prefix)


def line(f: dict[str, Any]) -> str:
    return (f"healthy after {f['healthy_s'][0]:.2f} s / {f['healthy_s'][1]:.2f} s (again), "
            f"{f['rooms_owned_at_start']:.0f} rooms open then; RSS {f['rss_bytes'] / 2**20:.1f} MiB, "
            f"{f['rss_per_unloaded_campaign_bytes'] / KIB:.2f} KiB per unloaded campaign, "
            f"{f['rss_per_open_room_bytes'] / KIB:.1f} KiB per open idle room "
            f"({f['room_state_bytes'] / KIB:.1f} KiB of it the state: "
            f"{f['rss_per_open_room_beyond_state_bytes'] / KIB:.1f} KiB beyond; counted from the first room, the "
            f"node's fixed costs in: {_from_start(f)})")


def _from_start(f: dict[str, Any]) -> str:
    """The old figure: RSS per open room counted from the node's first room (results before `--warm` lack it)."""
    value = f.get("rss_per_open_room_from_start_bytes")
    return "—" if value is None else f"{value / KIB:.1f} KiB"


KEYS = ("healthy_first_s", "healthy_again_s", "rss_per_unloaded_campaign_bytes", "rss_per_open_room_bytes",
        "rss_per_open_room_beyond_state_bytes")


def _previous_of(previous: dict[str, Any] | None, store: str) -> dict[str, Any] | None:
    """The last commit's figures of this tree's server on `store`, with that commit named."""
    then = ((previous or {}).get("stores") or {}).get(store, {}).get("this")
    return {**then, "commit": (previous or {}).get("commit", "unknown")} if then else None


def verdicts(stores: dict[str, dict[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    out = []
    for store, trees in stores.items():
        f = trees["this"]
        out.append({"target": f"{store}: healthy ≤ {TARGET_HEALTHY_S} s", "figure": max(f["healthy_s"]),
                    "met": max(f["healthy_s"]) <= TARGET_HEALTHY_S})
        out.append({"target": f"{store}: rooms opened lazily (none open at start)", "figure": f["rooms_owned_at_start"],
                    "met": not f["rooms_owned_at_start"]})
        out.append({"target": f"{store}: open idle room ≤ 64 KiB beyond its state",
                    "figure": f["rss_per_open_room_beyond_state_bytes"],
                    "met": f["rss_per_open_room_beyond_state_bytes"] <= TARGET_ROOM_BEYOND_STATE})
    return out


def table(result: dict[str, Any]) -> str:
    lines = []
    for store, trees in result["stores"].items():
        for name, f in trees.items():
            lines.append(f"{store:<8} {name:>12}: {line(f)}")
    for v in result["verdicts"]:
        lines.append(f"{v['target']}: {v['figure']} — {'met' if v['met'] else 'NOT MET'}")
    for store, vs in (result.get("vs_previous") or {}).items():
        if vs:
            lines.append(f"{store}: this run ÷ commit {vs['commit']}: {json.dumps(vs['ratios'])}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--campaigns", type=int, default=10_000)
    p.add_argument("--records", type=int, default=20, help="records per campaign room (chat lines after creation)")
    p.add_argument("--stores", default="embedded,redis")
    p.add_argument("--open", type=int, default=200, help="campaign rooms opened for the memory per open idle room")
    p.add_argument("--warm", type=int, default=50, help="campaign rooms opened before those, not counted (the "
                   "node's fixed costs: the store client's connections, code run the first time)")
    p.add_argument("--redis-url", default=None, help="without redis-server installed: the Redis to use")
    p.add_argument("--compare-with", default=None, help="git ref whose server code gives the 'before' figures")
    cli.out_flag(p)
    a = p.parse_args(argv)
    stores: dict[str, dict[str, dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory(prefix="ks-startup-") as tmp:
        for store in (s for s in a.stores.split(",") if s):
            folder = Path(tmp) / store
            folder.mkdir()
            stores[store] = run_store(store, a, folder)
    previous = previous_result("startup", git_commit(), a.out)
    result = {
        "settings": {k: v for k, v in vars(a).items() if k not in ("out", "redis_url")},
        "stores": stores,
        "verdicts": verdicts(stores),
        "vs_previous": {s: against(t["this"], _previous_of(previous, s), KEYS) for s, t in stores.items()},
    }
    print(table(result))
    print("wrote", write_result("startup", result, a.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
