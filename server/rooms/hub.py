"""The rooms of one node: the rooms it owns (holding their lease), the feeds of the rooms its sessions follow,
and campaign creation. Nothing here assumes a single process: ownership is a lease in the store, events travel
over the bus, and a node that does not own a room serves its followers from the store and the bus.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any

from server.bus import names
from server.bus.base import EventBus, Store
from server.clock import ClockSettings
from server.core.engine import SPECTATOR
from server.core.errors import RuleError
from server.core.turns import in_turn_order
from server.rooms.engines import engine_config, engine_names, find_engine
from server.rooms.errors import RoomError
from server.rooms.feed import Feed, Outlet, Subscription
from server.rooms.members import Member
from server.rooms.room import LOCKOUT_MS, Away, Room

log = logging.getLogger(__name__)


def wall_ms() -> int:
    return time.time_ns() // 1_000_000


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Hub:
    def __init__(self, store: Store, bus: EventBus, *, node: str | None = None, lease_ms: int = 10_000,
                 snapshot_every: int = 200, now: Callable[[], int] = wall_ms):
        self.store, self.bus, self.now = store, bus, now
        self.node = node or secrets.token_hex(4)
        self.lease_ms = lease_ms
        self.snapshot_every = snapshot_every
        self.rooms: dict[str, Room] = {}
        self.feeds: dict[str, Feed] = {}
        self._opening: dict[str, asyncio.Lock] = {}
        self._tasks: list[asyncio.Task[None]] = []
        from server.rooms.battles import BattleRooms

        self.battles = BattleRooms(self)

    # --- life --------------------------------------------------------------------------------------------------

    async def start(self) -> None:
        """Take every campaign's rooms this node can own (their clocks must run with nobody connected)."""
        await self.bus.serve(self.node, self._forwarded)
        await self._adopt_all()
        self._tasks.append(asyncio.create_task(self._keep_alive()))

    async def _adopt_all(self) -> None:
        for campaign in await self.store.list_campaigns():
            for room_id in (names.campaign_room(campaign["id"]), names.secret_room(campaign["id"])):
                if room_id not in self.rooms:
                    try:
                        await self.owned(room_id)
                    except Exception:
                        log.exception("could not open room %s", room_id)

    async def _keep_alive(self) -> None:
        """Renew leases, mark rooms alive (downtime starts at the last mark), adopt orphaned rooms."""
        tick = 0
        while True:
            await asyncio.sleep(0.5)
            tick += 1
            now = self.now()
            for room_id in list(self.rooms):
                try:
                    if tick % max(1, self.lease_ms // 1500) == 0 and not await self.store.acquire_lease(
                            room_id, self.node, self.lease_ms):
                        log.warning("lost the lease of %s", room_id)
                        await self._drop(room_id)
                        continue
                    await self.store.mark_alive(room_id, now)
                except Exception:
                    log.exception("keep-alive of %s failed", room_id)
            if tick % 4 == 0:
                with contextlib.suppress(Exception):
                    await self.store.report_presence(self.node, self.presence(), self.lease_ms)
            if tick % max(1, self.lease_ms // 1000) == 0:
                with contextlib.suppress(Exception):
                    await self._adopt_all()

    async def _drop(self, room_id: str) -> None:
        room = self.rooms.pop(room_id, None)
        if room is not None:
            await room.close()

    async def close(self) -> None:
        await self.battles.close()
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for room_id in list(self.rooms):
            room = self.rooms.pop(room_id)
            await room.close()
            with contextlib.suppress(Exception):
                await room.save_snapshot()
                await self.store.release_lease(room_id, self.node)
        for room_id, feed in list(self.feeds.items()):
            await self.bus.unsubscribe(room_id, feed.on_events)
        self.feeds.clear()

    # --- rooms -------------------------------------------------------------------------------------------------

    async def owned(self, room_id: str) -> Room | None:
        """The room if this node owns it (opening it and taking its lease when nobody holds it)."""
        room = self.rooms.get(room_id)
        if room is not None and not room.closed:
            return room
        lock = self._opening.setdefault(room_id, asyncio.Lock())
        async with lock:
            room = self.rooms.get(room_id)
            if room is not None and not room.closed:
                return room
            if room is not None:  # a failed write closed it: its log is the truth, rebuild from there
                del self.rooms[room_id]
                await room.close()
            if not await self.store.acquire_lease(room_id, self.node, self.lease_ms):
                return None
            room = await Room.open(room_id, self.store, self.bus, self.now, snapshot_every=self.snapshot_every)
            if room is None:
                await self.store.release_lease(room_id, self.node)
                return None
            self.rooms[room_id] = room
            self.battles.attach(room)
            return room

    async def feed(self, room_id: str) -> Feed:
        feed = self.feeds.get(room_id)
        if feed is None:
            feed = self.feeds[room_id] = Feed(room_id, self.now)
            await self.bus.subscribe(room_id, feed.on_events)
        return feed

    async def join(self, outlet: Outlet, member: Member, room_id: str, since: int | None,
                   send: Callable[[dict[str, Any]], None]) -> tuple[Subscription, int, str]:
        """Follow a room: catch-up messages go through `send`, then live events. Returns (subscription, seq,
        viewer class)."""
        feed = await self.feed(room_id)
        feed.remove(outlet)
        room = await self.owned(room_id)
        if room is not None:
            async with room.lock:
                viewer = room.viewer_of(member)
                sub = feed.add(outlet, viewer)
                messages, seq = room.catch_up(viewer, since), room.seq
            holder = room
        else:
            sub = feed.add(outlet, member.viewer)
            copy = await Room.open(room_id, self.store, self.bus, self.now, owner=False)
            if copy is None:
                feed.remove(outlet)
                raise RoomError("no_such_room", f"no room {room_id}")
            viewer = sub.viewer = copy.viewer_of(member)
            messages, seq = copy.catch_up(viewer, since), copy.seq
            holder = copy
        feed.spectator_delay_ms = holder.spectator_delay_ms
        if viewer == SPECTATOR and holder.spectator_delay_ms:
            messages, seq = await self._delayed_catch_up(holder, sub)
        for message in messages:
            send(message)
        feed.activate(sub, seq)
        return sub, seq, viewer

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
        holder = await self.store.lease_holder(room_id)
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

    async def _forwarded(self, request: Mapping[str, Any]) -> dict[str, Any]:
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
        room_id = names.campaign_room(member.campaign)
        room = await self.owned(room_id)
        if room is None:
            room = await Room.open(room_id, self.store, self.bus, self.now, owner=False)
        return room.lockout_of(member.player) if room is not None else None

    def presence(self) -> dict[str, dict[str, int]]:
        return {room_id: feed.counts() for room_id, feed in self.feeds.items() if feed.subs}

    # --- campaigns ---------------------------------------------------------------------------------------------

    async def create_campaign(self, spec: Mapping[str, Any]) -> dict[str, Any]:
        """Create a campaign from a validated request (shared/protocol/http.py CreateCampaign). Returns the tokens
        in clear exactly once; the store keeps only their sha256."""
        engine_name = str(spec.get("scenario") or "drill")
        if engine_name not in engine_names():
            raise KeyError(f"no campaign engine or scenario {engine_name!r}; known: {', '.join(engine_names())}")
        engine = find_engine(engine_name)
        level = int(spec.get("level", 1))
        campaign_id = secrets.token_hex(5)
        teams = list(in_turn_order([t["colour"] for t in spec["teams"]]))
        seats: list[dict[str, Any]] = []
        grants: dict[str, dict[str, Any]] = {}
        players: dict[str, str] = {}
        for team_spec in sorted(spec["teams"], key=lambda t: teams.index(t["colour"])):
            colour = team_spec["colour"]
            for seat in range(1, int(team_spec["seats"]) + 1):
                token = secrets.token_urlsafe(24)
                player = f"{colour}-{seat}"
                players[player] = colour
                grants[token_hash(token)] = Member(campaign_id, "player", player, colour, seat).dump()
                seats.append({"team": colour, "seat": seat, "player": player, "token": token})
        moderator_token = secrets.token_urlsafe(24)
        spectator_token = secrets.token_urlsafe(24)
        grants[token_hash(moderator_token)] = Member(campaign_id, "moderator", "moderator").dump()
        grants[token_hash(spectator_token)] = Member(campaign_id, "spectator", "spectator").dump()
        clock_spec = spec.get("clock")
        clock: dict[str, Any] | None = None
        if clock_spec is not None:
            base = ClockSettings.for_level(level).dump()
            clock = ClockSettings.load({**base, **{k: v for k, v in clock_spec.items() if v is not None}}).dump()
        meta = {
            "id": campaign_id, "name": spec.get("name") or f"Campaign {campaign_id}", "scenario": engine_name,
            "level": level, "teams": [{"colour": c, "seats": sum(1 for s in seats if s["team"] == c)} for c in teams],
            "clock": clock, "house_rules": list(spec.get("house_rules") or []),
            "public": bool(spec.get("public", True)),
            "created_ms": self.now(),
        }
        lockout_ms = int(spec.get("lockout_minutes", LOCKOUT_MS / 60_000) * 60_000)
        config = engine_config(engine_name, {
            **dict(spec.get("config") or {}), "teams": meta["teams"], "level": level,
            "house_rules": meta["house_rules"]})
        seed = secrets.randbits(62)
        setup = {
            "engine": engine_name, "campaign": campaign_id, "teams": teams, "players": players, "clock": clock,
            "seed": seed, "lockout_ms": lockout_ms, "config": config,
            "clocks_paused": bool(spec.get("clocks_paused", False)),
        }
        engine.setup(config, seed)  # a config the engine refuses is refused before anything is stored
        await self.store.put_campaign(meta, grants)
        for room_id, room_setup in (
            (names.campaign_room(campaign_id), setup),
            (names.secret_room(campaign_id), {"engine": None, "campaign": campaign_id, "teams": teams,
                                              "players": players, "clock": None}),
        ):
            if not await self.store.acquire_lease(room_id, self.node, self.lease_ms):
                raise RoomError("internal", f"room {room_id} is already owned")
            self.rooms[room_id] = await Room.create(room_id, room_setup, self.store, self.bus, self.now,
                                                    snapshot_every=self.snapshot_every)
            self.battles.attach(self.rooms[room_id])
        return {"campaign": campaign_id, "room": names.campaign_room(campaign_id), "meta": meta, "seats": seats,
                "moderator_token": moderator_token, "spectator_token": spectator_token}

    async def authenticate(self, token: str) -> Member | None:
        grant = await self.store.find_grant(token_hash(token))
        return Member.load(grant) if grant else None
