"""Property tests: random legal orders never leave two counters on one cell without the C-4.12 consequence, never
show a team a unit it may not see (fog of war), and replaying the accepted commands rebuilds the same state."""

from __future__ import annotations

import contextlib
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.continental.fog import visible_units
from server.continental.forces import REGROUPING, TRANSFER
from server.continental.grid import FACINGS, neighbours
from server.continental.movement import stack_allowed
from server.continental.state import CampaignState
from server.core.engine import PUBLIC, SPECTATOR, Actor, Event, team_viewer
from server.core.errors import RuleError
from shared.protocol.campaign_views import ContinentalView
from shared.protocol.events import CONTINENTAL_EVENTS
from tests.continental.helpers import ENGINE


def _cfg(level: int, deception: bool) -> dict[str, Any]:
    return {"scenario": "continental", "level": level, "recon_deception": deception,
            "teams": [{"colour": "red", "seats": 1}, {"colour": "blue", "seats": 1}]}


def _candidate(state: CampaignState, team: str, data: st.DataObject) -> dict[str, Any] | None:
    units = sorted((u for u in state.alive_units(team)), key=lambda u: u.id)
    kind = data.draw(st.sampled_from(["move", "move", "move", "turn", "attack", "strike", "question", "end",
                                      "split", "frontage", "march", "merge", "corps", "posture"]))
    if kind == "end" or not units:
        return None
    unit = data.draw(st.sampled_from(units))
    if kind == "move":
        path, cur = [], unit.cell
        for _ in range(data.draw(st.integers(1, 4))):
            cur = data.draw(st.sampled_from(sorted(neighbours(cur))))
            path.append(list(cur))
        return {"type": "move", "unit": unit.id, "path": path}
    if kind == "turn":
        return {"type": "turn", "unit": unit.id, "facing": data.draw(st.sampled_from(FACINGS))}
    if kind == "attack":
        targets = sorted({c for c in neighbours(unit.cell) for u in state.units_at(c) if u.team != team})
        if not targets:
            return None
        return {"type": "attack", "unit": unit.id, "target": list(data.draw(st.sampled_from(targets))),
                "echelons": [[unit.id]]}
    if kind == "strike":
        dx, dy = data.draw(st.integers(-3, 3)), data.draw(st.integers(-3, 3))
        return {"type": "strike", "unit": unit.id, "target": [unit.cell[0] + dx, unit.cell[1] + dy],
                "mode": data.draw(st.sampled_from(["destroy", "cutoff", "road"]))}
    if kind == "question":
        return {"type": "question", "kind": data.draw(st.sampled_from(["presence", "count", "arm"])),
                "cell": [data.draw(st.integers(30, 59)), data.draw(st.integers(10, 29))]}
    if kind == "split":
        return {"type": "split", "unit": unit.id}
    if kind == "frontage":
        return {"type": "frontage", "unit": unit.id, "width": data.draw(st.sampled_from([1, 2]))}
    if kind == "march":
        return {"type": "march", "unit": unit.id, "path": [list(c) for c in sorted(neighbours(unit.cell))[:1]]}
    if kind == "corps":
        near = sorted(u.id for u in units if abs(u.cell[0] - unit.cell[0]) <= 1 and abs(u.cell[1] - unit.cell[1]) <= 1)
        return {"type": "corps", "name": "C", "units": near[:3]}
    if kind == "posture":
        return {"type": "posture", "on_attack": data.draw(st.sampled_from(["accept", "withdraw", "retreat"]))}
    same = sorted(u.id for u in units if u.cell == unit.cell)
    return {"type": "merge", "units": same}


def _check_stacking(state: CampaignState) -> None:
    cells: dict[tuple[int, int], list[Any]] = {}
    for u in state.alive_units():
        if u.status == TRANSFER:
            continue
        for c in u.cells():
            cells.setdefault(c, []).append(u)
    for cell, here in cells.items():
        if not stack_allowed(state, here):
            assert all(u.status == REGROUPING for u in here), f"C-4.12 broken at {cell}: {[u.id for u in here]}"


