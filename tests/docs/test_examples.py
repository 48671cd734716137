"""The rulebook's worked examples and ID index are what the engines give today (docs/rules/make_examples.py).

When this fails after an engine change, run `python docs/rules/make_examples.py` and read the diff: it shows which
numbers the change moved.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from types import ModuleType

from tests.docs.rule_ids import LANGS, RULEBOOK, chapters


def make_examples() -> ModuleType:
    """docs/rules/make_examples.py as a module (it is a script, not a package)."""
    if "make_examples" in sys.modules:
        return sys.modules["make_examples"]
    spec = importlib.util.spec_from_file_location("make_examples", RULEBOOK / "make_examples.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_examples"] = module
    spec.loader.exec_module(module)
    return module


def test_the_committed_examples_and_index_match_the_engines() -> None:
    module = make_examples()
    diffs = module.stale(module.render())
    assert not diffs, "docs/rules is stale — run: python docs/rules/make_examples.py\n" + "\n".join(diffs)


def test_every_example_is_filled_in_both_languages() -> None:
    module = make_examples()
    for lang in LANGS:
        text = "".join(p.read_text(encoding="utf-8") for p in sorted((RULEBOOK / lang).glob("*.md")))
        found = {m.group("name"): m.group("body") for m in module.MARKER.finditer(text)}
        assert sorted(found) == sorted(module.EXAMPLES), lang
        assert all(body.strip() for body in found.values()), lang


def test_the_index_names_the_chapter_of_every_heading() -> None:
    index = json.loads((RULEBOOK / "ids.json").read_text(encoding="utf-8"))
    expected = {rule: name for name, ids in chapters("en").items() for rule in ids}
    assert index == expected


def test_the_check_sees_a_changed_number() -> None:
    module = make_examples()
    new = module.render()
    path = RULEBOOK / "en" / "battle.md"
    new[path] = new[path].replace("| 1 | r1 | b1 | 5 |", "| 1 | r1 | b1 | 6 |", 1)
    (diff,) = module.stale(new)
    assert "docs/rules/en/battle.md" in diff and "| 1 | r1 | b1 | 6 |" in diff
