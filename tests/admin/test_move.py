"""A campaign moved from an embedded server to a Redis deployment: exported from the stopped server's data
directory, imported into Redis, and a Redis node serves it with its history, state and old links; the time the
campaign spent between the two deployments is charged to nobody."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from tests.admin.helpers import admin, campaign_of, listing
from tests.admin.test_backup_restore import play, served_again

pytestmark = pytest.mark.redis


async def test_embedded_to_redis(server_factory: Any, redis_url: str, redis_prefix: str, tmp_path: Path) -> None:
    old = server_factory().start()
    played = await play(old)
    cid = played["made"]["campaign"]
    old.stop()
    stopped_ms = time.time() * 1000
    await asyncio.sleep(2)  # the old server is down a while before the export: that is not charged either
    move = tmp_path / "move.tar.gz"
    admin("export", cid, str(move), "--data-dir", str(old.data_dir))
    redis = ("--redis-url", redis_url, "--redis-prefix", redis_prefix)
    out = admin("import", str(move), *redis).stdout
    assert f"imported as {cid}" in out and "Redis" in out and "the old links work" in out
    listed = campaign_of(listing(*redis), cid)
    assert listed is not None and listed["state"] == "running" and listed["players_online"] == 0
    new = server_factory(*redis).start()
    await served_again(new, played, stopped_ms)
    listed = campaign_of(listing(*redis), cid)
    assert listed is not None and listed["owner"]  # a node owns it now
