"""The spectating policy (issue 12 item 1): the spectators' link shows only what is public by default — a player
holding it sees no enemy army its fog hides — the full view only delayed (at least the moderator's setting, never
less than one phase), and the full live view only to spectators the moderator names; the moderator changes the
policy in the campaign room and the battles follow it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from server.core.engine import PUBLIC, SPECTATOR
from server.rooms import spectating
from server.rooms.errors import RoomError
from server.rooms.hub import Hub
from server.rooms.members import Member
from server.rooms.spectating import Spectating
from tests.rooms.helpers import ManualClock, open_hub
from tests.rooms.test_battles import meet, napoleonic
from tests.rooms.test_room_unload import Outlet


class Seen(Outlet):
    def __init__(self) -> None:
        self.frames: list[bytes] = []
        self.resyncs: list[str] = []

    def write(self, wire: bytes) -> None:
        self.frames.append(wire)

    def lockout_changed(self, room: str, away: bool) -> None:
        self.resyncs.append(room)


async def _joined(hub: Hub, member: Member, room: str) -> tuple[str, list[dict[str, Any]], Seen]:
    outlet, sent = Seen(), []
    entry = await hub.enter(outlet, member, room, None, sent.append)
    return entry.viewer, sent, outlet


def test_the_policy_rulings_are_checked_and_typed() -> None:
    policy = Spectating()
    assert not policy.full and policy.delay_ms == spectating.DEFAULT_DELAY_MS and policy.named == frozenset()
    changed = policy.changed({"full": True, "delay_minutes": 15, "name": "spectator:Anna"})
    assert changed == Spectating(True, 15 * 60_000, frozenset({"spectator:Anna"}))
    assert Spectating.load(changed.dump()) == changed
    assert changed.changed({"unname": "spectator:Anna"}).named == frozenset()
    for bad in ({"full": "yes"}, {"delay_minutes": 0}, {"delay_minutes": -5}, {"delay_minutes": True},
                {"delay_minutes": 10**9}, {"name": "Anna"}, {"name": "red-1"}, {"name": 7}, {"unname": None}):
        with pytest.raises(RoomError) as err:
            policy.changed(bad)
        assert err.value.code == "bad_order", bad
    assert Spectating(delay_ms=60_000).delay_for(5 * 60_000) == 5 * 60_000  # never less than one phase
    link, anna = Member("k", "spectator", "spectator"), Member("k", "spectator", "spectator:Anna")
    red = Member("k", "player", "red-1", "red", 1)
    assert spectating.viewer_of(policy, link) == PUBLIC and spectating.viewer_of(policy, red) == "team:red"
    assert spectating.viewer_of(changed, link) == SPECTATOR and spectating.delayed(changed, link)
    assert spectating.viewer_of(changed, anna) == SPECTATOR and not spectating.delayed(changed, anna)


async def test_the_spectators_link_shows_only_what_is_public_named_spectators_everything_live(
        tmp_path: Path) -> None:
    clock = ManualClock()
    hub = await open_hub(tmp_path, clock)
    made = await hub.create_campaign(napoleonic())
    campaign_room, battle, m = await meet(hub, made)
    game, engine = campaign_room.state.game, campaign_room.engine
    assert engine is not None
    link = m["spectator"]
    viewer, sent, _ = await _joined(hub, link, campaign_room.id)
    snapshot = next(s for s in sent if s["t"] == "snapshot")
    assert viewer == PUBLIC and snapshot["state"] == engine.view(game, PUBLIC)
    assert engine.view(game, PUBLIC) != engine.view(game, SPECTATOR)  # something is hidden from the public
    viewer, sent, _ = await _joined(hub, link, battle.id)  # the battle follows the campaign's policy
    assert viewer == PUBLIC
    with pytest.raises(RoomError) as err:  # the policy is the campaign's
        await hub.submit(battle.id, "ruling", {"ruling": {"type": "spectating", "full": True}}, m["moderator"])
    assert err.value.code == "forbidden"
    with pytest.raises(RoomError):
        await hub.submit(campaign_room.id, "ruling", {"ruling": {"type": "spectating", "full": True}}, link)

    # the moderator names Anna: her token sees everything, live, in the campaign and its battle
    anna_member, token = await hub.name_spectator(made["moderator_token"], made["campaign"], "Anna")
    assert anna_member.player == "spectator:Anna" and await hub.authenticate(token) == anna_member
    assert "spectator:Anna" in campaign_room.state.spectating.named
    viewer, sent, _ = await _joined(hub, anna_member, campaign_room.id)
    assert viewer == SPECTATOR and next(s for s in sent if s["t"] == "snapshot")["state"] == \
        engine.view(campaign_room.state.game, SPECTATOR)
    viewer, _, anna_out = await _joined(hub, anna_member, battle.id)
    assert viewer == SPECTATOR and hub.feeds[battle.id].subs[anna_out].delay_ms == 0
    with pytest.raises(RoomError) as err:
        await hub.name_spectator(made["spectator_token"], made["campaign"], "Bob")
    assert err.value.code == "forbidden"

    # the full view for the link, delayed: at least the setting and one phase; its spectators resync
    _, _, link_out = await _joined(hub, link, campaign_room.id)
    await hub.submit(campaign_room.id, "ruling", {"ruling": {"type": "spectating", "full": True,
                                                             "delay_minutes": 1}}, m["moderator"])
    assert link_out.resyncs == [campaign_room.id]
    viewer, sent, out = await _joined(hub, link, battle.id)
    phase = spectating.phase_ms(battle.setup.get("clock"))
    assert viewer == SPECTATOR and hub.feeds[battle.id].subs[out].delay_ms == max(60_000, phase) > 0
    assert hub.feeds[battle.id].subs[anna_out].delay_ms == 0  # Anna still live
    await hub.close()
