"""Codec benchmark: our real messages through shared/protocol/codec.py, msgpack vs ormsgpack vs JSON.

Encode: what the server does on the way out (`encode(dict)` on the hot path, `encode(model)` elsewhere).
Decode+validate: what the server does on the way in (`decode_client`), and a client/tool with `decode_server`.
Ours is `codec.encode`/`codec.decode_*` with msgpack; the same-run baselines are ormsgpack and JSON (stdlib, the
codec's debug path) doing the same work on the same messages.

    python -m bench.codec [--seconds 0.2] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from typing import Any

import msgpack
import ormsgpack
from pydantic import BaseModel, TypeAdapter

from bench import cli
from bench.common import nice, ratio
from bench.payloads import ev_message, payload, turn_result
from shared.protocol import codec
from shared.protocol.client import ClientMessage, Hello, Join, Order
from shared.protocol.server import ServerMessage, Snapshot, Welcome

ROOM = "battle:b-austerlitz-01"
_client: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
_server: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)


def inbound() -> dict[str, dict[str, Any]]:
    """Client messages as a client sends them."""
    return {
        "hello": Hello(cid=1, token="tok_" + "a" * 40, name="Kutuzov").model_dump(mode="json"),
        "join": Join(cid=2, room=ROOM, since=41).model_dump(mode="json"),
        "order": Order(
            cid=3,
            room=ROOM,
            order={"type": "move", "unit": "red-inf3", "path": [[12, 30], [13, 30], [14, 31]], "formation": "column"},
        ).model_dump(mode="json"),
    }


def outbound() -> dict[str, dict[str, Any]]:
    """Server messages as the server builds them (dicts on the hot path)."""
    turn = ev_message(ROOM, 1042, 1_764_500_000_000, payload("turn", ROOM))
    small = ev_message(ROOM, 1043, 1_764_500_000_000, payload("small", ROOM))
    welcome = Welcome(
        cid=1, session="s1", player="p1", role="spectator", campaign="c1", rooms=[ROOM], server_ms=1_764_500_000_000
    ).model_dump(mode="json")
    snapshot = Snapshot(
        room=ROOM, seq=1042, kind="battle", state={"events": turn_result()["events"][:8], "turn": 4},
        clocks={"red": 600_000, "blue": 540_000}, server_ms=1_764_500_000_000,
    ).model_dump(mode="json")
    return {"ev_turn": turn, "ev_small": small, "welcome": welcome, "snapshot": snapshot}


def _time(fn: Callable[[], object], seconds: float) -> float:
    """Nanoseconds per call: best of 3 rounds of about `seconds`/3 each."""
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        if dt > 0.01:
            break
        n *= 4
    rounds = max(1, int(seconds / 3 / dt * n))
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(rounds):
            fn()
        best = min(best, (time.perf_counter() - t0) / rounds)
    return best * 1e9


def encoders(obj: dict[str, Any], model: BaseModel) -> dict[str, Callable[[], object]]:
    return {
        "ours_msgpack": lambda: codec.encode(obj),
        "ours_msgpack_model": lambda: codec.encode(model),
        "ormsgpack": lambda: ormsgpack.packb(obj),
        "json": lambda: codec.encode_json(obj),
    }


def decoders(obj: dict[str, Any], inbound_side: bool) -> dict[str, Callable[[], object]]:
    packed = msgpack.packb(obj, use_bin_type=True)
    text = json.dumps(obj, separators=(",", ":"))
    adapter: TypeAdapter[Any] = _client if inbound_side else _server
    ours = codec.decode_client if inbound_side else codec.decode_server
    return {
        "ours_msgpack": lambda: ours(packed),
        "ormsgpack": lambda: adapter.validate_python(ormsgpack.unpackb(packed)),
        "json": lambda: ours(text),
    }


def run(seconds: float) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    for side, messages in (("in", inbound()), ("out", outbound())):
        for name, obj in messages.items():
            model = (_client if side == "in" else _server).validate_python(obj)
            sizes = {"msgpack": len(codec.encode(obj)), "json": len(codec.encode_json(obj).encode())}
            enc = {k: _time(f, seconds) for k, f in encoders(obj, model).items()}
            dec = {k: _time(f, seconds) for k, f in decoders(obj, side == "in").items()}
            rows.append({
                "message": name,
                "direction": side,
                "bytes": sizes,
                "encode_ns": {k: round(v) for k, v in enc.items()},
                "decode_validate_ns": {k: round(v) for k, v in dec.items()},
                "ratio_speed_vs_ormsgpack": {
                    "encode": ratio(enc["ormsgpack"], enc["ours_msgpack"]),
                    "decode": ratio(dec["ormsgpack"], dec["ours_msgpack"]),
                },
                "ratio_speed_vs_json": {
                    "encode": ratio(enc["json"], enc["ours_msgpack"]),
                    "decode": ratio(dec["json"], dec["ours_msgpack"]),
                },
            })
    return {"unit": "ns per message (best of 3); ratio = baseline time / our time (>1: ours faster)", "rows": rows}


def show(result: dict[str, Any]) -> str:
    lines = [f"{'message':<10} {'dir':<3} {'bytes mp/json':>13}  {'encode ns ours/orm/json':>26}  "
             f"{'decode+validate ns ours/orm/json':>34}  {'ours÷orm enc/dec':>16}"]
    for row in result["rows"]:
        e, d, r = row["encode_ns"], row["decode_validate_ns"], row["ratio_speed_vs_ormsgpack"]
        lines.append(
            f"{row['message']:<10} {row['direction']:<3} {row['bytes']['msgpack']:>6}/{row['bytes']['json']:<6}  "
            f"{e['ours_msgpack']:>8}/{e['ormsgpack']:>7}/{e['json']:>8}  "
            f"{d['ours_msgpack']:>10}/{d['ormsgpack']:>10}/{d['json']:>10}  "
            f"{r['encode']:>7}/{r['decode']:<7}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=0.3, help="time per measurement")
    cli.out_flag(parser)
    args = parser.parse_args(argv)
    if nice():
        os.setpriority(os.PRIO_PROCESS, 0, nice())
    return cli.report("codec", run(args.seconds), show, args.out)


if __name__ == "__main__":
    raise SystemExit(main())
