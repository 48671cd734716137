"""How the old-format room fixtures beside this file were made: run once, with the code of commit 292db94 (before
the rooms redesign of issue 13), never again.

    REDIS_URL=redis://127.0.0.1:6379/0 python -m tests.rooms.old_format.make_fixture

It plays the same small games twice, once on the embedded store and once on Redis, and writes
    embedded/                 the data directory as the embedded store left it (journals, checkpoints, snapshots)
    redis.msgpack             every key of the Redis prefix: its type and value (streams as [id, fields] entries)
    expected.json             what the rooms rebuilt by that code looked like (tests/rooms/test_old_format.py)

The games: a drill campaign (orders, ends of turn, a flag by its clock, chat on every channel, the moderator's
clock commands, a note, a spectator delay, two players sent to the secret module, one brought back early and one
back by time, chat in the secret module, a restart after an hour down); a Continental campaign with an order the
rules refuse (its 50-point penalty, a `refused` record); a Napoleonic campaign whose armies meet and fight a few
orders of their battle in a battle room.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import msgpack

HERE = Path(__file__).resolve().parent
START_MS = 1_700_000_000_000
VIEWERS = ("moderator", "spectator", "public", "team:red", "team:blue", "secret:blue-2")


class Clock:
    def __init__(self) -> None:
        self.ms = START_MS

    def __call__(self) -> int:
        return self.ms


def _spec(**kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"name": "Old drill", "scenario": "drill", "level": 2,
                            "teams": [{"colour": "red", "seats": 2}, {"colour": "blue", "seats": 2}],
                            "clock": {"mode": "per_turn", "turn_ms": 60_000}, "lockout_minutes": 1}
    base.update(kw)
    return base


async def play(make_hub: Any, clock: Clock) -> dict[str, Any]:
    from server.napoleonic.battle.ai import BattleAI
    from server.rooms.members import Member

    hub = await make_hub()
    await hub.start()
    drill = await hub.create_campaign(_spec())
    c = drill["campaign"]
    room = drill["room"]
    secret = f"s-{c}"
    red1, red2 = (Member(c, "player", f"red-{i}", "red", i) for i in (1, 2))
    blue1, blue2 = (Member(c, "player", f"blue-{i}", "blue", i) for i in (1, 2))
    mod, spec = Member(c, "moderator", "moderator"), Member(c, "spectator", "spectator")

    async def run(room_id: str, kind: str, body: dict[str, Any], member: Any) -> Any:
        return await hub.submit(room_id, kind, body, member)

    await run(room, "order", {"order": {"type": "move", "counter": "r1", "to": [1, 1]}}, red1)
    await run(room, "chat", {"channel": "team", "text": "hold the bridge", "name": "Ney"}, red2)
    clock.ms += 5_000
    await run(room, "end_turn", {"lag_ms": 40}, red1)
    await run(room, "order", {"order": {"type": "move", "counter": "b1", "to": [1, 6]}}, blue1)
    await run(room, "chat", {"channel": "players", "text": "truce?"}, blue1)
    await run(room, "chat", {"channel": "spectators", "text": "go blue"}, spec)
    await run(room, "chat", {"channel": "moderator", "text": "a ruling please"}, blue2)
    await run(room, "chat", {"channel": "announce", "text": "turn 1"}, mod)
    await run(room, "clock", {"action": "pause"}, mod)
    clock.ms += 3_000
    await run(room, "clock", {"action": "resume"}, mod)
    await run(room, "clock", {"action": "adjust", "team": "blue", "delta_ms": 15_000}, mod)
    await run(room, "ruling", {"ruling": {"type": "note", "text": "the bridge is out"}}, mod)
    await run(room, "ruling", {"ruling": {"type": "spectator_delay", "ms": 30_000}}, mod)
    await run(room, "lock", {"player": "blue-2", "reason": "general captured", "minutes": None}, mod)
    await run(secret, "chat", {"channel": "secret", "text": "I demand a recount"}, blue2)
    await run(secret, "chat", {"channel": "secret:blue-2", "text": "Denied."}, mod)
    await run(room, "lock", {"player": "red-2", "reason": "umpire", "minutes": 5}, mod)
    await run(room, "release", {"player": "red-2", "by": "moderator"}, mod)
    clock.ms += 90_000  # blue's clock runs out and blue-2's minute in the secret module is over
    await hub.rooms[room]._fire()
    await hub.rooms[room]._fire()
    await run(room, "order", {"order": {"type": "move", "counter": "r2", "to": [3, 1]}}, red2)
    # the process dies (no shutdown snapshot) and comes back an hour later: the downtime is charged to nobody
    await hub.store.mark_alive(list(hub.rooms), clock())
    for task in hub._tasks:
        task.cancel()
    await hub.bus.close()
    await hub.store.close()
    clock.ms += 3_600_000
    hub = await make_hub()
    await hub.start()
    await hub.owned(room)
    await run(room, "end_turn", {}, red1)
    await run(room, "chat", {"channel": "team", "text": "after the outage"}, blue1)

    continental = await hub.create_campaign(_spec(
        name="Old continental", scenario="continental", level=1, clock=None,
        teams=[{"colour": "red", "seats": 1}, {"colour": "blue", "seats": 1}]))
    cc = continental["campaign"]
    cred, cblue = Member(cc, "player", "red-1", "red", 1), Member(cc, "player", "blue-1", "blue", 1)
    croom = continental["room"]
    await run(croom, "end_turn", {}, cred)
    await run(croom, "end_turn", {}, cblue)
    state = hub.rooms[croom].core.state
    unit = next(u for u in state.units.values() if u.team == "red")
    try:
        await run(croom, "order", {"order": {"type": "move", "unit": unit.id,
                                             "path": [[unit.cell[0] + 5, unit.cell[1]]]}}, cred)
    except Exception as exc:  # the refusal; its penalty is a record of its own
        assert type(exc).__name__ == "IllegalOrder", exc

    armies = {
        "red": [{"id": "r1", "name": "Army of Silesia", "general": "Blücher", "seat": 2, "cell": [10, 17],
                 "movement_points": 6, "base": "Paris",
                 "units": [{"id": f"r1-{i}", "type": t} for i, t in enumerate(
                     ["infantry", "infantry", "heavy_cavalry", "foot_artillery"])]}],
        "blue": [{"id": "b1", "name": "III Corps", "general": "Ney", "seat": 1, "cell": [12, 17],
                  "movement_points": 6, "base": "Brussels",
                  "units": [{"id": f"b1-{i}", "type": t} for i, t in enumerate(
                      ["infantry", "light_cavalry", "foot_artillery"])]}],
    }
    nap = await hub.create_campaign(_spec(name="Old napoleonic", scenario="napoleonic", config={"armies": armies}))
    nc = nap["campaign"]
    nm = {f"{t}-{s}": Member(nc, "player", f"{t}-{s}", t, s) for t in ("red", "blue") for s in (1, 2)}
    await run(nap["room"], "order", {"order": {"type": "move", "army": "r1", "path": [[11, 17], [12, 17]]}},
              nm["red-1"])
    await run(nap["room"], "order", {"order": {"type": "answer", "battle": "1", "choice": "accept"}}, nm["blue-2"])
    battle_id = f"b-{nc}-1"
    for _ in range(400):
        if battle_id in hub.rooms:
            break
        await asyncio.sleep(0.005)
    battle = hub.rooms[battle_id]
    for phase in range(3):
        side = battle.core.state.active_side
        _, _, orders = BattleAI().play_phase(battle.core.state, side)
        player = nm[f"{side}-{1 + phase % 2}"]
        for o in orders[:4]:
            await run(battle_id, "order", {"order": o}, player)
        clock.ms += 2_000
        await run(battle_id, "end_turn", {}, player)
    await run(battle_id, "ruling", {"ruling": {"type": "spectator_delay", "ms": 60_000}},
              Member(nc, "moderator", "moderator"))
    if hub.battles._worker is not None:
        await hub.battles._worker
    await hub.close()  # a graceful stop: snapshots saved
    await hub.bus.close()
    await hub.store.close()
    return {"drill": drill["campaign"], "continental": cc, "napoleonic": nc,
            "rooms": [room, secret, croom, f"s-{cc}", nap["room"], f"s-{nc}", battle_id]}


async def describe(store: Any, bus: Any, rooms: list[str], clock: Clock) -> dict[str, Any]:
    """Each room as the old code rebuilds it: from its snapshot and log, and from the whole log."""
    from server.rooms.room import Room

    out: dict[str, Any] = {}
    for room_id in rooms:
        for how, kw in (("snapshot", {}), ("log", {"until_ms": clock() + 10**9})):
            room = await Room.open(room_id, store, bus, clock, owner=False, **kw)
            assert room is not None, room_id
            core = room.core
            history = [[e.seq, e.at_ms, e.kind, e.plain_data(), sorted(e.audience) if e.audience else None]
                       for e in room.history]
            out[f"{room_id} {how}"] = {
                "seq": room.seq, "index": room.index, "last_at": room.last_at,
                "state": digest(room.engine.dump(core.state) if room.engine is not None else None),
                "clocks": core.clocks.dump() if core.clocks is not None else None,
                "away": {p: a.dump() for p, a in core.away.items()},
                "chat": {ch: [dict(line) for line in lines] for ch, lines in core.chat.items()},
                "spectator_delay_ms": room.spectator_delay_ms,
                "next_due": room.next_due(),
                "history_kinds": [e[2] for e in history],
                "history": digest(history),
                "snapshots": {v: digest(room.snapshot_for(v)) for v in VIEWERS
                              if room.engine is None or v != "secret:blue-2"},
            }
    return out


def digest(value: Any) -> str:
    """sha256 of the canonical JSON of `value` (tests/rooms/test_old_format.py computes the same)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=list)
    return hashlib.sha256(text.encode()).hexdigest()


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, sort_keys=True, default=list))


