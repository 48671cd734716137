"""Smoke run of the turn-resolution benchmark: it records the commit it ran on and, run again, sets its figures
against the stored ones (issue 8: "against the previous commit's figure stored in bench/results/").
No timing asserts."""

from __future__ import annotations

import json
from pathlib import Path

from bench import battle_turn
from bench.common import git_commit

TINY = ["--turns", "2", "--repeat", "2", "--battles", "1"]


def test_battle_turn_records_its_commit_and_compares_with_the_stored_result(tmp_path: Path) -> None:
    assert battle_turn.main([*TINY, "--out", str(tmp_path)]) == 0
    first = json.loads((tmp_path / "battle_turn.json").read_text())
    assert first["commit"] == git_commit() and first["vs_previous"] is None and first["previous"] is None
    assert first["resolution_ms"]["p99"] >= first["resolution_ms"]["median"] > 0 and first["battles_per_second"] > 0

    stored = {**first, "commit": "0000000", "utc": "2026-01-01T00:00:00Z"}
    (tmp_path / "battle_turn.json").write_text(json.dumps(stored))
    assert battle_turn.main([*TINY, "--out", str(tmp_path)]) == 0
    second = json.loads((tmp_path / "battle_turn.json").read_text())
    assert second["vs_previous"]["commit"] == "0000000" and second["previous"]["commit"] == "0000000"
    assert set(second["vs_previous"]["ratios"]) == set(battle_turn.COMPARED)
    assert all(r is not None and r > 0 for r in second["vs_previous"]["ratios"].values())


def test_a_rerun_on_the_same_commit_keeps_comparing_with_the_last_commit(tmp_path: Path) -> None:
    older = {"benchmark": "battle_turn", "commit": "1111111", "resolution_ms": {"median": 1.0, "p99": 2.0},
             "resolution_cpu_ms": {"median": 1.0, "p99": 2.0}, "battles_per_second": 1.0}
    same = {**older, "commit": git_commit(), "previous": older}
    (tmp_path / "battle_turn.json").write_text(json.dumps(same))
    assert battle_turn.main([*TINY, "--out", str(tmp_path)]) == 0
    doc = json.loads((tmp_path / "battle_turn.json").read_text())
    assert doc["previous"]["commit"] == "1111111" and doc["vs_previous"]["commit"] == "1111111"
