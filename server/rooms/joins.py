"""Sessions following rooms on this node: who may enter which room (the rooms layer's one place for it), the
room's local feed (one per room followed here, subscribed to the bus), and the catch-up a (re)joining session gets
— a snapshot or exactly the events it missed, from the room owned here or its mirror — before live events.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from server.bus import EventBus
from server.core.engine import SPECTATOR
from server.rooms import channels, secret_module, spectating, views
from server.rooms.errors import RoomError
from server.rooms.feed import Feed, Outlet, Subscription
from server.rooms.followers import Followers
from server.rooms.ids import RoomId
from server.rooms.members import Member
from server.rooms.room import Room, RoomServices
from server.rooms.state import Away
from server.store.records import LoggedEvent

Send = Callable[[dict[str, Any]], None]


@dataclass(frozen=True, slots=True)
class Entry:
    """A session now follows a room: up to `seq`, as `viewer`, reading `channels`."""

    sub: Subscription
    seq: int
    viewer: str
    channels: list[str]


class Joins:
    def __init__(self, services: RoomServices, followers: Followers, *,
                 owned: Callable[[str], Awaitable[Room | None]], lockout_of: Callable[[Member], Awaitable[Away | None]],
                 teams_of: Callable[[str], Awaitable[Sequence[str]]],
                 campaign_room: Callable[[str], Awaitable[Room | None]] | None = None):
        self.services = services
        self.campaign_room = campaign_room
        """The campaign's room here or its copy: its spectating policy (issue 12 item 1) governs its battles too."""
        self.bus: EventBus = services.bus
        self.followers = followers
        self.owned = owned
        self.lockout_of = lockout_of
        self.teams_of = teams_of
        self.feeds: dict[str, Feed] = {}

    async def enter(self, outlet: Outlet, member: Member, room: str, since: int | None, send: Send, *,
                    view_as: str | None = None) -> Entry:
        """A session asks to follow a room: a room of its own campaign; the secret module's only for the moderator
        and players sent there (D-N-14); another viewer class's view only for the moderator."""
        room_id = RoomId.parse(room)
        if room_id is None or room_id.campaign != member.campaign:
            raise RoomError("no_such_room", f"no room {room} in your campaign")
        if room_id.kind == "secret_module":
            secret_module.refuse_entry(member, await self.lockout_of(member))
        if view_as is not None and member.role != "moderator":
            raise RoomError("forbidden", "only the moderator sees the room as others see it")
        sub, seq, viewer = await self.join(outlet, member, room_id, since, send, view_as=view_as)
        return Entry(sub, seq, viewer, channels.readable(viewer, await self.teams_of(member.campaign),
                                                         member.role == "spectator"))

    async def _feed(self, room_id: str) -> Feed:
        """The room's local feed, subscribed to the bus; marked as being joined so it is not dropped meanwhile."""
        feed = self.feeds.get(room_id)
        if feed is None:
            feed = self.feeds[room_id] = Feed(room_id, self.services.now, scheduler=self.services.scheduler)
            feed.after_events = self.followers.follow
            feed.on_spectating = self._policy_changed
            feed.joining += 1
            await self.bus.subscribe(room_id, feed.on_events)
        else:
            feed.joining += 1
        return feed

    async def join(self, outlet: Outlet, member: Member, room_id: str, since: int | None, send: Send, *,
                   view_as: str | None = None) -> tuple[Subscription, int, str]:
        """Follow a room: catch-up messages go through `send`, then live events. Returns (subscription, seq,
        viewer class). `view_as` (the moderator's) replaces the member's own viewer class."""
        feed = await self._feed(room_id)
        try:
            feed.remove(outlet)
            policy = None
            if view_as is None and member.role == "spectator":  # the campaign's policy (issue 12 item 1)
                policy = await self.policy(RoomId(room_id).campaign)
                view_as = spectating.viewer_of(policy, member)
            room = await self.owned(room_id)
            if room is not None:
                async with room.lock:
                    viewer = view_as or room.viewer_of(member)
                    sub = feed.add(outlet, viewer, spectator=member.role == "spectator")
                    messages, seq = room.catch_up(viewer, since, member.role == "spectator"), room.seq
                holder = room
            else:
                sub = feed.add(outlet, member.viewer, spectator=member.role == "spectator")
                copy = await self.followers.copy(room_id)
                if copy is None:
                    feed.remove(outlet)
                    raise RoomError("no_such_room", f"no room {room_id}")
                viewer = sub.viewer = view_as or copy.viewer_of(member)
                messages, seq = copy.catch_up(viewer, since, member.role == "spectator"), copy.seq
                holder = copy
            feed.spectator_delay_ms = holder.spectator_delay_ms
            if policy is not None and spectating.delayed(policy, member):  # the spectators' link under `full`
                sub.delay_ms = policy.delay_for(spectating.phase_ms(holder.setup.get("clock")))
            delay = max(sub.delay_ms, holder.spectator_delay_ms if viewer == SPECTATOR else 0)
            if viewer == SPECTATOR and delay:
                messages, seq = await self._delayed_catch_up(holder, sub, delay)
            for message in messages:
                send(message)
                if message["t"] == "snapshot":
                    feed.note_snapshot(viewer, message["state"])
            feed.activate(sub, seq)
            return sub, seq, viewer
        finally:
            feed.joining -= 1

    async def policy(self, campaign_id: str) -> spectating.Spectating:
        """The campaign's spectating policy, from its room here or a copy."""
        campaign = await self.campaign_room(campaign_id) if self.campaign_room is not None else None
        return campaign.state.spectating if campaign is not None else spectating.Spectating()

    async def _delayed_catch_up(self, room: Room, sub: Subscription, delay: int) -> tuple[list[dict[str, Any]], int]:
        """A spectator of a delayed room starts from the room as it was `delay` ago; what happened since is
        released to it as each event's delay runs out."""
        until = room.now() - delay
        past = await Room.open(room.id, self.services, owner=False, until_ms=until)
        if past is None:
            return [], room.seq
        tail = [e for e in room.history if e.seq > past.seq]
        last = tail[-1].seq if tail else past.seq
        sub.pending = [*tail, *(e for e in sub.pending or [] if e.seq > last)]
        snapshot = past.catch_up(SPECTATOR, None, True)[0]
        if "log" in snapshot:  # the setup is replayed whatever its time: its events wait out the delay like any
            log = [e for e in snapshot.pop("log") if e["at_ms"] <= until]
            if log:
                snapshot["log"] = log
        return [snapshot], past.seq

    def _policy_changed(self, feed: Feed) -> None:
        """The campaign's spectating policy changed: its spectators here, in the campaign room and its battles,
        join again as the policy now shows them."""
        campaign = RoomId(feed.room).campaign
        for room_id, other in list(self.feeds.items()):
            if RoomId(room_id).campaign == campaign:
                for sub in list(other.subs.values()):
                    if sub.spectator and sub.pending is None:
                        sub.outlet.lockout_changed(room_id, False)

    def leave(self, outlet: Outlet, room_id: str) -> None:
        feed = self.feeds.get(room_id)
        if feed is not None:
            feed.remove(outlet)

    def views_after(self, room: Room, events: tuple[LoggedEvent, ...]) -> None:
        """A room owned here committed: views for its followers here (a listener of the room)."""
        views.after_command(self.feeds.get(room.id), room, events)

    def in_use(self, room_id: str) -> bool:
        feed = self.feeds.get(room_id)
        return feed is not None and bool(feed.subs or feed.joining)

    async def drop_idle(self) -> None:
        """Feeds nobody follows any more are unsubscribed; so are mirrors not used for a while."""
        for room_id, feed in list(self.feeds.items()):
            if not feed.subs and not feed.joining:
                del self.feeds[room_id]
                await self.bus.unsubscribe(room_id, feed.on_events)
        self.followers.drop_idle(self.feeds)

    def presence(self) -> dict[str, dict[str, int]]:
        """This node's sessions per room and role, as they are now, and the seats they play (`seat:<player>`)."""
        return {room_id: {**feed.counts(), **feed.seats()} for room_id, feed in self.feeds.items() if feed.subs}

    async def close(self) -> None:
        for room_id, feed in list(self.feeds.items()):
            await self.bus.unsubscribe(room_id, feed.on_events)
        self.feeds.clear()
