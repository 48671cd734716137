"""The engines stay pure (DESIGN: functional core): no I/O, asyncio, wall clock or global randomness."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PURE_PACKAGES = [
    "server/core", "server/battle", "server/campaign", "server/siege", "server/napoleon", "server/skirmish",
    "server/clock.py",
]
FORBIDDEN_MODULES = {
    "asyncio", "aiohttp", "redis", "msgpack", "socket", "time", "datetime", "random", "threading",
    "subprocess", "os", "shared.protocol", "server.net", "server.rooms", "server.bus",
}


def _pure_files() -> list[Path]:
    files: list[Path] = []
    for entry in PURE_PACKAGES:
        path = ROOT / entry
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            files.extend(sorted(path.rglob("*.py")))
    return files


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


@pytest.mark.parametrize("path", _pure_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_engine_module_imports_no_io(path: Path) -> None:
    bad = {
        name for name in _imports(path)
        if any(name == mod or name.startswith(mod + ".") for mod in FORBIDDEN_MODULES)
    }
    assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}; engines must stay pure"


def test_architecture_check_sees_the_engines() -> None:
    assert any("server/core" in str(p) for p in _pure_files())
