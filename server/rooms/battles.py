"""Battle rooms of a campaign: spawned when the campaign room emits `battle_started`, their result fed back into
the campaign room as one ruling (D-L-1), and the secret-module lockout of a killed or captured general
(N-VICTORY-3, D-N-14).

A battle room is `b-<campaign>-<battle>` (server.bus.names.battle_room): its engine is the one the campaign names
("battle" for a field battle, "siege" for a storm), its teams are the two sides, its players are the campaign's
players of those teams (only they command their side's units), spectators and the moderator of the campaign join
it like any room, and it has a chess clock per side (the campaign's `battle_clock` setting, else the campaign's
clock settings). The moderator pauses it, rules on disputes (`adjust`) and ends it (`end_battle`) through the
ordinary room commands.

Everything here runs on the node that owns the campaign room (or the battle room): the rooms call `_observe` after
each durable, published command; the work is queued and done in order by one task, never inside a room's lock.
When a campaign room is (re)opened by a node, `reconcile` makes sure every running battle has its room and that a
battle already over has its result applied — so a node that dies between the two steps loses nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from server.bus import names
from server.bus.base import LoggedEvent
from server.campaign.grid import label
from server.core.errors import RuleError
from server.napoleon.battles import battle_setup, cell_terrain
from server.napoleon.field import room_engine_config
from server.napoleon.state import OVER, RUNNING, cell_of
from server.rooms.engines import find_engine
from server.rooms.members import Member
from server.rooms.room import Room

if TYPE_CHECKING:
    from server.rooms.hub import Hub

log = logging.getLogger(__name__)

SERVER = "server"
LEASE_TRIES = 40
LOBBY_COPY_MS = 2_000
"""How long the lobby reuses a read-only copy of a campaign room owned by another node (its battles list)."""
DEFAULT_BATTLE_CLOCK = {"mode": "per_turn", "turn_ms": 5 * 60_000}


def battle_room_id(campaign: str, battle: str) -> str:
    return names.battle_room(f"{campaign}-{battle}")


class BattleRooms:
    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self._queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self._worker: asyncio.Task[None] | None = None
        self._reported: set[str] = set()
        self._copies: dict[str, tuple[int, Room]] = {}
        self._pending: Counter[str] = Counter()  # room -> its queued or running work

    # --- hooks --------------------------------------------------------------------------------------------------

    def attach(self, room: Room) -> None:
        """A room this node now owns: follow what it commits; a campaign room is reconciled with its battles."""
        if room.engine is None or self._observe in room.listeners:
            return
        room.listeners.append(self._observe)
        if room.kind == "campaign":
            self._put("reconcile", room.id)
        elif room.kind == "battle":
            self._put("check_battle", room.id)

    def _observe(self, room: Room, events: tuple[LoggedEvent, ...]) -> None:
        for e in events:
            if room.kind == "campaign" and e.kind == "battle_started":
                self._put("spawn", (room.id, dict(e.data)))
            elif room.kind == "campaign" and e.kind in ("battle_ended", "siege_ended"):
                self._put("after", (room.id, e.kind, dict(e.data)))
            elif room.kind == "campaign" and e.kind == "secret_module" and (
                    e.data.get("action") == "sent" or e.data.get("early")):
                self._put("secret_module", (room.id, dict(e.data)))
        if room.kind == "battle" and room.engine is not None and room.engine.is_over(room.core.state):
            self._put("check_battle", room.id)

    def busy(self, room_id: str) -> bool:
        """Work of this room is queued or running (the hub does not unload it meanwhile)."""
        return self._pending[room_id] > 0

    def _put(self, kind: str, arg: Any) -> None:
        self._pending[_room_of(arg)] += 1
        self._queue.put_nowait((kind, arg))
        if self._worker is None or self._worker.done():
            self._worker = asyncio.get_running_loop().create_task(self._work())

    async def _work(self) -> None:
        while not self._queue.empty():
            kind, arg = self._queue.get_nowait()
            try:
                if kind == "spawn":
                    await self.spawn(*arg)
                elif kind == "after":
                    await self.after(*arg)
                elif kind == "check_battle":
                    await self.report(arg)
                elif kind == "reconcile":
                    await self.reconcile(arg)
                elif kind == "secret_module":
                    await self.secret_module(*arg)
            except Exception:
                log.exception("battle rooms: %s %r failed", kind, arg)
            finally:
                self._pending[_room_of(arg)] -= 1
                if self._pending[_room_of(arg)] <= 0:
                    del self._pending[_room_of(arg)]

    async def close(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker

    # --- the lobby ----------------------------------------------------------------------------------------------

    async def lobby(self, campaigns: Sequence[Mapping[str, Any]], counts: Callable[[str], Mapping[str, int]],
                    link: Callable[[Mapping[str, Any]], str | None], *, finished: bool = False) -> list[dict[str, Any]]:
        """The live battles of these (public) campaigns for the lobby (issue 2, issue 7 "open any live battle from
        the lobby"): one entry per running battle room with its sides and its players and spectators online
        (`counts(room)`, from every node's presence) and the campaign's spectator `link` if it has a public one
        (a spectator opens the campaign and its battles from there). A campaign room owned here is read as it is;
        one not open here from the node's follower copy, looked at again after `LOBBY_COPY_MS`. With `finished`, the
        battles fought to their end instead, with their `winner` (issue 17: their replays open from the lobby)."""
        out: list[dict[str, Any]] = []
        for meta in campaigns:
            if not _has_battle_rooms(str(meta.get("scenario"))):
                continue
            room = await self._campaign_copy(names.campaign_room(str(meta["id"])))
            battles = getattr(room.core.state, "battles", None) if room is not None else None
            if not isinstance(battles, Mapping):
                continue
            assert room is not None
            started = {str(e.data.get("battle")): e.at_ms for e in room.history if e.kind == "battle_started"}
            for b in sorted(battles.values(), key=lambda b: int(b["id"])):
                if b["status"] != (OVER if finished else RUNNING):
                    continue
                result = b.get("result") if isinstance(b.get("result"), Mapping) else {}
                room_id = battle_room_id(str(meta["id"]), str(b["id"]))
                online = counts(room_id)
                place = cell_terrain(room.core.state, cell_of(b["cell"]))["place"] or label(cell_of(b["cell"]))
                out.append({
                    "id": f"{meta['id']}-{b['id']}", "room": room_id, "name": f"{meta['name']}: {b['kind']} at {place}",
                    "scenario": b["engine"], "level": int(meta.get("level", 1)),
                    "teams": [{"colour": b[side], "side": side} for side in ("attacker", "defender")],
                    "players_online": int(online.get("player", 0)),
                    "spectators_online": int(online.get("spectator", 0)),
                    "created_ms": int(started.get(str(b["id"]), meta.get("created_ms", 0))),
                    "spectator_link": link(meta),
                    **({"winner": str(result.get("winner") or "") or None} if finished else {}),
                })
        return out

    async def running(self, campaign: str) -> list[str]:
        """The battle rooms of `campaign` still being fought, by battle number: every member of the campaign may
        join them, so a `welcome` lists them and a client that comes back finds its battles without looking."""
        room = await self._campaign_copy(names.campaign_room(campaign))
        if room is None or room.engine is None or not getattr(room.engine, "battle_rooms", False):
            return []
        battles = room.engine.view(room.core.state, "moderator").get("battles", [])
        ids = sorted((str(b["id"]) for b in battles if b.get("status") == "running"), key=lambda b: (len(b), b))
        return [battle_room_id(campaign, b) for b in ids]

    async def _campaign_copy(self, room_id: str) -> Room | None:
        room = self.hub.rooms.get(room_id)
        if room is not None and not room.closed:
            return room
        now = self.hub.now()
        cached = self._copies.get(room_id)
        if cached is not None and now - cached[0] < LOBBY_COPY_MS:
            return cached[1]
        copy = await self.hub.follower(room_id)  # advanced from the log, not rebuilt (rooms open lazily)
        self._copies = {k: c for k, c in self._copies.items() if now - c[0] < LOBBY_COPY_MS}  # none kept for good
        if copy is not None:
            self._copies[room_id] = (now, copy)
        return copy

    # --- the work -----------------------------------------------------------------------------------------------

    def _member(self, campaign: str) -> Member:
        return Member(campaign, "moderator", SERVER)

    async def spawn(self, campaign_room: str, started: Mapping[str, Any]) -> Room | None:
        """N-START-1: the battle room, created once (a room that already exists in the store is only adopted)."""
        hub = self.hub
        parent = hub.rooms.get(campaign_room)
        if parent is None:
            return None
        campaign = str(parent.setup["campaign"])
        room_id = battle_room_id(campaign, str(started["battle"]))
        existing = await hub.owned(room_id)
        if existing is not None:
            return existing
        if await Room.open(room_id, hub.store, hub.bus, hub.now, owner=False) is not None:
            return None  # created already, owned by another node
        engine, config = room_engine_config(started)
        sides = [str(started["attacker"]), str(started["defender"])]
        settings = dict(parent.setup.get("config") or {}).get("battle_clock") or parent.setup.get("clock") \
            or DEFAULT_BATTLE_CLOCK
        setup = {
            "engine": engine, "campaign": campaign, "teams": sides, "clock": settings,
            "players": {p: t for p, t in dict(parent.setup.get("players") or {}).items() if t in sides},
            "seed": int(started["seed"]), "config": config, "parent": campaign_room,
            "battle": str(started["battle"]), "cell": list(started["cell"]), "kind": started.get("kind"),
        }
        async with hub.opening(room_id):
            for _ in range(LEASE_TRIES):  # another node may hold the lease a moment while it finds no room there
                if await hub.store.acquire_lease(room_id, hub.node, hub.lease_ms):
                    break
                await asyncio.sleep(0.05)
            else:
                log.warning("battle room %s: could not take its lease", room_id)
                return None
            room = hub.rooms[room_id] = await Room.create(room_id, setup, hub.store, hub.bus, hub.now,
                                                          snapshot_every=hub.snapshot_every)
        hub.adopt(room)
        for away in list(parent.core.away.values()):  # D-N-14: who is in the secret module commands nothing here
            if away.player in room.players and away.until_ms > hub.now():
                await room.submit("lock", {"player": away.player, "reason": away.reason,
                                           "minutes": (away.until_ms - hub.now()) / 60_000}, self._member(campaign))
        return room

    async def report(self, room_id: str) -> None:
        """D-L-1: the battle is over — its result goes to the campaign room as one ruling (applied once)."""
        room = self.hub.rooms.get(room_id)
        if room is None or room.engine is None or room_id in self._reported:
            return
        state = room.core.state
        if not room.engine.is_over(state):
            return
        result = getattr(state, "result", None)
        if result is None and hasattr(state, "battle"):
            result = state.battle.result
        if result is None:
            return
        campaign = str(room.setup["campaign"])
        ruling = {"type": "battle_result", "battle": room.setup["battle"], "result": result}
        try:
            await self.hub.submit(str(room.setup["parent"]), "ruling", {"ruling": ruling}, self._member(campaign))
        except RuleError as exc:
            if exc.rule != "D-L-1":
                raise
            log.info("battle %s: result already applied (%s)", room_id, exc.message)
        self._reported.add(room_id)

    async def after(self, campaign_room: str, kind: str, data: Mapping[str, Any]) -> None:
        """N-VICTORY-3, D-N-14: a killed or captured general's player goes to the secret module; a battle settled
        on the campaign map (quick resolution) ends its battle room."""
        parent = self.hub.rooms.get(campaign_room)
        if parent is None:
            return
        campaign = str(parent.setup["campaign"])
        generals = [data.get("general")] if kind == "battle_ended" else list(data.get("generals") or [])
        for fate in generals:
            lock = (fate or {}).get("secret_module")
            if lock:
                body = {"player": lock["player"], "reason": lock["reason"], "minutes": lock["minutes"]}
                await self.hub.submit(campaign_room, "lock", body, self._member(campaign))
        if kind == "battle_ended" and data.get("how") in ("quick", "capitulation"):
            room_id = battle_room_id(campaign, str(data["battle"]))
            room = self.hub.rooms.get(room_id)
            if room is not None and (room.engine is None or room.engine.is_over(room.core.state)):
                return
            self._reported.add(room_id)
            ruling = {"type": "end_battle", "winner": data["winner"], "reason": "quick resolution (D-L-2)"}
            try:  # wherever the battle room is owned (forwarded to its node)
                await self.hub.submit(room_id, "ruling", {"ruling": ruling}, self._member(campaign))
            except RuleError as exc:  # over already
                log.info("battle room %s: not ended by the quick resolution (%s)", room_id, exc.message)

    async def secret_module(self, campaign_room: str, data: Mapping[str, Any]) -> None:
        """D-N-14: a player in the secret module commands nothing — in every running battle room of the campaign
        too, wherever it is owned (commands go to the room's owner through the hub); the moderator's early release
        brings the player back there as well. A return at the end of the time needs nothing: each room's own
        timer brings the player back."""
        parent = self.hub.rooms.get(campaign_room)
        if parent is None or parent.engine is None:
            return
        campaign = str(parent.setup["campaign"])
        player = str(data["player"])
        team = parent.players.get(player)
        if data.get("action") == "sent":
            left_ms = int(data["until_ms"]) - self.hub.now()
            if left_ms <= 0:
                return
            kind, body = "lock", {"player": player, "reason": data.get("reason", ""), "minutes": left_ms / 60_000}
        else:
            kind, body = "release", {"player": player, "by": "moderator"}
        for battle in parent.engine.view(parent.core.state, "moderator").get("battles", []):
            if battle["status"] != "running" or team not in (battle.get("attacker"), battle.get("defender")):
                continue
            room_id = battle_room_id(campaign, str(battle["id"]))
            try:
                await self.hub.submit(room_id, kind, body, self._member(campaign))
            except RuleError as exc:  # not away there (released already, or the room is over and gone)
                log.info("battle room %s: %s %s not applied (%s)", room_id, kind, player, exc.message)

    async def reconcile(self, campaign_room: str) -> None:
        room = self.hub.rooms.get(campaign_room)
        if room is None or room.engine is None:
            return
        view = room.engine.view(room.core.state, "moderator")
        campaign = str(room.setup["campaign"])
        for battle in view.get("battles", []):
            if battle["status"] != "running":
                continue
            room_id = battle_room_id(campaign, str(battle["id"]))
            state = room.core.state
            child = await self.spawn(campaign_room, battle_setup(state, state.battles[str(battle["id"])]))
            if child is not None:
                await self.report(room_id)


def _room_of(arg: Any) -> str:
    return arg if isinstance(arg, str) else str(arg[0])


def _has_battle_rooms(scenario: str) -> bool:
    try:
        return bool(getattr(find_engine(scenario), "battle_rooms", False))
    except KeyError:
        return False
