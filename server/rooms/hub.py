"""The rooms of one node, as the edge (server/net) and the tests see them: one object composing the parts, each
a concept of its own —

    ownership.py   the rooms this node owns: leases, keep-alive, opened when due, unloaded when idle
    routing.py     commands to the room's owner, here or forwarded; requests forwarded here
    followers.py   read-only copies of rooms owned elsewhere
    joins.py       who may enter a room, the local feeds, catch-ups; views.py the views after commands
    seats.py       tokens, sign-ins (one session per seat), re-issued tokens
    children.py    child rooms (battles) spawned by a game and their results
    commanders.py  the AI commanders: the seats the AI plays give their orders (issue 18)
    lobby.py       what the lobby lists;  replay.py  replays of finished rooms;  campaigns.py  new campaigns

Nothing here assumes a single process: ownership is a lease in the store, events travel over the bus, and a node
that does not own a room serves its followers from the store and the bus.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Any

from server.bus import EventBus
from server.core.registry import Registry
from server.rooms import ownership, secret_module, spectating
from server.rooms.campaigns import plan_campaign
from server.rooms.children import Children
from server.rooms.commanders import Commanders
from server.rooms.errors import RoomError
from server.rooms.feed import Feed, Outlet, Subscription
from server.rooms.followers import Followers
from server.rooms.ids import RoomId
from server.rooms.joins import Entry, Joins, Send
from server.rooms.lobby import Lobby
from server.rooms.members import Member
from server.rooms.ownership import Ownership
from server.rooms.replay import Replays
from server.rooms.requests import Request
from server.rooms.room import Room, RoomServices
from server.rooms.routing import Routing
from server.rooms.scheduler import LoopScheduler, Scheduler, wall_ms
from server.rooms.seats import Seats, SignIn, new_token, token_hash
from server.rooms.state import Away
from server.store import Store
from shared.protocol.bounds import bounded

PRESENCE_EVERY = 4  # keep-alive ticks between presence reports


class Hub:
    def __init__(self, store: Store, bus: EventBus, engines: Registry, *, node: str | None = None,
                 lease_ms: int = 10_000, snapshot_every: int = 200, room_idle_ms: int = 600_000,
                 now: Callable[[], int] = wall_ms, scheduler: Scheduler | None = None):
        self.store, self.bus, self.engines = store, bus, engines
        self.scheduler = scheduler or LoopScheduler(now)
        self.node = node or secrets.token_hex(4)
        self.lease_ms = lease_ms
        self.services = RoomServices(store, bus, engines, self.scheduler, snapshot_every)
        self.followers = Followers(self.services, owned_here=lambda room_id: room_id in self.rooms)
        self.ownership = Ownership(self.services, self.node, lease_ms=lease_ms, room_idle_ms=room_idle_ms,
                                   adopt=self.adopt, in_use=self._in_use)
        self.rooms: dict[str, Room] = self.ownership.rooms
        self.seats = Seats(store, bus, self.node)
        self.routing = Routing(store, bus, self.node, owned=self.ownership.owned,
                               kick=lambda key: self.seats.kick(key),
                               revoked=lambda *revoked: self.seats.revoked(*revoked))
        self.joins = Joins(self.services, self.followers, owned=self.owned, lockout_of=self.lockout_of,
                           teams_of=self._teams_of, campaign_room=self.campaign_room)
        self.feeds: dict[str, Feed] = self.joins.feeds
        self.mirrors: dict[str, Room] = self.followers.mirrors
        self.children = Children(self)
        self.commanders = Commanders(self)
        self.lobby = Lobby(store, engines, owned=self.rooms, copy=self.follower, now=self.now)
        self.replays = Replays(self.services)
        self.ownership.on_tick.append(self._tick)
        self._tasks: set[asyncio.Task[None]] = set()

    def now(self) -> int:
        return self.scheduler.now()

    @property
    def unloaded(self) -> int:
        return self.ownership.unloaded

    @property
    def kick(self) -> Callable[[str], None]:
        return self.seats.kick

    @kick.setter
    def kick(self, kick: Callable[[str], None]) -> None:
        self.seats.kick = kick

    @property
    def revoked(self) -> Callable[[str, str, str], None]:
        return self.seats.revoked

    @revoked.setter
    def revoked(self, revoked: Callable[[str, str, str], None]) -> None:
        self.seats.revoked = revoked

    # --- life --------------------------------------------------------------------------------------------------

    @property
    def presence_ttl_ms(self) -> int:
        """A node's presence report outlives the next two (reported every 2 s), or the lease if that is longer."""
        return max(self.lease_ms, 3 * PRESENCE_EVERY * ownership.TICK_MS)

    async def start(self) -> None:
        await self.bus.serve(self.node, self.routing.serve)
        await self.store.presence.report(self.node, {}, self.presence_ttl_ms)  # known to the others from the start
        await self.ownership.start()

    async def _tick(self, tick: int) -> None:
        self.lobby.drop_stale()
        if tick % PRESENCE_EVERY == 0:
            await self.store.presence.report(self.node, self.joins.presence(), self.presence_ttl_ms)
        if tick % ownership.IDLE_EVERY == 0:  # with the look for idle rooms
            await self.drop_idle_feeds()

    def _background(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.commanders.close()
        await self.children.close()
        await self.ownership.close()
        await self.followers.close()
        await self.joins.close()

    # --- rooms -------------------------------------------------------------------------------------------------

    async def owned(self, room_id: str) -> Room | None:
        """The room if this node owns it (opening it and taking its lease when nobody holds it)."""
        return await self.ownership.owned(room_id)

    async def follower(self, room_id: str) -> Room | None:
        """This node's read-only copy of a room owned elsewhere (followers.py)."""
        return await self.followers.copy(room_id)

    async def exists(self, room_id: str) -> bool:
        return await Room.open(room_id, self.services, owner=False, history=1) is not None

    async def create_room(self, room_id: str, setup: Mapping[str, Any], *, lease_tries: int = 1) -> Room | None:
        return await self.ownership.create(room_id, setup, lease_tries=lease_tries)

    def adopt(self, room: Room) -> None:
        """A room this node now owns: views after its commands, and its child rooms' bookkeeping."""
        self.followers.forget(room.id)
        self.lobby.forget(room.id)
        if self.joins.views_after not in room.listeners:
            room.listeners.append(self.joins.views_after)
        self.children.attach(room)
        self.commanders.attach(room)

    def _in_use(self, room_id: str) -> bool:
        return self.joins.in_use(room_id) or self.children.busy(room_id) or self.commanders.busy(room_id)

    def idle(self, room: Room) -> bool:
        return self.ownership.idle(room)

    async def unload_idle(self) -> list[str]:
        return await self.ownership.unload_idle()

    async def drop_idle_feeds(self) -> None:
        await self.joins.drop_idle()

    async def campaign_room(self, campaign: str) -> Room | None:
        """The campaign's room, owned here or a copy."""
        room_id = RoomId.campaign_room(campaign)
        return await self.owned(room_id) or await self.follower(room_id)

    async def lockout_of(self, member: Member) -> Away | None:
        """The member's time in the secret module (D-N-14), from the campaign room here or its copy."""
        if member.role != "player":
            return None
        room = await self.campaign_room(member.campaign)
        return room.lockout_of(member.player) if room is not None else None

    async def _teams_of(self, campaign: str) -> Sequence[str]:
        meta = await self.store.grants.get_campaign(campaign)
        return [t["colour"] for t in meta["teams"]] if meta else []

    # --- what sessions do ----------------------------------------------------------------------------------------

    async def sign_in(self, token: str, session: str) -> SignIn | None:
        """A session's `hello`: its member (None for an unknown token), the rooms it may join; the session of this
        node that played the seat until now is kicked, one elsewhere told to close."""
        member = await self.seats.authenticate(token)
        if member is None:
            return None
        replaced = self.seats.sign_in(member, session)
        if replaced is not None:
            self.seats.kick(replaced)
        if member.role == "player":
            self._background(self.seats.claim(member, session))
            self._background(self.commanders.returned(member))  # issue 18: the AI stood in; the player is back
        return self.seats.rooms_of(member, await self.lockout_of(member), await self.lobby.running(member.campaign))

    async def signed_in(self, campaign: str, player: str) -> bool:
        """Whether a session plays the seat: on this node, or on another as its last presence report (at most
        2 s old) says — the sessions following the campaign room with that seat (the AI's stand-in, commanders.py)."""
        if self.seats.playing(campaign, player):
            return True
        counts = await self.room_counts()
        return counts.get(str(RoomId.campaign_room(campaign)), {}).get(f"seat:{player}", 0) > 0

    def sign_out(self, member: Member, session: str) -> None:
        """The session ended: its seat is free (unless a newer session plays it already)."""
        self._background(self.seats.sign_out(member, session))

    async def enter(self, outlet: Outlet, member: Member, room: str, since: int | None, send: Send, *,
                    view_as: str | None = None) -> Entry:
        return await self.joins.enter(outlet, member, room, since, send, view_as=view_as)

    async def join(self, outlet: Outlet, member: Member, room_id: str, since: int | None, send: Send, *,
                   view_as: str | None = None) -> tuple[Subscription, int, str]:
        """Follow a room again (a resync): no entry checks, the session had entered it."""
        return await self.joins.join(outlet, member, room_id, since, send, view_as=view_as)

    async def leave(self, outlet: Outlet, room_id: str) -> None:
        self.joins.leave(outlet, room_id)

    async def command(self, member: Member, room: str | None, kind: str, body: Mapping[str, Any],
                      request: Request | None = None) -> int | None:
        """A session's command (`request`: its cid and digest, for exactly-once retries). The secret module's
        commands go to the campaign room; in the secret-module room only the moderator and players away speak
        (D-N-14)."""
        if room is None:
            room = RoomId.campaign_room(member.campaign)
        elif kind == "chat" and RoomId(room).kind == "secret_module":
            secret_module.refuse_voice(member, await self.lockout_of(member))
        if kind == "chat":  # a spectator's class decides who hears it (channels.kept_under); the server says it
            body = {k: v for k, v in body.items() if k != "view"}
            if member.role == "spectator":
                body["view"] = spectating.viewer_of(await self.joins.policy(member.campaign), member)
        return await self.routing.submit(room, kind, body, member, request)  # as `submit` does, one coroutine less

    async def options(self, member: Member, room_id: str, unit: str | None) -> dict[str, Any] | None:
        """Issue 14: what the member's team may do now in a room (rules.options), read from the room here or from
        this node's copy of it — a request, not a command: nothing is logged or forwarded."""
        room = self.rooms.get(room_id) or await self.follower(room_id)
        if room is None:
            raise RoomError("no_such_room", f"no room {room_id!r}")
        return room.options(member, unit)

    async def submit(self, room_id: str, kind: str, body: Mapping[str, Any], member: Member,
                     request: Request | None = None) -> int | None:
        """Run a command on the room's owner: here, or forwarded to the node holding its lease."""
        return await self.routing.submit(room_id, kind, body, member, request)

    def presence(self) -> dict[str, dict[str, int]]:
        return self.joins.presence()

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
        # the engine sets the game up to vet it: off the event loop (issue 12 §11), bounded by the config's model
        plan = await asyncio.to_thread(plan_campaign, spec, self.now(), self.engines)
        for room_id, setup in plan.rooms.items():  # what the logs could not hold is refused before anything is kept
            why = bounded(setup)
            if why is not None:
                raise RoomError("bad_message", f"room {room_id} cannot be set up: {why}")
        await self.store.grants.put_campaign(plan.meta, plan.grants)
        try:
            for room_id, setup in plan.rooms.items():
                if await self.create_room(room_id, setup) is None:
                    raise RoomError("internal", f"room {room_id} is already owned")
        except BaseException:
            # issue 12 §14: never a campaign listed without its rooms
            await asyncio.shield(self.store.grants.delete_campaign(plan.meta["id"]))
            raise
        return plan.answer

    async def reissue_token(self, moderator_token: str, campaign_id: str, player: str) -> tuple[Member, str]:
        """A new token for a seat (or the moderator, the spectators); the old one's sessions are closed on every
        node."""
        member, token = await self.seats.reissue(moderator_token, campaign_id, player)
        await self.seats.close_revoked(member.campaign, member.player, "token re-issued")
        return member, token

    async def name_spectator(self, moderator_token: str, campaign_id: str, name: str) -> tuple[Member, str]:
        """Issue 12 item 1: a personal token for a spectator the moderator names (`spectator:<name>`), who sees
        everything live; the campaign's policy names it (a logged ruling), an older token of that name stops
        working."""
        moderator = await self.seats.authenticate(moderator_token)
        if moderator is None or moderator.role != "moderator" or moderator.campaign != campaign_id:
            raise RoomError("forbidden", "only this campaign's moderator names spectators")
        member = Member(campaign_id, "spectator", f"{spectating.NAMED_PREFIX}{name}")
        await self.submit(RoomId.campaign_room(campaign_id), "ruling",
                          {"ruling": {"type": "spectating", "name": member.player}}, moderator)
        token = new_token()
        await self.store.grants.replace(campaign_id, member.player, token_hash(token), member.dump())
        await self.seats.close_revoked(campaign_id, member.player, "token re-issued")
        return member, token

    async def authenticate(self, token: str) -> Member | None:
        return await self.seats.authenticate(token)
