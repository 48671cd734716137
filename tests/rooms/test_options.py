"""The options request in the rooms (issue 14): answered from the room as it is, refused like an order (spectators,
the secret module, a paused game), kept per viewer class and unit until the state changes — so a flood of the same
question costs one search — and never logged."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from server.napoleonic.battle.engine import BattleEngine
from server.rooms.errors import RoomError
from tests.rooms.helpers import ManualClock, open_hub
from tests.rooms.test_battles import meet, napoleonic


async def test_options_are_kept_until_the_state_changes_and_never_logged_issue_14(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hub = await open_hub(tmp_path, ManualClock())
    made = await hub.create_campaign(napoleonic())
    _, battle, m = await meet(hub, made)
    calls: list[tuple[str, str | None]] = []
    real = BattleEngine.options

    def counted(self: BattleEngine, state: Any, viewer: str, unit: str | None) -> dict[str, Any] | None:
        calls.append((viewer, unit))
        return real(self, state, viewer, unit)

    monkeypatch.setattr(BattleEngine, "options", counted)
    side = battle.state.game.active_side
    me = m[f"{side}-1"]
    uid = next(u.id for u in battle.state.game.field_units(side))
    seq = battle.seq
    first = await hub.options(me, battle.id, uid)
    for _ in range(50):
        assert await hub.options(me, battle.id, uid) == first
    assert await hub.options(m[f"{side}-2"], battle.id, uid) == first  # the same viewer class
    assert calls == [(f"team:{side}", uid)], "one search for all of them"
    assert battle.seq == seq, "asking logs nothing"
    assert first is not None and first["active"] and first["moves"]
    path = first["moves"][0]["path"]
    await battle.submit("order", {"order": {"type": "move", "unit": uid, "path": path}}, me)
    after = await hub.options(me, battle.id, uid)
    assert len(calls) == 2 and after != first, "a new state is searched again"
    with pytest.raises(RoomError) as err:
        await hub.options(m["spectator"], battle.id, uid)
    assert err.value.code == "forbidden"
    with pytest.raises(RoomError) as err:
        await hub.options(me, "b-nothing-9", uid)
    assert err.value.code == "no_such_room"
    await hub.close()
