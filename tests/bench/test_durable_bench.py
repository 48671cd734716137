"""Smoke run of the durable-commands benchmark (issue 20 §2): a real server with fsync on (and on a private
redis-server with appendfsync always), grouped and one flush per command, writes well-formed figures. Nothing here
asserts a speed."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

from bench import report
from tests.bench.runner import run_bench


def test_durable_benchmark_runs_both_modes_on_both_stores(tmp_path: Path) -> None:
    doc = run_bench("durable", tmp_path)
    rows = {r["store"]: r for r in doc["rows"]}
    assert set(rows) == {"embedded", "redis"}
    if shutil.which("redis-server") is None:
        assert "skipped" in rows.pop("redis")
    for store, row in rows.items():
        one = row["one_fsync_ms" if store == "embedded" else "one_write_ms"]
        assert one["samples"] == 3 * 20 and 0 < one["p50"] <= one["p99"]  # before, between and after the modes
        for mode in ("grouped", "one_per_command"):
            m = row[mode]
            assert m["acked_per_s"] > 0 and math.isfinite(m["ack_ms"]["p99"]) and m["appends"] > 0
            assert m["flushes"] > 0 and m["paced"]["ack_ms"]["samples"] > 0
            assert m["paced"]["ack_ms"]["p99"] <= m["paced"]["ack_ms"]["p999"]
            assert m["paced"]["loadgen_stall_max_ms"] >= 0 and row["paced_ack_p99_vs_one_p99"][mode] is not None
        assert row["one_per_command"]["mean_group"] == 1.0  # grouping off: one fsync / round trip per command
        assert row["acked_ratio_grouped_vs_one_per_command"] is not None
        floor = row["not_durable"]  # the same server with nothing to wait for, paced at the same rate
        assert floor["acked_per_s"] > 0 and floor["paced"]["rate"] == row["grouped"]["paced"]["rate"]
        assert floor["paced"]["ack_ms"]["samples"] > 0
        p50, p99 = row["floor_paced_ack_p50_p99_vs_one_p50"]
        assert 0 < p50 <= p99 and row["floor_acked_vs_one_per_command"] > 0
    shown = report.figures(tmp_path)
    assert "### Durable commands" in shown and "durable (embedded): acked cmds/s ≥ 5 ×" in shown
    assert "| not durable |" in shown and "durable (embedded): the floor's acked" in shown
