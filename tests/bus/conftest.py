"""The Redis store under a fresh key prefix, its keys deleted afterwards."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.store import Store


@pytest.fixture
async def redis_store(redis_url: str) -> AsyncIterator[Store]:
    from server.backends import open_redis

    prefix = f"kstest{secrets.token_hex(4)}"
    s, bus = await open_redis(redis_url, prefix)
    yield s
    r: Any = s.log
    async for key in r.r.scan_iter(match=f"{prefix}:*"):
        await r.r.delete(key)
    await bus.close()
    await s.close()
