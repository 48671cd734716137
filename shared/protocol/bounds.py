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
    not a string (msgpack's bytes) — or None, the same verdict as `bounded`'s. Only the containers are walked, a
    map's key types are looked at by a C loop, and the walk recurses (at most `max_depth` deep) instead of keeping a
    stack of tuples and a set of member types per container: a small command's check costs half what it did, a 3 KB
    ruling's 15–30% less (issue 20)."""
    kind = type(value)
    if kind is not dict and kind is not list:
        return None
    return _within(value, 1, max_depth)


def _within(item: Any, depth: int, max_depth: int) -> str | None:
    """`item`'s verdict, found in `bounded`'s order: the item itself, then its members last to first."""
    if depth > max_depth:
        return f"nested deeper than {max_depth}"
    if type(item) is dict:
        if not _ALL_STR.issuperset(map(type, item)):
            return "a map key that is not a string"
        members: Any = item.values()
    else:
        members = item
    for inner in reversed(members):
        kind = type(inner)
        if kind is dict or kind is list:
            why = _within(inner, depth + 1, max_depth)
            if why is not None:
                return why
    return None


_ALL_STR = frozenset({str})
