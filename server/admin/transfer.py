"""A campaign out of a store into an export, and an export into a store: a backup and its restore, a move to another
deployment (embedded ↔ Redis), a fork from a turn under a new id (forks.py).

An export only reads, so it is safe beside running servers: each room is read snapshot first, then its log, so the
log always reaches the snapshot. Rooms are read one after the other; a battle's result applied to its campaign
during the export may be in the battle's log and not yet in the campaign's — the campaign applies it again when it
is next opened (server/rooms/children.py reconciles). An import writes each room whole while it holds the rooms
(claims.py), then checks that each rebuilds from what was written, logs a `downtime` record where the clocks ran
while nobody served the room (the stretches the export names, and the time since the export), keeps its next
timer in the schedule and saves its snapshot; the campaign record and its grants come last, so a campaign is
listed and joinable only once all its rooms are in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from server.admin.claims import Claim, LocalRooms
from server.admin.errors import AdminError
from server.admin.exports import CampaignExport, RoomExport
from server.bus.local import LocalBus
from server.core.registry import Registry
from server.rooms import rules
from server.rooms.campaigns import Tokens, issue_tokens
from server.rooms.ids import RoomId
from server.rooms.ownership import OUTAGE_GAP_MS
from server.rooms.room import Room, RoomServices
from server.rooms.scheduler import LoopScheduler
from server.store import Store

_KIND_ORDER = {"campaign": 0, "secret_module": 1, "battle": 2}


def room_order(room: str) -> tuple[int, str]:
    """The campaign room first, then its secret module, then the child rooms."""
    return _KIND_ORDER[RoomId(room).kind], room


async def campaign_rooms(store: Store, campaign: str) -> list[str]:
    """Every room of the campaign that has a log in the store."""
    rooms = [r for r in await store.log.rooms() if (parsed := RoomId.parse(r)) is not None
             and parsed.campaign == campaign]
    return sorted(rooms, key=room_order)


def services(store: Store, engines: Registry, now_ms: int) -> RoomServices:
    """What a room rebuilt by an operator's command runs on: the store, no one listening to its events, a clock
    standing at the command's time."""
    return RoomServices(store, LocalBus(), engines, LoopScheduler(lambda: now_ms))


async def unserved(store: Store, room: str, last_at_ms: int, now_ms: int) -> list[tuple[int, int]]:
    """The stretches after the room's last record when its store did not serve it, up to `now_ms`: the service's
    outages, one going on now (no node alive for a while: the server is stopped), and the time since its dead
    owner's last mark when no node has adopted it yet."""
    outages = await store.leases.outages(last_at_ms)
    seen = await store.leases.last_seen()
    if seen is None or now_ms - seen > OUTAGE_GAP_MS:
        outages.append((seen if seen is not None else last_at_ms, now_ms))
    alive = await store.leases.last_alive(room) if await store.leases.holder(room) is None else None
    return rules.downtime(last_at_ms, outages, alive, now_ms)


async def export_campaign(store: Store, campaign: str, *, now_ms: int, tokens: bool = True,
                          source: str = "") -> CampaignExport:
    meta = await store.grants.get_campaign(campaign)
    rooms = await campaign_rooms(store, campaign)
    if meta is None:
        if rooms:
            raise AdminError(f"campaign {campaign} has rooms but no campaign record (an import that did not "
                             f"finish?): import it again with --replace, or delete it")
        raise AdminError(f"no campaign {campaign} in this store (`admin list` shows them)")
    exported = []
    for room in rooms:
        snapshot = await store.log.load_snapshot(room)  # first: the log read next reaches it
        records = tuple(await store.log.read(room, 0))
        if not records:
            continue
        spans = await unserved(store, room, records[-1].at_ms, now_ms)
        exported.append(RoomExport(room, records, snapshot, tuple(spans)))
    grants = await store.grants.grants_of(campaign) if tokens else None
    if not tokens and meta.get("spectator_token"):
        meta = {**meta, "spectator_token": ""}  # open spectating, its public token left out: a new one on import
    return CampaignExport(campaign, meta, grants, tuple(exported), now_ms, source)


@dataclass(frozen=True, slots=True)
class Imported:
    campaign: str
    meta: Mapping[str, Any]
    rooms: int
    records: int
    tokens: Tokens | None
    """The new tokens in clear when the import issued them (without tokens, a fork); None: the old links work."""
    replaced: bool


async def import_campaign(store: Store, export: CampaignExport, engines: Registry, *, now_ms: int, node: str,
                          replace: bool = False, new_tokens: bool = False, since_ms: int | None = None,
                          local: LocalRooms | None = None) -> Imported:
    """Write the export into the store. A campaign already there (its record or any of its rooms) is refused
    unless `replace`; rooms a server has open are refused even then. `since_ms` (a fork): the clocks skip
    everything since then instead of what the export names."""
    campaign = export.campaign
    there = await campaign_rooms(store, campaign)
    existing = await store.grants.get_campaign(campaign)
    if (existing is not None or there) and not replace:
        what = f"campaign {campaign} ({existing.get('name')})" if existing else f"rooms of campaign {campaign}"
        raise AdminError(f"{what} already in this store: add --replace to overwrite it, or --fork-at to import "
                         f"it as a new campaign")
    ordered = sorted(export.rooms, key=lambda r: room_order(r.room))
    if not ordered or ordered[0].room != RoomId.campaign_room(campaign):
        raise AdminError(f"the export has no campaign room {RoomId.campaign_room(campaign)}")
    meta = dict(export.meta)
    tokens = issue_tokens(campaign, meta["teams"]) if new_tokens or export.grants is None else None
    if tokens is not None and "spectator_token" in meta:  # open spectating: its public link is the new one
        meta["spectator_token"] = tokens.spectator
    grants = tokens.grants if tokens is not None else dict(export.grants or {})
    room_services = services(store, engines, now_ms)
    async with Claim(store, node, sorted({*there, *(r.room for r in ordered)}, key=room_order),
                     local=local) as claim:
        if there or existing is not None:
            await store.grants.delete_campaign(campaign)
            for room in there:
                await store.log.delete(room)
        for written in ordered:
            await store.log.restore(written.room, written.records)
            if written.snapshot is not None:
                await store.log.save_snapshot(written.room, written.snapshot)
            await _settle(written, room_services, now_ms, export.exported_ms if since_ms is None else since_ms,
                          forked=since_ms is not None)
            await claim.renew()
        await store.grants.put_campaign(meta, grants)
    if await store.leases.last_seen() is None:  # a store no server has run on yet: the time until the first one
        await store.leases.mark_alive([], now_ms)  # starts is an outage it records (a deployment being set up)
    return Imported(campaign, meta, len(ordered), export.records, tokens, bool(there or existing))


async def _settle(room: RoomExport, room_services: RoomServices, now_ms: int, exported_ms: int, *,
                  forked: bool) -> None:
    """The room as written rebuilds; the time its clocks ran while nobody served it is charged to nobody; its
    next timer is in the schedule; its snapshot is saved (opening it reads only what follows)."""
    opened = await Room.open(room.room, room_services, owner=False)
    if opened is None:
        raise AdminError(f"room {room.room} does not rebuild from its log (no setup record)")
    spans = [(exported_ms, now_ms)] if forked else [*room.unserved, (exported_ms, now_ms)]
    await opened.skip_downtime(rules.downtime(opened.last_at, spans, None, now_ms))
    await room_services.store.log.set_due(room.room, opened.next_due())
    await opened.save_snapshot()
    await opened.close()
