"""`quick_init` (server/store/frozen.py): the classes made on every command build the same instances as their
dataclass-generated `__init__` would, with the same defaults and factories, and stay frozen."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from server.rooms.requests import Answer, Request
from server.store.frozen import quick_init
from server.store.records import LoggedEvent, Record


@dataclasses.dataclass(frozen=True, slots=True)
class Generated:
    a: int
    b: str = "b"
    c: list[int] = dataclasses.field(default_factory=list)
    d: int | None = dataclasses.field(default=None, init=False, compare=False)


@quick_init
@dataclasses.dataclass(frozen=True, slots=True)
class Quick:
    a: int
    b: str = "b"
    c: list[int] = dataclasses.field(default_factory=list)
    d: int | None = dataclasses.field(default=None, init=False, compare=False)


def fields_of(obj: Any) -> tuple[Any, ...]:
    return tuple(getattr(obj, f.name) for f in dataclasses.fields(obj))


@pytest.mark.parametrize("args,kwargs", [((1,), {}), ((1, "x"), {}), ((1,), {"c": [3]}), ((), {"a": 2, "b": "y"})])
def test_the_same_instances_as_the_generated_init(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    assert fields_of(Quick(*args, **kwargs)) == fields_of(Generated(*args, **kwargs))


def test_a_factory_makes_a_new_value_each_time_and_a_given_one_is_kept() -> None:
    first, second = Quick(1), Quick(1)
    assert first.c == [] and first.c is not second.c
    given = [5]
    assert Quick(1, c=given).c is given


def test_still_frozen_and_still_compared_and_hashed_by_fields() -> None:
    q = Quick(1, "x", [])
    with pytest.raises(dataclasses.FrozenInstanceError):
        q.a = 2  # type: ignore[misc]
    assert Quick(1, "x", []) == q
    assert hash(LoggedEvent(1, 2, "k", None, None)) == hash(LoggedEvent(1, 2, "k", None))  # type: ignore[arg-type]


def test_a_missing_argument_is_refused_as_before() -> None:
    with pytest.raises(TypeError):
        Quick()  # type: ignore[call-arg]


def test_the_command_path_classes() -> None:
    ev = LoggedEvent(3, 10, "chat", {"text": "hi"}, frozenset({"red"}))
    assert (ev.seq, ev.at_ms, ev.kind, ev.data, ev.audience) == (3, 10, "chat", {"text": "hi"}, frozenset({"red"}))
    assert ev.packed_data() == LoggedEvent(3, 10, "chat", {"text": "hi"}).packed_data()
    record = Record(1, 10, "chat", {"text": "hi"}, None, (ev,))
    assert record.request is None and Record.unpack(record.pack()).events[0].seq == 3
    request = Request.of({"t": "chat", "cid": 7, "room": "r", "text": "hi"})
    assert request is not None and request.cid == 7 and len(request.digest) == 32
    assert Answer(seq=4) == Answer(4, None, "", None) and Answer().give() is None


def test_refuses_what_it_cannot_copy() -> None:
    @dataclasses.dataclass(frozen=True)
    class NoSlots:
        a: int

    with pytest.raises(TypeError):
        quick_init(NoSlots)
