"""What a viewer gets of a room when it (re)joins: a snapshot of the room as its viewer class may see it, or
exactly the events it missed (lila-ws's versioned history: a full resync when there is a gap)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import islice
from typing import Any

from server.core.engine import MODERATOR
from server.rooms import ai_seats, channels
from server.rooms.state import RoomSpec, RoomState
from server.store.records import LoggedEvent
from shared.protocol.server import Away, ChatLine, Snapshot, event_message, wire

LOG_EVENTS = 200
"""The most recent game events a snapshot brings back as its `log` (the turn log of a page reloaded mid-game): an
evening's dice and losses, bounded so that a join's answer stays small. Chat lines are not counted: they come in
the snapshot's `chat`, and a chatty evening would otherwise push the dice out of the log."""


def visible(audience: frozenset[str] | None, viewer: str) -> bool:
    return audience is None or viewer == MODERATOR or viewer in audience


def sees(e: LoggedEvent, viewer: str, spectator: bool) -> bool:
    """Whether `viewer` (a spectator's socket or not) receives the event: what the feed sends it live."""
    return visible(e.audience, viewer) and not channels.spectators_only(e.kind, e.audience, viewer, spectator)


def ev(room: str, e: LoggedEvent) -> dict[str, Any]:
    """An event of the room's history as an `ev` message."""
    return event_message(room, e.seq, e.at_ms, e.kind, e.plain_data())


def recent(room: str, history: Sequence[LoggedEvent], seq: int, viewer: str,
           spectator: bool = False) -> list[dict[str, Any]]:
    """The last LOG_EVENTS game events up to `seq` that `viewer` may see, oldest first, as `ev` messages: a
    snapshot's `log`. No chat lines (the snapshot's `chat` has them); only the history's events up to `seq` — a
    delayed spectator's room as it was (issue 12 item 1)."""
    seen = islice((e for e in reversed(history) if e.seq <= seq and e.kind not in channels.CHAT_KINDS
                   and sees(e, viewer, spectator)), LOG_EVENTS)
    return [ev(room, e) for e in reversed(list(seen))]


def snapshot(spec: RoomSpec, state: RoomState, seq: int, viewer: str, now: int,
             spectator: bool = False, history: Sequence[LoggedEvent] = ()) -> dict[str, Any]:
    """The room at `seq` as `viewer` may see it: the engine's projection, the clocks, the chat of the channels
    it reads, who is away (D-N-14), the teams to act, the seats the AI plays that it is told of (issue 18) and
    the recent game events of `history` it may see (`log`, for the turn log of a fresh join)."""
    readable = set(state.chat) if viewer == MODERATOR else set(channels.history(viewer, spec.teams, spectator))
    lines = [line for c in sorted(readable) for line in state.chat.get(c, ())]
    chat = sorted(lines, key=lambda line: int(line["at_ms"]))
    ai = ai_seats.visible_to(spec, state.ai, viewer)
    out = wire(Snapshot(
        room=spec.id, seq=seq, kind=spec.kind,
        state=spec.engine.view(state.game, viewer) if spec.engine is not None else {},
        clocks=state.clocks.view(now) if state.clocks is not None else {}, server_ms=now,
        chat=[ChatLine.model_validate(line) for line in chat], away=[Away(**a.dump()) for a in state.away.values()],
        active=sorted(spec.active(state.game)), ai=ai,
    ))
    if not ai:
        del out["ai"]  # a room without AI seats snapshots as it always has
    log = recent(spec.id, history, seq, viewer, spectator)
    if log:  # built as the feed builds `ev`s, not validated one by one (the protocol tests check the shape)
        out["log"] = log
    else:
        del out["log"]
    return out


def missed(spec: RoomSpec, history: Sequence[LoggedEvent], seq: int, viewer: str,
           since: int | None, spectator: bool = False) -> Iterable[LoggedEvent] | None:
    """The events after `since` that `viewer` may see, or None when the history no longer reaches back that far
    (or `since` is None or from the future): then a snapshot."""
    oldest = history[0].seq if history else seq + 1
    if since is None or since > seq or since < oldest - 1:
        return None
    return (e for e in history if e.seq > since and sees(e, viewer, spectator))
