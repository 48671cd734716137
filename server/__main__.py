"""`python -m server --host H --port N [--data-dir D] [--redis-url URL] [--demo]` (REDIS_URL selects Redis)."""

from __future__ import annotations

import logging
import sys

from aiohttp import web

from server.net.app import create_app
from server.settings import parse


def main(argv: list[str] | None = None) -> int:
    settings = parse(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)
    loop_factory = None
    try:
        import uvloop

        loop_factory = uvloop.new_event_loop
    except ImportError:
        pass
    backend = f"redis {settings.redis_url}" if settings.redis_url else f"embedded, data in {settings.data_dir}"
    print(f"Kriegsspiel server on http://{settings.host}:{settings.port} (websocket /ws; {backend})", flush=True)
    import asyncio

    loop = loop_factory() if loop_factory else asyncio.new_event_loop()
    web.run_app(create_app(settings), host=settings.host, port=settings.port, print=None, loop=loop,
                handle_signals=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
