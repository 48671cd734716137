"""Failover time (issue 19 §4): how long after `kill -9` of the node owning a room another node serves it again.

Two real `python -m server` processes share one Redis (a private `redis-server` when one is installed, else
`--redis-url`/REDIS_URL). Each round starts a node that creates a campaign (so it owns its rooms), signs a player
in on the surviving node, kills the owner with SIGKILL and sends a chat through the survivor every 50 ms with the
same cid — what the web client does on a retryable error — until it is acked. The time from the kill to that ack is
the takeover; every answer meanwhile must be retryable (`unavailable` / `outcome_unknown`), never `internal`, and the
chat must be in the room's log once. Prints p50/p99/max over the rounds and writes bench/results/failover.json.

    python -m bench.failover [--kills 20] [--lease-ms 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from bench.common import ROOT, free_port, percentile, run, write_result
from bench.relay import DEFAULT_REDIS, private_redis

RETRYABLE = ("unavailable", "outcome_unknown")


class Node:
    def __init__(self, redis_url: str, prefix: str, lease_ms: int, folder: Path):
        self.port = free_port()
        env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
        self.log = folder / f"node-{self.port}.log"
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", str(self.port), "--data-dir",
                 str(folder / f"data-{self.port}"), "--redis-url", redis_url, "--redis-prefix", prefix,
                 "--lease-ms", str(lease_ms)], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"node did not start: {self.log.read_text()[-2000:]}")

    def create_campaign(self) -> dict[str, Any]:
        spec = {"name": "failover", "scenario": "drill", "level": 2, "clock": {"mode": "per_turn", "turn_ms": 600_000},
                "teams": [{"colour": "red", "seats": 1}, {"colour": "blue", "seats": 1}]}
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}/api/campaigns", json.dumps(spec).encode(),
                                     {"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())  # type: ignore[no-any-return]

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


async def one_round(survivor: Node, owner: Node) -> dict[str, Any]:
    import aiohttp
    import msgpack

    made = owner.create_campaign()
    room = made["room"]
    async with aiohttp.ClientSession() as http, http.ws_connect(f"ws://127.0.0.1:{survivor.port}/ws") as ws:
        cid = random.randrange(1, 2**40)

        async def ask(message: dict[str, Any]) -> dict[str, Any]:
            nonlocal cid
            await ws.send_bytes(msgpack.packb(message, use_bin_type=True))
            while True:
                reply = msgpack.unpackb((await ws.receive(timeout=15)).data, raw=False)
                if reply.get("cid") == message["cid"]:
                    return reply  # type: ignore[no-any-return]

        cid += 1
        assert (await ask({"t": "hello", "cid": cid, "token": made["seats"][1]["token"]}))["t"] == "welcome"
        cid += 1
        assert (await ask({"t": "join", "cid": cid, "room": room}))["t"] == "joined"
        cid += 1
        chat = {"t": "chat", "cid": cid, "room": room, "channel": "team", "text": "served again"}
        assert (await ask({**chat, "cid": cid, "text": "before"}))["t"] == "ack"  # forwarded to the owner
        cid += 1
        chat["cid"] = cid
        owner.kill()
        killed = time.monotonic()
        codes: dict[str, int] = {}
        while True:
            reply = await ask(chat)
            if reply["t"] == "ack":
                break
            codes[reply["code"]] = codes.get(reply["code"], 0) + 1
            if time.monotonic() - killed > 30:
                raise RuntimeError(f"not served again within 30 s: {reply}")
            await asyncio.sleep(0.05)
        took = time.monotonic() - killed
    return {"room": room, "takeover_s": round(took, 3), "answers_meanwhile": codes}


async def main_async(args: argparse.Namespace, redis_url: str) -> dict[str, Any]:
    prefix = f"bench{secrets.token_hex(4)}"
    rounds: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-failover-") as tmp:
        folder = Path(tmp)
        survivor = Node(redis_url, prefix, args.lease_ms, folder)
        try:
            for n in range(args.kills):
                owner = Node(redis_url, prefix, args.lease_ms, folder)
                try:
                    got = await one_round(survivor, owner)
                finally:
                    owner.kill()
                rounds.append(got)
                print(f"kill {n + 1:>2}/{args.kills}: served again after {got['takeover_s']:.2f} s "
                      f"({', '.join(f'{k} x{v}' for k, v in got['answers_meanwhile'].items()) or 'no error'})",
                      flush=True)
        finally:
            survivor.stop()
    times = [r["takeover_s"] for r in rounds]
    wrong = {code: n for r in rounds for code, n in r["answers_meanwhile"].items() if code not in RETRYABLE}
    return {"kills": len(rounds), "lease_ms": args.lease_ms, "not_retryable_answers": wrong,
            "takeover_s": {"p50": round(percentile(times, 0.5), 3), "p99": round(percentile(times, 0.99), 3),
                           "max": round(max(times), 3), "min": round(min(times), 3)},
            "rounds": rounds}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=20, help="owners killed with SIGKILL (default 20)")
    parser.add_argument("--lease-ms", type=int, default=2_000, help="the nodes' --lease-ms (default: the server's)")
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL", DEFAULT_REDIS),
                        help="used when no redis-server can be started privately")
    parser.add_argument("--out", type=Path, default=None, help="where to write failover.json")
    args = parser.parse_args(argv)
    with private_redis() as own:
        figures = run(main_async(args, own or args.redis_url))
    t = figures["takeover_s"]
    print(f"failover over {figures['kills']} kill -9 of the owner (lease {args.lease_ms} ms): "
          f"p50 {t['p50']:.2f} s, p99 {t['p99']:.2f} s, max {t['max']:.2f} s; answers meanwhile not retryable: "
          f"{figures['not_retryable_answers'] or 'none'}")
    print(f"wrote {write_result('failover', figures, args.out)}")


if __name__ == "__main__":
    main()
