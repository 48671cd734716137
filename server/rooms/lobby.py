"""What the lobby lists: the public campaigns, newest first, and their running child rooms (issue 2, issue 7: open
any live battle from the lobby), each with its players and spectators online over every node, and the campaign's
spectator link when it has a public one (a spectator opens the campaign and its battles from there)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from server.core.registry import Registry
from server.rooms.children import finished as done
from server.rooms.children import running
from server.rooms.ids import RoomId
from server.rooms.room import Room
from server.store import Store

LOBBY_COPY_MS = 2_000
"""How long the lobby reuses a read-only copy of a campaign room owned by another node (its children)."""

Counts = Callable[[str], Mapping[str, int]]
Link = Callable[[Mapping[str, Any]], str | None]


class Lobby:
    def __init__(self, store: Store, engines: Registry, *, owned: Mapping[str, Room],
                 copy: Callable[[str], Awaitable[Room | None]], now: Callable[[], int]):
        self.store, self.engines, self.owned, self.copy, self.now = store, engines, owned, copy, now
        self._copies: dict[str, tuple[int, Room]] = {}

    async def public(self) -> list[dict[str, Any]]:
        campaigns = await self.store.grants.list_campaigns()
        return [m for m in sorted(campaigns, key=lambda m: -int(m.get("created_ms", 0))) if m.get("public", True)]

    def campaigns(self, metas: Sequence[Mapping[str, Any]], counts: Counts, link: Link) -> list[dict[str, Any]]:
        out = []
        for meta in metas:
            room = RoomId.campaign_room(str(meta["id"]))
            online = counts(room)
            # seat occupancy (issue 16 §6): how many of each team's seats someone plays now
            ai = meta.get("ai") or ()  # issue 18: seats the computer plays from the start
            teams = [{**team, "online": sum(1 for n in range(1, int(team.get("seats", 0)) + 1)
                                            if online.get(f"seat:{team['colour']}-{n}", 0) > 0),
                      **({"ai": sum(1 for p in ai if p.rpartition("-")[0] == team["colour"])} if ai else {})}
                     for team in meta["teams"]]
            out.append({
                "id": meta["id"], "room": str(room), "name": meta["name"], "scenario": meta["scenario"],
                "level": meta["level"], "teams": teams, "players_online": online.get("player", 0),
                "spectators_online": online.get("spectator", 0), "created_ms": int(meta.get("created_ms", 0)),
                "spectator_link": link(meta),
            })
        return out

    async def children(self, metas: Sequence[Mapping[str, Any]], counts: Counts, link: Link, *,
                       finished: bool = False) -> list[dict[str, Any]]:
        """One entry per running child room of these campaigns (with `finished`, per child room fought to its end,
        with its `winner`: issue 17, its replay and report open from the lobby). A campaign room owned here is read
        as it is; one not open here from the node's follower copy, looked at again after `LOBBY_COPY_MS`."""
        out: list[dict[str, Any]] = []
        for meta in metas:
            try:
                engine = self.engines.find(str(meta.get("scenario")))
            except KeyError:
                continue
            if not engine.has_child_rooms:
                continue
            room = await self._campaign(RoomId.campaign_room(str(meta["id"])))
            if room is None:
                continue
            opened: dict[str, int] = {}
            for e in room.history:
                key = engine.child_opened(e.kind, e.data)
                if key is not None:
                    opened[key] = e.at_ms
            for child in (done(room) if finished else running(room)):
                room_id = RoomId.child_room(str(meta["id"]), child.key)
                online = counts(room_id)
                out.append({
                    "id": f"{meta['id']}-{child.key}", "room": str(room_id), "name": f"{meta['name']}: {child.title}",
                    "scenario": child.engine, "level": int(meta.get("level", 1)),
                    "teams": [{"colour": team, "side": side} for team, side in child.sides],
                    "players_online": int(online.get("player", 0)),
                    "spectators_online": int(online.get("spectator", 0)),
                    "created_ms": int(opened.get(child.key, meta.get("created_ms", 0))), "spectator_link": link(meta),
                    **({"winner": child.winner} if finished else {}),
                })
        return out

    async def running(self, campaign: str) -> list[str]:
        """The campaign's child rooms still running, in the order they began (a `welcome` lists them, so a client
        that comes back finds its battles without looking)."""
        room = await self._campaign(RoomId.campaign_room(campaign))
        return [str(RoomId.child_room(campaign, c.key)) for c in running(room)] if room is not None else []

    def cached(self) -> set[str]:
        """The campaign rooms whose copies the lobby holds now."""
        return set(self._copies)

    def forget(self, room_id: str) -> None:
        """The room is owned here now: it serves itself, and its copy is garbage."""
        self._copies.pop(room_id, None)

    def drop_stale(self) -> None:
        """Copies past `LOBBY_COPY_MS` are dropped even when no later look replaces them (a node whose lobby is
        quiet held the copies of its last looks for good: a whole room each, issue 20's memory per idle room)."""
        if self._copies:
            now = self.now()
            self._copies = {k: c for k, c in self._copies.items() if now - c[0] < LOBBY_COPY_MS}

    async def _campaign(self, room_id: str) -> Room | None:
        room = self.owned.get(room_id)
        if room is not None and not room.closed:
            return room
        now = self.now()
        cached = self._copies.get(room_id)
        if cached is not None and now - cached[0] < LOBBY_COPY_MS:
            return cached[1]
        copy = await self.copy(room_id)  # advanced from the log, not rebuilt (rooms open lazily)
        self._copies = {k: c for k, c in self._copies.items() if now - c[0] < LOBBY_COPY_MS}  # none kept for good
        if copy is not None:
            self._copies[room_id] = (now, copy)
        return copy
