"""SIGKILL and restart: no accepted command is lost, every room comes back with its clocks and lockouts, and the
time the server was down is charged to nobody (issue 2 §5)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from tests.net.client import signed_in
from tests.net.test_play import campaign, move


async def test_sigkill_and_restart_lose_nothing_and_charge_downtime_to_nobody(server_factory: Any) -> None:
    node = server_factory().start()
    made = campaign(node, clock={"mode": "per_turn", "turn_ms": 120_000})
    room = made["room"]
    mod = await signed_in(node.ws_url, made["moderator_token"], room)
    red = await signed_in(node.ws_url, made["seats"][0]["token"], room)
    await red.request(move(room, "r1", 1, 1))
    await red.request({"t": "end_turn", "room": room})
    blue = await signed_in(node.ws_url, made["seats"][2]["token"], room)
    assert (await blue.request(move(room, "b1", 1, 6)))["t"] == "ack"
    await blue.request({"t": "chat", "room": room, "channel": "team", "text": "remember this"})
    await mod.request({"t": "mod_secret_module", "player": "red-2", "reason": "captured"})
    last = await blue.request({"t": "chat", "room": room, "channel": "players", "text": "last words"})
    assert last["t"] == "ack"
    await mod.event("chat", text="last words")
    seen = [(m["seq"], m["kind"]) for m in mod.events(room)]
    before = await blue.join(room)  # fresh snapshot: blue's clock as the server sees it
    snap = await blue.wait(lambda m: m["t"] == "snapshot")
    remaining_before = snap["clocks"]["teams"]["blue"]["remaining_ms"]
    t1 = time.monotonic()
    await asyncio.sleep(0.5)
    node.kill()
    t2 = time.monotonic()
    for c in (mod, red, blue):
        await c.close()
    await asyncio.sleep(2.0)

    node.start()
    mod = await signed_in(node.ws_url, made["moderator_token"])
    joined = await mod.join(room, since=0)
    assert joined["seq"] >= last["seq"] and joined["seq"] >= before["seq"]
    replayed = [(m["seq"], m["kind"]) for m in mod.events(room)]
    assert [r for r in replayed if r[0] <= seen[-1][0]][-len(seen):] == seen  # same events, same numbers
    assert [r[0] for r in replayed] == list(range(1, len(replayed) + 1))  # the moderator sees every seq
    skipped = await mod.wait(lambda m: m["t"] == "ev" and m["kind"] == "clock_downtime_skipped")
    assert skipped["data"]["skipped_ms"] >= 1500 and skipped["data"]["teams"] == ["blue"]

    blue = await signed_in(node.ws_url, made["seats"][2]["token"], room)
    snap = await blue.wait(lambda m: m["t"] == "snapshot")
    charged = remaining_before - snap["clocks"]["teams"]["blue"]["remaining_ms"]
    up = (t2 - t1) * 1000
    assert charged < up + 1000, (charged, up)  # the 2 s outage was not charged
    assert {c["id"]: (c["x"], c["y"]) for c in snap["state"]["counters"]}["b1"] == (1, 6)
    assert "remember this" in {line["text"] for line in snap["chat"]}
    assert [a["player"] for a in snap["away"]] == ["red-2"]  # the lockout survived
    red2 = await signed_in(node.ws_url, made["seats"][1]["token"], room)
    assert red2.welcome["locked_until_ms"] is not None
    assert (await blue.request({"t": "end_turn", "room": room}))["t"] == "ack"
    for c in (mod, blue, red2):
        await c.close()


async def test_a_graceful_stop_closes_sockets_with_1001_and_snapshots_the_rooms(server_factory: Any) -> None:
    node = server_factory().start()
    made = campaign(node)
    red = await signed_in(node.ws_url, made["seats"][0]["token"], made["room"])
    await red.request(move(made["room"], "r1", 1, 1))
    assert node.proc is not None
    node.proc.terminate()
    assert await red.wait_closed(within=10) == 1001
    assert node.proc.wait(10) == 0
    assert (node.data_dir / "rooms" / made["room"] / "snapshot").exists()
    await red.close()


def _rooms_owned(node: Any) -> int:
    metrics = node.http("GET", "/metrics")
    return int(float(next(line.split()[1] for line in metrics.splitlines() if line.startswith("ks_rooms_owned "))))


async def test_after_a_restart_a_lockout_ends_in_a_room_nobody_joined_D_N_14(server_factory: Any) -> None:
    """Start-up opens no room that nothing is due in; the schedule opens the room when the lockout ends, and its
    timer brings the player back, with nobody connected (N-VICTORY-3, D-N-14)."""
    node = server_factory().start()
    made = campaign(node, clocks_paused=True)
    room = made["room"]
    mod = await signed_in(node.ws_url, made["moderator_token"], room)
    sent = await mod.request({"t": "mod_secret_module", "player": "red-2", "minutes": 0.25, "reason": "captured"})
    assert sent["t"] == "ack"
    await mod.close()
    await asyncio.sleep(0.3)
    node.kill()
    node.start()
    assert _rooms_owned(node) == 0  # 15 s of lockout left: nothing is due yet, nothing was opened
    for _ in range(300):
        if _rooms_owned(node):
            break
        await asyncio.sleep(0.1)
    assert _rooms_owned(node) >= 1
    mod = await signed_in(node.ws_url, made["moderator_token"])
    await mod.join(room, since=0)
    back = await mod.event("secret_module", action="returned", within=10)
    assert back["data"]["player"] == "red-2" and back["data"]["early"] is False
    await mod.close()
