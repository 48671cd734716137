"""`admin verify ROOM`: fair dice checked (D-GEN-4). A finished room revealed its seed (`seed_revealed`); the
seed must be the one its `room_opened` committed to, and the room's whole log, replayed through the room's rules
from that seed, must give every logged event exactly — so every die rolled was the committed generator's. A battle
whose campaign has revealed its seed too is checked to have the seed owed to it (`seeds.child_seed`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgpack

from server.admin.errors import AdminError
from server.core import seeds
from server.core.errors import RuleError
from server.core.registry import Registry
from server.rooms import rules
from server.rooms.ids import RoomId
from server.rooms.members import Member
from server.rooms.state import RoomSpec, RoomState
from server.store import Store
from server.store.records import LoggedEvent, Record
from shared.protocol.codec import pack


@dataclass(slots=True)
class Verdict:
    """What `verify` found: `ok` when the commitment, the reveal and the replay all agree."""

    room: str
    records: int = 0
    events: int = 0
    seed: int | None = None
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and self.seed is not None

    def lines(self) -> list[str]:
        if self.ok:
            head = (f"OK: room {self.room}: its revealed seed {self.seed} is the one committed to, and its "
                    f"{self.records} records replayed from it give its {self.events} logged events exactly.")
        else:
            head = f"MISMATCH: room {self.room}: " + "; ".join(self.problems)
        return [head, *self.notes]


def _plain(value: Any) -> Any:
    return msgpack.unpackb(pack(value), raw=False, strict_map_key=False)


def _event_of(e: LoggedEvent) -> tuple[str, Any, list[str] | None]:
    return e.kind, _plain(e.plain_data()), sorted(e.audience) if e.audience is not None else None


def _found(records: Sequence[Record], kind: str) -> Mapping[str, Any] | None:
    for record in records:
        for e in record.events:
            if e.kind == kind:
                return e.plain_data()
    return None


def replay_check(room_id: str, records: Sequence[Record], engines: Registry, seed: int) -> tuple[int, list[str]]:
    """The log replayed through the room's rules from `seed`: (events compared, the first difference if any)."""
    setup = {**records[0].body, "seed": seed}
    spec = RoomSpec.of(room_id, setup, engines)
    state = RoomState(None, None)
    compared = 0
    for record in records:
        member = Member.load(record.actor) if record.actor else None
        body = setup if record.kind == "setup" else record.body
        try:
            outcome = rules.step(spec, state, record.kind, body, member, record.at_ms)
        except RuleError as exc:
            return compared, [f"record {record.index} ({record.kind}) is refused on replay: {exc.message}"]
        produced = list(outcome[1]) if outcome is not None else []
        if outcome is not None:
            state = outcome[0]
        logged = [_event_of(e) for e in record.events]
        again = [(e.kind, _plain(dict(e.data)), sorted(e.audience) if e.audience is not None else None)
                 for e in produced]
        for i, (want, got) in enumerate(zip(logged, again, strict=False)):
            if want != got:
                return compared, [f"record {record.index} ({record.kind}), event {i}: logged {want[0]} "
                                  f"{_short(want[1])}, replayed {got[0]} {_short(got[1])}"]
            compared += 1
        if len(logged) != len(again):
            return compared, [f"record {record.index} ({record.kind}): {len(logged)} events logged, "
                              f"{len(again)} replayed"]
    return compared, []


def _short(value: Any, n: int = 160) -> str:
    text = repr(value)
    return text if len(text) <= n else text[:n] + "…"


async def verify(store: Store, engines: Registry, room_id: str) -> Verdict:
    """D-GEN-4: check a finished room's log against its revealed seed (see the module's docstring)."""
    rid = RoomId.parse(room_id)
    if rid is None:
        raise AdminError(f"{room_id[:80]!r} is not a room id (c-<campaign>, b-<campaign>-<n>, ...)")
    records = await store.log.read(rid, 0)
    if not records or records[0].kind != "setup":
        raise AdminError(f"no room {room_id} in this store (`admin list --rooms` lists them)")
    verdict = Verdict(room_id, len(records))
    opened = _found(records[:1], "room_opened") or {}
    committed = opened.get("commitment")
    revealed = _found(records, "seed_revealed")
    if revealed is None:
        raise AdminError(f"room {room_id} has not revealed its seed: it is revealed when its game is over "
                         f"(D-GEN-4), and only then can it be checked")
    seed = int(revealed["seed"])
    verdict.seed = seed
    if committed is None:
        verdict.problems.append("its room_opened carries no commitment (a room opened before D-GEN-4)")
    elif committed != seeds.commitment(rid, seed):
        verdict.problems.append(f"the revealed seed {seed} is not the one committed to ({committed})")
    verdict.events, problems = replay_check(rid, records, engines, seed)
    verdict.problems += problems
    parent = records[0].body.get("parent")
    if parent:
        above = await store.log.read(RoomId(str(parent)), 0)
        shown = _found(above, "seed_revealed")
        if shown is None:
            verdict.notes.append(f"its campaign {parent} has not revealed its seed yet: that this battle's seed "
                                 f"was derived from it can be checked when the campaign is over")
        elif seeds.child_seed(int(shown["seed"]), rid) != seed:
            verdict.problems.append(f"its seed is not the one derived from its campaign {parent}'s seed")
        else:
            verdict.notes.append(f"its seed is the one derived from its campaign {parent}'s revealed seed")
    return verdict
