"""Placing the terrain before deployment (S-3.4, D-S-2).

The players roll a d6 each (defender first); the total — or the number the scenario or the group agreed — is the
count of elements. They place them alternately, defender first, anywhere outside 5 cells of a table edge, each
element a rectangle of one kind (house 2 × 2 to 3 × 4, wood, bushes, wall, hedge, road; rules.ELEMENT_SIZES).
Either player may ask the server to place the rest: a d6 picks each one's kind (rules.AUTO_TERRAIN), further
rolls its size, turn and place; a place that overlaps another element is rolled again, at most 10 times.
"""

from __future__ import annotations

from server.core.errors import IllegalOrder, NotYourTurn

from .log import Log
from .orders import PlaceTerrain
from .rules import AUTO_TERRAIN, ELEMENT_SIZES
from .state import DEPLOY, SkirmishState
from .table import Element

PLACE_TRIES = 10


def begin(s: SkirmishState, log: Log) -> None:
    """The count of elements (D-S-2), then the defender places the first."""
    count = s.settings.terrain_count
    if count is None:
        count = 0
        for team in (s.defender.team, s.attacker.team):
            count += log.die("terrain_count", side=team)
    s.terrain_left = count
    s.terrain_next = s.defender.team
    log.emit("terrain_count", None, count=count, placer=s.terrain_next if count else None, rule="D-S-2")
    if not count:
        to_deployment(s, log)


def _new_id(s: SkirmishState, kind: str) -> str:
    n = 1 + sum(1 for e in s.table.elements if e.kind == kind)
    while s.table.element(f"{kind}-{n}") is not None:
        n += 1
    return f"{kind}-{n}"


def place(s: SkirmishState, log: Log, team: str, cmd: PlaceTerrain) -> None:
    if s.terrain_next != team:
        raise NotYourTurn(f"{s.terrain_next} places the next terrain element", rule="D-S-2")
    if cmd.kind not in ELEMENT_SIZES:
        raise IllegalOrder(f"no terrain element {cmd.kind!r}; known: {', '.join(ELEMENT_SIZES)}", rule="D-S-2")
    e = Element(_new_id(s, cmd.kind), cmd.kind, cmd.x, cmd.y, cmd.w, cmd.h, by=team)
    s.table = s.table.with_element(e, margin=s.settings.terrain_margin)
    log.emit("terrain_placed", None, element=e.dump(), rule="D-S-2")
    _next(s, log)


def _next(s: SkirmishState, log: Log) -> None:
    s.terrain_left -= 1
    if s.terrain_left <= 0:
        to_deployment(s, log)
    else:
        s.terrain_next = s.enemy(str(s.terrain_next))


def _pick(log: Log, low: int, high: int, what: str) -> int:
    if high <= low:
        return low
    return low + log.die("terrain", faces=high - low + 1, what=what) - 1


def place_rest(s: SkirmishState, log: Log) -> None:
    """D-S-2: the server places the remaining elements from the room's dice."""
    log.emit("terrain_by_server", None, count=s.terrain_left, rule="D-S-2")
    margin = s.settings.terrain_margin
    while s.terrain_left > 0:
        kind = AUTO_TERRAIN[log.die("terrain", what="kind") - 1]
        size = ELEMENT_SIZES[kind]
        a = _pick(log, size.short_min, size.short_max, "short side")
        b = _pick(log, max(a, size.long_min), size.long_max, "long side")
        w, h = (a, b) if _pick(log, 1, 2, "turn") == 1 else (b, a)
        for _ in range(PLACE_TRIES):
            x = _pick(log, margin, s.table.width - margin - w, "x")
            y = _pick(log, margin, s.table.height - margin - h, "y")
            e = Element(_new_id(s, kind), kind, x, y, w, h, by="server")
            try:
                s.table = s.table.with_element(e, margin=margin)
            except IllegalOrder:
                continue
            log.emit("terrain_placed", None, element=e.dump(), rule="D-S-2")
            break
        else:
            log.emit("terrain_skipped", None, kind=kind, rule="D-S-2")
        s.terrain_left -= 1
    to_deployment(s, log)


def to_deployment(s: SkirmishState, log: Log) -> None:
    s.terrain_left = 0
    s.terrain_next = None
    s.stage = DEPLOY
    log.emit("deployment", None, first=s.defender.team, rule="S-3.2")
