"""What a viewer gets of a room when it (re)joins: a snapshot of the room as its viewer class may see it, or
exactly the events it missed (lila-ws's versioned history: a full resync when there is a gap)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from server.core.engine import MODERATOR
from server.rooms import ai_seats, channels
from server.rooms.state import RoomSpec, RoomState
from server.store.records import LoggedEvent
from shared.protocol.server import Away, ChatLine, Snapshot, event_message, wire


def visible(audience: frozenset[str] | None, viewer: str) -> bool:
    return audience is None or viewer == MODERATOR or viewer in audience


def ev(room: str, e: LoggedEvent) -> dict[str, Any]:
    """An event of the room's history as an `ev` message."""
    return event_message(room, e.seq, e.at_ms, e.kind, e.plain_data())


def snapshot(spec: RoomSpec, state: RoomState, seq: int, viewer: str, now: int) -> dict[str, Any]:
    """The room at `seq` as `viewer` may see it: the engine's projection, the clocks, the chat of the channels
    it reads, who is away (D-N-14), the teams to act and the seats the AI plays that it is told of (issue 18)."""
    readable = set(state.chat) if viewer == MODERATOR else set(channels.readable(viewer, spec.teams))
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
    return out


def missed(spec: RoomSpec, history: Sequence[LoggedEvent], seq: int, viewer: str,
           since: int | None) -> Iterable[LoggedEvent] | None:
    """The events after `since` that `viewer` may see, or None when the history no longer reaches back that far
    (or `since` is None or from the future): then a snapshot."""
    oldest = history[0].seq if history else seq + 1
    if since is None or since > seq or since < oldest - 1:
        return None
    return (e for e in history if e.seq > since and visible(e.audience, viewer))
