"""bench/command.py's measuring process: one server tree's command path in-process, its sockets fake.

Run as a script with the measured tree as the working directory (that tree's `server` and bench engine are
imported, whatever commit it is): `python bench/command_worker.py SPEC.json`. SPEC: rooms, commands per round,
rounds, fsync, concurrent, the event data. Prints one JSON line: CPU µs per command of each round.

Each room is a bench campaign (bench/servers/bench_engine.py) with its moderator, its 2 players and 10 spectators
signed in and joined through `Session.on_frame`, as bench.rooms' clients are; the moderator's `mod_ruling` emits
then go the whole way — decode and validate, rate limits, the room, the engine, the journal, views, the feed, the
ack — to transports that count writes instead of making system calls. The rooms take turns, one command each.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, os.getcwd())

import msgpack


class Transport:
    """A socket's transport that takes every write at once (no system call)."""

    def __init__(self) -> None:
        self.writes = 0

    def write(self, data: bytes) -> None:
        self.writes += 1

    def writelines(self, data: list[bytes]) -> None:
        self.writes += 1

    def get_write_buffer_size(self) -> int:
        return 0

    def is_closing(self) -> bool:
        return False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default


async def measure(spec: dict[str, Any]) -> list[float]:
    from bench.servers.bench_engine import BenchEngine
    from server.engines import ENGINES

    ENGINES.register("bench", BenchEngine)
    from server.bus.local import LocalBus
    from server.net.node import Node
    from server.net.session import Session
    from server.rooms.hub import Hub
    from server.settings import Settings
    from server.store.embedded import open_embedded
    from shared.protocol.http import CreateCampaign

    folder = tempfile.mkdtemp(prefix="bench-command-")
    fsync = bool(spec["fsync"])
    settings = Settings(data_dir=folder, fsync=fsync, rate_per_s=1e9, rate_burst=1_000_000_000)
    store = open_embedded(folder, fsync=fsync)
    bus = LocalBus()
    hub = Hub(store, bus, ENGINES, node="bench")
    node = Node(settings, hub)
    await hub.start()
    moderators = []
    for i in range(spec["rooms"]):
        made = await hub.create_campaign(CreateCampaign.model_validate({
            "name": f"bench-{i}", "scenario": "bench", "teams": [{"colour": "red"}, {"colour": "blue"}],
        }).model_dump())
        tokens = [made["moderator_token"], *(s["token"] for s in made["seats"]), *[made["spectator_token"]] * 10]
        sessions = []
        for token in tokens:
            session = Session(None, hub, settings, node.outbox, node.metrics, Transport(),  # type: ignore[arg-type]
                              flood=node.flood, address=None)
            await session.on_frame(msgpack.packb({"t": "hello", "cid": 1, "token": token}))
            await session.on_frame(msgpack.packb({"t": "join", "cid": 2, "room": made["room"]}))
            sessions.append(session)
        moderators.append((sessions[0], made["room"]))
    node.outbox.flush()
    cid = 10

    def frames(n: int) -> list[tuple[Any, bytes]]:
        nonlocal cid
        out = []
        for k in range(n):
            session, room = moderators[k % len(moderators)]
            cid += 1
            out.append((session, msgpack.packb({"t": "mod_ruling", "cid": cid, "room": room, "ruling": {
                "type": "emit", "kind": "bench", "data": spec["data"]}})))
        return out

    async def run(batch: list[tuple[Any, bytes]]) -> None:
        if spec.get("concurrent"):  # each room's commands one after the other, the rooms at once (bench.durable)
            by_room: dict[int, list[bytes]] = {}
            for session, frame in batch:
                by_room.setdefault(id(session), []).append(frame)
            sessions = {id(session): session for session, _ in batch}

            async def room(key: int) -> None:
                for frame in by_room[key]:
                    await sessions[key].on_frame(frame)

            await asyncio.gather(*(room(key) for key in by_room))
            node.outbox.flush()
            return
        for session, frame in batch:
            await session.on_frame(frame)
            node.outbox.flush()

    gc.set_threshold(50_000, 20, 100)  # the server's (server/__main__.py GC_THRESHOLDS)
    await run(frames(spec["commands"] // 2))  # warm
    per_round = []
    for _ in range(spec["rounds"]):
        batch = frames(spec["commands"])
        t0 = time.process_time()
        await run(batch)
        per_round.append((time.process_time() - t0) / len(batch) * 1e6)
    await hub.close()
    await bus.close()
    await store.close()
    return per_round


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    print(json.dumps({"us_per_command": asyncio.run(measure(spec))}))
