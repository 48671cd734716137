"""`python -m bench.all`: every benchmark in sequence, then the figures; a quick run leaves the README alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import all as bench_all
from bench import report


def test_quick_run_writes_each_result_and_prints_the_figures_not_the_readme(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    readme = report.README.read_text()
    assert bench_all.main(["--quick", "--only", "codec,battle_turn", "--out", str(tmp_path)]) == 0
    assert {p.name for p in tmp_path.iterdir()} == {"codec.json", "battle_turn.json"}
    shown = capsys.readouterr().out
    assert "### Targets of issue 8" in shown and "25v25 turn p99 ≤ 5 ms" in shown
    assert "### Codec" in shown and "### Turn resolution" in shown
    assert report.README.read_text() == readme


def test_every_benchmark_has_quick_sizes_and_an_unknown_one_is_refused() -> None:
    assert set(bench_all.QUICK) == set(bench_all.ORDER)
    with pytest.raises(SystemExit):
        bench_all.main(["--quick", "--only", "nonesuch"])


def test_the_machine_line_names_each_cpu_with_its_figures_when_they_came_from_different_machines() -> None:
    def doc(cpu: str, load: float) -> dict[str, object]:
        return {"machine": {"cpu": cpu, "cores": 2, "mem_gib": 23.5, "kernel": "6", "python": "3.11.7",
                            "loadavg_1m": load, "bench_nice": -10}}

    one = report.machine({"codec": doc("Xeon", 0.6), "fanout": doc("Xeon", 1.3)})[0]
    assert one.startswith("Machine: Xeon, 2 cores") and "load average 0.6–1.3" in one
    two = report.machine({"codec": doc("Xeon", 0.6), "fanout": doc("Xeon", 1.3), "startup": doc("EPYC", 6.5)})[0]
    assert two.startswith("Machine: Xeon (codec, fanout) / EPYC (startup), 2 cores") and "0.6–6.5" in two
