"""What any value a client sends (a frame, a campaign's config) must fit before it reaches a room: the room logs it
as msgpack, and a value msgpack cannot pack would close the room (issue 12 §14)."""

from __future__ import annotations

from typing import Any

MAX_DEPTH = 32
"""How deep a message may nest (issue 12 §14): orders and rulings need a handful of levels; a junk field nested
1,022 deep decoded, then could not be packed into the room's log (msgpack's own limit), which closed the room."""
INT_MIN, INT_END = -(2**63), 2**64


def bounded(value: Any, max_depth: int = MAX_DEPTH) -> str | None:
    """Why `value` could not be logged as msgpack — nested deeper than `max_depth`, an integer outside msgpack's
    range (-2**63 … 2**64-1), a map key that is not a string — or None when it can. One walk, no recursion."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            if depth > max_depth:
                return f"nested deeper than {max_depth}"
            for key, inner in item.items():
                if not isinstance(key, str):
                    return "a map key that is not a string"
                if isinstance(inner, (dict, list)) or (isinstance(inner, int) and not isinstance(inner, bool)):
                    stack.append((inner, depth + 1))
        elif isinstance(item, list):
            if depth > max_depth:
                return f"nested deeper than {max_depth}"
            stack.extend((inner, depth + 1) for inner in item
                         if isinstance(inner, (dict, list)) or (isinstance(inner, int) and not isinstance(inner, bool)))
        elif isinstance(item, int) and not isinstance(item, bool) and not INT_MIN <= item < INT_END:
            return "an integer out of range"
    return None


def nested_within(value: Any, max_depth: int = MAX_DEPTH) -> str | None:
    """`bounded` for a decoded frame, whose integers are in range already (msgpack carries no others; the JSON
    decoder refuses them, codec.py): why it could not be logged — nested deeper than `max_depth`, a map key that is
    not a string (msgpack's bytes) — or None. The types of a container's members are looked at by C loops, and only
    the containers among them are walked (a 3 KB ruling took 280 µs through `bounded`, most of a command's decoding:
    issue 13's fan-out regression)."""
    if type(value) is not dict and type(value) is not list:
        return None
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > max_depth:
            return f"nested deeper than {max_depth}"
        if type(item) is dict:
            if not _ALL_STR.issuperset(map(type, item)):
                return "a map key that is not a string"
            members: Any = item.values()
        else:
            members = item
        kinds = set(map(type, members))
        if dict in kinds or list in kinds:
            stack.extend((inner, depth + 1) for inner in members if type(inner) is dict or type(inner) is list)
    return None


_ALL_STR = frozenset({str})
