"""Smoke runs of the benchmarks: real processes on loopback, tiny sizes, no timing assertions."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

NODE_DIR = Path(__file__).resolve().parents[2] / "bench" / "node"


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
