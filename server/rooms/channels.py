"""Chat channels of a campaign: who may write to each and who receives it.

Canonical channel names:
    team:<colour>   the team's private channel (players of that team)
    mod:<colour>    the moderator and that team
    players         every player (diplomacy, peace talks); not spectators, not players in the secret module
    spectators      spectators (players never see it: no leaks towards the game). A line written in the `public`
                    class (the spectators' link under the default policy, issue 12 item 1) is heard by the public
                    class and the full-view spectators and kept under `spectators:public`; a line written by a
                    full-view spectator (or the moderator) sees hidden armies and reaches only the `spectator`
                    class (a player may hold the spectators' link)
    announce        the moderator to everyone
    secret:<player> the secret module: the moderator and one player sent there (a player writes "secret")
The moderator reads every channel. A message's audience is a set of viewer classes (server.core.engine).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from server.core.engine import MODERATOR, PUBLIC, SPECTATOR, Event, team_viewer
from server.rooms.errors import RoomError, forbidden, moderator_only
from server.rooms.members import Member
from server.rooms.secret_module import SECRET, refuse_chat, secret_viewer
from server.rooms.state import Outcome, RoomSpec, RoomState

CHAT_HISTORY = 100
CHAT_KINDS = frozenset({"chat"})
"""The events that are lines on a channel: a snapshot carries them in its `chat`, never in its `log`."""
MAX_MUTED = 100

SPECTATORS = "spectators"
PUBLIC_SPECTATORS = "spectators:public"
"""Where the spectators' lines written in the `public` class are kept: their line still says `spectators`."""
PUBLIC_SPECTATORS_AUDIENCE = frozenset({PUBLIC, SPECTATOR})
"""Their audience. The public class is also a player's while in the secret module (D-N-14): only spectators'
sockets of the public class hear these lines (`spectators_only`)."""


def kept_under(channel: str, member: Member, view: str | None) -> str:
    """The chat history a line goes to: a spectator writing to the spectators' channel in the `public` class
    (`view`, the class the spectating policy gave it when it wrote) goes to `spectators:public`; else `channel`."""
    if channel == SPECTATORS and member.role == "spectator" and view == PUBLIC:
        return PUBLIC_SPECTATORS
    return channel


def audience(channel: str, teams: Sequence[str]) -> frozenset[str] | None:
    if channel == "announce":
        return None
    if channel == "players":
        return frozenset(team_viewer(t) for t in teams)
    if channel == SPECTATORS:
        return frozenset({SPECTATOR})
    if channel == PUBLIC_SPECTATORS:
        return PUBLIC_SPECTATORS_AUDIENCE
    if channel.startswith(SECRET + ":"):
        return frozenset({channel})
    kind, _, team = channel.partition(":")
    if kind in ("team", "mod") and team in teams:
        return frozenset({team_viewer(team)})
    raise RoomError("no_such_channel", f"no channel {channel!r}")


def resolve(member: Member, channel: str, teams: Sequence[str], *, secret_room: bool,
            players: Sequence[str] = ()) -> str:
    """The canonical channel `member` writes to when it says `channel`; typed refusal when it may not."""
    if secret_room:
        if member.role == "spectator":
            raise forbidden("spectators have no voice in the secret module")
        if member.role == "player":
            if channel not in (SECRET, secret_viewer(member.player)):
                raise RoomError("no_such_channel", "in the secret module you write to 'secret' (the moderator)")
            return secret_viewer(member.player)
        if channel.removeprefix(SECRET + ":") not in players:
            raise RoomError("no_such_channel", "the moderator writes to 'secret:<player>' in the secret module")
        return channel
    if member.role == "spectator":
        if channel != "spectators":
            raise forbidden("spectators write only to the spectators' channel")
        return channel
    kind, _, team = channel.partition(":")
    if member.role == "moderator":
        if channel in ("announce", "players", "spectators"):
            return channel
        if kind in ("team", "mod") and team in teams:
            return f"mod:{team}"
        raise RoomError("no_such_channel", f"no channel {channel!r}")
    own = member.team
    if channel in ("team", f"team:{own}"):
        return f"team:{own}"
    if channel in ("moderator", "mod", f"mod:{own}"):
        return f"mod:{own}"
    if channel == "players":
        return channel
    if kind in ("team", "mod") and team in teams:
        raise RoomError("not_your_team", f"{own} may not write to {channel}")
    if channel in ("announce", "spectators") or channel.startswith(SECRET):
        raise forbidden(f"players may not write to {channel}")
    raise RoomError("no_such_channel", f"no channel {channel!r}")


