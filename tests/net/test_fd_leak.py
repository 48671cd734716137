"""Issue 12 §12 against a real server process, counting its open files in /proc/<pid>/fd: asking about rooms that do
not exist (replay GETs, joins of made-up battle ids) creates no directory and holds no file; the journals of the
rooms of many campaigns are not all held open (at most `--open-journals`, here 64)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import HttpStatus, ServerProcess
from tests.net.client import signed_in
from tests.net.test_play import campaign

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts /proc/<pid>/fd")
ASKED = 60
CAMPAIGNS = 120  # two journals each (the campaign room and its secret module)
OPEN_JOURNALS = 64


def open_files(server: ServerProcess) -> int:
    assert server.proc is not None
    return len(os.listdir(f"/proc/{server.proc.pid}/fd"))


def room_dirs(server: ServerProcess) -> set[str]:
    return set(os.listdir(server.data_dir / "rooms"))


async def test_asking_about_rooms_that_do_not_exist_creates_nothing(server_factory: Any) -> None:
    server = server_factory().start()
    made = campaign(server)
    red = await signed_in(server.ws_url, made["seats"][0]["token"], made["room"])
    dirs, files = room_dirs(server), open_files(server)
    try:
        for i in range(ASKED):
            for room in (f"c-made{i}up", f"b-{made['campaign']}-{i + 900}"):
                with pytest.raises(HttpStatus) as err:
                    server.http("GET", f"/api/rooms/{room}/replay")
                assert err.value.code == 404
            reply = await red.request_patiently({"t": "join", "room": f"b-{made['campaign']}-{i + 900}"})
            assert reply["t"] == "error" and reply["code"] == "no_such_room", reply
        assert room_dirs(server) == dirs
        assert open_files(server) <= files + 2  # a socket or a log file may come and go; not one per question
    finally:
        await red.close()  # a failure here must not leave its socket to a later test's unraisable warnings


def test_the_journals_of_many_campaigns_are_not_all_held_open(server_factory: Any) -> None:
    server = server_factory("--open-journals", str(OPEN_JOURNALS)).start()
    campaign(server)
    before = open_files(server)
    for _ in range(CAMPAIGNS):
        campaign(server)
    held = open_files(server) - before
    assert held <= OPEN_JOURNALS + 4, f"{held} more files open after {CAMPAIGNS} campaigns"
    assert len(room_dirs(server)) == 2 * (CAMPAIGNS + 1)
    assert server.http("GET", "/healthz")["ok"] is True
