"""Messages the server sends to a client (`ServerMessage`, discriminated by `t`).

The models are the contract and the source of the JSON Schema, and the server builds its messages from them. The
messages of the hot paths — `ev` and `view`, packed once per viewer class and written to many sockets, and the
`ack` of every command — are built by `event_message`, `event_head`, `view_head` and `ack_message` below without
validating them each time; the protocol tests check that what they build is the model's message.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from shared.protocol.options import ArmyOptions, BattleOptions, SkirmishOptions

ErrorCode = Literal[
    "bad_frame",  # not msgpack / not JSON
    "bad_message",  # fields missing or out of range
    "unknown_type",  # `t` names no message
    "frame_too_large",
    "not_authenticated",  # anything before a good hello
    "bad_token",  # forged, revoked or already used elsewhere
    "forbidden",  # the role may not do this (spectator ordering, player using a moderator command)
    "not_your_team",  # a player acting for another team
    "not_joined",  # a command into a room the session has not joined
    "no_such_room",
    "no_such_player",
    "no_such_channel",
    "rate_limited",
    "muted",  # the moderator has muted this spectator's (or all spectators') chat in the room
    "locked_out",  # the player is in the secret module
    "not_your_turn",
    "paused",  # the clocks are paused or the game not yet started: orders and end_turn wait (chat goes on)
    "game_over",
    "illegal_order",  # the rules forbid it; `rule` names the rule
    "bad_order",
    "unknown_order",
    "not_your_unit",
    "clock_error",  # a clock command that does not fit the clocks (C-1.9)
    "cid_reused",  # the cid of a recent command of this seat, with another message: a new command needs a new cid
    "unavailable",  # not applied: the store or the room's owner cannot be reached now; retry (same cid) later
    "outcome_unknown",  # may have been applied (an answer was lost); retry with the same cid: never applied twice
    "internal",
]
RETRYABLE_CODES: frozenset[str] = frozenset({"unavailable", "outcome_unknown"})
"""Errors the client retries on its own, with the same cid, after `retry_after_ms`."""
ERROR_CODES: frozenset[str] = frozenset(get_args(ErrorCode))


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Welcome(_Msg):
    """Answer to a good `hello`: who the session is and which rooms it may join."""

    t: Literal["welcome"] = "welcome"
    cid: int
    session: str
    player: str | None
    role: Literal["player", "moderator", "spectator"]
    team: str | None = None
    seat: int | None = None
    campaign: str
    rooms: list[str]
    server_ms: int
    locked_until_ms: int | None = None


class Ack(_Msg):
    """The command `cid` was accepted and is durable; `seq` is the room sequence of its first event."""

    t: Literal["ack"] = "ack"
    cid: int
    seq: int | None = None


class Error(_Msg):
    t: Literal["error"] = "error"
    cid: int | None
    code: ErrorCode
    message: str
    rule: str | None = None
    details: dict[str, Any] = Field(default_factory=dict)
    retry_after_ms: int | None = None
    """With a retryable code (`unavailable`, `outcome_unknown`): send the same message, same cid, after this long."""


class Event(_Msg):
    """One room event. `seq` is the room's sequence number (gaps are events this viewer may not see)."""

    t: Literal["ev"] = "ev"
    room: str
    seq: int
    at_ms: int
    kind: str
    data: dict[str, Any]


class ChatLine(_Msg):
    """One chat message (also the `data` of a `chat` event)."""

    channel: str
    sender: str = Field(alias="from")
    role: Literal["player", "moderator", "spectator"]
    team: str | None
    name: str
    text: str
    at_ms: int


class Away(_Msg):
    """A player in the secret module until `until_ms` (D-N-14)."""

    player: str
    team: str | None
    since_ms: int
    until_ms: int
    reason: str


class Snapshot(_Msg):
    """The room as this viewer may see it, at `seq`; events with a higher seq follow. `chat` is the history of
    the channels the viewer reads; `away` lists who is in the secret module; `active` the teams to act; `ai` the
    seats the AI plays that this viewer is told of (issue 18: the moderator all, a team its own); `log` the
    room's recent game events up to `seq` that this viewer may see, oldest first (at most 200, no chat lines:
    those are `chat`): already in `state`, for the turn log of a page (re)loaded mid-game, not news."""

    t: Literal["snapshot"] = "snapshot"
    room: str
    seq: int
    kind: Literal["campaign", "battle", "secret_module"]
    state: dict[str, Any]
    clocks: dict[str, Any]
    server_ms: int
    chat: list[ChatLine] = Field(default_factory=list)
    away: list[Away] = Field(default_factory=list)
    active: list[str] = Field(default_factory=list)
    ai: list[str] = Field(default_factory=list, json_schema_extra={"x-omitted-when-empty": True})
    log: list[Event] = Field(default_factory=list, json_schema_extra={"x-omitted-when-empty": True})


class View(_Msg):
    """What this viewer now sees of the room, after the events up to `seq`: sent after an accepted command (or a
    turn, flag or ruling) whose events changed it, so that a client never has to re-join to redraw. Once per
    viewer class and command; the same bytes go to every socket of that class. `active`: the teams to act in the
    room now, as in Snapshot — not the engine's own turn order in `state`, which knows nothing of a campaign waiting
    for its battles or of a team deciding under its clock."""

    t: Literal["view"] = "view"
    room: str
    seq: int
    state: dict[str, Any]
    clocks: dict[str, Any]
    server_ms: int
    active: list[str] = Field(default_factory=list)


class Ping(_Msg):
    t: Literal["ping"] = "ping"
    nonce: int
    server_ms: int


class Joined(_Msg):
    """Answer to `join` once the snapshot/missed events have been sent."""

    t: Literal["joined"] = "joined"
    cid: int
    room: str
    seq: int
    channels: list[str]


class Options(_Msg):
    """Answer to `options` (issue 14): the legal options of `unit` (null: the team's own) in `room`, in the shape
    of the room's ruleset (shared/protocol/options.py); null when the room's game answers no options."""

    t: Literal["options"] = "options"
    cid: int
    room: str
    unit: str | None
    options: BattleOptions | SkirmishOptions | ArmyOptions | None


ServerMessage = Annotated[
    Welcome | Ack | Error | Event | Snapshot | View | Ping | Joined | Options,
    Field(discriminator="t"),
]


def event_head(room: str, seq: int, at_ms: int, kind: str) -> dict[str, Any]:
    """An `ev` message (Event) but its `data`, which the fan-out splices in already packed."""
    return {"t": "ev", "room": room, "seq": seq, "at_ms": at_ms, "kind": kind}


def event_message(room: str, seq: int, at_ms: int, kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """An `ev` message (Event) as a plain map: catch-ups send thousands."""
    return {"t": "ev", "room": room, "seq": seq, "at_ms": at_ms, "kind": kind, "data": data}


def view_head(room: str, seq: int, clocks: Mapping[str, Any], server_ms: int,
              active: Sequence[str] = ()) -> dict[str, Any]:
    """A `view` message (View) but its `state`, packed once per viewer class and spliced in."""
    return {"t": "view", "room": room, "seq": seq, "clocks": dict(clocks), "server_ms": server_ms,
            "active": list(active)}


def ack_message(cid: int, seq: int | None) -> dict[str, Any]:
    """An `ack` message (Ack): one per command."""
    return {"t": "ack", "cid": cid, "seq": seq}


def wire(message: BaseModel) -> dict[str, Any]:
    """A message model as the codec packs it (fields by their wire names: a chat line's `from`)."""
    return message.model_dump(by_alias=True)
