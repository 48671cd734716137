"""`python -m server admin …` run as an operator runs it: a process of its own, its output and exit status."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import ROOT, ServerProcess


def admin(*args: str, env: dict[str, str] | None = None, ok: bool = True) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k != "REDIS_URL" and not k.startswith("KS_")}
    result = subprocess.run([sys.executable, "-m", "server", "admin", *args], cwd=ROOT, text=True,
                            capture_output=True, timeout=120, env={**base, **(env or {})})
    if ok:
        assert result.returncode == 0, result.stderr + result.stdout
    return result


def refused(*args: str, env: dict[str, str] | None = None) -> str:
    """The one line a refused command prints: exit status 1, no traceback."""
    result = admin(*args, env=env, ok=False)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


def store_args(node: ServerProcess) -> tuple[str, ...]:
    """The flags that point a command at the store this server runs on."""
    if "--redis-url" in node.args:
        return tuple(node.args)
    return ("--data-dir", str(node.data_dir))


def listing(*args: str) -> dict[str, Any]:
    return json.loads(admin("list", "--json", *args).stdout)  # type: ignore[no-any-return]


def campaign_of(listed: dict[str, Any], campaign: str) -> dict[str, Any] | None:
    return next((c for c in listed["campaigns"] if c["campaign"] == campaign), None)


def archive_files(path: Path) -> list[Path]:
    return sorted(path.glob("*.tar.gz")) if path.is_dir() else []
