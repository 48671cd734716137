"""A small bot that commands one side of a battle room through the public protocol (docs/bots.md).

    python examples/battle_bot.py --url ws://127.0.0.1:8080/ws --token=SEAT_TOKEN --room b-CAMPAIGN-1 \
        [--retreat-after N]

It signs in with its seat's token, joins the battle room and, whenever its side is to act, asks the server the
legal options of each of its units (`options`) and gives one of them: guns fire at the nearest target, cavalry
charges what it can reach, the others march to the offered cell nearest the enemy. Then it ends its turn. With
`--retreat-after N` it orders its army's retreat from turn N (if the options offer it). It exits when the battle
has a result. Only the standard library, aiohttp and msgpack.
"""

from __future__ import annotations

import argparse
import asyncio
import math
from typing import Any

import aiohttp
from seat import Seat


def centre(unit: dict[str, Any]) -> tuple[float, float]:
    cells = unit["cells"] or [[unit["x"], unit["y"]]]
    return sum(c[0] for c in cells) / len(cells), sum(c[1] for c in cells) / len(cells)


def choose(opts: dict[str, Any], enemies: list[dict[str, Any]]) -> dict[str, Any] | None:
    """One order from a unit's options (shared/protocol/options.py BattleOptions)."""
    uid = opts["unit"]
    if opts["targets"]:
        near = min(opts["targets"], key=lambda t: t["distance"] if t["distance"] is not None else 99)
        return {"type": "targets", "unit": uid, "targets": [{"unit": near["unit"], "guns": opts["guns"]}]}
    if opts["charge"]:
        reach = next(r for r in opts["moves"] if r["contact"])
        return {"type": "charge", "unit": uid, "path": reach["path"]}
    if opts["leave_melee"] or not opts["moves"] or not enemies:
        return None  # fight on where it stands
    goals = [centre(e) for e in enemies]
    best = min(opts["moves"], key=lambda r: min(math.dist(r["to"], g) for g in goals))
    return {"type": "move", "unit": uid, "path": best["path"]}


async def play(url: str, token: str, room: str, retreat_after: int | None) -> dict[str, Any]:
    async with aiohttp.ClientSession() as http, http.ws_connect(url) as ws:
        s = Seat(ws)
        reader = asyncio.create_task(s.read())
        welcome = await s.request({"t": "hello", "token": token, "name": "battle bot"})
        side = welcome["team"]
        assert (await s.request({"t": "join", "room": room}))["t"] == "joined"
        played = -1
        while not s.state.get("result"):
            if s.state.get("active") != side or s.state.get("turn") == played:
                await s.next_change()
                continue
            played = s.state["turn"]
            if retreat_after is not None and played >= retreat_after:
                army = (await s.request({"t": "options", "room": room}))["options"]
                if army["retreat"]:
                    await s.request({"t": "order", "room": room, "order": {"type": "retreat"}})
            units = [u for u in s.state["units"] if u["side"] == side and u["status"] == "field"]
            enemies = [u for u in s.state["units"] if u["side"] != side and u["status"] == "field"]
            for unit in units:
                answer = await s.request({"t": "options", "room": room, "unit": unit["id"]})
                order = choose(answer["options"], enemies) if answer["t"] == "options" else None
                if order is not None and answer["options"]["active"]:
                    reply = await s.request({"t": "order", "room": room, "order": order})
                    assert reply["t"] == "ack", f"an option offered was refused: {reply}"
            await s.request({"t": "end_turn", "room": room})
        reader.cancel()
        return dict(s.state["result"])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url", required=True, help="the server's websocket, ws://host:port/ws")
    p.add_argument("--token", required=True, help="the seat's token (from its join link, after #token=)")
    p.add_argument("--room", required=True, help="the battle room, b-<campaign>-<battle>")
    p.add_argument("--retreat-after", type=int, default=None, help="order the retreat from this turn on")
    a = p.parse_args()
    result = asyncio.run(play(a.url, a.token, a.room, a.retreat_after))
    print(f"battle over: {result.get('winner')} won ({result.get('reason')})")


if __name__ == "__main__":
    main()