async def embedded() -> dict[str, Any]:
    from server.bus.embedded import FileStore, LocalBus

    from server.rooms.hub import Hub

    target = HERE / "embedded"
    shutil.rmtree(target, ignore_errors=True)
    clock = Clock()

    async def make_hub() -> Hub:
        return Hub(FileStore(target, fsync=False), LocalBus(), node="old", snapshot_every=5, now=clock)

    played = await play(make_hub, clock)
    store = FileStore(target, fsync=False)
    described = await describe(store, LocalBus(), played["rooms"], clock)
    await store.close()
    os.unlink(target / "LOCK")
    return {**played, "now_ms": clock(), "rooms_described": _plain(described)}


async def redis(url: str) -> dict[str, Any]:
    import redis.asyncio as aioredis

    from server.bus.redis import open_redis
    from server.rooms.hub import Hub

    prefix = "ksold"
    client = aioredis.Redis.from_url(url)
    async for key in client.scan_iter(match=f"{prefix}:*"):
        await client.delete(key)
    clock = Clock()

    async def make_hub() -> Hub:
        store, bus = await open_redis(url, prefix)
        return Hub(store, bus, node="old", snapshot_every=5, now=clock)

    played = await play(make_hub, clock)
    store, bus = await open_redis(url, prefix)
    described = await describe(store, bus, played["rooms"], clock)
    await bus.close()
    await store.close()
    keys: dict[str, Any] = {}
    async for raw in client.scan_iter(match=f"{prefix}:*"):
        key = raw.decode()
        kind = (await client.type(raw)).decode()
        if kind == "stream":
            value: Any = [[i.decode(), f] for i, f in await client.xrange(raw)]
        elif kind == "string":
            value = await client.get(raw)
        elif kind == "hash":
            value = await client.hgetall(raw)
        elif kind == "zset":
            value = [[m, s] for m, s in await client.zrange(raw, 0, -1, withscores=True)]
        elif kind == "list":
            value = await client.lrange(raw, 0, -1)
        else:
            raise AssertionError(f"{key}: {kind}")
        if key.endswith(":lease") or ":presence:" in key or ":seat:" in key:
            continue  # a node's passing claims, not the game
        keys[key.removeprefix(prefix + ":")] = {"type": kind, "value": value}
        await client.delete(raw)
    await client.aclose()
    (HERE / "redis.msgpack").write_bytes(msgpack.packb(keys, use_bin_type=True))
    return {**played, "now_ms": clock(), "rooms_described": _plain(described)}


async def main() -> int:
    url = os.environ.get("REDIS_URL")
    if not url:
        print("REDIS_URL is needed", file=sys.stderr)
        return 2
    expected = {"made_with": "292db94", "embedded": await embedded(), "redis": await redis(url)}
    (HERE / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
