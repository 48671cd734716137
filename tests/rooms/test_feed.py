"""The feed: one encoding per event, the same bytes to every socket allowed to see it, no gap and no duplicate
around a join, a lost pub/sub batch noticed and caught up."""

from __future__ import annotations

from server.bus.base import LoggedEvent
from server.core.engine import PUBLIC
from server.rooms.feed import Feed


class Outlet:
    def __init__(self, player: str | None = None, *, json: bool = False):
        self.json = json
        self.player = player
        self.frames: list[bytes] = []
        self.lockouts: list[bool] = []
        self.resyncs: list[int] = []

    def frame(self, payload: bytes | str) -> bytes:
        return b"F" + (payload.encode() if isinstance(payload, str) else payload)

    def write(self, wire: bytes) -> None:
        self.frames.append(wire)

    def lockout_changed(self, room: str, away: bool) -> None:
        self.lockouts.append(away)

    def resync(self, room: str, since: int) -> None:
        self.resyncs.append(since)


def _ev(seq: int, audience: set[str] | None = None, kind: str = "x", **data: object) -> LoggedEvent:
    return LoggedEvent(seq, 0, kind, data, frozenset(audience) if audience is not None else None)


def test_each_event_is_encoded_once_and_the_same_bytes_go_to_every_socket_that_may_see_it() -> None:
    feed = Feed("c-1")
    reds = [Outlet("red-1"), Outlet("red-2")]
    blue, spectator, moderator = Outlet("blue-1"), Outlet(), Outlet()
    for outlet, viewer in ((reds[0], "team:red"), (reds[1], "team:red"), (blue, "team:blue"),
                           (spectator, "spectator"), (moderator, "moderator")):
        feed.activate(feed.add(outlet, viewer), 0)
    feed.on_events("c-1", [_ev(1, {"team:red"}), _ev(2)])
    assert reds[0].frames[0] is reds[1].frames[0] is moderator.frames[0]
    assert len(blue.frames) == 1 and len(spectator.frames) == 1
    assert blue.frames[0] is spectator.frames[0] is reds[0].frames[1]


def test_events_held_during_a_join_are_released_after_its_catch_up_without_duplicates() -> None:
    feed = Feed("c-1")
    outlet = Outlet("red-1")
    sub = feed.add(outlet, "team:red")
    feed.on_events("c-1", [_ev(4), _ev(5)])  # arrive while the catch-up (up to seq 4) is being built
    assert outlet.frames == []
    feed.activate(sub, 4)
    feed.on_events("c-1", [_ev(5), _ev(6)])  # 5 again (a late duplicate) and 6
    assert len(outlet.frames) == 2


def test_a_lost_batch_makes_every_socket_catch_up_from_its_last_event() -> None:
    feed = Feed("c-1")
    outlet = Outlet("red-1")
    feed.activate(feed.add(outlet, "team:red"), 0)
    feed.on_events("c-1", [_ev(1), _ev(2)])
    feed.on_events("c-1", [_ev(5)])
    assert outlet.resyncs == [2]
    assert len(outlet.frames) == 2


def test_secret_module_switches_the_player_to_the_public_view_D_N_14() -> None:
    feed = Feed("c-1")
    red, mate = Outlet("red-1"), Outlet("red-2")
    sub = feed.add(red, "team:red")
    feed.activate(sub, 0)
    feed.activate(feed.add(mate, "team:red"), 0)
    feed.on_events("c-1", [_ev(1, kind="secret_module", action="sent", player="red-1"), _ev(2, {"team:red"})])
    assert sub.viewer == PUBLIC and red.lockouts == [True]
    assert len(red.frames) == 1 and len(mate.frames) == 2


def test_json_sockets_get_json_text() -> None:
    feed = Feed("c-1")
    a, b = Outlet(json=True), Outlet(json=True)
    feed.activate(feed.add(a, "spectator"), 0)
    feed.activate(feed.add(b, "spectator"), 0)
    feed.on_events("c-1", [_ev(1, text="hi")])
    assert a.frames[0].startswith(b"F{") and a.frames[0] is b.frames[0]
