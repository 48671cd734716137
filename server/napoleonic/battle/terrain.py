"""The tactical map: terrain kinds as a data table and the 70×70 field (N-START-1, N-TERRAIN-1 … N-TERRAIN-6).

A cell has a cover kind (open, road, forest, settlement, river, …) and an elevation (0 = flat ground, 1+ = hill
levels); "hill" is elevation above 0, and a step between different elevations is a slope (N-TERRAIN-4).
Kinds are rows of `TERRAIN`; the siege rules add theirs (wall, ditch) with `register_terrain` — no engine change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

FIELD_SIZE = 70
"""N-START-1: the tactical map is 70×70 cells."""


@dataclass(frozen=True, slots=True)
class TerrainKind:
    """One kind of cover. `passable` names the arms that may enter (N-TERRAIN-1/2/3). `speed_cap` caps a unit
    type's (or arm's) speed inside it (N-TERRAIN-2/3); `speed_delta` changes it (N-TERRAIN-5; keys as for caps,
    "*" for all). `blocks_sight`: woods and settlements stop fire and sight (D-N-7). `accuracy_penalty`: round
    shot at a unit standing in it (N-HIT-1). `forbids` formations (N-TERRAIN-5: no line in a settlement).
    `no_charge` (N-TERRAIN-5), `no_artillery_fire` from it (N-TERRAIN-5), `is_road` (N-TERRAIN-6).
    Hooks for the siege rules: `ends_move` (the ditch, N-SIEGE-12: an order that brings a unit onto it from ground
    with none of it ends the unit's move for the turn), `enter_cost` (extra points to step onto it: the wall's
    3-point climb, N-SIEGE-10), `range_bonus` per arm for a shooter whose front rank stands on it (infantry on the
    wall +2, N-SIEGE-10); `rule`: the rule that gives the kind its effects (named by the errors and events)."""

    code: int
    name: str
    symbol: str
    passable: frozenset[str]
    speed_cap: Mapping[str, int] = field(default_factory=dict)
    speed_delta: Mapping[str, int] = field(default_factory=dict)
    blocks_sight: bool = False
    accuracy_penalty: int = 0
    forbids: frozenset[str] = frozenset()
    no_charge: bool = False
    no_artillery_fire: bool = False
    is_road: bool = False
    ends_move: bool = False
    enter_cost: float = 0.0
    range_bonus: Mapping[str, int] = field(default_factory=dict)
    rule: str = "N-TERRAIN-1"


ALL_ARMS = frozenset({"infantry", "cavalry", "artillery"})
NONE: frozenset[str] = frozenset()

TERRAIN: list[TerrainKind] = [
    TerrainKind(0, "open", ".", ALL_ARMS),
    TerrainKind(1, "road", "=", ALL_ARMS, is_road=True),
    TerrainKind(
        2, "light_forest", "f", frozenset({"infantry", "cavalry"}),
        speed_cap={"infantry": 2, "light_cavalry": 8, "heavy_cavalry": 6}, blocks_sight=True, accuracy_penalty=1,
    ),
    TerrainKind(
        3, "dense_forest", "F", frozenset({"infantry"}), speed_cap={"infantry": 1}, blocks_sight=True,
        accuracy_penalty=1,
    ),
    TerrainKind(
        4, "settlement", "S", ALL_ARMS, speed_delta={"*": -2, "foot_artillery": -1}, blocks_sight=True,
        accuracy_penalty=1, forbids=frozenset({"line"}), no_charge=True, no_artillery_fire=True,
    ),
    TerrainKind(5, "river", "~", NONE),
    TerrainKind(6, "crossing", "+", ALL_ARMS, is_road=True),
    TerrainKind(7, "mountain", "M", NONE),
    TerrainKind(8, "water", "W", NONE),
    TerrainKind(9, "marsh", "m", NONE),
]
BY_NAME: dict[str, TerrainKind] = {t.name: t for t in TERRAIN}
BY_SYMBOL: dict[str, TerrainKind] = {t.symbol: t for t in TERRAIN}


def register_terrain(kind: TerrainKind) -> TerrainKind:
    """Hook for rule variants (sieges: wall, ditch, parallels): add a terrain kind; it gets the next free code
    (its own `code` is ignored). Registering the same kind again returns the registered one."""
    known = BY_NAME.get(kind.name)
    if known is not None and replace(known, code=kind.code) == kind:
        return known
    if known is not None or kind.symbol in BY_SYMBOL:
        raise ValueError(f"terrain {kind.name!r} clashes with an existing name or symbol")
    kind = replace(kind, code=len(TERRAIN))
    TERRAIN.append(kind)
    BY_NAME[kind.name] = kind
    BY_SYMBOL[kind.symbol] = kind
    return kind


@dataclass(frozen=True, slots=True)
class BattleMap:
    """The field: `cover[y*width + x]` is a terrain code, `elevation[...]` the hill level. Immutable, shared."""

    width: int
    height: int
    cover: bytes
    elevation: bytes

    @classmethod
    def open_field(cls, width: int = FIELD_SIZE, height: int = FIELD_SIZE) -> BattleMap:
        return cls(width, height, bytes(width * height), bytes(width * height))

    @classmethod
    def from_rows(cls, rows: Sequence[str], elevation: Sequence[str] | None = None) -> BattleMap:
        """Parse a map drawn as text: one string per row, one terrain symbol per cell; elevation as digit rows."""
        height = len(rows)
        width = len(rows[0]) if rows else 0
        if not height or any(len(r) != width for r in rows):
            raise ValueError("map rows must be non-empty and of equal length")
        try:
            cover = bytes(BY_SYMBOL[ch].code for row in rows for ch in row)
        except KeyError as exc:
            raise ValueError(f"unknown terrain symbol {exc.args[0]!r}") from None
        if elevation is None:
            elev = bytes(width * height)
        else:
            if len(elevation) != height or any(len(r) != width for r in elevation):
                raise ValueError("elevation rows must match the map")
            elev = bytes(int(ch) for row in elevation for ch in row)
        return cls(width, height, cover, elev)

    def rows(self) -> list[str]:
        w = self.width
        return ["".join(TERRAIN[c].symbol for c in self.cover[y * w:(y + 1) * w]) for y in range(self.height)]

    def elevation_rows(self) -> list[str]:
        w = self.width
        return ["".join(str(e) for e in self.elevation[y * w:(y + 1) * w]) for y in range(self.height)]

    def on_map(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height

    def kind(self, x: int, y: int) -> TerrainKind:
        return TERRAIN[self.cover[y * self.width + x]]

    def height_at(self, x: int, y: int) -> int:
        return self.elevation[y * self.width + x]

    def is_hill(self, x: int, y: int) -> bool:
        """N-TERRAIN-4: a hill cell is any cell above the plain."""
        return self.elevation[y * self.width + x] > 0

    def dump(self) -> dict[str, Any]:
        return {"width": self.width, "height": self.height, "rows": self.rows(), "elevation": self.elevation_rows()}

    @classmethod
    def load(cls, data: Mapping[str, Any]) -> BattleMap:
        return cls.from_rows(list(data["rows"]), data.get("elevation"))
