"""Smoke runs of the benchmarks: real processes on loopback, tiny sizes, no timing assertions."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
NODE_DIR = ROOT / "bench" / "node"


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


@pytest.fixture(scope="session")
def node_baseline() -> bool:
    """The Node `ws` baseline is installed (npm ci in bench/node, from its lock file) when Node and npm exist."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        return False
    if not (NODE_DIR / "node_modules" / "ws").is_dir():
        done = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=NODE_DIR, capture_output=True,
                              timeout=300, check=False)
        if done.returncode != 0:
            return False
    return True
