"""`python -m server --host H --port N [--data-dir D] [--redis-url URL] [--demo]` (REDIS_URL selects Redis)."""

from __future__ import annotations

import asyncio
import gc
import logging
import sys

from aiohttp import web

from server.net.app import create_app
from server.settings import parse

GC_THRESHOLDS = (50_000, 20, 100)
"""Every command and frame allocates a few dozen containers: with the default 700 the young generation was
collected every few commands (5% of the server's CPU under bench.rooms); long-lived objects (sessions, rooms) are
few and cycles rare, so collecting less often costs a little memory and no correctness."""


def _new_loop() -> tuple[asyncio.AbstractEventLoop, str]:
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop(), "asyncio"
    return uvloop.new_event_loop(), "uvloop"


def main(argv: list[str] | None = None) -> int:
    settings = parse(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)
    loop, loop_name = _new_loop()
    gc.set_threshold(*GC_THRESHOLDS)
    backend = f"redis {settings.redis_url}" if settings.redis_url else f"embedded, data in {settings.data_dir}"
    print(f"Kriegsspiel server on http://{settings.host}:{settings.port} (websocket /ws; {backend}; {loop_name})",
          flush=True)
    web.run_app(create_app(settings), host=settings.host, port=settings.port, print=None, loop=loop)
    return 0


if __name__ == "__main__":
    sys.exit(main())
