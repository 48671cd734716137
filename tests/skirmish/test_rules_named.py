"""Every rule of the skirmish digest (S-*, shared/rules/skirmish.md) and every decision that completes it (D-S-1 …
D-S-15, with D-GEN-1, -2, -4) is named by a test of this package that exercises it. The IDs are listed here
because the rules live outside the repository."""

from __future__ import annotations

import ast
import re
from pathlib import Path

HERE = Path(__file__).parent
S_RULES = ["S-1", "S-2", "S-2.1", "S-2.2", "S-3", "S-3.1", "S-3.2", "S-3.3", "S-3.4", "S-4",
           "S-5", "S-5.1", "S-5.2", "S-5.3", "S-5.4", "S-5.5", "S-5.6",
           "S-6", "S-6.1", "S-6.2", "S-6.3", "S-6.4", "S-6.5",
           "S-7", "S-7.1", "S-7.2", "S-7.3", "S-7.4", "S-7.5", "S-7.6",
           "S-8", "S-8.1", "S-8.2", "S-8.3", "S-8.4", "S-8.5", "S-8.6", "S-8.7",
           "S-9", "S-9.1", "S-9.2", "S-9.3", "S-9.4", "S-9.5"]
DECISIONS = [f"D-S-{i}" for i in range(1, 16)] + ["D-GEN-1", "D-GEN-2", "D-GEN-4"]
NAME = re.compile(r"(?:^|_)(D_GEN|D_S|S)_(\d+)(?:_(\d+))?(?=_[A-Z]|$)")


def named() -> dict[str, list[str]]:
    """Rule ID → the tests whose names cite it (`..._S_5_1_D_S_4`: S-5.1 and D-S-4)."""
    out: dict[str, list[str]] = {}
    for path in sorted(HERE.glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                for prefix, a, b in NAME.findall(node.name):
                    rule = prefix.replace("_", "-") + f"-{a}" + (f".{b}" if b and prefix == "S" else "")
                    if b and prefix != "S":
                        continue
                    out.setdefault(rule, []).append(f"{path.stem}::{node.name}")
    return out


def test_every_skirmish_rule_and_decision_is_named_by_a_test() -> None:
    cited = named()
    missing = [r for r in S_RULES + DECISIONS if r not in cited]
    assert not missing, f"not named by any test: {missing}"
    assert len(S_RULES) == 44 and len(DECISIONS) == 18