def spectators_only(kind: str, audience: frozenset[str] | None, viewer: str, spectator: bool) -> bool:
    """Whether an event is a public spectator's line kept from this non-spectator socket of the public class (a
    player in the secret module): players never read the spectators' channel."""
    return viewer == PUBLIC and not spectator and kind == "chat" and audience == PUBLIC_SPECTATORS_AUDIENCE


def readable(viewer: str, teams: Sequence[str], spectator: bool = False) -> list[str]:
    """Channels a viewer class receives (its `joined.channels`); `spectator`: the socket is a spectator's."""
    if viewer == MODERATOR:
        return ["announce", "players", "spectators", *(f"{k}:{t}" for t in teams for k in ("team", "mod"))]
    if viewer == SPECTATOR:
        return ["announce", "spectators"]
    if viewer == PUBLIC:
        return ["announce", SPECTATORS] if spectator else ["announce"]
    if viewer.startswith(SECRET + ":"):
        return [viewer]
    team = viewer.removeprefix("team:")
    return ["announce", "players", f"team:{team}", f"mod:{team}"]


def history(viewer: str, teams: Sequence[str], spectator: bool = False) -> list[str]:
    """The chat histories a (non-moderator) viewer class gets on join: its readable channels, the spectators'
    split by the class its lines were written in (`public` reads only the public lines)."""
    kept = [c for c in readable(viewer, teams, spectator) if c != SPECTATORS]
    if viewer == SPECTATOR:
        kept += [SPECTATORS, PUBLIC_SPECTATORS]
    elif viewer == PUBLIC and spectator:
        kept.append(PUBLIC_SPECTATORS)
    return kept


def say(spec: RoomSpec, state: RoomState, body: Mapping[str, Any], member: Member | None, at: int) -> Outcome:
    """A line on a channel, kept under the writer's viewer class (issue 12 item 1); D-N-14 in the secret module."""
    if member is None:
        raise forbidden("no voice without a seat")
    refuse_chat(spec, state, member)
    if member.role == "spectator" and state.muted and \
            state.muted & {SPECTATORS, member.player, str(body.get("name") or member.player)}:
        raise RoomError("muted", "the umpire has muted spectators' chat here")
    channel = resolve(member, str(body["channel"]), spec.teams, secret_room=spec.kind == "secret_module",
                               players=list(spec.players))
    line = {"channel": channel, "from": member.player, "role": member.role, "team": member.team,
            "name": body.get("name") or member.player, "text": str(body["text"]), "at_ms": at}
    kept = kept_under(channel, member, body.get("view"))  # the writer's class: no leak (issue 12 item 1)
    chat = dict(state.chat)
    chat[kept] = (*chat.get(kept, ())[-(CHAT_HISTORY - 1):], line)
    return replace(state, chat=chat), [Event("chat", line, audience(kept, spec.teams))]


def mute(spec: RoomSpec, state: RoomState, body: Mapping[str, Any], member: Member | None, at: int) -> Outcome:
    """Issue 12 §13: the moderator mutes (or lets speak again) one spectator — its player id, or the name it chats
    under — or all of them (`spectators`); players' chat is not the spectators' and is never muted here."""
    moderator_only(member, "mute spectators")
    who, muted = str(body["who"]), bool(body["muted"])
    if (who in state.muted) == muted:
        raise RoomError("bad_order", f"{who!r} is {'muted' if muted else 'not muted'} already")
    if muted and len(state.muted) >= MAX_MUTED:
        raise RoomError("bad_order", f"at most {MAX_MUTED} mutes in a room; mute all spectators instead")
    now = state.muted | {who} if muted else state.muted - {who}
    return replace(state, muted=frozenset(now)), [Event("muted", {"who": who, "muted": muted})]
