"""The outbox: a socket's frames of one turn of the event loop leave in one write, at the end of the turn."""

from __future__ import annotations

import asyncio
import base64
import os
import re
import socket
import urllib.request
from typing import Any

import msgpack

from server.net.outbox import Outbox
from tests.conftest import ServerProcess
from tests.net.client import signed_in
from tests.net.test_backpressure import _frame
from tests.net.test_play import campaign


class Socket:
    def __init__(self, log: list[str], name: str) -> None:
        self.log, self.name = log, name

    def flush(self) -> None:
        self.log.append(self.name)


async def test_sockets_held_in_one_turn_are_flushed_once_when_the_running_code_gives_the_loop_back() -> None:
    outbox, log = Outbox(), []
    a, b = Socket(log, "a"), Socket(log, "b")
    outbox.hold(a)
    outbox.hold(b)
    assert log == []  # nothing written while the turn's code runs
    await asyncio.sleep(0)
    assert log == ["a", "b"] and outbox.writes == 2
    outbox.hold(a)
    await asyncio.sleep(0)
    assert log == ["a", "b", "a"] and outbox.writes == 3  # a new turn, a new flush


def _socket_writes(server: ServerProcess) -> int:
    with urllib.request.urlopen(f"{server.url}/metrics") as r:
        text = r.read().decode()
    found = re.search(r"^ks_socket_writes_total (\d+)", text, re.M)
    assert found is not None
    return int(found.group(1))


async def test_a_burst_of_commands_read_in_one_go_reaches_each_watching_socket_in_a_few_writes(
        server_factory: Any) -> None:
    """Twenty announcements sent in one TCP write: the spectator gets its twenty events and the moderator its
    twenty events and acks in a handful of writes, not one per command and socket. (Without fsync: a command
    that waits for the disk ends its turn of the loop, and its frames leave then.)"""
    server = server_factory("--no-fsync").start()
    made = campaign(server)
    room = made["room"]
    spectator = await signed_in(server.ws_url, made["spectator_token"], room)
    await spectator.wait(lambda m: m["t"] == "snapshot")
    sock = socket.create_connection(("127.0.0.1", server.port))
    reader, writer = await asyncio.open_connection(sock=sock)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    await reader.readuntil(b"\r\n\r\n")
    writer.write(_frame(msgpack.packb({"t": "hello", "cid": 1, "token": made["moderator_token"]})))
    writer.write(_frame(msgpack.packb({"t": "join", "cid": 2, "room": room})))
    await writer.drain()
    await asyncio.sleep(0.5)  # welcome, joined, snapshot: read below with the rest
    before = _socket_writes(server)
    burst = b"".join(_frame(msgpack.packb({"t": "chat", "cid": 100 + i, "room": room, "channel": "announce",
                                           "text": f"notice {i}"})) for i in range(20))
    writer.write(burst)
    await writer.drain()
    for i in range(20):
        await spectator.event("chat", text=f"notice {i}")
    got = b""
    while got.count(b"\xa3ack") < 20:  # the packed "ack" of each ack frame
        data = await asyncio.wait_for(reader.read(65536), 5)
        assert data
        got += data
    writes = _socket_writes(server) - before
    # one write per command and socket would be 40 (before the outbox: the spectator's event, the moderator's
    # event with its ack); a turn of the loop may run out of its budget on a busy machine, hence not 2
    assert writes < 20, f"{writes} writes for the 20 + 40 frames of 20 commands"
    writer.close()
    await spectator.close()


async def test_a_socket_that_fails_to_flush_does_not_hold_up_the_others() -> None:
    class Broken:
        def flush(self) -> None:
            raise RuntimeError("transport gone")

    outbox, log = Outbox(), []
    outbox.hold(Broken())
    outbox.hold(Socket(log, "b"))
    await asyncio.sleep(0)
    assert log == ["b"]
