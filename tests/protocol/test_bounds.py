"""The decoder's check of a frame's nesting (`nested_within`) refuses exactly what the full check (`bounded`) refuses
for any value a decoder can give (integers within msgpack's range): it only skips the integers (issue 12 §14's
bounds, kept; issue 20's cut of a command's decoding)."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared.protocol.bounds import MAX_DEPTH, bounded, nested_within
from shared.protocol.codec import ProtocolError, decode_client

scalars = (st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats(allow_nan=False)
           | st.text(max_size=4))
keys = st.text(max_size=3) | st.binary(max_size=2) | st.integers(0, 3)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
                      max_leaves=40)


def nest(depth: int, leaf: Any = 1) -> Any:
    value = leaf
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


@given(values)
@settings(max_examples=300)
def test_nested_within_agrees_with_bounded_on_any_decodable_value(value: Any) -> None:
    assert nested_within(value) == bounded(value)


def test_the_depth_limit_is_the_same_at_its_edge() -> None:
    for depth in (MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, 200):
        for value in (nest(depth), {"a": 1, "b": nest(depth)}, [0, nest(depth, {b"k": 1})]):
            assert nested_within(value) == bounded(value), depth


def test_a_frame_nested_too_deep_or_with_a_bytes_key_is_still_a_bad_frame() -> None:
    for data in (nest(MAX_DEPTH + 1), {b"bytes key": 1}):
        frame = msgpack.packb({"t": "mod_ruling", "cid": 1, "room": "c-x",
                               "ruling": {"type": "emit", "kind": "k", "data": {"x": data}}})
        with pytest.raises(ProtocolError) as refused:
            decode_client(frame)
        assert refused.value.code == "bad_frame"
