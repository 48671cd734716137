"""What a campaign room's `state` is in `snapshot` and `view` messages (issue 14): the Continental War's
(server/continental/fog.py) and the Napoleonic campaign's (server/napoleonic/campaign/view.py) projection for one
viewer class, as typed models for clients, bots and the schema. Tests validate every view the engines build
against them (tests/protocol/test_campaign_views.py).

Coordinates: cells are [x, y], x the longitude growing east, y the latitude growing north, counted from the
`map.origin`; terrain rows list the north first (docs/protocol.md, Coordinates). Continental facings are compass
points ("N" … "NW").
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

Cell = Annotated[list[int], Field(min_length=2, max_length=2, description="[x, y], y north")]


class _Shape(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# --- the Continental War ---------------------------------------------------------------------------------------------

class ContinentalPlace(_Shape):
    name: str
    cell: Cell
    kind: str
    state: str | None


class ContinentalMapView(_Shape):
    """The map: `terrain` by "x-y" label (plain where absent), the states' rows (a symbol a cell, north first, with
    their `legend`), rivers, roads, railways and tracks as lists of cells, the places."""

    origin: Cell
    size: Cell
    terrain: dict[str, str]
    states: list[str]
    legend: dict[str, Any]
    rivers: list[Cell]
    roads: list[Cell]
    railways: list[Cell]
    tracks: list[Cell]
    places: list[ContinentalPlace]


class ContinentalUnitView(_Shape):
    """A counter. An enemy known only by its position has the first four fields; one seen has what every side may
    see; the team's own (and all, for the moderator) also carry its orders' state: `route`, time `used` and `debt`,
    `army`, `corps`, `status_until`, `parent`. `regiments` are [arm, rating] pairs; `second` the second cell of a
    wide front (C-4.6)."""

    id: str
    team: str
    cell: Cell
    cover: bool
    name: str | None = None
    arm: str | None = None
    facing: str | None = None
    formation: str | None = None
    orientation: str | None = None
    status: str | None = None
    rating: float | None = None
    full_rating: float | None = None
    regiments: list[list[Any]] | None = None
    second: Cell | None = None
    wide: bool | None = None
    neutral: bool | None = None
    fought: bool | None = None
    struck: bool | None = None
    route: list[Any] | None = None
    used: float | None = None
    debt: float | None = None
    pursuit: float | None = None
    carry: float | None = None
    army: str | None = None
    corps: str | None = None
    status_until: int | None = None
    parent: str | None = None


class ContinentalView(_Shape):
    """A Continental War room's state for one viewer class. Every viewer: the campaign's settings and phase, the
    map, control of cities, closures, penalties, peace and the result. The moderator and spectators also see every
    `units`, `armies`, `interdictions` and `proposals` (the moderator the orders waiting, reconnaissance and the
    rest); a team its own `units`, the `enemy_units` it has found, its own armies, answers, reconnaissance quota,
    orders waiting (`pending`, level 3), and `standing_information` about the others once at war (C-8.1).
    `tables.speeds_km` and `river_crossing_turns` price a path (C-T4, D-C-2)."""

    scenario: str
    title: str
    level: int
    phase: str
    turn: int
    active: list[str]
    teams: list[dict[str, Any]]
    neutrals: list[str]
    house_rules: list[str]
    mediator: str
    refused_order_fine: bool
    recon_deception: bool
    war: bool
    aggressor: str | None
    violators: list[str]
    control: dict[str, str]
    closures: dict[str, dict[str, int]]
    penalties: list[dict[str, Any]]
    peace_pairs: list[list[str]]
    result: dict[str, Any] | None
    map: ContinentalMapView
    prisoners: dict[str, Any]
    defeated: dict[str, Any]
    clock: dict[str, Any] | None
    tables: dict[str, Any]
    units: list[ContinentalUnitView] | None = None
    enemy_units: list[ContinentalUnitView] | None = None
    armies: dict[str, Any] | None = None
    interdictions: list[dict[str, Any]] | None = None
    proposals: list[dict[str, Any]] | None = None
    answers: list[dict[str, Any]] | None = None
    recon: dict[str, Any] | None = None
    pending: dict[str, Any] | list[dict[str, Any]] | None = None
    regulations: dict[str, Any] | None = None
    reserves: dict[str, Any] | None = None
    mobilization: dict[str, Any] | list[Any] | None = None
    interventions: dict[str, Any] | None = None
    deployment_report: dict[str, Any] | None = None
    standing_information: dict[str, Any] | None = None


# --- the Napoleonic campaign ----------------------------------------------------------------------------------------

class NapoleonicPlace(_Shape):
    """A place of the scenario: city, capital or fortress, the state it belongs to, a port."""

    name: str
    cell: Cell
    kind: str
    state: str | None = None
    port: bool | None = None


class NapoleonicMapView(_Shape):
    """The scenario's map: terrain rows (a symbol a cell, north first) with their legend, the places, and the roads
    and rivers as lines of cells."""

    origin: Cell
    size: Cell
    terrain: list[str]
    legend: dict[str, Any]
    places: list[NapoleonicPlace]
    roads: list[list[Cell]]
    rivers: list[list[Cell]]


class TermsView(_Shape):
    """N-SIEGE-8: capitulation terms: the garrison (prisoners, march_out) and its general (captured, released)."""

    garrison: str
    general: str


class InterceptionView(_Shape):
    """N-START-2, D-N-13: an army set to intercept (`by`) may fall on `target`, seen ending a move in `cell`."""

    by: str
    target: str
    cell: Cell
    turn: int


class ArmyUnitView(_Shape):
    """A unit of an army, its campaign values (its morale when its next battle begins)."""

    id: str
    type: str
    morale: int
    loss_tolerance: int
    guns: int
    accuracy: int


class RetreatView(_Shape):
    """N-VICTORY-4: where a beaten army may retreat while its team chooses: up to `cells` from `from`."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    from_: Cell = Field(alias="from")
    cells: int
    battle: str | None
    siege: str | None
    winner: str
    suggested: list[Cell] | None


