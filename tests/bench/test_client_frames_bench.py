"""Smoke run of the client's frame benchmark (issue 17): headless Chromium pans and zooms the preview's battle and
the run writes well-formed figures. No timing asserts."""

from __future__ import annotations

from pathlib import Path

from tests.bench.runner import run_bench


def test_client_frames_runs_in_chromium_and_writes_its_figures(tmp_path: Path) -> None:
    doc = run_bench("client_frames", tmp_path, timeout=300)
    assert doc["units"] >= 40 and doc["paints"] > 0 and doc["frames"] > 0
    assert doc["frame_ms"]["p95"] >= doc["frame_ms"]["p50"] > 0 and doc["bare_frame_ms"]["p50"] >= 0
    assert doc["bundle_gzip_kb"] > 10 and set(doc["bundle"]) == {"index-*.js", "index-*.css"}
    assert isinstance(doc["target_p95_met"], bool) and isinstance(doc["target_bundle_met"], bool)