def _check_fog(before: CampaignState, after: CampaignState, events: list[Event]) -> None:
    owner = {u.id: u.team for u in [*before.units.values(), *after.units.values()]}
    for team in after.player_teams:
        viewer = team_viewer(team)
        seen = set(visible_units(before, team)) | set(visible_units(after, team))
        view = ENGINE.view(after, viewer)
        assert {u["team"] for u in view["units"]} <= {team}
        assert {u["id"] for u in view["enemy_units"]} <= set(visible_units(after, team))
        for event in events:
            if not event.visible_to(viewer):
                continue
            for name in _strings(event.data):
                if name in owner and owner[name] != team:
                    assert name in seen, f"{event.kind} leaks {name} to {team}"
    assert "units" not in ENGINE.view(after, PUBLIC)
    assert ENGINE.view(after, SPECTATOR)["units"]


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)] + [k for k in value if isinstance(k, str)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _strings(v)]
    return []


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(level=st.sampled_from([1, 2, 3]), seed=st.integers(0, 2**32), deception=st.booleans(), data=st.data())
def test_random_legal_orders_keep_the_rules_C_4_12_fog_and_replay(level: int, seed: int, deception: bool,
                                                                   data: st.DataObject) -> None:
    state, _ = ENGINE.setup(_cfg(level, deception), seed)
    log: list[tuple[str, str, Any]] = []
    for team in ("red", "blue"):
        state, _ = ENGINE.end_turn(state, team, flagged=False)
        log.append(("end", team, None))
    for _ in range(data.draw(st.integers(10, 30))):
        if ENGINE.is_over(state):
            break
        team = data.draw(st.sampled_from(sorted(ENGINE.active_teams(state))))
        cand = _candidate(state, team, data)
        before = state
        if cand is None:
            state, events = ENGINE.end_turn(state, team, flagged=data.draw(st.booleans()))
            log.append(("end", team, None))
        else:
            try:
                state, events = ENGINE.apply(state, Actor(f"p-{team}", team), cand)
            except RuleError:
                continue
            log.append(("order", team, cand))
        events = list(events)
        _check_stacking(state)
        _check_fog(before, state, events)
        for e in events:  # issue 14: every event and view has the protocol's shape
            CONTINENTAL_EVENTS[e.kind].model_validate(dict(e.data))
        ContinentalView.model_validate(ENGINE.view(state, team_viewer(team)))
    replay, _ = ENGINE.setup(_cfg(level, deception), seed)
    for what, team, cand in log:
        if what == "end":
            replay, _ = ENGINE.end_turn(replay, team, flagged=False)
        else:
            replay, _ = ENGINE.apply(replay, Actor(f"p-{team}", team), cand)
    assert ENGINE.dump(replay) == ENGINE.dump(state)
    assert ENGINE.dump(ENGINE.load(ENGINE.dump(state))) == ENGINE.dump(state)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-100, 100) | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=10,
)
_TYPES = ["move", "turn", "frontage", "march", "transfer", "split", "merge", "reassign", "formation", "attack",
          "strike", "posture", "deploy", "army", "cover", "mobilization_points", "regulation", "question",
          "propose_peace", "answer_peace", "capitulate", "nonsense"]
_FIELDS = ["unit", "units", "path", "facing", "width", "to", "regiment", "formation", "orientation", "target",
           "echelons", "support", "advance", "mode", "confirm", "on_attack", "cell", "name", "cover", "cities",
           "text", "kind", "feature", "border", "proposal", "accept"]


@settings(max_examples=150, deadline=None)
@given(level=st.sampled_from([1, 2, 3]), planning=st.booleans(), kind=st.sampled_from(_TYPES),
       fields=st.dictionaries(st.sampled_from(_FIELDS), _JSON | st.sampled_from(["r5RD", "b5RD", [44, 21]]),
                              max_size=5))
def test_hostile_orders_get_typed_errors_and_change_nothing(level: int, planning: bool, kind: str,
                                                           fields: dict[str, Any]) -> None:
    state, _ = ENGINE.setup(_cfg(level, True), 3)
    if not planning:
        for team in ("red", "blue"):
            state, _ = ENGINE.end_turn(state, team, flagged=False)
    before = ENGINE.dump(state)
    with contextlib.suppress(RuleError):
        ENGINE.apply(state, Actor("p", "red"), {"type": kind, **fields})
    assert ENGINE.dump(state) == before
