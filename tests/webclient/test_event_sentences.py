"""Every event the campaign, battle and siege engines and the rooms emit, and every die they roll, reads as a
sentence in the web client's tables (issue 16 §4: no raw `retreat_made` in a player's log, no English word in the
Russian one). Scans the server's sources, so a new event without its sentence fails here."""

from __future__ import annotations

import re

from tests.conftest import ROOT

SOURCES = [ROOT / "server" / d for d in ("continental", "napoleonic", "rooms", "drill", "core", "skirmish")]
EMITTED = re.compile(r"""(?:ctx\.public|\bpublic|\bumpire|log\.emit|\bEvent|\.private)\("([a-z_]+)"|"""
                     r"""(?:ctx\.team|for_team)\([^,()]+(?:\([^()]*\))?, "([a-z_]+)\"""")
ROLLED = re.compile(r"""\.(?:roll|die)\("([a-z_]+)\"""")
QUIET = {"chat", "clock_started", "clock_stopped"}  # shown by the channels and the clocks (client_web/src/ui/log.ts)


def _keys(lang: str) -> set[str]:
    text = (ROOT / "client_web" / "src" / "i18n" / f"{lang}.ts").read_text()
    return set(re.findall(r'^\s*"([^"]+)":', text, re.M))


def _scan(pattern: re.Pattern[str]) -> set[str]:
    found: set[str] = set()
    for src in SOURCES:
        for path in src.rglob("*.py"):
            for match in pattern.finditer(path.read_text()):
                found.update(g for g in match.groups() if g)
    return found


def _has(keys: set[str], prefix: str) -> bool:
    return prefix in keys or any(k.startswith(prefix + ".") for k in keys)


def test_every_emitted_event_has_a_sentence_in_english_and_russian() -> None:
    kinds = _scan(EMITTED) - QUIET
    assert {"retreat_made", "battle_started", "adjusted", "turn"} <= kinds, "the scan finds the engines' events"
    for lang in ("en", "ru"):
        keys = _keys(lang)
        missing = sorted(k for k in kinds if not _has(keys, f"ev.{k}"))
        assert missing == [], f"{lang}: events without a sentence: {missing}"


def test_every_die_rolled_has_a_name_in_english_and_russian() -> None:
    purposes = _scan(ROLLED)
    assert {"initiative", "general_death"} <= purposes
    for lang in ("en", "ru"):
        keys = _keys(lang)
        assert sorted(p for p in purposes if f"roll.{p}" not in keys) == [], lang


# What a sentence's placeholder is made from (client_web/src/ui/log.ts `params`): any of these event fields.
FROM = {"place": {"cell"}, "target": {"target", "enemy"}, "to": {"to", "path"}, "delta": {"delta_ms"}, "delay": {"ms"},
        "purpose": {"purpose"}}
MADE_BY_THE_CLIENT = {"losses", "amount", "who", "result", "span", "what", "n"}
ARGS = r'((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)'  # the call's arguments, parentheses nested twice
CALL = re.compile(r'(?:ctx\.public|\bpublic|\bumpire|log\.emit|\.private|\bEvent)\("([a-z_]+)"' + ARGS + '|'
                  r'(?:ctx\.team|for_team)\([^,()]+(?:\([^()]*\))?, "([a-z_]+)"' + ARGS)


def _sites() -> dict[str, list[set[str] | None]]:
    """The fields of each emit site of each event kind (None: the site spreads a mapping or passes one built
    elsewhere, so its fields cannot be read here)."""
    out: dict[str, list[set[str] | None]] = {}
    for src in SOURCES:
        for path in src.rglob("*.py"):
            for m in CALL.finditer(path.read_text()):
                kind, args = m.group(1) or m.group(3), m.group(2) or m.group(4) or ""
                fields = {*re.findall(r"\b([a-z_]+)=", args), *re.findall(r'"([a-z_]+)":', args)}
                out.setdefault(kind, []).append(None if "**" in args or not fields else fields)
    return out


def test_every_placeholder_of_a_sentence_is_filled_by_the_event_it_tells() -> None:
    """'{place}' in a line nobody can read: each placeholder of an event's sentence comes from a field the event is
    emitted with — at every site that emits it, unless the kind has variants (the client picks the variant by the
    fields there), where one site is enough."""
    text = (ROOT / "client_web" / "src" / "i18n" / "en.ts").read_text()
    sentences = dict(re.findall(r'^\s*"ev\.([a-z_]+(?:\.[a-z_]+)?)": "([^"]*)"', text, re.M))
    varied = {key.split(".")[0] for key in sentences if "." in key}
    unfilled = []
    for kind, sites in _sites().items():
        for key, sentence in sentences.items():
            if key.split(".")[0] != kind:
                continue
            known = [f for f in sites if f is not None]
            if kind in varied and len(known) < len(sites):
                continue  # which variant a site's events get cannot be told without all its fields
            for name in set(re.findall(r"\{(\w+)\}", sentence)) - MADE_BY_THE_CLIENT:
                covered = [bool(FROM.get(name, {name}) & f) for f in known]
                if known and not (any(covered) if kind in varied else all(covered)):
                    unfilled.append(f"ev.{key}: {{{name}}} (emitted with {[sorted(f) for f in known]})")
    assert unfilled == [], unfilled
