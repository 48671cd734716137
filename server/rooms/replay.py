"""Replays of finished rooms: the room rebuilt from its log, with the view a viewer class had after each completed
turn and at the end — or, event by event (`by="event"`), every logged command the viewer saw something of: its
events as that class received them (a side never gets the other side's hidden events or channels) and what its
view became, as a patch of the view before.

A turn is complete when the turn number of the room's state (the engine view's `turn`) grows; the view taken then
shows the turn's outcome. Engines without a turn number get a view after every change of who is to act. Once a
room is over, what is left secret is what it tells of the campaign still being played: so (issue 12 item 2) a
replay is for the viewer who asks, by its token — the moderator any class; a player its side's (or the public's);
a spectator what the campaign's spectating policy shows it (server/rooms/spectating.py) — and every class is
everyone's, token or none, once the whole campaign is over, unless the campaign keeps its replays private.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from server.core.engine import MODERATOR, PUBLIC, SPECTATOR
from server.rooms import spectating
from server.rooms.catch_up import visible
from server.rooms.errors import RoomError, forbidden
from server.rooms.ids import RoomId
from server.rooms.members import Member
from server.rooms.room import Room, RoomServices
from server.rooms.state import RoomSpec

CACHED = 32  # finished rooms never change: their replays are kept (per room and viewer class)


def viewer_class(wanted: str, teams: list[str]) -> str:
    """`full` (the moderator's view), `spectator`, `public` or `team:<colour>` of one of the room's teams."""
    if wanted == "full":
        return MODERATOR
    if wanted in (SPECTATOR, PUBLIC) or (wanted.startswith("team:") and wanted[5:] in teams):
        return wanted
    raise RoomError("bad_message", f"'as' is full, spectator, public or team:<colour> of {', '.join(teams)}")


def _asked(viewer: str) -> str:
    return "full" if viewer == MODERATOR else viewer


def replay_viewer(member: Member | None, own: str | None, wanted: str | None, teams: list[str], *,
                  public: bool) -> str:
    """Issue 12 item 2: the viewer class a replay is built for. `own` is the class the member sees the room as now
    (its live class: a side's, `public` for a player in the secret module, what the spectating policy gives a
    spectator); `public` says the whole campaign is over and allows public replays. Then anyone, with a token or
    without, may ask for any class; before, only the moderator may — a player or a spectator gets its own class (or
    `public`), and a request without a token none."""
    if public:
        return viewer_class(wanted or "full", teams)
    if member is None:
        raise RoomError("unauthorized", "a replay needs your token in the Authorization header (Bearer) while the "
                        "campaign is being played")
    if member.role == "moderator":
        return viewer_class(wanted or "full", teams)
    mine = own or PUBLIC
    viewer = viewer_class(wanted or _asked(mine), teams)
    if viewer not in (mine, PUBLIC):
        raise forbidden(f"while the campaign is being played you replay this room as you see it ({_asked(mine)}) "
                        f"or as the public does; the full replay is the moderator's until the campaign is over")
    return viewer


class Replays:
    def __init__(self, services: RoomServices):
        self.services = services
        self._cache: OrderedDict[tuple[str, str, str], dict[str, Any]] = OrderedDict()
        self._public_campaigns: set[str] = set()

    async def for_member(self, room_id: RoomId, member: Member | None, wanted: str | None, *,
                         current: Room | None = None, campaign: Room | None = None, away: bool = False,
                         by: str = "turn") -> dict[str, Any]:
        """Issue 12 item 2: the replay `member` (None: no token) may have now (`replay_viewer`). `current` and
        `campaign` are the room and its campaign's room when this node has them; `away`: the player is in the
        secret module (D-N-14), and sees the rooms as the public does."""
        if member is not None and member.campaign != room_id.campaign:
            raise forbidden("this token is another campaign's")
        head = current or await Room.open(room_id, self.services, owner=False, history=1)
        if head is None or head.engine is None:
            raise RoomError("no_such_room", f"no room {room_id} with a game")
        if not head.engine.is_over(head.state.game):
            raise RoomError("not_over", f"room {room_id} is still being played: its replay comes when it is over")
        key = RoomId.campaign_room(room_id.campaign)
        if key not in self._public_campaigns:
            campaign = campaign or (head if room_id == key else
                                    await Room.open(key, self.services, owner=False, history=1))
        public = key in self._public_campaigns or (campaign is not None and _public(campaign))
        if public:
            self._public_campaigns.add(key)  # a campaign over stays over
        own = None
        if member is not None and member.role != "moderator":
            policy = campaign.state.spectating if campaign is not None else spectating.Spectating()
            own = PUBLIC if away else spectating.viewer_of(policy, member)
        viewer = replay_viewer(member, own, wanted, head.teams, public=public)
        return await self.replay(room_id, _asked(viewer), head, by)

    async def replay(self, room_id: str, wanted: str, current: Room | None = None, by: str = "turn") -> dict[str, Any]:
        """The per-turn (or, `by="event"`, per-command) views of a finished room for `wanted`, whoever asks (the
        HTTP path asks `for_member` first). `current` is the live room when this node owns it (to refuse a running
        game without reading its whole log)."""
        if by not in ("turn", "event"):
            raise RoomError("bad_message", "'by' is turn or event")
        head = current or await Room.open(room_id, self.services, owner=False, history=1)
        if head is None or head.engine is None:
            raise RoomError("no_such_room", f"no room {room_id} with a game")
        viewer = viewer_class(wanted, head.teams)
        key = (room_id, viewer, by)
        cached = self._cache.get(key)
        if cached is not None:
            self._cache.move_to_end(key)
            return cached
        if not head.engine.is_over(head.state.game):
            raise RoomError("not_over", f"room {room_id} is still being played: its replay comes when it is over")
        build = self._build if by == "turn" else self._build_steps
        answer = await build(room_id, viewer, wanted)
        self._cache[key] = answer
        while len(self._cache) > CACHED:
            self._cache.popitem(last=False)
        return answer

    async def _build(self, room_id: str, viewer: str, wanted: str) -> dict[str, Any]:
        records = await self.services.store.log.read(room_id, 0)
        room = Room(RoomSpec.of(room_id, records[0].body, self.services.engines), self.services, history=1)
        engine = room.engine
        assert engine is not None
        turns: list[dict[str, Any]] = []
        last_turn: Any = None
        for record in records:
            room.advance([record])
            if not any(e.kind == "turn" for e in record.events):
                continue  # who is to act did not change: no turn can have ended
            state = engine.view(room.state.game, viewer)
            turn = state.get("turn")
            if record.index == 1:
                last_turn = turn
            elif turn is None or turn != last_turn:
                turns.append({"turn": last_turn, "seq": room.seq, "at_ms": record.at_ms, "state": state})
                last_turn = turn
        final = {"turn": last_turn, "seq": room.seq, "at_ms": room.last_at,
                 "state": engine.view(room.state.game, viewer)}
        return {"room": room_id, "as": wanted, "viewer": viewer, "kind": room.kind, "teams": room.teams,
                "turns": turns, "final": final}

    async def _build_steps(self, room_id: str, viewer: str, wanted: str) -> dict[str, Any]:
        """Every command whose events `viewer` saw, or that changed its view: `{seq, at_ms, turn, events, patch}`,
        the first with the whole view in `state`; `patch` (`view_patch`) turns the view before into the one after."""
        records = await self.services.store.log.read(room_id, 0)
        room = Room(RoomSpec.of(room_id, records[0].body, self.services.engines), self.services, history=1)
        engine = room.engine
        assert engine is not None
        steps: list[dict[str, Any]] = []
        before: dict[str, Any] | None = None
        for record in records:
            room.advance([record])
            seen = [{"seq": e.seq, "at_ms": e.at_ms, "kind": e.kind, "data": e.plain_data()}
                    for e in record.events if visible(e.audience, viewer)]
            after = engine.view(room.state.game, viewer)
            patch = view_patch(before, after) if before is not None else None
            if before is not None and not seen and not patch:
                continue
            step: dict[str, Any] = {"seq": room.seq, "at_ms": record.at_ms, "turn": after.get("turn"), "events": seen}
            if before is None:
                step["state"] = after
            else:
                step["patch"] = patch
            steps.append(step)
            before = after
        return {"room": room_id, "as": wanted, "viewer": viewer, "kind": room.kind, "teams": room.teams, "steps": steps}


def _public(campaign: Room) -> bool:
    """Whether the whole campaign is over and allows public replays (its `public_replays`, default yes)."""
    engine = campaign.engine
    return engine is not None and engine.is_over(campaign.state.game) and \
        bool(campaign.setup.get("public_replays", True))


def _by_id(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(x, dict) and isinstance(x.get("id"), str) for x in value)


def view_patch(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What changed from one view to the next: top-level keys with their new value; a list of things with ids
    (units, armies) as `{"$ids": [ids in order], "$set": [the changed or new ones]}`; keys gone in `$drop`. The
    client applies it (client_web/src/net/replay.ts `applyPatch`); a view of 50 units costs what changed in it."""
    out: dict[str, Any] = {}
    for key, value in after.items():
        old = before.get(key)
        if key in before and old == value:
            continue
        if isinstance(old, list) and _by_id(value) and _by_id(old):
            was = {x["id"]: x for x in old}
            out[key] = {"$ids": [x["id"] for x in value], "$set": [x for x in value if was.get(x["id"]) != x]}
        else:
            out[key] = value
    dropped = [key for key in before if key not in after]
    if dropped:
        out["$drop"] = dropped
    return out
