"""Hostile values for order fuzzers: what a malicious or broken client can put in an order or ruling over the wire
(msgpack or JSON): wrong types, nested junk, huge and negative numbers, NaN and infinities, empty and long strings,
the other side's ids, cells far off the map."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

HUGE = [2**31, -(2**31), 2**63, -(2**63) - 1, 2**64 + 1, 10**30, -(10**30)]
FLOATS = [float("inf"), float("-inf"), float("nan"), 1e308, -1e308, 0.5, -0.0]
CELLS = [[-1, -1], [0, 0], [69, 69], [70, 70], [10**9, 3], [2**63, 2**63], [-(2**40), 5], [1.5, 2.5],
         ["1", "2"], "3-4", "x-y", "1-2-3", [None, None], [[1], [2]], [float("inf"), 0], [float("nan"), 1]]

SCALARS = (st.none() | st.booleans() | st.integers(-200, 200) | st.sampled_from(HUGE)
           | st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(FLOATS) | st.text(max_size=12)
           | st.sampled_from(["", " ", "x" * 300, "\x00", "🦅", "-1", "1e9"]) | st.binary(max_size=4))
JUNK = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=10)


def hostile(ids: Sequence[str], words: Sequence[str] = ()) -> st.SearchStrategy[Any]:
    """A field value: junk, a real id of either side, a word the engine knows, a cell, or a path of hostile
    cells."""
    known = list(ids) + list(words)
    options = [JUNK, st.sampled_from(CELLS), st.lists(st.sampled_from(CELLS), min_size=1, max_size=5),
               st.lists(st.lists(st.integers(-3, 80), min_size=2, max_size=2), min_size=1, max_size=70)]
    if known:
        options += [st.sampled_from(known), st.lists(st.sampled_from(known), max_size=4),
                    st.dictionaries(st.sampled_from(known), JUNK | st.integers(-3, 5), max_size=3)]
    return st.one_of(*options)


def order_dicts(types: Sequence[str], fields: Sequence[str], ids: Sequence[str],
                words: Sequence[str] = ()) -> st.SearchStrategy[dict[str, Any]]:
    """An order or ruling: a known or unknown `type` (or none, or junk) and up to six hostile fields."""
    kind = st.sampled_from([*types, "nonsense", "", "MOVE"]) | JUNK
    body = st.dictionaries(st.sampled_from(list(fields)) | st.text(max_size=6), hostile(ids, words), max_size=6)
    return st.builds(lambda k, b, has_type: {**b, "type": k} if has_type else b, kind, body,
                     st.sampled_from([True, True, True, False]))


def mutated(seeds: Sequence[dict[str, Any]], ids: Sequence[str], words: Sequence[str] = ()
            ) -> st.SearchStrategy[dict[str, Any]]:
    """A legal order (one of `seeds`) with up to three of its fields (not its type) replaced by hostile values, or
    dropped, and perhaps a junk field added: deep enough to pass the first checks and reach the rules behind them."""
    value = hostile(ids, words)

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        order = dict(draw(st.sampled_from(list(seeds))))
        keys = sorted(k for k in order if k != "type") or ["type"]  # junk types: order_dicts' part
        for key in draw(st.lists(st.sampled_from(keys), min_size=0, max_size=3, unique=True)):
            action = draw(st.sampled_from(["replace", "replace", "drop", "inner"]))
            if action == "drop":
                order.pop(key, None)
            elif action == "inner" and isinstance(order[key], list) and order[key]:
                inner = list(order[key])
                inner[draw(st.integers(0, len(inner) - 1))] = draw(value)
                order[key] = inner
            elif action == "inner" and isinstance(order[key], dict) and order[key]:
                inner_d = dict(order[key])
                inner_d[draw(st.sampled_from(sorted(inner_d)))] = draw(value)
                order[key] = inner_d
            else:
                order[key] = draw(value)
        if draw(st.booleans()):
            order[draw(st.text(max_size=6))] = draw(JUNK)
        return order

    return build()
