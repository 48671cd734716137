"""A small bot that plays one seat of a campaign room through the public protocol alone (docs/bots.md).

    python examples/bot.py --url ws://127.0.0.1:8080/ws --token=SEAT_TOKEN [--turns N] [--seed S]

It signs in with its seat's token (the part of a join link after `#token=`), joins the campaign room and, whenever
its team is to act, asks the server which armies may move (`options` without a unit), then each army's options,
orders one of the marches offered (chosen at random) and ends its turn — until the game is over or it has played
N turns. Every command is numbered with a cid that this seat never reuses, and a command answered `unavailable`,
`rate_limited` or `outcome_unknown` is sent again, unchanged, with the same cid (exactly once). Written for the
Continental War (`scenario: "continental"`); only the standard library, aiohttp and msgpack.
"""

from __future__ import annotations

import argparse
import asyncio
import random

import aiohttp
from seat import Seat


class CampaignSeat(Seat):
    """A seat in a campaign room: knows when its team is to act."""

    async def my_turn(self, team: str, after: int) -> bool:
        """Wait for a view at or past `after` (our last ack's seq: the view may come after the ack), then until this
        team is to act (True) or the game is over (False)."""
        while True:
            if self.seq >= after and (self.state.get("result") or self.state.get("phase") == "over"):
                return False
            if self.seq >= after and team in self.state.get("active", []):
                return True
            await self.next_change()


async def play(url: str, token: str, turns: int, rng: random.Random) -> tuple[int, int]:
    """Play up to `turns` turns; return (turns played, orders accepted)."""
    async with aiohttp.ClientSession() as http, http.ws_connect(url) as ws:
        seat = CampaignSeat(ws)
        reader = asyncio.create_task(seat.read())
        welcome = await seat.request({"t": "hello", "token": token, "name": "example bot"})
        assert welcome["t"] == "welcome", welcome
        team, room = welcome["team"], f"c-{welcome['campaign']}"
        joined = await seat.request({"t": "join", "room": room})
        assert joined["t"] == "joined", joined
        played = accepted = last_seq = 0
        while played < turns and await seat.my_turn(team, after=last_seq):
            army_list = await seat.request({"t": "options", "room": room})
            for army in army_list["options"]["armies"] if army_list["t"] == "options" else []:
                answer = await seat.request({"t": "options", "room": room, "unit": army})
                marches = answer["options"]["marches"] if answer["t"] == "options" else []
                if not marches:
                    continue
                path = rng.choice(marches)["path"]
                reply = await seat.request({"t": "order", "room": room,
                                            "order": {"type": "move", "unit": army, "path": path}})
                if reply["t"] == "ack":
                    accepted += 1
                else:  # an offered march meets a unit our view did not show (fog of war): that can happen
                    print(f"turn {seat.state.get('turn')}: {army} refused: {reply['code']} {reply.get('rule')}")
            seq = seat.state.get("turn")
            ended = await seat.request({"t": "end_turn", "room": room})
            assert ended["t"] == "ack", ended
            last_seq = ended["seq"]
            played += 1
            print(f"turn {seq}: ended, {accepted} orders accepted so far")
        reader.cancel()
        return played, accepted


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url", required=True, help="the server's websocket, ws://host:port/ws")
    p.add_argument("--token", required=True, help="the seat's token (from its join link, after #token=)")
    p.add_argument("--turns", type=int, default=10, help="stop after this many of our turns")
    p.add_argument("--seed", type=int, default=None, help="seed the choice of marches")
    a = p.parse_args()
    played, accepted = asyncio.run(play(a.url, a.token, a.turns, random.Random(a.seed)))
    print(f"done: {played} turns played, {accepted} orders accepted")


if __name__ == "__main__":
    main()
