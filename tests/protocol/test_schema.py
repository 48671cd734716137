"""The checked-in JSON Schema matches the models (regenerate: python -m shared.protocol.schema)."""

from __future__ import annotations

from shared.protocol.schema import SCHEMA_PATH, render


def test_schema_file_is_current() -> None:
    assert SCHEMA_PATH.read_text(encoding="utf-8") == render(), (
        "shared/protocol/schema.json is stale: run `python -m shared.protocol.schema`"
    )
