"""The legal options of a unit or army, as each ruleset answers the `options` request (issue 14).

An engine's `options(state, viewer, unit)` builds plain data of these shapes (engines import nothing of the
protocol); tests validate every answer against these models, and shared/protocol/schema.json carries them for
clients and bots. Every option listed is accepted when ordered at once; what is not offered comes with a refusal
(its order, error code, rule and words). Cells are [x, y]: x to the east; in battle and skirmish rooms y grows to
the south, on campaign maps `y` is the row as the view's `rows` list it (docs/protocol.md, Coordinates).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Cell = Annotated[list[int], Field(min_length=2, max_length=2, description="[x, y]")]


class _Shape(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Refusal(_Shape):
    """Why an order is not offered: `order` is the order type ("*": none at all now; "formation" refusals start
    their message with the formation's name and a colon), `code` an error code of the `error` message."""

    order: str
    code: str
    rule: str | None
    message: str


class Reach(_Shape):
    """A battle move the unit can make: to anchor `to` along `path` (the cells after the start, each a neighbour
    of the last), costing `cost` points, `points_left` after it; `road`: with the road's +2 (N-TERRAIN-6);
    `contact`: the enemy units it touches there (the move stops; a cavalry move here may be a charge);
    `halts`: the rule of ground that ends the move there (N-SIEGE-12), else null."""

    to: Cell
    path: list[Cell]
    cost: float
    points_left: float
    road: bool
    contact: list[str]
    halts: str | None


class Placing(_Shape):
    """Where a turn or formation change puts the unit: anchor, facing (0–7, 0 north, clockwise), formation, its
    cost; `carried`: it costs more than the points left and completes next turn (D-N-10)."""

    to: Cell
    facing: Annotated[int, Field(ge=0, le=7)]
    formation: str
    cost: float
    carried: bool


class Wheel(Placing):
    degrees: Literal[-90, -45, 45, 90]


class Target(_Shape):
    """A round-shot target (N-ART-7) and its distance in the company's zone (null: limbered, not yet in range)."""

    unit: str
    distance: int | None


class BattleOptions(_Shape):
    """A battle unit's options (`unit` null: the army's — its retreat, N-VICTORY-2). `active`: the side may give
    orders now (else `refused` holds one "*" refusal). Orders built from it: move/charge {unit, path},
    leave_melee {unit, path}, wheel {unit, degrees}, about_face {unit}, formation {unit, formation} (limber /
    unlimber for guns), targets {unit, targets: [{unit, guns}]}, barrage {unit}, retreat {}."""

    unit: str | None
    side: str
    active: bool
    refused: list[Refusal]
    points: float
    moves: list[Reach]
    charge: bool
    leave_melee: list[Reach]
    wheels: list[Wheel]
    about_face: Placing | None
    formations: list[Placing]
    targets: list[Target]
    max_targets: int
    guns: int
    barrage: bool
    retreat: bool


class SkirmishOptions(_Shape):
    """The skirmish side's legal orders now (server/skirmish/options.py: `legal_orders`): `orders` lists, per body
    it may order, the actions, figures, reachable cells (full and half move) and targets, or the decision,
    terrain or deployment step it is at."""

    side: str
    stage: str
    active: bool
    orders: list[dict[str, Any]]
    orders_left: int | None = None


class March(_Shape):
    """A campaign cell an army can march to this turn: the path (cells after the start), its cost in the
    ruleset's units (movement points, or days), and what the destination holds, when known."""

    to: Cell
    path: list[Cell]
    cost: float
    note: str | None = None


class ArmyOptions(_Shape):
    """A campaign army's options (`unit` the army's id; null: the team's — the armies it may order)."""

    unit: str | None
    side: str
    active: bool
    refused: list[Refusal]
    armies: list[str] = Field(default_factory=list)
    points: float | None = None
    marches: list[March] = Field(default_factory=list)
    orders: list[str] = Field(default_factory=list)


OPTIONS_MODELS: dict[str, type[BaseModel]] = {"battle": BattleOptions, "siege": BattleOptions,
                                              "skirmish": SkirmishOptions, "napoleonic": ArmyOptions,
                                              "campaign": ArmyOptions}
"""The options model of each engine kind that answers options."""
