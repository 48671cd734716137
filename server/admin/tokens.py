"""Tokens revoked and re-issued by the operator (`admin revoke`, `admin reissue`): a seat's player's, the
moderator's, the spectators'. The sessions signed in with a revoked token are closed (4010) on every node that
reports itself (Redis); an embedded store's server is stopped while the command runs, so it has none."""

from __future__ import annotations

from server.admin.errors import AdminError
from server.bus import EventBus
from server.rooms.errors import RoomError
from server.rooms.members import Member
from server.rooms.seats import close_revoked, reissue, reissued_grant
from server.store import Store


async def _checked(store: Store, campaign: str, player: str) -> None:
    meta = await store.grants.get_campaign(campaign)
    if meta is None:
        raise AdminError(f"no campaign {campaign} in this store (`admin list` shows them)")
    try:
        reissued_grant(meta, player)
    except RoomError as exc:
        raise AdminError(f"{exc.message}: a seat's player (red-1, ...), moderator or spectator") from None


async def revoke_tokens(store: Store, bus: EventBus, node: str, campaign: str, player: str) -> tuple[int, int]:
    """Revoke every token of `player`: (how many, how many nodes were told to close their sessions)."""
    await _checked(store, campaign, player)
    revoked = await store.grants.revoke(campaign, player)
    return revoked, await close_revoked(store, bus, node, campaign, player, "token revoked")


async def reissue_token(store: Store, bus: EventBus, node: str, campaign: str, player: str) -> tuple[Member, str]:
    """A new token for `player`, the old ones revoked and their sessions closed; the token is returned once."""
    await _checked(store, campaign, player)
    member, token = await reissue(store, campaign, player)
    await close_revoked(store, bus, node, campaign, player, "token re-issued")
    return member, token
