"""What a battle (or storm) room's `state` is in `snapshot` and `view` messages (issue 14): the battle engine's
projection for one viewer class (server/napoleonic/battle/view.py), as typed models for clients, bots and the
schema. Tests validate every view the engine builds against them (tests/protocol/test_views.py).

Coordinates: cells are [x, y], x east, y south (row 0 of `map.rows` is the north edge); facings 0–7, 0 north,
clockwise (docs/protocol.md, Coordinates).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Cell = Annotated[list[int], Field(min_length=2, max_length=2, description="[x, y]")]


class _Shape(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class BattleMapView(_Shape):
    """The field: one character a cell per row, north first (the terrain's symbols: docs/battle.md), and the
    heights as digits."""

    width: int
    height: int
    rows: list[str]
    elevation: list[str]


class BattleSideView(_Shape):
    name: str
    edge: str
    attacker: bool
    retreat_turn: int | None
    retreat_free_turns: int
    general: str


class BattleUnitView(_Shape):
    """A unit as the viewer sees it. An enemy seen in a battle with hidden information shows only the first
    fields; an own unit (or everything, for the moderator and spectators) has them all: effective `morale`
    (null for guns), `points` left this turn, a `busy` order carried over (D-N-10), round-shot `targets` as
    [unit, guns], `move_ended`: the rule that ended its move this turn."""

    id: str
    side: str
    type: str
    status: str
    x: int
    y: int
    facing: Annotated[int, Field(ge=0, le=7)]
    formation: str
    cells: list[Cell]
    morale: int | None = None
    base_morale: int | None = None
    loss_tolerance: int | None = None
    guns: int | None = None
    accuracy: int | None = None
    points: float | None = None
    busy: dict[str, Any] | None = None
    targets: list[list[Any]] | None = None
    barrage_turns: int | None = None
    losses: int | None = None
    move_ended: str | None = None
    fire_ruling: dict[str, Any] | None = None


class MeleeView(_Shape):
    a: str
    b: str
    since: int
    rounds: int
    charge: dict[str, int]
    struck: str
    sector: str


class ReinforcementView(_Shape):
    group: str
    side: str
    distance: int
    edge: str
    units: list[str]
    status: str
    rows: list[int] | None


class UnitTypeView(_Shape):
    """The rules' base values of a unit type (N-INF-1, N-CAV-2, N-ART-2; server/napoleonic/battle/units.py)."""

    arm: str
    firepower: int
    range: int
    melee: int
    charge: int
    speed: int
    morale: int
    loss_tolerance: int
    guns: int
    accuracy: int
    hit_table: str
    formations: list[str]
    default_formation: str
    round_shot_multiplier: int
    fires_over: bool
    can_move: bool
    in_field_limit: bool


class CharacteristicsView(_Shape):
    """What a player needs of the rules for the units on the field (issue 14): per unit type its values, per
    formation of their arms its footprint and effects, formation change costs by arm ("line>square"), and the fire
    rules' ranges and hit tables."""

    unit_types: dict[str, UnitTypeView]
    formations: list[dict[str, Any]]
    formation_change_cost: dict[str, dict[str, float]]
    about_face_cost: float
    canister_range: int
    close_range: int
    charge_run: int
    hill_range_bonus: dict[str, int]
    hit_tables: dict[str, Any]


class StormFortressView(_Shape):
    city: str
    port: bool
    blockade: Any
    gun_positions: Any
    town_depth: Any


class StormView(_Shape):
    """A storm's fortress (N-SIEGE-5 … 13): the sides, the wall `sections` (the forts and the stretches of wall
    between the breaches) as their cells, fortress `guns` by the section they stand on, the `breaches` and `forts`,
    the `legend` of the siege map's own symbols, and (for the besieger, or everyone when nothing is hidden) the
    `ladders` set up: unit → turn."""

    fortress: StormFortressView
    besieger: str
    garrison: str
    sections: dict[str, list[Cell]]
    guns: dict[str, Any]
    breaches: list[Any]
    forts: list[Any]
    legend: dict[str, str]
    ladders: dict[str, int] | None = None


class BattleResultUnitView(_Shape):
    """A unit after the battle (N-MORALE-7, D-N-14): its status (in_line, destroyed, prisoner, taken …), morale,
    loss tolerance, guns and losses, whether it arrived on the field; in a storm whether it was a howitzer or a
    fortress gun (N-SIEGE-9)."""

    id: str
    side: str
    type: str
    status: str
    morale: int | None
    loss_tolerance: int
    guns: int
    losses: float
    arrived: bool
    howitzer: bool | None = None
    fortress_gun: bool | None = None


class StormOutcomeView(_Shape):
    """N-SIEGE-7, N-SIEGE-8: the storm's outcome: the fortress, the winner's role (besieger, garrison), whether it
    capitulated, the terms (pending while they are agreed), the units still in the town, the howitzers."""

    fortress: str
    winner_role: str
    capitulated: bool
    terms: str | None
    in_town: list[str]
    howitzers: list[str]


class BattleResultView(_Shape):
    """D-L-1, N-VICTORY-1 … 4: the battle's result, what the campaign consumes: the winner and loser, why and in
    which turn, who retreats (null: nobody, a stormed garrison) and how far, the losing general and whether he
    fell, every unit after the battle, prisoners and guns taken by team; a storm's `siege` outcome."""

    winner: str
    loser: str
    reason: str
    turn: int
    retreats: str | None
    retreat_cells: int
    general: str
    general_killed: bool
    units: list[BattleResultUnitView]
    prisoners: dict[str, list[str]]
    guns_taken: dict[str, int]
    siege: StormOutcomeView | None = None


class BattleView(_Shape):
    """A battle room's state for one viewer class. `active`: the side in its order phase (null once over);
    `characteristics`: the rules' values of the unit types on the field and their formations (issue 14); `siege`:
    a storm's fortress, walls and guns (storm rooms only)."""

    kind: Literal["battle", "siege"]
    map: BattleMapView
    turn: int
    turn_limit: int
    order: list[str]
    phase: int
    active: str | None
    sides: list[BattleSideView]
    result: BattleResultView | None
    hidden: bool
    characteristics: CharacteristicsView
    units: list[BattleUnitView]
    melees: list[MeleeView]
    reinforcements: list[ReinforcementView]
    siege: StormView | None = None


VIEW_MODELS: dict[str, type[BaseModel]] = {"battle": BattleView, "siege": BattleView}
"""The view model of each engine kind that has one."""
