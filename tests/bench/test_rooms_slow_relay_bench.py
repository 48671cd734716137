"""Smoke runs of the many-rooms, slow-consumer and Redis relay benchmarks: they run against real server processes
and write well-formed figures. Nothing here asserts a speed."""

from __future__ import annotations

import math
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.bench.runner import run_bench


def _well_formed_step(step: dict[str, Any]) -> None:
    assert step["sent"] > 0 and 0 <= step["delivered_ratio"] <= 1 and step["alive"] >= 0
    assert step["samples"] > 0 and math.isfinite(step["p50_ms"]) and step["p99_ms"] >= step["p50_ms"] > 0


def test_rooms_benchmark_runs_ours_and_baselines(tmp_path: Path) -> None:
    doc = run_bench("rooms", tmp_path)
    assert {r["server"] for r in doc["rows"]} == {"ours", "bare", "picows"}
    for row in doc["rows"]:
        assert row["rooms"] == 3 and row["connections"] == 3 * 13
        assert row["steps"] and all(s["rate"] > 0 for s in row["steps"])
        for step in row["steps"]:
            _well_formed_step(step)
    assert set(doc["ratios_ours_vs_bare"]) == {"throughput", "cpu_per_frame"}
    assert set(doc["ratios_ours_vs_picows"]) == {"throughput", "cpu_per_frame"}


def test_slow_consumer_benchmark_runs_ours_and_bare(tmp_path: Path) -> None:
    doc = run_bench("slow", tmp_path)
    for row in doc["rows"]:
        assert row["stalled"] == 1 and len(row["cut_off_s"]) == 1
        for phase in (row["without_slow"], row["with_slow"], row["control_during_without"], row["control_during_with"]):
            assert phase["sent"] > 0 and phase["samples"] > 0 and 0 <= phase["healthy_delivered_ratio"] <= 1
            assert phase["rss_max_bytes"] >= phase["rss_start_bytes"] > 0
        assert row["p99_ratio_with_vs_without"] > 0 and row["p99_ratio_with_vs_control"] > 0
        assert len(row["client_saw_close_s"]) == 1
        assert row["stalled_server_send_queue_max_bytes"] + row["stalled_client_receive_queue_max_bytes"] > 0
        assert isinstance(row["rss_growth_from_stalled_bytes"], int)


@pytest.mark.redis
def test_relay_benchmark_runs_ours_and_baselines_through_redis(tmp_path: Path) -> None:
    """With redis-server installed each pair gets its own (and its PUBLISH count); else both share REDIS_URL."""
    url = os.environ.get("REDIS_URL")
    own = shutil.which("redis-server") is not None
    if not own and not url:
        pytest.skip("neither redis-server nor REDIS_URL")
    doc = run_bench("relay", tmp_path, *([] if own else ["--redis-url", str(url)]))
    assert {r["server"] for r in doc["rows"]} == {"ours", "bare", "picows"}
    for row in doc["rows"]:
        for step in row["steps"]:
            _well_formed_step(step)
        if own:
            assert row["redis_publishes"] > 0 and row["publishes_per_event"] > 0
    assert doc["ratios_ours_vs_bare"]["throughput"] is not None
    assert doc["ratios_ours_vs_picows"]["throughput"] is not None


def _startup_figures(doc: dict[str, Any], store: str) -> None:
    figures = doc["stores"][store]["this"]
    assert len(figures["healthy_s"]) == 2 and all(0 < s < 60 for s in figures["healthy_s"])
    assert figures["rooms_owned_at_start"] == 0, "rooms open lazily"
    assert figures["rooms_opened"] >= 1 and figures["rss_per_open_room_bytes"] != 0
    assert figures["rooms_warm"] >= 1 and figures["rss_per_open_room_from_start_bytes"] != 0
    assert figures["room_state_bytes"] > 0
    assert {v["target"].split(":")[0] for v in doc["verdicts"]} == set(doc["stores"])


def test_startup_benchmark_measures_time_to_healthy_and_memory_per_room(tmp_path: Path) -> None:
    doc = run_bench("startup", tmp_path)
    assert set(doc["stores"]) == {"embedded"} and doc["settings"]["campaigns"] == 6
    _startup_figures(doc, "embedded")


@pytest.mark.redis
def test_startup_benchmark_on_redis(tmp_path: Path) -> None:
    url = os.environ.get("REDIS_URL")
    if shutil.which("redis-server") is None and not url:
        pytest.skip("neither redis-server nor REDIS_URL")
    doc = run_bench("startup", tmp_path, "--stores", "redis", *(["--redis-url", str(url)] if url else []))
    _startup_figures(doc, "redis")
