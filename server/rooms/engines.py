"""The engine registry as the rooms use it until they are handed it (server/engines.py)."""

from __future__ import annotations

from server.engines import ENGINES

register = ENGINES.register
find_engine = ENGINES.find
engine_config = ENGINES.config
engine_names = ENGINES.names
