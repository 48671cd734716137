"""Runs a benchmark as its own process (it pins itself to a core), as `python -m bench.all --quick` does, and reads
the JSON it wrote."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from bench import all as bench_all

ROOT = Path(__file__).resolve().parents[2]


def run_bench(module: str, out: Path, *args: str, timeout: float = 150) -> dict[str, Any]:
    """Run `python -m bench.<module> --out <out>` with bench.all's quick sizes (then `args`) and return its JSON."""
    proc = subprocess.run(
        [*bench_all.command(module, out, quick=True), *args],
        cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False,
    )
    assert proc.returncode == 0, f"bench.{module} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    doc: dict[str, Any] = json.loads((out / f"{module}.json").read_text())
    assert doc["benchmark"] == module and doc["machine"]["cores"] >= 1 and doc["utc"]
    return doc
