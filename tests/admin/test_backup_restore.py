"""A backup and its restore on both stores, as an operator does it: a campaign played on a real server, listed and
exported while the server runs, its deletion refused while it is played and while a server has it open, deleted,
imported again, and a real server process serves it once more — the same events under the same sequence numbers,
the same positions, chat and secret-module lockout, its old links, and the clocks not charged for the time it was
away."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from tests.admin.helpers import admin, campaign_of, listing, refused, store_args
from tests.net.client import signed_in
from tests.net.test_play import campaign, move


async def play(node: Any) -> dict[str, Any]:
    """A campaign two turns in: moves, a team chat, a player in the secret module. Returns what was seen."""
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
    await mod.event("chat", text="last words")
    blue.inbox.clear()
    await blue.join(room)  # a fresh snapshot: the state and blue's clock as the server has them now
    snap = await blue.wait(lambda m: m["t"] == "snapshot")
    snap_ms = time.time() * 1000
    seen = [(m["seq"], m["kind"]) for m in mod.events(room)]
    for c in (mod, red, blue):
        await c.close()
    return {"made": made, "seen": seen, "last_seq": last["seq"], "snap": snap, "snap_ms": snap_ms}


def positions(snap: dict[str, Any]) -> dict[str, tuple[int, int]]:
    return {c["id"]: (c["x"], c["y"]) for c in snap["state"]["counters"]}


async def served_again(node: Any, played: dict[str, Any], exported_ms: float) -> None:
    """The restored campaign as a server serves it: same history, same state, old links, and the clocks charged
    for the time until the export (the server served it) but not for the time since."""
    made, room = played["made"], played["made"]["room"]
    mod = await signed_in(node.ws_url, made["moderator_token"])
    joined = await mod.join(room, since=0)
    assert joined["t"] == "joined" and joined["seq"] >= played["last_seq"]
    replayed = [(m["seq"], m["kind"]) for m in mod.events(room)]
    assert set(played["seen"]) <= set(replayed)  # every event again, under its own number
    assert [seq for seq, _ in replayed] == list(range(1, len(replayed) + 1))
    blue = await signed_in(node.ws_url, made["seats"][2]["token"], room)
    snap = await blue.wait(lambda m: m["t"] == "snapshot")
    before = played["snap"]
    assert positions(snap) == positions(before) and snap["active"] == before["active"] == ["blue"]
    assert "remember this" in {line["text"] for line in snap["chat"]}
    assert [a["player"] for a in snap["away"]] == ["red-2"]
    served_ms, away_ms = exported_ms - played["snap_ms"], time.time() * 1000 - exported_ms
    charged = before["clocks"]["teams"]["blue"]["remaining_ms"] - snap["clocks"]["teams"]["blue"]["remaining_ms"]
    assert away_ms > 4000 and charged < served_ms + 3000, (charged, served_ms, away_ms)
    assert (await blue.request(move(room, "b2", 2, 6)))["t"] == "ack"  # and the game goes on
    for c in (mod, blue):
        await c.close()


@pytest.mark.parametrize("backend", ["embedded", pytest.param("redis", marks=pytest.mark.redis)])
async def test_export_delete_import_and_a_server_serves_the_campaign_again(
        backend: str, request: pytest.FixtureRequest, server_factory: Any, tmp_path: Path) -> None:
    args: tuple[str, ...] = ()
    if backend == "redis":
        args = ("--redis-url", request.getfixturevalue("redis_url"), "--redis-prefix",
                request.getfixturevalue("redis_prefix"))
    node = server_factory(*args).start()
    played = await play(node)
    cid, where = played["made"]["campaign"], store_args(node)

    listed = campaign_of(listing(*where), cid)  # listed and exported while the server runs
    assert listed is not None and listed["state"] == "running" and listed["seats"] == 4
    assert [r["room"] for r in listed["rooms"]] == [f"c-{cid}", f"s-{cid}"]
    assert listed["rooms"][0]["records"] >= 6 and listed["bytes"] > 0 and listed["owner"]
    backup = tmp_path / "backup.tar.gz"
    out = admin("export", cid, str(backup), *where).stdout
    assert f"Exported campaign {cid}" in out and "with its tokens" in out
    exported_ms = time.time() * 1000

    held = refused("delete", cid, "--yes", "--force", *where)  # a server has it open
    assert ("is open on node" in held) if backend == "redis" else ("in use by its running server" in held)

    node.stop()
    assert "still being played: add --force" in refused("delete", cid, "--yes", *where)
    assert "cannot be undone: add --yes" in refused("delete", cid, "--force", *where)
    assert f"Deleted campaign {cid}" in admin("delete", cid, "--yes", "--force", *where).stdout
    assert campaign_of(listing(*where), cid) is None
    await asyncio.sleep(3)  # the campaign is away a while
    out = admin("import", str(backup), *where).stdout
    assert f"imported as {cid}" in out and "the old links work" in out
    assert "already in this store: add --replace" in refused("import", str(backup), *where)
    node.start()
    await served_again(node, played, exported_ms)
