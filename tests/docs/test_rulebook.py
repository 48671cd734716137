"""The rulebook (docs/rules/) covers every rule the repository cites, in English and Russian alike.

Rule IDs: see tests/docs/rule_ids.py. The digests the IDs come from live outside the repository; the list of the
IDs they define is kept here (digest_ids.txt) so that these tests read only the repository.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from tests.docs import rule_ids
from tests.docs.rule_ids import LANGS, RULEBOOK, chapters, cited_ids, from_underscored

DIGEST_IDS = [line.split()[0] for line in (rule_ids.ROOT / "tests" / "docs" / "digest_ids.txt")
              .read_text(encoding="utf-8").splitlines() if line.strip() and not line.startswith("#")]


def all_headings(lang: str) -> Counter[str]:
    return Counter(rule for ids in chapters(lang).values() for rule in ids)


@pytest.mark.parametrize("lang", LANGS)
def test_every_cited_rule_id_has_a_heading(lang: str) -> None:
    """A rule or decision ID cited anywhere in the repository resolves to a heading of its own (a parent ID to the
    parent's heading, not a child's)."""
    headings = all_headings(lang)
    missing: dict[str, list[str]] = {}
    for c in cited_ids():
        if c.rule not in headings:
            missing.setdefault(c.rule, []).append(f"{c.path}:{c.line}")
    assert not missing, "\n".join(f"{rule}: cited at {', '.join(where[:3])}" for rule, where in sorted(missing.items()))


@pytest.mark.parametrize("lang", LANGS)
def test_every_digest_rule_has_a_heading(lang: str) -> None:
    headings = all_headings(lang)
    assert [r for r in DIGEST_IDS if r not in headings] == []


@pytest.mark.parametrize("lang", LANGS)
def test_each_id_is_headed_once(lang: str) -> None:
    assert [r for r, n in all_headings(lang).items() if n > 1] == []


def test_english_and_russian_have_the_same_files_and_headings_in_order() -> None:
    en, ru = chapters("en"), chapters("ru")
    assert sorted(en) == sorted(ru)
    for name in en:
        assert en[name] == ru[name], name


def test_headings_follow_the_anchor_convention() -> None:
    """`<ID> — <title>`: a heading that starts with something ID-like must be a whole ID, then an em dash."""
    looks_like_id = re.compile(r"^#{1,6} (?:[CNSD]|CLK)-[A-Z0-9]")
    for lang in LANGS:
        for path in sorted((RULEBOOK / lang).glob("*.md")):
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if looks_like_id.match(line):
                    m = rule_ids.HEADING.match(line)
                    assert m and rule_ids.ID.fullmatch(m.group("id")), f"{path.name}:{n}: {line}"


def test_the_id_scanner_reads_the_repository_forms() -> None:
    text = ("C-9.8c, C-4.3bis, C-T9-1, C-CRT.S4, C-2.U1, N-START-4..6, C-4.* and D-C-* (a family), "
            "test_x_C_9_8b_D_GEN_3 and C-10.1.")
    found = [c.rule for c in rule_ids.citations("x.py", text)]
    assert found == ["C-9.8c", "C-4.3bis", "C-T9-1", "C-CRT.S4", "C-2.U1", "N-START-4", "N-START-5", "N-START-6",
                     "C-4", "C-10.1", "C-9.8b", "D-GEN-3"]
    assert from_underscored("C_CRT_EX1") == "C-CRT.EX1" and from_underscored("C_4_3bis") == "C-4.3bis"
    assert from_underscored("S_5_6") == "S-5.6" and from_underscored("N_SIEGE_10") == "N-SIEGE-10"
