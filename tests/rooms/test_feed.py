"""The feed: one encoding per event, the same bytes to every socket allowed to see it, no gap and no duplicate
around a join, a lost pub/sub batch noticed and caught up."""

from __future__ import annotations

from typing import ClassVar

from server.core.engine import PUBLIC
from server.rooms.feed import Feed
from server.store.records import LoggedEvent


class Outlet:
    built: ClassVar[list[bytes]] = []  # every frame any outlet built, to split a write of several back into them

    def __init__(self, player: str | None = None, *, json: bool = False):
        self.json = json
        self.player = player
        self.frames: list[bytes] = []
        self.lockouts: list[bool] = []
        self.resyncs: list[int] = []

    def frame(self, payload: bytes | str) -> bytes:
        frame = b"F" + (payload.encode() if isinstance(payload, str) else payload)
        Outlet.built.append(frame)
        return frame

    def write(self, wire: bytes) -> None:
        """One write may carry several frames: recorded as the very frames that were built."""
        while wire:
            frame = next(f for f in reversed(Outlet.built) if wire.startswith(f))
            self.frames.append(frame)
            wire = wire[len(frame):]

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


def test_a_view_is_packed_once_per_class_and_follows_the_events_it_reflects() -> None:
    """The same view bytes go to every socket of a class, after the events up to its seq; an unchanged view
    is not sent again; the frame is a valid `view` message."""
    import msgpack

    from shared.protocol.codec import decode_server
    from shared.protocol.server import View

    feed = Feed("c-1")
    reds = [Outlet("red-1"), Outlet("red-2")]
    spectator, json_red = Outlet(), Outlet("red-3", json=True)
    for outlet, viewer in ((reds[0], "team:red"), (reds[1], "team:red"), (spectator, "spectator"),
                           (json_red, "team:red")):
        feed.activate(feed.add(outlet, viewer), 0)
    assert feed.view_classes() == {"team:red", "spectator"}
    # the owner posts the view before the bus brings the events (Redis): it waits for them
    assert feed.post_view("team:red", 2, 0, {"units": [1]}, {"paused": False}, 5)
    assert reds[0].frames == []
    feed.on_events("c-1", [_ev(1), _ev(2)])
    assert len(reds[0].frames) == 3 and reds[0].frames[2] is reds[1].frames[2]
    view = decode_server(reds[0].frames[2][1:])
    assert isinstance(view, View) and view.seq == 2 and view.state == {"units": [1]} and view.server_ms == 5
    assert msgpack.unpackb(reds[0].frames[2][1:])["clocks"] == {"paused": False}
    text = decode_server(json_red.frames[2][1:].decode())
    assert isinstance(text, View) and text.state == {"units": [1]}
    assert len(spectator.frames) == 2  # no view posted for the spectators
    assert not feed.post_view("team:red", 3, 0, {"units": [1]}, {}, 6)  # unchanged: nothing sent
    feed.on_events("c-1", [_ev(3)])
    assert len(reds[0].frames) == 4


def test_a_view_waits_for_a_joining_socket_of_its_class_and_skips_one_whose_snapshot_is_newer() -> None:
    feed = Feed("c-1")
    live, joining = Outlet("red-1"), Outlet("red-2")
    feed.activate(feed.add(live, "team:red"), 0)
    sub = feed.add(joining, "team:red")
    feed.on_events("c-1", [_ev(1)])
    feed.post_view("team:red", 1, 0, {"n": 1}, {}, 0)
    assert len(live.frames) == 1  # the event; the view waits for the joining socket
    feed.activate(sub, 0)  # its catch-up ended before event 1: it gets the event, then the view
    assert len(live.frames) == 2 and len(joining.frames) == 2

    late = Outlet("red-3")
    feed.activate(feed.add(late, "team:red"), 5)
    feed.on_events("c-1", [_ev(2)])
    feed.post_view("team:red", 2, 0, {"n": 2}, {}, 0)
    assert late.frames == [] and len(live.frames) == 4


async def test_delayed_spectators_get_the_view_when_its_events_are_released_to_them() -> None:
    import asyncio

    clock = [10_000]
    feed = Feed("b-1", now=lambda: clock[0])
    feed.spectator_delay_ms = 30
    spectator, moderator = Outlet(), Outlet()
    feed.activate(feed.add(spectator, "spectator"), 0)
    feed.activate(feed.add(moderator, "moderator"), 0)
    feed.on_events("b-1", [LoggedEvent(1, 10_000, "x", {})])
    feed.post_view("spectator", 1, 10_000, {"n": 1}, {}, 10_000)
    feed.post_view("moderator", 1, 10_000, {"n": 1}, {}, 10_000)
    assert len(moderator.frames) == 2 and spectator.frames == []
    await asyncio.sleep(0.2)
    assert len(spectator.frames) == 2 and spectator.frames[1] == moderator.frames[1]
