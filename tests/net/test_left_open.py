"""A test that fails with websocket clients (tests/net/client.py) open fails alone: tests/conftest.py closes the
clients it left open, so the next test does not fail on their unraisable ResourceWarnings — and no other warning
is hidden (a client session that is not a test client's still fails the test that collects it)."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.conftest import ROOT


def test_a_client_left_open_fails_only_its_own_test(tmp_path: Path) -> None:
    report = tmp_path / "pair.xml"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", f"--junitxml={report}",
         str(Path(__file__).with_name("left_open_pair.py"))],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120)
    told = run.stdout[-4000:] + run.stderr[-2000:]
    assert run.returncode == 1, told  # some tests failed: not an internal error at the session's end
    outcomes, failures = {}, {}
    for case in ET.parse(report).iter("testcase"):
        failed = case.find("failure") if case.find("failure") is not None else case.find("error")
        outcomes[case.get("name")] = "passed" if failed is None else "failed"
        failures[case.get("name")] = "" if failed is None else f"{failed.get('message')}\n{failed.text}"
    assert outcomes == {
        "test_fails_with_clients_open": "failed", "test_after_a_failure": "passed",
        "test_passes_with_a_client_open": "passed", "test_after_a_pass": "passed",
        "test_leaves_a_session_open": "passed", "test_after_the_session": "failed",
    }, told
    assert "deliberately" in failures["test_fails_with_clients_open"]
    assert "Unclosed client session" in failures["test_after_the_session"], failures["test_after_the_session"]
