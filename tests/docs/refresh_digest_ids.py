"""Rewrite tests/docs/digest_ids.txt from the rules digests (run by hand; the digests are outside the repository).

    python -m tests.docs.refresh_digest_ids ../shared/rules

A digest defines an ID by a heading that starts with it (`### C-9.8c [L1] …`, `## S-4 …`), a decision by a bold
lead (`- **D-N-17 Crossing fire**`); a heading `C-CRT.S1 … C-CRT.S8` defines the whole run.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from tests.docs.rule_ids import ID, ROOT

DIGESTS = ("continental.md", "napoleonic.md", "skirmish.md", "decisions.md")
HEAD = re.compile(r"^#{2,6} (\S+)(?: … (\S+))?")
DECISION = re.compile(r"^\s*- \*\*(D-[A-Z]+-\d+)")
OUT = ROOT / "tests" / "docs" / "digest_ids.txt"


def digest_ids(folder: Path) -> list[str]:
    out: list[str] = []
    for name in DIGESTS:
        for line in (folder / name).read_text(encoding="utf-8").splitlines():
            m = HEAD.match(line)
            if m and ID.fullmatch(m.group(1)):
                first, last = m.group(1), m.group(2)
                if last and ID.fullmatch(last):
                    stem, a = re.fullmatch(r"(.*?)(\d+)", first).groups()  # type: ignore[union-attr]
                    b = re.fullmatch(r".*?(\d+)", last).group(1)  # type: ignore[union-attr]
                    out += [f"{stem}{n}" for n in range(int(a), int(b) + 1)]
                else:
                    out.append(first)
            d = DECISION.match(line)
            if d:
                out.append(d.group(1))
    return list(dict.fromkeys(out))


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else ROOT.parent / "shared" / "rules"
    header = [line for line in OUT.read_text(encoding="utf-8").splitlines() if line.startswith("#")]
    OUT.write_text("\n".join([*header, *digest_ids(folder)]) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
