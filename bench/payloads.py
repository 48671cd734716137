"""The bytes the benchmarks send: a 128-byte event and a battle turn's resolution (a few KB).

The turn result is `bench/payloads/turn_result.json` — the resolution events of turn 4 of an engaged
25-against-25 battle played by the battle engine (fixed seed; fire, losses, melee, morale, dispersal, rolls),
recorded once by `python -m bench.payloads --record` and kept fixed so that every run and every server sends
exactly the same bytes. Each event sent carries `bt`, the sender's `time.perf_counter()` (CLOCK_MONOTONIC,
shared by all processes of the machine), from which a probe measures end-to-end latency.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import msgpack

TURN_RESULT = Path(__file__).with_name("payloads") / "turn_result.json"
EVENT_KIND = "bench"
SMALL_FRAME = 128


@cache
def turn_result() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(TURN_RESULT.read_text())
    return data


def ev_message(room: str, seq: int, at_ms: int, data: dict[str, Any]) -> dict[str, Any]:
    """The server's `ev` message (shared.protocol.server.Event) as a dict, fields in the model's order."""
    return {"t": "ev", "room": room, "seq": seq, "at_ms": at_ms, "kind": EVENT_KIND, "data": data}


def small_data(room: str) -> dict[str, Any]:
    """Event data padded so that the packed `ev` frame is SMALL_FRAME bytes (with a 5-byte seq, 9-byte at_ms)."""
    base = {"bt": 0.0, "pad": ""}
    empty = len(msgpack.packb(ev_message(room, 2**31, 2**40, base), use_bin_type=True))
    pad = SMALL_FRAME - empty
    for extra in range(pad, max(0, pad - 4), -1):
        base["pad"] = "x" * extra
        if len(msgpack.packb(ev_message(room, 2**31, 2**40, base), use_bin_type=True)) <= SMALL_FRAME:
            break
    return base


def payload(name: str, room: str) -> dict[str, Any]:
    """Event data by name: "small" (128 B frame) or "turn" (the recorded turn result)."""
    if name == "small":
        return small_data(room)
    if name == "turn":
        return {"bt": 0.0, **turn_result()}
    raise ValueError(f"unknown payload {name!r}; use 'small' or 'turn'")


def frame_size(name: str, room: str) -> int:
    return len(msgpack.packb(ev_message(room, 2**31, 2**40, payload(name, room)), use_bin_type=True))


def record(seed: int = 1812, turn_index: int = 3) -> dict[str, Any]:
    """One resolution of a 25v25 engaged battle, as the battle engine emits it (bench/battle_turn.py's battle)."""
    from bench.battle_turn import ENGINE, engaged_states

    state = engaged_states(turn_index + 1, seed)[turn_index]
    _, events = ENGINE.end_turn(state, state.active_side or "", flagged=False)
    return {"seed": seed, "turn": state.turn, "events": [{"kind": e.kind, **dict(e.data)} for e in events]}


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["--record"]:
        raise SystemExit("usage: python -m bench.payloads --record")
    TURN_RESULT.write_text(json.dumps(record(), indent=1) + "\n")
    print("wrote", TURN_RESULT, frame_size("turn", "c-0123456789"), "bytes as an ev frame")
