"""A scripted battle over the real wire, for the browser tests and the pictures: two commanders (a seat of each
side, over their own websockets) march every unit straight at the enemy, cavalry charging, guns unlimbering and
naming the nearest enemy as their round-shot target, until `turns` turns are played — so that volleys, canister,
round shot, melee and losses happen where the browsers watch. An order the engine refuses is simply not given.

It runs its own asyncio loop in a thread (Playwright's sync API owns the main thread's loop):

    fight_in_thread(ws_url, {"red": red_token, "blue": blue_token}, battle_room, turns=6)
    python -m tests.browser.scripted WS_URL BATTLE_ROOM RED_TOKEN BLUE_TOKEN [TURNS]
"""

from __future__ import annotations

import asyncio
import math
import sys
import threading
from pathlib import Path
from typing import Any

from tests.net.client import Client, join_when_spawned, signed_in

DIRECTIONS = [(0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1)]


async def state_of(client: Client, room: str) -> dict[str, Any]:
    """The room as this seat sees it now (a fresh snapshot)."""
    client.inbox.clear()
    reply = await paced(client, {"t": "join", "room": room})
    assert reply["t"] == "joined", reply
    snap = await client.wait(lambda m: m["t"] == "snapshot" and m["room"] == room)
    return dict(snap["state"])


def orders_for(unit: dict[str, Any], enemies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What to try for one unit, best first."""
    uid = unit["id"]
    out: list[dict[str, Any]] = []
    if "artillery" in unit["type"]:
        if unit.get("formation") == "limbered":
            out.append({"type": "unlimber", "unit": uid})
        near = sorted(enemies, key=lambda e: math.hypot(e["x"] - unit["x"], e["y"] - unit["y"]))
        guns = max(1, int(unit.get("guns") or 1))
        out += [{"type": "targets", "unit": uid, "targets": [{"unit": e["id"], "guns": guns}]} for e in near[:4]]
        return out
    dx, dy = DIRECTIONS[int(unit["facing"]) % 8]
    points = int(unit.get("points") or 0)
    for steps in sorted({max(1, points), max(1, points - 1), max(1, points // 2), 1}, reverse=True):
        path = [[unit["x"] + dx * i, unit["y"] + dy * i] for i in range(1, steps + 1)]
        if "cavalry" in unit["type"] and steps >= 4:
            out.append({"type": "charge", "unit": uid, "path": path})
        out.append({"type": "move", "unit": uid, "path": path})
    return out


PACE_S = 0.06  # the server takes 20 messages a second from a connection (its --rate); keep under it


async def paced(client: Client, msg: dict[str, Any]) -> dict[str, Any]:
    await asyncio.sleep(PACE_S)
    return await client.request(msg)


async def fight(ws_url: str, tokens: dict[str, str], room: str, turns: int) -> None:
    seats = {side: await signed_in(ws_url, token) for side, token in tokens.items()}
    try:
        for client in seats.values():
            await join_when_spawned(client, room)
        while True:
            probe = await state_of(next(iter(seats.values())), room)
            active = probe.get("active")
            if probe.get("result") or int(probe.get("turn") or 0) > turns or active not in seats:
                return
            client = seats[active]
            state = probe if client is next(iter(seats.values())) else await state_of(client, room)
            mine = [u for u in state.get("units", []) if u.get("side") == active and u.get("status") == "field"]
            enemies = [u for u in state.get("units", []) if u.get("side") != active and u.get("status") == "field"]
            for unit in mine:
                for order in orders_for(unit, enemies):
                    reply = await paced(client, {"t": "order", "room": room, "order": order})
                    if reply["t"] == "ack":
                        break
            reply = await paced(client, {"t": "end_turn", "room": room})
            assert reply["t"] == "ack", reply
    finally:
        for client in seats.values():
            await client.close()


def fight_in_thread(ws_url: str, tokens: dict[str, str], room: str, turns: int = 6, within: float = 120) -> None:
    failure: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(fight(ws_url, tokens, room, turns))
        except BaseException as exc:  # handed back to the test's thread
            failure.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(within)
    if thread.is_alive():
        raise AssertionError(f"the scripted battle did not finish within {within} s")
    if failure:
        raise failure[0]


if __name__ == "__main__":
    url, battle, red, blue = sys.argv[1:5]
    fight_in_thread(url, {"red": red, "blue": blue}, battle, int(sys.argv[5]) if len(sys.argv) > 5 else 6)


def release_from_the_secret_module(ws_url: str, moderator_token: str, players: list[str]) -> list[str]:
    """The umpire brings these players back from the secret module (D-N-14), as the desk's Release does; returns
    those who were there (a general's fate is a roll: who falls depends on the battle)."""
    async def run() -> list[str]:
        umpire = await signed_in(ws_url, moderator_token)
        try:
            answers = [await umpire.request({"t": "mod_release", "player": p}) for p in players]
        finally:
            await umpire.close()
        return [p for p, a in zip(players, answers, strict=True) if a["t"] == "ack"]

    released: list[str] = []  # in a thread of its own: Playwright's sync API holds this thread's event loop
    thread = threading.Thread(target=lambda: released.extend(asyncio.run(run())), daemon=True)
    thread.start()
    thread.join(30)
    return released


def room_log(data_dir: Path, room: str) -> list[Any]:
    """The records of a room as the embedded store wrote them (read beside the running server, which holds the
    store's lock; whole frames only)."""
    from server.store.embedded.journal import _frames
    from server.store.records import Record

    data = (data_dir / "rooms" / room / "journal").read_bytes()
    return [Record.unpack(body) for _, body, _ in _frames(data, 0)]


def visible_events(records: list[Any], viewer: str) -> list[Any]:
    """The logged events a viewer class may see (server/rooms/room.py `visible`)."""
    return [e for r in records for e in r.events if e.audience is None or viewer == "moderator" or viewer in e.audience]