class NapoleonicArmyView(_Shape):
    """An army. Own armies (all, for the moderator and spectators) in full; an enemy army in sight or in battle
    with the viewer shows its name, general, cell, status and the number of its `units`."""

    id: str
    name: str
    team: str
    general: str | None
    cell: Cell
    status: str
    units: list[ArmyUnitView] | int
    seat: int | None = None
    points: float | None = None
    max_points: float | None = None
    base: str | None = None
    intercept: bool | None = None
    support: bool | None = None
    battle: str | None = None
    retreat: RetreatView | None = None


class NapoleonicBattleView(_Shape):
    """A battle on the campaign map: `status` contact (the defender answers, N-START-3), running (its room is
    open), declined or over; `armies` and `reinforcements` by team; `quick` a quick resolution's state (D-L-2)."""

    id: str
    cell: Cell
    kind: str
    status: str
    attacker: str
    defender: str
    armies: dict[str, list[str]]
    reinforcements: dict[str, list[str]]
    quick: dict[str, Any] | None
    result: dict[str, Any] | None


class NapoleonicSiegeView(_Shape):
    """A siege (N-SIEGE-2 … 8): who besieges and who holds, the first turn of the storm, the sortie, the garrison
    holding, the capitulation terms on the table and who proposed them."""

    fortress: str
    cell: Cell
    phase: str
    battle: str | None
    besieger: str
    garrison: str
    storm_from: int
    sortied: bool
    holds: bool
    proposal: TermsView | None
    proposer: str | None


class FortificationView(_Shape):
    city: str
    army: str
    team: str
    done: int
    needed: int


class NapoleonicView(_Shape):
    """A Napoleonic campaign room's state for one viewer class. Battles, sieges, control and prisoners' counts are
    public; fortifications in progress and interceptions are the viewer's own (all for the moderator and
    spectators). `tables.movement` prices a march (D-NAP-1)."""

    scenario: str
    title: str
    turn: int
    active: list[str]
    teams: list[dict[str, Any]]
    map: NapoleonicMapView
    armies: list[NapoleonicArmyView]
    battles: list[NapoleonicBattleView]
    sieges: list[NapoleonicSiegeView]
    control: dict[str, str]
    fortifications: list[FortificationView]
    fortresses_built: list[str]
    prisoners: dict[str, int]
    interceptions: list[InterceptionView]
    tables: dict[str, Any]
