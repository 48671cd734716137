"""Finished campaigns out of the live store: `admin archive` (refused for a campaign still played), archived
campaigns listed from the archive directory and restored from it, `admin retention --days N`, and a server that
applies the retention itself (--retention-days) on both stores."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.admin.helpers import admin, archive_files, campaign_of, listing, refused
from tests.net.client import signed_in
from tests.net.test_play import campaign


async def finished(node: Any) -> dict[str, Any]:
    """A drill of one turn, played to its end."""
    made = campaign(node, name="short", config={"max_turns": 1})
    room = made["room"]
    red = await signed_in(node.ws_url, made["seats"][0]["token"], room)
    blue = await signed_in(node.ws_url, made["seats"][2]["token"], room)
    await red.request({"t": "end_turn", "room": room})
    await blue.request({"t": "end_turn", "room": room})
    await blue.event("drill_over")
    for c in (red, blue):
        await c.close()
    return made


async def test_archive_list_restore_and_retention(server_factory: Any, tmp_path: Path) -> None:
    node = server_factory().start()
    done = await finished(node)
    playing = campaign(node, name="long")
    where = ("--data-dir", str(node.data_dir))
    node.stop()

    listed = listing(*where)
    assert campaign_of(listed, done["campaign"])["state"] == "over"  # type: ignore[index]
    assert campaign_of(listed, playing["campaign"])["state"] == "running"  # type: ignore[index]
    out = admin("retention", "--days", "0", "--dry-run", *where).stdout
    assert out.strip() == f"would archive {done['campaign']}"
    assert "No campaign over and unused for 1 days" in admin("retention", "--days", "1", *where).stdout
    assert "still being played: add --force" in refused("archive", playing["campaign"], *where)

    out = admin("archive", done["campaign"], *where).stdout
    assert f"Archived campaign {done['campaign']} (short)" in out and "read back and checked" in out
    [archived] = archive_files(node.data_dir / "archive")  # the default: the data directory's archive/
    listed = listing(*where)
    entry = campaign_of(listed, done["campaign"])
    assert entry is not None and entry["state"] == "archived" and entry["archive"] == str(archived)
    assert [r["room"] for r in entry["rooms"]] == [done["room"], f"s-{done['campaign']}"]
    table = admin("list", *where).stdout
    assert "archived" in table and "running" in table and "short" in table

    admin("import", str(archived), *where)  # restored from the archive: its links work, its replay is there
    assert campaign_of(listing(*where), done["campaign"])["state"] == "over"  # type: ignore[index]
    node.start()
    replay = node.http("GET", f"/api/rooms/{done['room']}/replay?as=full")
    assert replay["final"]["state"]["turn"] == 2
    red = await signed_in(node.ws_url, done["seats"][0]["token"], done["room"])
    await red.close()
    node.stop()
    out = admin("retention", "--days", "0", "--archive-dir", str(tmp_path / "elsewhere"), *where).stdout
    assert f"Archived campaign {done['campaign']}" in out
    assert len(archive_files(tmp_path / "elsewhere")) == 1
    assert [c["campaign"] for c in listing(*where)["campaigns"] if c["state"] != "archived"] == [
        playing["campaign"]]


@pytest.mark.parametrize("backend", ["embedded", pytest.param("redis", marks=pytest.mark.redis)])
async def test_a_server_archives_finished_campaigns_itself(
        backend: str, request: pytest.FixtureRequest, server_factory: Any, tmp_path: Path) -> None:
    args: tuple[str, ...] = ("--retention-days", "0.00001", "--retention-every", "0.5", "--room-idle-s", "1",
                             "--archive-dir", str(tmp_path / "archive"))
    if backend == "redis":
        args += ("--redis-url", request.getfixturevalue("redis_url"), "--redis-prefix",
                 request.getfixturevalue("redis_prefix"))
    node = server_factory(*args).start()
    done = await finished(node)
    playing = campaign(node, name="long")
    said = f"retention: campaign {done['campaign']} (short) archived to"
    for _ in range(240):  # the rooms are unloaded when idle (10 s rounds), then archived at the next round
        if said in node.log.read_text():
            break
        await asyncio.sleep(0.25)
    assert said in node.log.read_text()
    [archived] = archive_files(tmp_path / "archive")
    assert archived.name.startswith(done["campaign"])
    lobby = {c["id"] for c in node.http("GET", "/api/lobby")["campaigns"]}
    assert done["campaign"] not in lobby and playing["campaign"] in lobby
