"""Runs a benchmark as its own process (it pins itself to a core) and reads the JSON it wrote."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def run_bench(module: str, out: Path, *args: str, timeout: float = 150) -> dict[str, Any]:
    """Run `python -m bench.<module> --out <out> args…` and return the JSON it wrote."""
    proc = subprocess.run(
        [sys.executable, "-m", f"bench.{module}", "--out", str(out), *args],
        cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False,
    )
    assert proc.returncode == 0, f"bench.{module} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    doc: dict[str, Any] = json.loads((out / f"{module}.json").read_text())
    assert doc["benchmark"] == module and doc["machine"]["cores"] >= 1 and doc["utc"]
    return doc
