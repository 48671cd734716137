"""Child rooms are generic (server/rooms/children.py): a game of no particular kind — two toy engines here, not the
Napoleonic ones — opens a child room through the engine interface's hooks, its players in the secret module are
locked out there too (D-N-14), and the child's result comes back to it once (D-L-1)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from server.bus.local import LocalBus
from server.core.engine import Actor, BaseEngine, ChildRoom, ChildSetup, Event, FollowUp
from server.core.errors import RuleError, UnknownOrder
from server.core.registry import Registry
from server.rooms.hub import Hub
from server.rooms.ids import RoomId
from server.rooms.members import Member
from server.store.embedded import open_embedded
from tests.rooms.helpers import ManualClock, ManualScheduler

State = dict[str, Any]


class Front(BaseEngine[State]):
    """A parent: the moderator opens a skirmish between two teams; its result is written down; a skirmish settled
    here ends in its room."""

    kind = "front"
    has_child_rooms = True

    def setup(self, config: Mapping[str, Any], seed: int) -> tuple[State, Sequence[Event]]:
        return {"teams": [t["colour"] for t in config["teams"]], "open": {}, "results": {}}, []

    def teams(self, state: State) -> Sequence[str]:
        return list(state["teams"])

    def active_teams(self, state: State) -> frozenset[str]:
        return frozenset()

    def apply(self, state: State, actor: Actor, order: Mapping[str, Any]) -> tuple[State, Sequence[Event]]:
        raise UnknownOrder("the front takes only rulings")

    def end_turn(self, state: State, team: str, *, flagged: bool) -> tuple[State, Sequence[Event]]:
        return state, []

    def moderate(self, state: State, ruling: Mapping[str, Any]) -> tuple[State, Sequence[Event]]:
        key = str(ruling.get("key"))
        if ruling.get("type") == "open":
            return ({**state, "open": {**state["open"], key: list(ruling["teams"])}},
                    [Event("skirmish_opened", {"key": key})])
        if ruling.get("type") == "settle":
            return {**state, "open": {k: v for k, v in state["open"].items() if k != key}}, [
                Event("skirmish_settled", {"key": key})]
        raise UnknownOrder(f"no ruling {ruling.get('type')!r}")

    def view(self, state: State, viewer: str) -> dict[str, Any]:
        return dict(state)

    def is_over(self, state: State) -> bool:
        return False

    def dump(self, state: State) -> dict[str, Any]:
        return dict(state)

    def load(self, data: Mapping[str, Any]) -> State:
        return dict(data)

    def child_rooms(self, state: State) -> Sequence[ChildRoom]:
        return [ChildRoom(k, "skirmish", ((teams[0], "left"), (teams[1], "right")), f"skirmish {k}")
                for k, teams in sorted(state["open"].items())]

    def child_opened(self, kind: str, data: Mapping[str, Any]) -> str | None:
        return str(data["key"]) if kind == "skirmish_opened" else None

    def child_setup(self, state: State, key: str, seed: int) -> ChildSetup:
        teams = tuple(state["open"][key])
        return ChildSetup("skirmish", {"teams": list(teams)}, seed, teams, {"key": key})

    def child_over(self, state: State, key: str, result: Mapping[str, Any]) -> tuple[State, Sequence[Event]]:
        if key in state["results"]:
            raise RuleError(f"skirmish {key} is settled already", rule="D-L-1")
        rest = {k: v for k, v in state["open"].items() if k != key}
        return {**state, "open": rest, "results": {**state["results"], key: dict(result)}}, [
            Event("skirmish_result", {"key": key, **result})]

    def follow_ups(self, kind: str, data: Mapping[str, Any]) -> Sequence[FollowUp]:
        if kind == "skirmish_settled":
            return [FollowUp("ruling", {"ruling": {"type": "win", "team": None}}, child=str(data["key"]),
                             settles_child=True)]
        return ()


class Skirmish(BaseEngine[State]):
    """A child: over when the moderator names a winner."""

    kind = "skirmish"

    def setup(self, config: Mapping[str, Any], seed: int) -> tuple[State, Sequence[Event]]:
        return {"teams": list(config["teams"]), "winner": None, "over": False}, []

    def teams(self, state: State) -> Sequence[str]:
        return list(state["teams"])

    def active_teams(self, state: State) -> frozenset[str]:
        return frozenset() if state["over"] else frozenset(state["teams"])

    def apply(self, state: State, actor: Actor, order: Mapping[str, Any]) -> tuple[State, Sequence[Event]]:
        return state, [Event("moved", {"team": actor.team})]

    def end_turn(self, state: State, team: str, *, flagged: bool) -> tuple[State, Sequence[Event]]:
        return state, []

    def moderate(self, state: State, ruling: Mapping[str, Any]) -> tuple[State, Sequence[Event]]:
        return {**state, "winner": ruling.get("team"), "over": True}, [Event("won", {"team": ruling.get("team")})]

    def view(self, state: State, viewer: str) -> dict[str, Any]:
        return dict(state)

    def is_over(self, state: State) -> bool:
        return bool(state["over"])

    def dump(self, state: State) -> dict[str, Any]:
        return dict(state)

    def load(self, data: Mapping[str, Any]) -> State:
        return dict(data)

    def result(self, state: State) -> Mapping[str, Any] | None:
        return {"winner": state["winner"]} if state["over"] else None


def _registry() -> Registry:
    registry = Registry()
    registry.register("front", Front)
    registry.register("skirmish", Skirmish, campaign=False)
    return registry


async def _until(pred: Any) -> None:
    for _ in range(400):
        if pred():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("condition not reached")


async def test_a_game_of_any_kind_runs_child_rooms_through_the_engine_hooks_D_L_1_D_N_14(tmp_path: Path) -> None:
    clock = ManualClock()
    hub = Hub(open_embedded(tmp_path, fsync=False), LocalBus(), _registry(), scheduler=ManualScheduler(clock))
    made = await hub.create_campaign({"name": "Front", "scenario": "front", "level": 1, "clock": None,
                                      "teams": [{"colour": c, "seats": 1} for c in ("red", "blue", "green")]})
    campaign = made["campaign"]
    mod = Member(campaign, "moderator", "moderator")
    await hub.submit(made["room"], "lock", {"player": "blue-1", "minutes": 5}, mod)
    await hub.submit(made["room"], "ruling", {"ruling": {"type": "open", "key": "x", "teams": ["red", "blue"]}},
                     mod)
    child_id = RoomId.child_room(campaign, "x")
    await _until(lambda: child_id in hub.rooms and "blue-1" in hub.rooms[child_id].state.away)
    child = hub.rooms[child_id]
    assert child.setup["engine"] == "skirmish" and child.teams == ["red", "blue"] and child.setup["key"] == "x"
    assert set(child.players) == {"red-1", "blue-1"} and child.setup["parent"] == made["room"]

    listed = await hub.lobby.children(await hub.lobby.public(), lambda r: {}, lambda m: None)
    assert [(b["room"], b["name"], b["teams"][1]) for b in listed] == [
        (child_id, "Front: skirmish x", {"colour": "blue", "side": "right"})]

    await hub.submit(child_id, "ruling", {"ruling": {"type": "win", "team": "red"}}, mod)
    parent = hub.rooms[made["room"]]
    await _until(lambda: "x" in parent.state.game["results"])
    assert parent.state.game["results"] == {"x": {"winner": "red"}} and parent.state.game["open"] == {}
    await hub.children.settled()
    assert [e.kind for e in parent.history].count("skirmish_result") == 1
    assert await hub.lobby.children(await hub.lobby.public(), lambda r: {}, lambda m: None) == []
    await hub.close()


async def test_a_child_room_the_parent_settles_is_ended_there_and_reports_nothing_back_D_L_2(tmp_path: Path) -> None:
    clock = ManualClock()
    hub = Hub(open_embedded(tmp_path, fsync=False), LocalBus(), _registry(), scheduler=ManualScheduler(clock))
    made = await hub.create_campaign({"name": "Front", "scenario": "front", "level": 1, "clock": None,
                                      "teams": [{"colour": c, "seats": 1} for c in ("red", "blue")]})
    mod = Member(made["campaign"], "moderator", "moderator")
    await hub.submit(made["room"], "ruling", {"ruling": {"type": "open", "key": "y", "teams": ["red", "blue"]}},
                     mod)
    child_id = RoomId.child_room(made["campaign"], "y")
    await _until(lambda: child_id in hub.rooms)
    await hub.submit(made["room"], "ruling", {"ruling": {"type": "settle", "key": "y"}}, mod)
    child = hub.rooms[child_id]
    await _until(lambda: child.state.game["over"])
    await hub.children.settled()
    assert hub.rooms[made["room"]].state.game["results"] == {}  # settled by the parent: nothing came back
    await hub.close()
