"""Views after commands: each viewer class following a room on this node gets the engine's projection of the room
for that class, with the clocks, when it changed (docs/protocol.md "Views"). Built here for the rooms this node
owns (after each command) and for the mirrors of rooms owned elsewhere (server/rooms/followers.py)."""

from __future__ import annotations

from server.rooms.feed import Feed
from server.rooms.room import Room
from server.store.records import LoggedEvent

NO_VIEW_CHANGE = frozenset({"chat"})
"""Events after which no viewer's view can have changed."""


def after_command(feed: Feed | None, room: Room, events: tuple[LoggedEvent, ...]) -> None:
    """After a command of a room owned here: a view per viewer class following it on this node."""
    if feed is not None and feed.subs and not all(e.kind in NO_VIEW_CHANGE for e in events):
        post(feed, room, events[-1].seq, events[-1].at_ms)


def post(feed: Feed, room: Room, seq: int, at_ms: int) -> None:
    """Only the classes whose view changed cost a packing, the clocks and a frame."""
    changed = [(v, s) for v, s in room.views(feed.view_classes()).items() if feed.changed(v, s)]
    if not changed:
        return
    clocks, now, active = room.clocks_view(), room.now(), room.active()
    for viewer, state in changed:
        feed.post_view(viewer, seq, at_ms, state, clocks, now, active)
