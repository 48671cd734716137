"""A TCP proxy on loopback between server processes and Redis, to make Redis fail as a network does: `cut_after`
drops every connection (and refuses new ones for a while) right after a request holding a marker went through — its
reply is lost though Redis carried it out; `down()` / `up()` make Redis unreachable and reachable again."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from urllib.parse import urlsplit, urlunsplit


class RedisProxy:
    def __init__(self, redis_url: str):
        parts = urlsplit(redis_url)
        self.target = (parts.hostname or "127.0.0.1", parts.port or 6379)
        self._parts = parts
        self.server: asyncio.Server | None = None
        self.port = 0
        self._links: set[asyncio.StreamWriter] = set()
        self._clients: set[asyncio.StreamWriter] = set()
        self._marker: bytes | None = None
        self._blackout_s = 0.0
        self._refusing = False
        self.cuts = 0
        self.refused = 0
        """Connections refused while Redis was cut off."""
        """How many times a marked request went through and its reply was dropped."""

    @property
    def url(self) -> str:
        """The Redis URL through the proxy (same database and credentials)."""
        netloc = self._parts.netloc.rsplit("@", 1)
        host = f"127.0.0.1:{self.port}"
        return urlunsplit(self._parts._replace(netloc=f"{netloc[0]}@{host}" if len(netloc) == 2 else host))

    async def start(self) -> RedisProxy:
        self.server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    def cut_after(self, marker: bytes, blackout_s: float = 1.0) -> None:
        """The next request holding `marker` reaches Redis; then every connection drops (its reply is lost) and
        none is taken for `blackout_s` (the client library's own quick retries fail too)."""
        self._marker, self._blackout_s = marker, blackout_s

    def down(self) -> None:
        """Redis unreachable: every connection dropped, new ones refused, until `up()`."""
        self._refusing = True
        self._drop_all()

    def up(self) -> None:
        self._refusing = False

    def _drop_all(self) -> None:
        for writer in list(self._links):
            writer.transport.abort()
        self._links.clear()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._refusing:
            self.refused += 1
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.transport.abort()
            return
        self._links.update((writer, up_writer))
        self._clients.add(writer)
        try:
            await asyncio.gather(self._pipe(reader, up_writer, watch=True),
                                 self._pipe(up_reader, writer, watch=False), return_exceptions=True)
        finally:  # cancelled at shutdown too: no socket is left to a later test's unraisable warnings
            self._clients.discard(writer)
            for w in (writer, up_writer):
                self._links.discard(w)
                w.transport.abort()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, watch: bool) -> None:
        while True:
            data = await reader.read(65536)
            if not data:
                return
            marked = watch and self._marker is not None and self._marker in data
            writer.write(data)
            if marked:  # the clients lose their connections before any reply can come back; Redis still runs it
                self._marker = None
                self.cuts += 1
                self._refusing = True
                for client in list(self._clients):
                    client.transport.abort()
                await writer.drain()
                await asyncio.sleep(0.1)
                self._drop_all()
                asyncio.get_running_loop().call_later(self._blackout_s, self.up)
                return
            await writer.drain()

    async def close(self) -> None:
        """Stop accepting, drop every connection and end every task of the proxy's, their sockets closed."""
        if self.server is not None:
            self.server.close()
        self._drop_all()
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self.server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.server.wait_closed(), 1)
        await asyncio.sleep(0)  # the aborted transports close their sockets on the next loop turn


class ProxyThread:
    """The proxy on its own event loop in a thread, so that the test's blocking calls (starting a server, its HTTP
    API) do not stop it: `with ProxyThread(url) as proxy: ... proxy.url, proxy.cut_after(...), proxy.down()`."""

    def __init__(self, redis_url: str):
        self.proxy = RedisProxy(redis_url)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def __enter__(self) -> ProxyThread:
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self.proxy.start(), self.loop).result(5)
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self.proxy.close(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()

    @property
    def url(self) -> str:
        return self.proxy.url

    @property
    def cuts(self) -> int:
        return self.proxy.cuts

    @property
    def refused(self) -> int:
        return self.proxy.refused

    def cut_after(self, marker: bytes, blackout_s: float = 1.0) -> None:
        self.loop.call_soon_threadsafe(self.proxy.cut_after, marker, blackout_s)

    def down(self) -> None:
        self.loop.call_soon_threadsafe(self.proxy.down)

    def up(self) -> None:
        self.loop.call_soon_threadsafe(self.proxy.up)
