"""Rule and decision IDs as the repository cites them, and the rulebook's headings.

An ID cited in prose or code is one of:

- `C-…` the Continental War: `C-9.8c`, `C-4.3bis`, `C-2.U1`, chapters `C-4`, tables `C-T9-1`, the combat results
  table `C-CRT`, `C-CRT.DEF`, `C-CRT.S4`, `C-CRT.EX2`, the components `C-COMP`;
- `N-<SECTION>[-n]` the Napoleonic battle and sieges (`N-START`, `N-MORALE-5`);
- `S-n[.k]` the skirmish;
- `D-<GEN|N|C|L|S|NAP>-n` decisions, `CLK-n` clock decisions.

Ranges (`N-START-4..6`) stand for every ID in them; a chapter wildcard (`C-4.*`) for the chapter (`C-4`); a family
wildcard (`D-C-*`, `N-*`) names no rule and is skipped. Test names spell IDs with underscores
(`test_…_C_9_8b_D_GEN_3`), which `underscored_ids` reads back.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RULEBOOK = ROOT / "docs" / "rules"
LANGS = ("en", "ru")

SECTIONS = "START|TERRAIN|MORALE|LOSSES|VICTORY|INF|CAV|ART|FIRE|MELEE|CHARGE|HIT|BARRAGE|SIEGE"
_C = r"C-(?:\d+\.U\d+|\d+(?:\.\d+)?(?:bis|[a-z])?|T\d+(?:-\d+)?|CRT(?:\.(?:DEF|S\d+|EX\d+))?|COMP)"
_N = rf"N-(?:{SECTIONS})(?:-\d+)?"
_S = r"S-\d+(?:\.\d+)?"
_D = r"D-(?:GEN|NAP|N|C|L|S)-\d+"
_CLK = r"CLK-\d+"
ID = re.compile(rf"(?:{_D}|{_CLK}|{_C}|{_N}|{_S})")
"""One rule or decision ID, whole."""

_CITED = re.compile(
    rf"(?<![A-Za-z0-9_\-.])(?P<id>{_D}|{_CLK}|{_C}|{_N}|{_S})(?P<range>\.\.\d+)?(?P<wild>\.\*)?(?![A-Za-z0-9\-]|\.\d)"
)
_UNDERSCORED = re.compile(
    rf"(?:(?<=_)|(?<![A-Za-z0-9]))(?P<id>CLK_\d+|D_(?:GEN|NAP|N|C|L|S)_\d+"
    rf"|C_(?:\d+_U\d+|\d+_\d+(?:bis|[a-z])?|T\d+(?:_\d+)?|CRT(?:_(?:DEF|S\d|EX\d))?|COMP)"
    rf"|N_(?:{SECTIONS})(?:_\d+)?|S_\d+(?:_\d+)?)(?=_|\b)"
)
HEADING = re.compile(r"^(#{1,6}) (?P<id>\S+) — (?P<title>\S.*)$")

SCANNED = ("server/", "shared/", "tests/", "docs/", "README.md", "client_web/src/", "examples/")
SKIPPED = ("client_web/node_modules/", "client_web/dist/")
TEXT_SUFFIXES = {".py", ".md", ".ts", ".js", ".json", ".jsonl", ".txt", ".html", ".css", ".toml", ".yml", ".yaml", ""}


@dataclass(frozen=True)
class Citation:
    rule: str
    path: str
    line: int


def expand(match: re.Match[str]) -> list[str]:
    """The IDs one cited token stands for: a range gives each ID in it, a chapter wildcard the chapter."""
    rule = match.group("id")
    if not match.group("range"):
        return [rule]
    head, first = re.fullmatch(r"(.*?)(\d+)", rule).groups()  # type: ignore[union-attr]
    return [f"{head}{n}" for n in range(int(first), int(match.group("range")[2:]) + 1)]


def from_underscored(token: str) -> str:
    """`C_9_8b` → `C-9.8b`, `C_T9_1` → `C-T9-1`, `C_CRT_EX1` → `C-CRT.EX1`, `N_START_1` → `N-START-1`."""
    parts = token.split("_")
    if parts[0] == "C":
        if parts[1] == "CRT":
            return "C-CRT" + (f".{parts[2]}" if len(parts) > 2 else "")
        if parts[1].startswith("T") or parts[1] == "COMP":
            return "C-" + "-".join(parts[1:])
        return "C-" + ".".join(parts[1:])
    if parts[0] == "S":
        return "S-" + ".".join(parts[1:])
    return "-".join(parts)


def repository_files() -> list[str]:
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    return [p for p in out.splitlines()
            if p.startswith(SCANNED) and not p.startswith(SKIPPED) and Path(p).suffix in TEXT_SUFFIXES
            and (ROOT / p).is_file()]


def citations(path: str, text: str) -> Iterator[Citation]:
    for n, line in enumerate(text.splitlines(), 1):
        if HEADING.match(line) and path.startswith("docs/rules/"):
            continue  # a heading defines its ID; it does not cite it
        for m in _CITED.finditer(line):
            for rule in expand(m):
                yield Citation(rule, path, n)
        if path.endswith(".py"):
            for m in _UNDERSCORED.finditer(line):
                yield Citation(from_underscored(m.group("id")), path, n)


def cited_ids() -> list[Citation]:
    found: list[Citation] = []
    for path in repository_files():
        try:
            text = (ROOT / path).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        found.extend(citations(path, text))
    return found


def heading_ids(text: str) -> list[str]:
    """The IDs of the headings that start with one (`### N-CHARGE-2 — …`), in order."""
    out = []
    for line in text.splitlines():
        m = HEADING.match(line)
        if m and ID.fullmatch(m.group("id")):
            out.append(m.group("id"))
    return out


def chapters(lang: str) -> dict[str, list[str]]:
    """File name → heading IDs of the rulebook in `lang` (the chapters directly under docs/rules/<lang>)."""
    return {p.name: heading_ids(p.read_text(encoding="utf-8")) for p in sorted((RULEBOOK / lang).glob("*.md"))}
