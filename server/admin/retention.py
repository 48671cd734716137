"""Campaigns out of the live store: archived (an export file in the archive directory, read back and checked, then
the campaign deleted), deleted, and the retention rule — a campaign whose game is over and none of whose rooms has
had a record for N days is archived. `admin retention --days N` applies it once; a server with
`--retention-days N` applies it every `--retention-every` seconds (docs/operating.md, Retention)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from server.admin import exports
from server.admin.claims import Claim, LocalRooms
from server.admin.errors import AdminError
from server.admin.transfer import campaign_rooms, export_campaign
from server.rooms.ids import RoomId
from server.rooms.room import Room, RoomServices
from server.store import Store

log = logging.getLogger(__name__)

DAY_MS = 86_400_000


def archive_path(archive_dir: str | Path, campaign: str, now_ms: int) -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now_ms / 1000))
    return Path(archive_dir) / f"{campaign}-{stamp}.tar.gz"


async def delete_rooms(store: Store, campaign: str, rooms: Sequence[str]) -> None:
    """The campaign record and its grants first (nobody signs in any more), then each room. The caller holds the
    rooms (a Claim)."""
    await store.grants.delete_campaign(campaign)
    for room in rooms:
        await store.log.delete(room)


async def delete_campaign(store: Store, campaign: str, *, node: str, local: LocalRooms | None = None) -> int:
    """Delete the campaign from the store; returns how many rooms it had. A room a server has open is refused."""
    rooms = await campaign_rooms(store, campaign)
    if not rooms and await store.grants.get_campaign(campaign) is None:
        raise AdminError(f"no campaign {campaign} in this store (`admin list` shows them)")
    async with Claim(store, node, rooms, local=local):
        await delete_rooms(store, campaign, rooms)
    return len(rooms)


@dataclass(frozen=True, slots=True)
class Archived:
    campaign: str
    name: str
    path: Path
    sha256: str
    rooms: int
    records: int


async def archive_campaign(store: Store, campaign: str, archive_dir: str | Path, *, node: str, now_ms: int,
                           source: str = "", local: LocalRooms | None = None) -> Archived:
    """Export the campaign (with its tokens: restored, its old links work again) to the archive directory, read
    the file back and compare it with the store, then delete the campaign — all while holding its rooms, so
    nothing is written in between."""
    rooms = await campaign_rooms(store, campaign)
    async with Claim(store, node, rooms, local=local):
        export = await export_campaign(store, campaign, now_ms=now_ms, source=source)
        path = archive_path(archive_dir, campaign, now_ms)
        digest = await asyncio.to_thread(exports.write, path, export)
        back = await asyncio.to_thread(exports.read, path)
        if [(r.room, r.records) for r in back.rooms] != [(r.room, r.records) for r in export.rooms]:
            raise AdminError(f"{path} does not read back as written: the campaign is kept in the store")
        await delete_rooms(store, campaign, rooms)
    return Archived(campaign, str(export.meta.get("name", "")), path, digest, len(export.rooms), export.records)


async def finished(store: Store, room_services: RoomServices, days: float, now_ms: int) -> list[str]:
    """The campaigns whose game is over and none of whose rooms has had a record for `days` (only those idle that
    long are rebuilt to see whether they are over)."""
    last: dict[str, int] = {}
    for room_id in await store.log.rooms():
        parsed = RoomId.parse(room_id)
        stat = await store.log.stat(room_id)
        if parsed is not None and stat is not None:
            last[parsed.campaign] = max(last.get(parsed.campaign, 0), stat.last_at_ms)
    out = []
    for campaign, at in sorted(last.items()):
        if at > now_ms - days * DAY_MS or await store.grants.get_campaign(campaign) is None:
            continue
        try:
            copy = await Room.open(RoomId.campaign_room(campaign), room_services, owner=False, history=1)
        except KeyError:  # an engine this server does not have
            continue
        if copy is not None and copy.engine is not None and copy.engine.is_over(copy.state.game):
            out.append(campaign)
    return out


async def retain(store: Store, room_services: RoomServices, archive_dir: str | Path, days: float, *, node: str,
                 now_ms: int, source: str = "", local: LocalRooms | None = None,
                 dry_run: bool = False) -> tuple[list[Archived | str], list[str]]:
    """Archive every campaign finished for `days`: (what was archived — or, `dry_run`, would be —, the campaigns
    skipped because a server has one of their rooms open, with why)."""
    done: list[Archived | str] = []
    skipped: list[str] = []
    for campaign in await finished(store, room_services, days, now_ms):
        if dry_run:
            done.append(campaign)
            continue
        try:
            done.append(await archive_campaign(store, campaign, archive_dir, node=node, now_ms=now_ms,
                                               source=source, local=local))
        except AdminError as exc:
            skipped.append(f"{campaign}: {exc}")
    return done, skipped


async def periodically(store: Store, room_services: RoomServices, archive_dir: str | Path, days: float,
                       every_s: float, *, node: str, local: LocalRooms, source: str = "") -> None:
    """The server's own retention: every `every_s`, from `every_s` after its start. A campaign with a room open
    on a node is left for the next round (rooms nobody uses are unloaded after --room-idle-s)."""
    while True:
        await asyncio.sleep(every_s)
        try:
            done, skipped = await retain(store, room_services, archive_dir, days, node=node,
                                         now_ms=room_services.now(), source=source, local=local)
        except Exception:
            log.exception("retention failed (next round in %.0f s)", every_s)
            continue
        for item in done:
            if isinstance(item, Archived):
                log.info("retention: campaign %s (%s) archived to %s", item.campaign, item.name, item.path)
        for line in skipped:
            log.info("retention: %s (next round)", line)
