"""`admin revoke` and `admin reissue` (the sessions of a revoked token closed on every node, the new link with the
public URL), and what the commands say when they cannot do what was asked: one line with what to do, exit 1 (2
for a bad command line), no traceback unless --debug."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from pathlib import Path
from typing import Any

import pytest

from tests.admin.helpers import admin, refused
from tests.net.client import Client, signed_in
from tests.net.test_play import campaign


@pytest.mark.redis
async def test_revoke_and_reissue_on_a_running_redis_deployment(
        server_factory: Any, redis_url: str, redis_prefix: str) -> None:
    redis = ("--redis-url", redis_url, "--redis-prefix", redis_prefix)
    first, second = server_factory(*redis).start(), server_factory(*redis).start()
    made = campaign(first)
    cid, room = made["campaign"], made["room"]
    red = await signed_in(second.ws_url, made["seats"][0]["token"], room)
    blue = await signed_in(first.ws_url, made["seats"][2]["token"], room)
    out = admin("revoke", cid, "red-1", *redis).stdout
    assert f"Revoked 1 token(s) of red-1 in campaign {cid}" in out
    assert await red.wait_closed(within=10) == 4010
    out = admin("reissue", cid, "blue-1", "--public-url", "https://games.example.org", *redis).stdout
    assert await blue.wait_closed(within=10) == 4010
    link = out.strip().rsplit(" ", 1)[1]
    assert link.startswith("https://games.example.org/#token=")
    again = await signed_in(second.ws_url, link.split("#token=")[1], room)
    gone = await Client(first.ws_url).connect()
    assert (await gone.hello(made["seats"][0]["token"]))["code"] == "bad_token"
    assert "no player 'green-1'" in refused("revoke", cid, "green-1", *redis)
    for c in (red, blue, again, gone):
        await c.close()


async def test_tokens_of_an_embedded_store_change_while_its_server_is_stopped(server_factory: Any) -> None:
    node = server_factory().start()
    made = campaign(node)
    where = ("--data-dir", str(node.data_dir))
    assert "in use by its running server: stop it first" in refused("revoke", made["campaign"], "red-1", *where)
    node.stop()
    admin("revoke", made["campaign"], "red-1", "moderator", *where)
    node.start()
    for token in (made["seats"][0]["token"], made["moderator_token"]):
        client = await Client(node.ws_url).connect()
        assert (await client.hello(token))["code"] == "bad_token"
        await client.close()


def _retar(src: Path, dst: Path, change: Any, *, resum: bool) -> None:
    """Copy an export, `change(name, data)` deciding each member's new contents; `resum`: its SHA256SUMS made to
    match them (else left as it was)."""
    with tarfile.open(src, "r:gz") as tar:
        members = [(m, change(m.name, tar.extractfile(m).read())) for m in tar]  # type: ignore[union-attr]
    if resum:
        sums = "".join(f"{hashlib.sha256(data).hexdigest()}  {m.name}\n" for m, data in members
                       if m.name != "SHA256SUMS").encode()
        members = [(m, sums if m.name == "SHA256SUMS" else data) for m, data in members]
    with tarfile.open(dst, "w:gz") as out:
        for member, data in members:
            member.size = len(data)
            out.addfile(member, io.BytesIO(data))


async def test_failures_are_one_line_with_what_to_do(server_factory: Any, tmp_path: Path) -> None:
    node = server_factory().start()
    made = campaign(node)
    where = ("--data-dir", str(node.data_dir))
    good = tmp_path / "good.tar.gz"
    admin("export", made["campaign"], str(good), *where)
    node.stop()
    other = ("--data-dir", str(tmp_path / "other"))

    assert "no file" in refused("import", str(tmp_path / "missing.tar.gz"), *other)
    (tmp_path / "junk.tar.gz").write_bytes(b"not a tar at all")
    assert "is not a campaign export" in refused("import", str(tmp_path / "junk.tar.gz"), *other)
    bad = tmp_path / "bad.tar.gz"
    _retar(good, bad, lambda name, data: data[:-1] + bytes([data[-1] ^ 1]) if name.endswith("/records") else data,
           resum=False)
    assert "does not match its checksum" in refused("import", str(bad), *other)
    newer = tmp_path / "newer.tar.gz"
    _retar(good, newer, lambda name, data: json.dumps({**json.loads(data), "format": "kriegsspiel/campaign-export/2"})
           .encode() if name == "MANIFEST.json" else data, resum=True)
    assert "this server reads kriegsspiel/campaign-export/1" in refused("import", str(newer), *other)
    assert not (tmp_path / "other" / "campaigns").exists() or not list((tmp_path / "other" / "campaigns").iterdir())

    assert "no campaign nosuch in this store" in refused("export", "nosuch", str(tmp_path / "x.tar.gz"), *where)
    assert "no campaign nosuch" in refused("reissue", "nosuch", "red-1", *where)
    assert "no embedded store in" in refused("list", "--data-dir", str(tmp_path / "nowhere"))
    line = refused("list", "--redis-url", "redis://:secret@127.0.0.1:1/0")
    assert "cannot reach Redis at redis://:***@127.0.0.1:1/0" in line and "secret" not in line

    usage = admin("frobnicate", ok=False)
    assert usage.returncode == 2 and "invalid choice" in usage.stderr and len(usage.stderr.splitlines()) == 1
    debug = admin("export", "nosuch", str(tmp_path / "x.tar.gz"), "--debug", *where, ok=False)
    assert debug.returncode == 1 and "Traceback" in debug.stderr and "AdminError" in debug.stderr
    help_text = admin("import", "--help").stdout
    assert "--fork-at" in help_text and "--replace" in help_text
