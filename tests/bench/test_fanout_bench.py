"""Smoke runs of the fan-out ceiling and of the fixed-rate A/B: every server runs as a real process and the figures
are well formed."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

from tests.bench.runner import ROOT, run_bench


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


def test_fixed_rate_ab_runs_every_server_at_the_same_rate(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "bench.fixed_rate", "--servers", "ours,bare", "--n", "4", "--rate",
                           "20", "--seconds", "0.3", "--repeat", "2", "--out", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    doc = json.loads((tmp_path / "fixed_rate.json").read_text())
    assert [r["server"] for r in doc["rows"]] == ["ours", "bare"]
    for row in doc["rows"]:
        assert len(row["cpu_us_per_frame"]) == 2 and row["least"] <= row["median"]
        assert len(row["p99_ms"]) == 2 and row["median_p99_ms"] > 0 and 0 <= row["median_server_cpu_util"] < 2
    assert doc["rows"][0]["median_vs_first"] == 1.0
