"""Smoke run of the fan-out ceiling: every server runs as a real process and the figures are well formed."""

from __future__ import annotations

import math
from pathlib import Path

from tests.bench.runner import run_bench


def test_fanout_benchmark_runs_ours_and_baselines(tmp_path: Path, node_baseline: bool) -> None:
    servers = "ours,bare,picows,node" if node_baseline else "ours,bare,picows"
    doc = run_bench("fanout", tmp_path, "--servers", servers)
    rows = {r["server"]: r for r in doc["rows"]}
    assert set(rows) == set(servers.split(","))
    for row in rows.values():
        assert row["n"] == 4 and row["rss_idle_bytes"] > 0
        for name in ("small", "turn"):
            result = row["by_payload"][name]
            assert result["steps"], "at least one rate step ran"
            assert result["frame_bytes"] == 128 if name == "small" else result["frame_bytes"] > 2000
            for step in result["steps"]:
                assert step["sent"] > 0 and 0 <= step["delivered_ratio"] <= 1
                assert step["samples"] > 0 and math.isfinite(step["p99_ms"]) and step["p99_ms"] >= step["p50_ms"] > 0
                assert step["load_cpu_util"] >= 0 and 0 <= step["server_core_busy"] <= 1
    ratios = {(r["baseline"], r["payload"]) for r in doc["ratios"]}
    assert ("bare", "turn") in ratios and ("bare", "small") in ratios
    assert ("picows", "turn") in ratios and ("picows", "small") in ratios
