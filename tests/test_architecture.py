"""The shape of server/ (DESIGN: functional core, imperative shell; a layer knows only the layers below it).

- The rules are pure: every engine package, the core, the clocks and the rooms' own rules import nothing that does
  I/O, reads the wall clock or draws global randomness — relative imports included — and call no file reads
  (`open`, pathlib's readers): scenario data is read at the edge (server/scenarios.py) and handed in.
- Each layer imports only the layers below it; server/rooms knows no particular game.
- No import cycles in server/, counting every import: inside functions and under TYPE_CHECKING too.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

from server.engines import ENGINES

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "server"

SHELL = {"net", "admin", "rooms", "store", "bus"}
"""The packages of server/ that are not rules: every other package (core, each engine) is pure, and so is
clock.py; the other top-level modules are the process's own (settings, the registry, scenario files, ...)."""
PURE_TOP_MODULES = {"clock"}
PURE_ROOM_MODULES = ["server.rooms.rules", "server.rooms.state", "server.rooms.secret_module",
                     "server.rooms.spectating", "server.rooms.channels", "server.rooms.ids", "server.rooms.members",
                     "server.rooms.errors", "server.rooms.ai_seats"]
"""The rooms' own rules, beside the engines'."""
IMPURE = {"asyncio", "aiohttp", "redis", "msgpack", "socket", "time", "datetime", "random", "secrets", "uuid",
          "threading", "subprocess", "os", "io", "pathlib", "shutil", "tempfile", "glob", "fcntl", "importlib",
          "shared.protocol", "server.net", "server.bus", "server.store", "server.backends", "server.engines",
          "server.scenarios", "server.settings", "server.demo"}
FILE_READS = {"open", "read_text", "read_bytes", "write_text", "write_bytes", "__import__"}
ENGINE_PACKAGES = {"server.continental", "server.napoleonic", "server.drill", "server.skirmish"}

LAYERS: dict[str, set[str]] = {
    "server.net": {"server.admin", "server.rooms", "server.store", "server.bus", "server.core", "server.clock",
                   "server.engines", "server.backends", "server.settings", "server.demo", "shared.protocol"},
    "server.admin": {"server.rooms", "server.store", "server.bus", "server.core", "server.clock", "server.engines",
                     "server.backends", "server.settings", "server.scenarios", "shared.protocol"},
    "server.rooms": {"server.core", "server.clock", "server.store", "server.bus", "shared.protocol"},
    "server.bus": {"server.store", "shared.protocol"},
    "server.store": {"shared.protocol"},
    "server.core": set(),
}
"""Which parts of the server each layer may import (besides itself and the libraries)."""


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(p): p for p in sorted(SERVER.rglob("*.py"))}


@cache
def _tree(name: str) -> ast.Module:
    return ast.parse(MODULES[name].read_text(encoding="utf-8"))


def imports(name: str) -> set[str]:
    """Every module `name` imports, anywhere in it, relative imports resolved: `from pkg import mod` names the
    module pkg.mod when there is one."""
    is_package = MODULES[name].name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(_tree(name)):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = name.split(".")[: len(name.split(".")) - (node.level - (1 if is_package else 0))]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            subs = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in MODULES]
            out.update(subs or [base])
    return out


def _within(name: str, packages: set[str]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def _pure_modules() -> list[str]:
    def pure(m: str) -> bool:
        part = m.split(".")[1] if "." in m else ""
        if (SERVER / part).is_dir():
            return part not in SHELL
        return part in PURE_TOP_MODULES

    return sorted({*filter(pure, MODULES), *PURE_ROOM_MODULES})


@pytest.mark.parametrize("name", _pure_modules())
def test_the_rules_do_no_io_read_no_clock_and_draw_no_global_randomness(name: str) -> None:
    bad = {i for i in imports(name) if _within(i, IMPURE)}
    if name.startswith("server.rooms."):
        bad |= {i for i in imports(name) if _within(i, {"server.rooms"}) and i not in PURE_ROOM_MODULES}
    reads = {n.func.id if isinstance(n.func, ast.Name) else n.func.attr for n in ast.walk(_tree(name))
             if isinstance(n, ast.Call) and isinstance(n.func, ast.Name | ast.Attribute)
             and (n.func.id if isinstance(n.func, ast.Name) else n.func.attr) in FILE_READS}
    assert not bad and not reads, f"{name} imports {sorted(bad)}, calls {sorted(reads)}: the rules stay pure"


def test_the_purity_check_sees_every_engine_the_server_plays() -> None:
    pure = set(_pure_modules())
    engine_modules = {type(ENGINES.find(n)).__module__ for n in [*ENGINES.names(), "battle", "siege"]}
    assert engine_modules <= pure and {"server.core.engine", "server.clock", "server.rooms.rules"} <= pure


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_each_layer_imports_only_the_layers_below_it(layer: str) -> None:
    allowed = {layer, *LAYERS[layer]}
    bad = {f"{m} -> {i}" for m in MODULES if _within(m, {layer}) for i in imports(m)
           if i.startswith(("server", "shared")) and not _within(i, allowed)}
    assert not bad, sorted(bad)


def test_the_rooms_know_no_particular_game() -> None:
    bad = {f"{m} -> {i}" for m in MODULES if _within(m, {"server.rooms"}) for i in imports(m)
           if _within(i, ENGINE_PACKAGES | {"server.engines", "server.scenarios"})}
    assert not bad, sorted(bad)


def _cycles() -> list[list[str]]:
    """Tarjan's strongly connected components of the import graph with more than one module."""
    graph = {m: {i for i in imports(m) if i in MODULES and i != m} for m in MODULES}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while (w := stack.pop()) != v:
                component.append(w)
            if component:
                found.append(sorted([v, *component]))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles_in_the_server() -> None:
    assert _cycles() == []


def test_the_checks_see_relative_and_function_level_imports() -> None:
    # `from . import battles`
    assert "server.napoleonic.campaign.battles" in imports("server.napoleonic.campaign.engine")
    assert "server.core.engine" in imports("server.rooms.children")
    assert len(MODULES) > 100 and "server.rooms.hub" in MODULES
