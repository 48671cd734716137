"""The rooms of one node: the rooms it owns (holding their lease), the feeds of the rooms its sessions follow,
and campaign creation. Nothing here assumes a single process: ownership is a lease in the store, events travel
over the bus, and a node that does not own a room serves its followers from the store and the bus.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any

from server.bus import EventBus
from server.core.engine import SPECTATOR
from server.core.errors import RuleError
from server.rooms.campaigns import new_token, plan_campaign, reissued_grant, token_hash
from server.rooms.errors import RoomError
from server.rooms.feed import Feed, Outlet, Subscription
from server.rooms.ids import RoomId
from server.rooms.members import Member
from server.rooms.replay import Replays
from server.rooms.room import Away, Room
from server.store import Store
from server.store.records import LoggedEvent

log = logging.getLogger(__name__)

MIRROR_TRIES = 100
DUE_AHEAD_MS = 2_000
FOLLOWER_IDLE_MS = 30_000
ORPHAN_AFTER_MS = 2_000  # rooms are marked alive every 0.5 s; a mark this old means its owner is gone
OUTAGE_GAP_MS = 2_000  # under Redis: a node starting after this long without any node alive records an outage
IDLE_EVERY = 20  # keep-alive ticks (0.5 s) between the looks for idle feeds and rooms
UNLOAD_DUE_MS = 60_000  # a room with a timer due sooner stays open (its timer is armed already)
_NO_VIEW_CHANGE = frozenset({"chat"})  # events after which no viewer's view can have changed


def wall_ms() -> int:
    return time.time_ns() // 1_000_000


class Hub:
    def __init__(self, store: Store, bus: EventBus, *, node: str | None = None, lease_ms: int = 10_000,
                 snapshot_every: int = 200, room_idle_ms: int = 600_000, now: Callable[[], int] = wall_ms):
        self.store, self.bus, self.now = store, bus, now
        self.node = node or secrets.token_hex(4)
        self.lease_ms = lease_ms
        self.snapshot_every = snapshot_every
        self.room_idle_ms = room_idle_ms
        """An owned room nobody follows here, commands or has a timer due in is unloaded after this long (0: never)."""
        self.rooms: dict[str, Room] = {}
        self._used: dict[str, int] = {}  # owned room -> its last join or command here
        self._unloading: asyncio.Task[list[str]] | None = None
        self.unloaded = 0
        self.feeds: dict[str, Feed] = {}
        self.mirrors: dict[str, Room] = {}  # read-only copies of rooms followed here and owned elsewhere (views)
        self._mirroring: dict[str, asyncio.Task[None]] = {}
        self._following: dict[str, asyncio.Lock] = {}
        self._followed: dict[str, int] = {}  # room -> when its follower copy was last used
        self.kick: Callable[[str], None] = lambda session: None
        """Close this node's session `<node>/<id>`: its seat was signed in on another node (set by the server)."""
        self._opening: dict[str, asyncio.Lock] = {}
        self.replays = Replays(store, bus, now)
        self._tasks: list[asyncio.Task[None]] = []
        self._closing = False
        from server.rooms.battles import BattleRooms

        self.battles = BattleRooms(self)

    # --- life --------------------------------------------------------------------------------------------------

    async def start(self) -> None:
        """Record an outage if the service was down, then open only the rooms with a timer due (or orphaned by a
        node that died): every other room is opened on its first join or command."""
        await self.store.leases.record_outage(self.now(), OUTAGE_GAP_MS)
        await self.bus.serve(self.node, self._forwarded)
        await self._open_due()
        self._tasks.append(asyncio.create_task(self._keep_alive()))

    async def _open_due(self) -> None:
        """Open the rooms whose clocks flag or lockouts end within `DUE_AHEAD_MS` (their own timers take it from
        there) and those whose owner died without releasing them; another node may have been quicker."""
        now = self.now()
        due = await self.store.log.due_rooms(now + DUE_AHEAD_MS)
        orphans = await self.store.leases.orphans(now - ORPHAN_AFTER_MS)
        for room_id in sorted({*due, *orphans}):
            if room_id in self.rooms:
                continue
            try:
                await self.owned(room_id)
            except Exception:
                log.exception("could not open room %s", room_id)

    async def _keep_alive(self) -> None:
        """Renew leases, mark rooms alive (downtime starts at the last mark), open due and orphaned rooms."""
        tick = 0
        while not self._closing:
            await asyncio.sleep(0.5)
            tick += 1
            now = self.now()
            if tick % max(1, self.lease_ms // 1500) == 0:
                for room_id in list(self.rooms):
                    try:
                        if not await self.store.leases.acquire(room_id, self.node, self.lease_ms):
                            log.warning("lost the lease of %s", room_id)
                            await self._drop(room_id)
                    except Exception:
                        log.exception("renewing the lease of %s failed", room_id)
            try:
                await self.store.leases.mark_alive(list(self.rooms), now)
                await self.store.log.sync()
            except Exception:
                log.exception("marking rooms alive failed")
            if tick % 4 == 0:
                with contextlib.suppress(Exception):
                    await self.store.presence.report(self.node, self.presence(), self.lease_ms)
            if tick % IDLE_EVERY == 0:
                with contextlib.suppress(Exception):
                    await self._drop_idle_feeds()
                if self.room_idle_ms > 0:  # shielded: a shutdown lets an unload finish (snapshot, lease)
                    self._unloading = asyncio.create_task(self.unload_idle())
                    try:
                        await asyncio.shield(self._unloading)
                    except Exception:
                        log.exception("unloading idle rooms failed")
            try:
                await self._open_due()
            except Exception:
                log.exception("opening due rooms failed")

    async def _drop(self, room_id: str) -> None:
        room = self.rooms.pop(room_id, None)
        self._used.pop(room_id, None)
        if room is not None:
            await room.close()

    async def _release(self, room_id: str) -> None:
        """Give up the room's lease and what the store holds open for it."""
        await self.store.leases.release(room_id, self.node)
        await self.store.log.forget(room_id)

    def idle(self, room: Room) -> bool:
        """Nobody follows the room on this node or is joining it, no join or command (nor timer) for
        `room_idle_ms`, no timer due within `UNLOAD_DUE_MS`, and nothing here is working on it."""
        now = self.now()
        feed = self.feeds.get(room.id)
        due = room.next_due()
        return (self.room_idle_ms > 0 and not room.closed and not room.busy()
                and (feed is None or not (feed.subs or feed.joining))
                and max(self._used.get(room.id, 0), room.last_at) <= now - self.room_idle_ms
                and (due is None or due > now + UNLOAD_DUE_MS)
                and not self.battles.busy(room.id))

    async def unload_idle(self) -> list[str]:
        """Unload the idle rooms (`idle`): their snapshot saved, closed, their lease released. Nothing is lost: the
        log has every record, a join or command reopens the room (`owned`), a timer due later reopens it
        (`_open_due`)."""
        unloaded = []
        for room_id, room in list(self.rooms.items()):
            if not self.idle(room):
                continue
            try:
                if await self._unload(room_id):
                    unloaded.append(room_id)
            except Exception:
                log.exception("unloading room %s failed", room_id)
        return unloaded

    async def _unload(self, room_id: str) -> bool:
        async with self.opening(room_id):  # no join or command opens it again until its lease is released
            room = self.rooms.get(room_id)
            if room is None:
                return False
            async with room.lock:
                await room.save_snapshot()
            if not self.idle(room):  # joined or commanded meanwhile
                return False
            await self._drop(room_id)
            await self._release(room_id)
            self.unloaded += 1
            log.info("room %s unloaded (idle)", room_id)
            return True

    async def close(self) -> None:
        self._closing = True
        await self.battles.close()
        for task in self._tasks:
            await _stop(task)
        if self._unloading is not None:
            with contextlib.suppress(Exception):
                await self._unloading
        for room_id in list(self.rooms):
            room = self.rooms.pop(room_id)
            await room.close()
            with contextlib.suppress(Exception):
                await room.save_snapshot()
                await self._release(room_id)
        for room_id, feed in list(self.feeds.items()):
            await self.bus.unsubscribe(room_id, feed.on_events)
        self.feeds.clear()

    # --- rooms -------------------------------------------------------------------------------------------------

    async def owned(self, room_id: str) -> Room | None:
        """The room if this node owns it (opening it and taking its lease when nobody holds it)."""
        room = self.rooms.get(room_id)
        if room is not None and not room.closed:
            self._used[room_id] = self.now()
            return room
        async with self.opening(room_id):
            room = self.rooms.get(room_id)
            if room is not None and not room.closed:
                self._used[room_id] = self.now()
                return room
            if room is not None:  # a failed write closed it: its log is the truth, rebuild from there
                del self.rooms[room_id]
                await room.close()
            if not await self.store.leases.acquire(room_id, self.node, self.lease_ms):
                return None
            room = await Room.open(room_id, self.store, self.bus, self.now, snapshot_every=self.snapshot_every)
            if room is None:
                await self._release(room_id)
                return None
            self.rooms[room_id] = room
            self._used[room_id] = self.now()
            self.adopt(room)
            return room

    def opening(self, room_id: str) -> asyncio.Lock:
        """Held while a room is being opened or created on this node, so that no second copy of it is opened
        meanwhile (a join racing a battle room's creation would otherwise open its half-written log)."""
        return self._opening.setdefault(room_id, asyncio.Lock())

    async def _join_feed(self, room_id: str) -> Feed:
        """The room's local feed, subscribed to the bus; marked as being joined so it is not dropped meanwhile."""
        feed = self.feeds.get(room_id)
        if feed is None:
            feed = self.feeds[room_id] = Feed(room_id, self.now)
            feed.after_events = self._follow
            feed.joining += 1
            await self.bus.subscribe(room_id, feed.on_events)
        else:
            feed.joining += 1
        return feed

    async def _drop_idle_feeds(self) -> None:
        for room_id, feed in list(self.feeds.items()):
            if not feed.subs and not feed.joining:
                del self.feeds[room_id]
                await self.bus.unsubscribe(room_id, feed.on_events)
        idle = self.now() - FOLLOWER_IDLE_MS
        for room_id, used in list(self._followed.items()):
            if used < idle and room_id not in self.feeds:
                del self._followed[room_id]
                self.mirrors.pop(room_id, None)
                self._following.pop(room_id, None)

    async def follower(self, room_id: str) -> Room | None:
        """This node's read-only copy of a room owned elsewhere, brought up to date from the log after the last
        record it has (built from the snapshot once); kept while the room is followed here, or used within
        `FOLLOWER_IDLE_MS`. Joins, sign-ins and views read it instead of rebuilding the room each time."""
        self._followed[room_id] = self.now()
        async with self._following.setdefault(room_id, asyncio.Lock()):
            copy = self.mirrors.get(room_id)
            if copy is None:
                copy = await Room.open(room_id, self.store, self.bus, self.now, owner=False)
                if copy is None:
                    return None
                if room_id not in self.rooms:
                    self.mirrors[room_id] = copy
            else:
                copy.advance(await self.store.log.read(room_id, copy.index))
            return copy

    async def join(self, outlet: Outlet, member: Member, room_id: str, since: int | None,
                   send: Callable[[dict[str, Any]], None], *,
                   view_as: str | None = None) -> tuple[Subscription, int, str]:
        """Follow a room: catch-up messages go through `send`, then live events. Returns (subscription, seq,
        viewer class). `view_as` (the moderator's) replaces the member's own viewer class."""
        feed = await self._join_feed(room_id)
        try:
            feed.remove(outlet)
            room = await self.owned(room_id)
            if room is not None:
                async with room.lock:
                    viewer = view_as or room.viewer_of(member)
                    sub = feed.add(outlet, viewer)
                    messages, seq = room.catch_up(viewer, since), room.seq
                holder = room
            else:
                sub = feed.add(outlet, member.viewer)
                copy = await self.follower(room_id)
                if copy is None:
                    feed.remove(outlet)
                    raise RoomError("no_such_room", f"no room {room_id}")
                viewer = sub.viewer = view_as or copy.viewer_of(member)
                messages, seq = copy.catch_up(viewer, since), copy.seq
                holder = copy
            feed.spectator_delay_ms = holder.spectator_delay_ms
            if viewer == SPECTATOR and holder.spectator_delay_ms:
                messages, seq = await self._delayed_catch_up(holder, sub)
            for message in messages:
                send(message)
                if message["t"] == "snapshot":
                    feed.note_snapshot(viewer, message["state"])
            feed.activate(sub, seq)
            return sub, seq, viewer
        finally:
            feed.joining -= 1

    async def _delayed_catch_up(self, room: Room, sub: Subscription) -> tuple[list[dict[str, Any]], int]:
        """A spectator of a delayed room starts from the room as it was `delay` ago; what happened since is
        released to it as each event's delay runs out."""
        past = await Room.open(room.id, self.store, self.bus, self.now, owner=False,
                               until_ms=self.now() - room.spectator_delay_ms)
        if past is None:
            return [], room.seq
        tail = [e for e in room.history if e.seq > past.seq]
        last = tail[-1].seq if tail else past.seq
        sub.pending = [*tail, *(e for e in sub.pending or [] if e.seq > last)]
        return [past.snapshot_for(SPECTATOR)], past.seq

    async def leave(self, outlet: Outlet, room_id: str) -> None:
        feed = self.feeds.get(room_id)
        if feed is not None:
            feed.remove(outlet)

    async def submit(self, room_id: str, kind: str, body: Mapping[str, Any], member: Member) -> int | None:
        """Run a command on the room's owner: here, or forwarded to the node holding its lease."""
        room = await self.owned(room_id)
        if room is not None:
            return await room.submit(kind, body, member)
        holder = await self.store.leases.holder(room_id)
        if holder is None or holder == self.node:
            raise RoomError("no_such_room", f"no room {room_id}")
        try:
            reply = await self.bus.forward(holder, {"room": room_id, "kind": kind, "body": dict(body),
                                                    "member": member.dump()})
        except (LookupError, TimeoutError):
            raise RoomError("internal", f"the node owning {room_id} did not answer; try again") from None
        if not reply.get("ok"):
            raise RoomError(str(reply.get("code", "internal")), str(reply.get("message", "")),
                            rule=reply.get("rule"))
        seq = reply.get("seq")
        return int(seq) if seq is not None else None

    async def claim_seat(self, member: Member, session: str) -> None:
        """`session` (`<node>/<id>`) now plays the member's seat: a session playing it on another node is told to
        close (4009); on this node the caller closes it. A node that is gone has nothing to close."""
        previous = await self.store.presence.claim_seat(member.campaign, member.player, session)
        if previous is None or previous == session:
            return
        node = previous.split("/", 1)[0]
        if node == self.node:
            return
        with contextlib.suppress(LookupError, TimeoutError):
            await self.bus.forward(node, {"kick": previous}, timeout_s=2.0)

    async def _forwarded(self, request: Mapping[str, Any]) -> dict[str, Any]:
        if "kick" in request:
            self.kick(str(request["kick"]))
            return {"ok": True}
        try:
            room = await self.owned(str(request["room"]))
            if room is None:
                raise RoomError("internal", "this node no longer owns the room")
            seq = await room.submit(str(request["kind"]), request["body"], Member.load(request["member"]))
            return {"ok": True, "seq": seq}
        except RuleError as exc:
            return {"ok": False, "code": exc.code, "message": exc.message, "rule": exc.rule}
        except Exception as exc:
            log.exception("forwarded command failed")
            return {"ok": False, "code": "internal", "message": str(exc)}

    async def lockout_of(self, member: Member) -> Away | None:
        if member.role != "player":
            return None
        room_id = RoomId.campaign_room(member.campaign)
        room = await self.owned(room_id)
        if room is None:
            room = await self.follower(room_id)
        return room.lockout_of(member.player) if room is not None else None

    def presence(self) -> dict[str, dict[str, int]]:
        """This node's sessions per room and role, as they are now."""
        return {room_id: feed.counts() for room_id, feed in self.feeds.items() if feed.subs}

    async def room_counts(self) -> dict[str, dict[str, int]]:
        """Sessions per room and role over all nodes: this node's live counts plus what the other nodes last
        reported (every 2 s), so a session that just joined here is counted at once (the lobby)."""
        total = await self.store.presence.counts(exclude=self.node)
        for room_id, counts in self.presence().items():
            into = total.setdefault(room_id, {})
            for role, n in counts.items():
                into[role] = into.get(role, 0) + n
        return total

    # --- campaigns ---------------------------------------------------------------------------------------------

    async def create_campaign(self, spec: Mapping[str, Any]) -> dict[str, Any]:
        """Create a campaign from a validated request (shared/protocol/http.py CreateCampaign): store it with its
        token hashes, open its rooms here. Returns the plan's answer with the tokens in clear, exactly once."""
        plan = plan_campaign(spec, self.now())
        await self.store.grants.put_campaign(plan.meta, plan.grants)
        for room_id, setup in plan.rooms.items():
            await self.create_room(room_id, setup)
        return plan.answer

    async def create_room(self, room_id: str, setup: Mapping[str, Any]) -> Room:
        """Open a new room owned by this node: its first record is `setup` (engine name, config, seed, teams,
        players, clock settings). Battle rooms (`b-<id>`) are created the same way."""
        async with self.opening(room_id):
            if not await self.store.leases.acquire(room_id, self.node, self.lease_ms):
                raise RoomError("internal", f"room {room_id} is already owned")
            room = self.rooms[room_id] = await Room.create(room_id, setup, self.store, self.bus, self.now,
                                                           snapshot_every=self.snapshot_every)
        self.adopt(room)
        return room

    def adopt(self, room: Room) -> None:
        """A room this node now owns: views after its commands, and the battle rooms' bookkeeping."""
        self.mirrors.pop(room.id, None)
        if self._views_after not in room.listeners:
            room.listeners.append(self._views_after)
        self.battles.attach(room)

    # --- views -------------------------------------------------------------------------------------------------

    def _views_after(self, room: Room, events: tuple[LoggedEvent, ...]) -> None:
        """After a command of a room owned here: a view per viewer class following it on this node."""
        feed = self.feeds.get(room.id)
        if feed is not None and feed.subs and not all(e.kind in _NO_VIEW_CHANGE for e in events):
            self._post_views(feed, room, events[-1].seq, events[-1].at_ms)

    def _post_views(self, feed: Feed, room: Room, seq: int, at_ms: int) -> None:
        """Only the classes whose view changed cost a packing, the clocks and a frame."""
        changed = [(v, s) for v, s in room.views(feed.view_classes()).items() if feed.changed(v, s)]
        if not changed:
            return
        clocks, now = room.clocks_view(), self.now()
        for viewer, state in changed:
            feed.post_view(viewer, seq, at_ms, state, clocks, now)

    def _follow(self, feed: Feed) -> None:
        """A batch arrived for a room owned elsewhere: bring its mirror up to date from the log, then post views."""
        if feed.room in self.rooms or not feed.subs:
            return
        task = self._mirroring.get(feed.room)
        if task is None or task.done():
            self._mirroring[feed.room] = asyncio.get_running_loop().create_task(self._mirror(feed))

    async def _mirror(self, feed: Feed) -> None:
        room_id = feed.room
        posted = -1
        try:
            for _ in range(MIRROR_TRIES):
                if not feed.subs or room_id in self.rooms:
                    return
                target = feed.seen or 0
                mirror = self.mirrors.get(room_id)
                if mirror is None or mirror.seq < target:
                    mirror = await self.follower(room_id)
                    if mirror is None:
                        return
                if mirror.seq > posted:
                    self._post_views(feed, mirror, mirror.seq, mirror.last_at)
                    posted = mirror.seq
                if mirror.seq >= (feed.seen or 0):
                    return
                await asyncio.sleep(0.05)  # the log is a moment behind the bus: look again
        except Exception:
            log.exception("room %s: following its log for views failed", room_id)

    async def reissue_token(self, moderator_token: str, campaign_id: str, player: str) -> tuple[Member, str]:
        """The moderator replaces a lost or leaked token: the old one stops working, the new one is returned once.
        Sessions already signed in with the old token are the caller's to close."""
        moderator = await self.authenticate(moderator_token)
        if moderator is None or moderator.role != "moderator" or moderator.campaign != campaign_id:
            raise RoomError("forbidden", "only this campaign's moderator re-issues its tokens")
        meta = await self.store.grants.get_campaign(campaign_id)
        if meta is None:
            raise RoomError("no_such_room", f"no campaign {campaign_id}")
        member = reissued_grant(meta, player)
        token = new_token()
        await self.store.grants.replace(campaign_id, player, token_hash(token), member.dump())
        return member, token

    async def authenticate(self, token: str) -> Member | None:
        grant = await self.store.grants.find(token_hash(token))
        return Member.load(grant) if grant else None


async def _stop(task: asyncio.Task[Any]) -> None:
    """Cancel `task` and wait for it to end. A cancellation can be lost inside a library call (seen under the Redis
    store, about one shutdown in 25 of a keep-alive loop with unloading every tick: the task stayed "cancelling"
    and went on looping, and `close()` waited for it for ever), so it is cancelled again until it is done."""
    while not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=1.0)
