"""Smoke runs of the benchmarks: real processes on loopback, tiny sizes, no timing assertions."""

from __future__ import annotations

import pytest

from bench import all as bench_all


@pytest.fixture(scope="session")
def node_baseline() -> bool:
    """The Node `ws` baseline is installed (npm ci in bench/node, from its lock file) when Node and npm exist."""
    return bench_all.node_baseline()
