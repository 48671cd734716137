"""Messages a client sends to the server (`ClientMessage`, discriminated by `t`).

Every message carries `cid`, a number the client chooses; the server's `ack` or `error` echoes it.
The first message on a socket must be `hello` with the token (never in the URL).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Cid = Annotated[int, Field(ge=0, le=2**53, description="client message id, echoed by ack/error")]
RoomId = Annotated[str, Field(min_length=1, max_length=80, pattern=r"^[A-Za-z0-9:_\-]+$")]
Team = Annotated[str, Field(min_length=1, max_length=16, pattern=r"^[a-z]+$")]
Text = Annotated[str, Field(min_length=1, max_length=2000)]


class _Msg(BaseModel):
    # strict (issue 12 §14): `cid: "77"`, `true` or `5.0`, a string `since` or `delta_ms` are refused, not coerced
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
    cid: Cid


class Hello(_Msg):
    """Authenticate: a seat's invite token, the moderator token or a campaign's spectator token."""

    t: Literal["hello"] = "hello"
    token: Annotated[str, Field(min_length=8, max_length=200)]
    name: Annotated[str, Field(max_length=40)] | None = None


class Join(_Msg):
    """Follow a room. `since` is the last sequence number seen: the server sends exactly what came after it
    (or a snapshot when it is too far behind). Without `since` the client gets a snapshot and history. The moderator
    may follow the room as a team, the spectators or the public see it (`view_as`)."""

    t: Literal["join"] = "join"
    room: RoomId
    since: Annotated[int, Field(ge=0)] | None = None
    view_as: Annotated[str, Field(pattern=r"^(team:[a-z]{1,16}|spectator|public)$")] | None = Field(
        default=None, description="moderator only: see the room as this viewer class sees it")


class Leave(_Msg):
    t: Literal["leave"] = "leave"
    room: RoomId


class Order(_Msg):
    """A game order for the room's rules engine; the engine validates `order` (its own typed orders)."""

    t: Literal["order"] = "order"
    room: RoomId
    order: dict[str, Any]


class EndTurn(_Msg):
    t: Literal["end_turn"] = "end_turn"
    room: RoomId


class Chat(_Msg):
    """Say something on a channel: "team", "players", "spectators", or (moderator) "announce"/"team:<colour>"."""

    t: Literal["chat"] = "chat"
    room: RoomId
    channel: Annotated[str, Field(min_length=1, max_length=32)]
    text: Text


class Pong(_Msg):
    """Answer to the server's `ping`; the server measures the round trip (lag compensation)."""

    t: Literal["pong"] = "pong"
    nonce: int


class ModClock(_Msg):
    """Moderator: pause or resume a room's clocks, or add (delta_ms > 0) / remove time for a team."""

    t: Literal["mod_clock"] = "mod_clock"
    room: RoomId
    action: Literal["pause", "resume", "adjust"]
    team: Team | None = None
    delta_ms: Annotated[int, Field(ge=-86_400_000, le=86_400_000)] = 0


class ModSecretModule(_Msg):
    """Moderator: send a player to the secret module (default 20 minutes, D-N-14)."""

    t: Literal["mod_secret_module"] = "mod_secret_module"
    player: Annotated[str, Field(min_length=1, max_length=64)]
    minutes: Annotated[float, Field(gt=0, le=24 * 60)] | None = None
    reason: Annotated[str, Field(max_length=500)] = ""


class ModRelease(_Msg):
    """Moderator: bring a player back from the secret module early."""

    t: Literal["mod_release"] = "mod_release"
    player: Annotated[str, Field(min_length=1, max_length=64)]


class ModMute(_Msg):
    """Moderator: mute a spectator's chat in a room — `who` is its player id or the name it chats under — or every
    spectator's (`who: "spectators"`); `muted: false` lets them speak again (issue 12 §13)."""

    t: Literal["mod_mute"] = "mod_mute"
    room: RoomId
    who: Annotated[str, Field(min_length=1, max_length=64)]
    muted: bool = True


class ModRuling(_Msg):
    """Moderator: a ruling for the room's engine (dispute, imposed result, intervention, end of battle)."""

    t: Literal["mod_ruling"] = "mod_ruling"
    room: RoomId
    ruling: dict[str, Any]


class ModAi(_Msg):
    """Moderator: hand a seat (`player`, or a team's colour: all its seats) to the AI commander, or take it back
    (issue 18). Goes to the campaign room; its battles follow."""

    t: Literal["mod_ai"] = "mod_ai"
    player: Annotated[str, Field(min_length=1, max_length=64)]
    on: bool


class OptionsRequest(_Msg):
    """Ask what one of the team's units (or, without `unit`, the team as a whole: its army, its armies) may do
    now (issue 14). Answered by `options` (server); a room the session has joined; nothing is logged."""

    t: Literal["options"] = "options"
    room: RoomId
    unit: Annotated[str, Field(min_length=1, max_length=64)] | None = None


ClientMessage = Annotated[
    Hello | Join | Leave | Order | EndTurn | Chat | Pong | ModClock | ModSecretModule | ModRelease | ModRuling
    | ModMute | ModAi | OptionsRequest,
    Field(discriminator="t"),
]
