"""What a store holds, campaign by campaign (`admin list`): each campaign and its rooms with their state — running,
over (its game is), archived (only in the archive directory) — the node that owns each room now, the seats and who
is online, the size and the last activity. Read only: safe beside running servers (each room is rebuilt as a
read-only copy, from its snapshot and what follows it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from server.admin import exports
from server.admin.errors import AdminError
from server.admin.transfer import room_order
from server.rooms.ids import RoomId
from server.rooms.room import Room, RoomServices
from server.store import Store

State = Literal["running", "over", "archived", "incomplete", "unreadable", "-"]
"""A campaign: running, over, archived (only in the archive directory), incomplete (rooms without a campaign
record: an import that did not finish). A room: running, over, unreadable (its engine unknown here), - (the
secret module: no game of its own)."""


@dataclass(frozen=True, slots=True)
class RoomInfo:
    room: str
    kind: str
    state: State
    owner: str | None
    records: int
    bytes: int
    last_at_ms: int
    online: Mapping[str, int] | None = None


@dataclass(frozen=True, slots=True)
class CampaignInfo:
    campaign: str
    name: str
    scenario: str
    state: State
    owner: str | None
    seats: int
    players_online: int | None
    """None: not known (the embedded store keeps who is online in its server's memory)."""
    spectators_online: int | None
    bytes: int
    last_at_ms: int
    created_ms: int
    rooms: Sequence[RoomInfo] = field(default_factory=tuple)
    archive: str | None = None

    def dump(self) -> dict[str, Any]:
        return asdict(self)


async def live(store: Store, services: RoomServices, *, presence: bool, owner: str | None = None,
               only: Sequence[str] = ()) -> list[CampaignInfo]:
    """The campaigns in the store, newest first. `presence`: whether the store knows who is online (Redis);
    `owner`: the owner of every room when the store names none (an embedded data directory's running server)."""
    metas = {str(m["id"]): m for m in await store.grants.list_campaigns()}
    by_campaign: dict[str, list[str]] = {}
    for room in await store.log.rooms():
        parsed = RoomId.parse(room)
        if parsed is not None:
            by_campaign.setdefault(parsed.campaign, []).append(room)
    online = await store.presence.counts() if presence else None
    wanted = list(only) or sorted({*metas, *by_campaign})
    missing = [c for c in wanted if c not in metas and c not in by_campaign]
    if only and missing:
        raise AdminError(f"no campaign {', '.join(missing)} in this store (`admin list` shows them)")
    out = []
    for campaign in wanted:
        rooms = [await _room(store, services, room, owner, online)
                 for room in sorted(by_campaign.get(campaign, []), key=room_order)]
        out.append(_campaign(campaign, metas.get(campaign), rooms, online))
    return sorted(out, key=lambda c: -c.created_ms)


async def _room(store: Store, services: RoomServices, room: str, owner: str | None,
                online: Mapping[str, Mapping[str, int]] | None) -> RoomInfo:
    stat = await store.log.stat(room)
    state: State = "-"
    try:
        copy = await Room.open(room, services, owner=False, history=1)
    except KeyError:  # an engine this server does not have
        copy, state = None, "unreadable"
    if copy is not None and copy.engine is not None:
        state = "over" if copy.engine.is_over(copy.state.game) else "running"
    holder = await store.leases.holder(room) or owner
    return RoomInfo(room, RoomId(room).kind, state, holder, stat.records if stat else 0, stat.bytes if stat else 0,
                    stat.last_at_ms if stat else 0, dict(online.get(room, {})) if online is not None else None)


def _campaign(campaign: str, meta: Mapping[str, Any] | None, rooms: list[RoomInfo],
              online: Mapping[str, Mapping[str, int]] | None) -> CampaignInfo:
    head = next((r for r in rooms if r.kind == "campaign"), None)
    state: State = head.state if head is not None and meta is not None else "incomplete"
    here = [r.online or {} for r in rooms]
    return CampaignInfo(
        campaign, str((meta or {}).get("name", "")), str((meta or {}).get("scenario", "")), state,
        head.owner if head is not None else None, _seats(meta),
        sum(o.get("player", 0) for o in here) if online is not None else None,
        sum(o.get("spectator", 0) for o in here) if online is not None else None,
        sum(r.bytes for r in rooms), max((r.last_at_ms for r in rooms), default=0),
        int((meta or {}).get("created_ms", 0)), tuple(rooms))


def _seats(meta: Mapping[str, Any] | None) -> int:
    return sum(int(t.get("seats", 0)) for t in (meta or {}).get("teams") or ())


def archived(archive_dir: str | Path, *, skip: set[str] | frozenset[str] = frozenset()) -> list[CampaignInfo]:
    """The campaigns in the archive directory (but those in `skip`, live again), the last active first."""
    root = Path(archive_dir)
    if not root.is_dir():
        return []
    out = []
    for path in sorted(root.glob("*.tar.gz")):
        try:
            m = exports.read_manifest(path)
        except AdminError:
            continue  # not one of ours
        if str(m["campaign"]) in skip:
            continue
        rooms = tuple(RoomInfo(str(r["room"]), RoomId(str(r["room"])).kind, "archived", None, int(r["records"]), 0,
                               int(r["last_at_ms"])) for r in m["rooms"])
        out.append(CampaignInfo(str(m["campaign"]), str(m.get("name") or ""), str(m.get("scenario") or ""),
                                "archived", None, _seats({"teams": m.get("teams")}), None, None,
                                path.stat().st_size, int(m.get("last_at_ms") or 0), int(m.get("created_ms") or 0),
                                rooms, str(path)))
    return sorted(out, key=lambda c: -c.last_at_ms)
