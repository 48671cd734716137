"""Store and event bus behind interfaces (server/bus/base.py): embedded files + in-process, or Redis."""

from __future__ import annotations

from server.bus.base import EventBus, Store
from server.settings import Settings


async def open_backend(settings: Settings) -> tuple[Store, EventBus]:
    """Redis when `settings.redis_url` is set (REDIS_URL), else the embedded default under `data_dir`."""
    if settings.redis_url:
        from server.bus.redis import open_redis

        return await open_redis(settings.redis_url, settings.redis_prefix)
    from server.bus.embedded import FileStore, LocalBus

    return FileStore(settings.data_dir, fsync=settings.fsync), LocalBus()
