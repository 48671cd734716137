"""Smoke run of the AI benchmark (issue 18): it plays a few battles, a campaign to a low turn cap and skirmishes,
records the commit it ran on and its figures. No timing or win-rate asserts (the figures are the bench's)."""

from __future__ import annotations

import json
from pathlib import Path

from bench import ai
from bench.common import git_commit


def test_the_ai_bench_plays_every_kind_of_game_and_records_its_figures(tmp_path: Path) -> None:
    assert ai.main(["--battles", "2", "--campaigns", "1", "--skirmishes", "1", "--turn-cap", "2",
                    "--out", str(tmp_path)]) == 0
    result = json.loads((tmp_path / "ai.json").read_text())
    figures = result["figures"]
    assert result["commit"] == git_commit() and figures["battles"] == 2
    assert 0 <= figures["win_rate"] <= 1 and figures["ai_vs_ai_battles_finished"].startswith("2/")
    assert figures["battle_decision_ms_p99"] >= figures["battle_decision_ms_median"] > 0
    assert [c["level"] for c in figures["continental_campaigns"]] == [1, 2, 3]
    assert len(figures["napoleonic_campaigns"]) == 1 and set(figures["skirmishes"]) == {"skirmish", "skirmish-platoon"}
