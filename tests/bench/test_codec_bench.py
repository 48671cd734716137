"""Smoke run of the codec benchmark: it runs on our real messages and writes well-formed figures (no timing asserts)."""

from __future__ import annotations

import json
import math
from pathlib import Path

from bench import codec


def test_codec_benchmark_runs_and_writes_figures(tmp_path: Path) -> None:
    assert codec.main(["--seconds", "0.003", "--out", str(tmp_path)]) == 0
    doc = json.loads((tmp_path / "codec.json").read_text())
    assert doc["benchmark"] == "codec" and doc["machine"]["cores"] >= 1
    names = {row["message"] for row in doc["rows"]}
    assert {"hello", "order", "ev_turn", "ev_small"} <= names
    for row in doc["rows"]:
        for figures in (row["encode_ns"], row["decode_validate_ns"]):
            assert {"ours_msgpack", "ormsgpack", "json"} <= figures.keys()
            assert all(isinstance(v, int) and v > 0 for v in figures.values())
        assert all(math.isfinite(v) and v > 0 for v in row["ratio_speed_vs_ormsgpack"].values())
    ev_turn = next(row for row in doc["rows"] if row["message"] == "ev_turn")
    assert 2000 < ev_turn["bytes"]["msgpack"] < 8000
