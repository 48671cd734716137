"""Smoke run of the in-process command path A/B (bench/command.py): this tree and an earlier commit each run the
worker in their own process, and the figures are well formed (no timing asserts)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

from tests.bench.runner import ROOT


def test_command_path_ab_runs_this_tree_and_an_earlier_commit(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "bench.command", "--servers", "ours,ours@HEAD", "--rooms", "2",
                           "--commands", "30", "--rounds", "2", "--repeat", "2", "--out", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    doc = json.loads((tmp_path / "command.json").read_text())
    assert doc["benchmark"] == "command" and doc["settings"]["rooms"] == 2
    assert [r["server"] for r in doc["rows"]] == ["ours", "ours@HEAD"]
    for row in doc["rows"]:
        assert len(row["us_per_command"]) == 4  # 2 runs of 2 rounds
        assert all(math.isfinite(x) and x > 0 for x in row["us_per_command"])
        assert row["least"] <= row["median"]
    assert doc["rows"][0]["least_vs_first"] == 1.0
