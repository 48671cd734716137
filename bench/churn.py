"""What grows with churning connections (issue 12 §14: a soak's memory rose 61 → 74 MB over 5 minutes with 200
connections coming and going, and was not released). The server runs in this process, so that `tracemalloc` can
say which lines hold the memory that stays: rounds of `--clients` websockets each sign in (a seat, the moderator or
the spectators' link), join the campaign room, chat a line and close. After `--warmup` rounds a snapshot is taken;
after `--rounds` more, the lines of server/ and shared/ whose allocations grew the most are printed, with the
process's RSS before and after (`--trace`); without it, the RSS after every round (does it level off?).

    python -m bench.churn --clients 200 --rounds 20 [--trace]

Figures are this machine's (2 shared cores); the question it answers is which structures grow per connection."""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import tempfile
import tracemalloc
from typing import Any

import aiohttp
import msgpack
from aiohttp import web

from bench.common import free_port, rss_bytes
from server.net.app import NODE, create_app
from server.settings import Settings


async def _client(url: str, token: str, room: str, i: int, n: int) -> None:
    async with aiohttp.ClientSession() as http, http.ws_connect(url) as ws:
        async def ask(obj: dict[str, Any]) -> dict[str, Any]:
            await ws.send_bytes(msgpack.packb(obj))
            while True:
                msg = await ws.receive(timeout=20)
                if msg.type != aiohttp.WSMsgType.BINARY:
                    raise RuntimeError(f"socket closed: {msg}")
                got: dict[str, Any] = msgpack.unpackb(msg.data)
                if got.get("cid") == obj["cid"]:
                    return got

        await ask({"t": "hello", "cid": 1, "token": token, "name": f"c{i}"})
        await ask({"t": "join", "cid": 2, "room": room})
        channel = "players" if i == 0 else "spectators"  # the seat, then the spectators' link
        reply = await ask({"t": "chat", "cid": 3 + n, "room": room, "channel": channel, "text": f"line {n}.{i}"})
        if reply.get("t") != "ack":
            raise RuntimeError(f"chat refused: {reply}")


def _held(runner: web.AppRunner) -> str:
    """What the node keeps that could grow with connections: its sessions, the room's history, journal offsets,
    opening locks, rate buckets."""
    node = runner.app[NODE]
    hub = node.hub
    room = next(iter(hub.rooms.values()), None)
    offsets = sum(len(j.checkpoints) for j in getattr(hub.store.log, "_journals", {}).values())
    return (f"sessions {len(node.sessions)}, history {len(room.history) if room else 0}, journal offsets {offsets}, "
            f"opening locks {len(hub.ownership._opening)}, token buckets {len(node.flood.per_token)}")


async def main(clients: int, warmup: int, rounds: int, top: int, trace: bool) -> None:
    with tempfile.TemporaryDirectory() as data:
        port = free_port()
        settings = Settings(port=port, data_dir=data, fsync=False, rate_per_s=10_000, rate_burst=10_000,
                            ping_interval_s=0.5, snapshot_every=200)
        runner = web.AppRunner(create_app(settings))
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port).start()
        async with aiohttp.ClientSession() as http, http.post(f"http://127.0.0.1:{port}/api/campaigns", json={
                "scenario": "drill", "teams": [{"colour": "red", "seats": 3}, {"colour": "blue", "seats": 3}],
                "clock": None}) as r:
            made = await r.json()
        tokens = [made["seats"][0]["token"], made["spectator_token"]]
        url = f"ws://127.0.0.1:{port}/ws"

        rounds_run = 0

        async def round_() -> None:
            # one seat token at a time (a seat signs in from one connection); the rest on the spectators' link
            nonlocal rounds_run
            rounds_run += 1
            await asyncio.gather(*(_client(url, tokens[0] if i == 0 else tokens[1], made["room"], i, rounds_run)
                                   for i in range(clients)))
            await asyncio.sleep(0.05)

        for _ in range(warmup):
            await round_()
        gc.collect()
        if not trace:  # RSS only: does it level off, or grow with every round?
            rss = rss_bytes(os.getpid()) / 2**20
            print(f"{clients} clients a round; RSS after {warmup} warm-up rounds {rss:.1f} MB")
            for n in range(1, rounds + 1):
                await round_()
                gc.collect()
                print(f"  round {n:3d}: RSS {rss_bytes(os.getpid()) / 2**20:.1f} MB, "
                      f"{len(gc.get_objects())} objects tracked by the gc, {_held(runner)}")
            await runner.cleanup()
            return
        tracemalloc.start(8)
        before_rss = rss_bytes(os.getpid())
        before = tracemalloc.take_snapshot()
        for _ in range(rounds):
            await round_()
        await asyncio.sleep(1)
        gc.collect()
        after = tracemalloc.take_snapshot()
        after_rss = rss_bytes(os.getpid())
        keep = [tracemalloc.Filter(False, tracemalloc.__file__), tracemalloc.Filter(False, "*/bench/*")]
        stats = after.filter_traces(keep).compare_to(before.filter_traces(keep), "traceback")
        print(f"{clients} clients x {rounds} rounds after {warmup} warm-up rounds")
        print(f"RSS {before_rss / 2**20:.1f} MB -> {after_rss / 2**20:.1f} MB (tracemalloc's own costs included)")
        grown = [s for s in stats if s.size_diff > 0][:top]
        print(f"traced: {sum(s.size_diff for s in stats) / 1024:+.1f} KiB")
        for s in grown:
            print(f"  {s.size_diff / 1024:+8.1f} KiB {s.count_diff:+6d} blocks")
            for line in s.traceback.format()[-4:]:
                print("      " + line.strip())
        await runner.cleanup()


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--clients", type=int, default=200)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--top", type=int, default=8)
    p.add_argument("--trace", action="store_true", help="tracemalloc: which lines hold what grew")
    a = p.parse_args()
    asyncio.run(main(a.clients, a.warmup, a.rounds, a.top, a.trace))
