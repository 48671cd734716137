"""Seats and tokens: a token's grant makes a session a member of a campaign (a seat's player, the moderator or a
spectator); the moderator re-issues a lost token; and one seat is played from one session — a newer sign-in
replaces the older one, on whichever node of the deployment it is (close 4009).

Tokens are 192 random bits; the store keeps only their sha256.
"""

from __future__ import annotations

import contextlib
import hashlib
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from server.bus import EventBus
from server.rooms.errors import RoomError
from server.rooms.ids import RoomId
from server.rooms.members import Member
from server.rooms.state import Away
from server.store import Store, unreachable


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    """192 random bits, URL-safe; never starting with "-", which a command line (examples/bot.py --token …) would
    take for an option (a token of the old kind still signs in: only its hash is kept)."""
    while True:
        token = secrets.token_urlsafe(24)
        if not token.startswith("-"):
            return token


@dataclass(frozen=True, slots=True)
class SignIn:
    """A member signed in: the rooms it may join and, for a player in the secret module, until when."""

    member: Member
    rooms: list[str]
    locked_until_ms: int | None


async def close_revoked(store: Store, bus: EventBus, here: str, campaign: str, player: str, reason: str) -> int:
    """Tell every other node with sessions to close those signed in as the campaign's `player` (its token was
    revoked: `reason`, the close frame's); a node that does not answer has none to close. Returns how many nodes
    were told."""
    told = 0
    for node in await store.presence.nodes():
        if node == here:
            continue
        with contextlib.suppress(LookupError, TimeoutError):
            revoked = {"campaign": campaign, "player": player, "reason": reason}
            await bus.forward(node, {"revoked": revoked}, timeout_s=2.0)
            told += 1
    return told


async def reissue(store: Store, campaign_id: str, player: str) -> tuple[Member, str]:
    """A new token for the campaign's `player` (a seat's, "moderator", "spectator"); every older one is revoked.
    The new token is returned once."""
    meta = await store.grants.get_campaign(campaign_id)
    if meta is None:
        raise RoomError("no_such_room", f"no campaign {campaign_id}")
    member = reissued_grant(meta, player)
    token = new_token()
    await store.grants.replace(campaign_id, player, token_hash(token), member.dump())
    return member, token


def reissued_grant(meta: Mapping[str, object], player: str) -> Member:
    """The grant a re-issued token carries: a seat's player (`<colour>-<seat>`), "moderator" or "spectator"."""
    campaign_id = str(meta["id"])
    if player in ("moderator", "spectator"):
        if player == "spectator" and meta.get("spectator_token"):
            raise RoomError("forbidden", "this campaign's spectators' link is public (open spectating)")
        return Member(campaign_id, "moderator" if player == "moderator" else "spectator", player)
    colour, _, seat = player.rpartition("-")
    teams = meta["teams"]
    assert isinstance(teams, list)
    seats = {t["colour"]: int(t["seats"]) for t in teams}
    if not seat.isdigit() or not 1 <= int(seat) <= seats.get(colour, 0):
        raise RoomError("no_such_player", f"no player {player!r} in this campaign")
    return Member(campaign_id, "player", player, colour, int(seat))


class Seats:
    def __init__(self, store: Store, bus: EventBus, node: str):
        self.store, self.bus, self.node = store, bus, node
        self.kick: Callable[[str], None] = lambda session: None
        """Close this node's session `<node>/<id>` (set by the server): its seat was signed in again."""
        self.revoked: Callable[[str, str, str], None] = lambda campaign, player, reason: None
        """Close this node's sessions signed in as a campaign's `player` (set by the server): its token was
        revoked (the reason is the close frame's)."""
        self._local: dict[tuple[str, str], str] = {}  # seat -> the session of this node playing it

    async def authenticate(self, token: str) -> Member | None:
        grant = await self.store.grants.find(token_hash(token))
        return Member.load(grant) if grant else None

    def rooms_of(self, member: Member, away: Away | None, children: Sequence[str] = ()) -> SignIn:
        """What a signed-in member may join: the campaign room, its child rooms still running (anyone in the
        campaign may follow them), and the secret module for the moderator and a player sent there (D-N-14)."""
        rooms = [RoomId.campaign_room(member.campaign), *map(RoomId, children)]
        if member.role == "moderator" or away is not None:
            rooms.append(RoomId.secret_room(member.campaign))
        return SignIn(member, [str(r) for r in rooms], away.until_ms if away is not None else None)

    def sign_in(self, member: Member, session: str) -> str | None:
        """`session` (`<node>/<id>`) now plays the member's seat. Returns the session of this node it replaces
        (the caller closes it); one on another node is told to close through the bus (`claim`)."""
        if member.role != "player":
            return None
        key = (member.campaign, member.player)
        old = self._local.get(key)
        self._local[key] = session
        return old if old is not None and old != session else None

    def playing(self, campaign: str, player: str) -> bool:
        """Whether a session of this node plays the seat."""
        return (campaign, player) in self._local

    async def claim(self, member: Member, session: str) -> None:
        """The seat's claim in the store: a session playing it on another node is told to close (4009). A node
        that is gone has nothing to close."""
        previous = await self.store.presence.claim_seat(member.campaign, member.player, session)
        if previous is None or previous == session:
            return
        node = previous.split("/", 1)[0]
        if node == self.node:
            return
        with contextlib.suppress(LookupError, TimeoutError):
            await self.bus.forward(node, {"kick": previous}, timeout_s=2.0)

    async def sign_out(self, member: Member, session: str) -> None:
        """The session ended: its seat is free (unless a newer session plays it already)."""
        key = (member.campaign, member.player)
        if self._local.get(key) == session:
            del self._local[key]
            try:
                await self.store.presence.release_seat(member.campaign, member.player, session)
            except Exception as exc:  # the store is out of reach: the seat's next sign-in takes it over anyway
                if not unreachable(exc):
                    raise

    async def close_revoked(self, campaign: str, player: str, reason: str) -> None:
        """A token of the campaign's `player` was revoked: the sessions signed in with it are closed, here and on
        every other node."""
        self.revoked(campaign, player, reason)
        await close_revoked(self.store, self.bus, self.node, campaign, player, reason)

    async def reissue(self, moderator_token: str, campaign_id: str, player: str) -> tuple[Member, str]:
        """The moderator replaces a lost or leaked token: the old one stops working, the new one is returned once.
        Sessions already signed in with the old token are the caller's to close."""
        moderator = await self.authenticate(moderator_token)
        if moderator is None or moderator.role != "moderator" or moderator.campaign != campaign_id:
            raise RoomError("forbidden", "only this campaign's moderator re-issues its tokens")
        return await reissue(self.store, campaign_id, player)
