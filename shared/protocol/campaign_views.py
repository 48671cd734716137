"""What a campaign room's `state` is in `snapshot` and `view` messages (issue 14): the Continental War's
(server/continental/fog.py), the Napoleonic campaign's (server/napoleonic/campaign/view.py) and the drill's
(server/drill/engine.py) projection for one viewer class, as typed models for clients, bots and the schema. Tests
validate every view the engines build against them (tests/protocol/test_campaign_shapes.py).

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


class TeamView(_Shape):
    """A team of a campaign (C-1.2): its colour, which names it everywhere, and its number of seats."""

    colour: str
    seats: int


# --- the Continental War ---------------------------------------------------------------------------------------------

class ContinentalPlace(_Shape):
    name: str
    cell: Cell
    kind: str
    state: str | None


class ContinentalLegendView(_Shape):
    """The symbols of the states' rows: symbol → state (null: no state's, the sea)."""

    states: dict[str, str | None]


class ContinentalMapView(_Shape):
    """The map: `terrain` by "x-y" label (plain where absent), the states' rows (a symbol a cell, north first, with
    their `legend`), rivers, roads, railways and tracks as lists of cells, the places."""

    origin: Cell
    size: Cell
    terrain: dict[str, str]
    states: list[str]
    legend: ContinentalLegendView
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


class ReconBudgetView(_Shape):
    """C-8.3: a team's reconnaissance quota (questions' worth), what it has spent, how many answers it was given
    and how many of them were false (D-C-7; the team itself is told the count, not which)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    quota: float
    spent: float
    answers: int
    false_: int = Field(alias="false")


class ReconQuestionView(_Shape):
    """C-8.3: what was asked: `kind` presence, count or arm of a `cell`, locate a `unit` (by name), feature a
    `feature`, or mobilization."""

    kind: str
    cell: Cell | None
    unit: str | None
    feature: str | None


class ReconAnswerView(_Shape):
    """C-8.3: an answer given, numbered in the campaign. `answer` is "yes"/"no", a count, a list of arms, a cell
    label ("45-22") or, for mobilization, the cities by state. The moderator also sees whether it was `false` and
    the `truth` (D-C-7)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    number: int
    team: str
    turn: int
    question: ReconQuestionView
    answer: Any
    cost: float
    false_: bool | None = Field(default=None, alias="false")
    truth: Any = None


class PeaceProposalView(_Shape):
    """C-10.2, C-10.3: a peace proposal, numbered in the campaign: who offered it `to` whom, in which turn, the
    `kind` (the current position, or a compromise with its `border`: [cell, the team it goes to] pairs), and its
    `status` (open, accepted, rejected)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    number: int
    from_: str = Field(alias="from")
    to: str
    kind: str
    turn: int
    border: list[tuple[Cell, str]]
    status: str


class PenaltyView(_Shape):
    """Penalty points charged to a team (C-9.3, C-10.4, C-10.5, or the moderator's): the rule, the reason, the turn."""

    team: str
    points: int
    rule: str
    reason: str
    turn: int


class InterdictionView(_Shape):
    """C-9.7: a cut-off fire laid on `cell` by a team's artillery unit (`by`), its `fraction`, in `turn`."""

    cell: Cell
    team: str
    fraction: float
    by: str
    turn: int


class DefeatView(_Shape):
    """C-10.1: when a team was defeated and how its war ended."""

    turn: int
    end: str


class ContinentalResultView(_Shape):
    """C-10.1, C-10.2: how the campaign ended (`end`: capitulation, annihilation, territory, peace …), the winner
    (null: none, a peace), in which turn, and the teams' victory points."""

    winner: str | None
    end: str
    turn: int
    scores: dict[str, int]


class ClockSettingsView(_Shape):
    """C-1.9, C-5.2 (`rule`): the thinking time the room's clocks give per turn in seconds (the planning phase's
    whole, null: no clock), whether unused time carries over, and the mediator's own at level 3."""

    per_turn: float | None
    accumulate: bool
    mediator: float | None = None
    rule: str


class InterventionsView(_Shape):
    """C-9.4: the turns the moderator intervened in, and whether interventions are limited."""

    turns: list[int]
    limited: bool


class EchelonView(_Shape):
    """A first-echelon army as another side is told of it: at deployment (C-6.2) its `zone` (south-west and
    north-east cells) and number of `corps`; during the war (C-8.1) its number of `divisions`."""

    army: str
    zone: list[Cell] | None = None
    corps: int | None = None
    divisions: int | None = None


class StandingInformationView(_Shape):
    """C-6.2, C-8.1: what every side is told of another: its covering troops' cells, its first-echelon armies,
    the names of its other armies."""

    covering_troops: list[Cell]
    first_echelon: list[EchelonView]
    other_armies: list[str]


class ContinentalTablesView(_Shape):
    """C-T4, D-C-2 (`rule`): km per turn by ground (and `road`, `track_<ground>`) and arm — a number, null
    (impassable) or "tracks" (only along tracks) — and the turns a river crossing takes by arm (null: none);
    C-4.3bis: the turns a facing change takes by degrees ("45" … "180") and ground (`default`; null: impossible),
    with `min_level_45`; C-4.4: the share of the speed a withdrawal keeps at level 3; C-9.8: the arms that make no
    regular strike."""

    speeds_km: dict[str, dict[str, float | str | None]]
    river_crossing_turns: dict[str, float | None]
    turning_turns: dict[str, Any]
    withdrawal_speed_l3: float
    no_regular_strike: list[str]
    rule: str


class ContinentalView(_Shape):
    """A Continental War room's state for one viewer class. Every viewer: the campaign's settings and phase, the
    map, control of cities, closures, penalties, peace and the result. The moderator and spectators also see every
    `units`, `armies` (team → army → its units), `interdictions` and `proposals` (the moderator the orders
    waiting, reconnaissance and the rest); a team its own `units`, the `enemy_units` it has found, its own
    armies, answers, reconnaissance quota, orders waiting (`pending`, level 3), and `standing_information` about
    the others once at war (C-8.1).
    `tables.speeds_km` and `river_crossing_turns` price a path (C-T4, D-C-2)."""

    scenario: str
    title: str
    level: int
    phase: str
    turn: int
    active: list[str]
    teams: list[TeamView]
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
    penalties: list[PenaltyView]
    peace_pairs: list[list[str]]
    result: ContinentalResultView | None
    map: ContinentalMapView
    prisoners: dict[str, int]
    defeated: dict[str, DefeatView]
    clock: ClockSettingsView | None
    tables: ContinentalTablesView
    units: list[ContinentalUnitView] | None = None
    enemy_units: list[ContinentalUnitView] | None = None
    armies: dict[str, dict[str, list[str]]] | None = None
    interdictions: list[InterdictionView] | None = None
    proposals: list[PeaceProposalView] | None = None
    answers: list[ReconAnswerView] | None = None
    recon: ReconBudgetView | dict[str, ReconBudgetView] | None = None
    pending: dict[str, Any] | list[dict[str, Any]] | None = None
    regulations: dict[str, Any] | None = None
    reserves: dict[str, list[tuple[str, int]]] | None = None
    mobilization: dict[str, list[str]] | list[str] | None = None
    interventions: InterventionsView | None = None
    deployment_report: dict[str, StandingInformationView] | None = None
    standing_information: dict[str, StandingInformationView] | None = None


# --- the Napoleonic campaign ----------------------------------------------------------------------------------------

class NapoleonicPlace(_Shape):
    """A place of the scenario: city, capital or fortress, the state it belongs to, a port."""

    name: str
    cell: Cell
    kind: str
    state: str | None = None
    port: bool | None = None


class NapoleonicLegendView(_Shape):
    """The symbols of the terrain rows (symbol → terrain) and of the states (symbol → state, null for none)."""

    terrain: dict[str, str]
    states: dict[str, str | None]


class NapoleonicMapView(_Shape):
    """The scenario's map: terrain rows (a symbol a cell, north first) with their legend, the places, and the roads
    and rivers as lines of cells."""

    origin: Cell
    size: Cell
    terrain: list[str]
    legend: NapoleonicLegendView
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


class SecretModuleView(_Shape):
    """D-N-14: the player who goes to the secret module, for how many minutes, and why."""

    player: str | None
    minutes: float
    reason: str


class GeneralFateView(_Shape):
    """N-VICTORY-3, D-N-14: the losing army's general: killed, captured or survived (the player of a killed or
    captured one goes to the secret module)."""

    army: str
    general: str
    team: str
    player: str | None
    fate: str
    secret_module: SecretModuleView | None = None


class ArmyAfterBattleView(_Shape):
    """An army of the battle after it: its status, where it stood (`from`) and stands, its units left."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    army: str
    team: str
    status: str
    from_: Cell = Field(alias="from")
    cell: Cell
    units: int


class NapoleonicBattleResultView(_Shape):
    """D-L-1, N-VICTORY-1 … 4: a battle's outcome on the campaign map: who won and why, `how` it was decided
    (battle room, quick resolution, capitulation, ruling), the units destroyed and taken prisoner by team, the
    armies after it and the losing general's fate."""

    winner: str
    loser: str
    reason: str
    how: str
    destroyed: dict[str, list[str]]
    prisoners: dict[str, list[str]]
    armies: list[ArmyAfterBattleView]
    general: GeneralFateView | None


class QuickOfferView(_Shape):
    """D-L-2: a quick resolution offered by a team, waiting for the other's answer."""

    offered_by: str


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
    quick: QuickOfferView | None
    result: NapoleonicBattleResultView | None


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


class MovementTableView(_Shape):
    """D-NAP-1: movement points to enter a cell by terrain (an orthogonal step; a diagonal one costs 1.5 times,
    D-GEN-2; null: impassable), the step along a road whatever the terrain, and the extra for a river cell
    without a bridge."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    about: str | None = Field(default=None, alias="_about")
    terrain: dict[str, float | None]
    road_step: float
    river_extra: float


class NapoleonicTablesView(_Shape):
    """The tables a client needs: the movement table (D-NAP-1) and how far a reinforcement may be ordered to a
    battle (N-START-4, D-N-12: 1 to `reinforcement_range` cells)."""

    movement: MovementTableView
    reinforcement_range: int


class NapoleonicView(_Shape):
    """A Napoleonic campaign room's state for one viewer class. Battles, sieges, control and prisoners' counts are
    public; fortifications in progress and interceptions are the viewer's own (all for the moderator and
    spectators). `tables.movement` prices a march (D-NAP-1)."""

    scenario: str
    title: str
    turn: int
    active: list[str]
    teams: list[TeamView]
    map: NapoleonicMapView
    armies: list[NapoleonicArmyView]
    battles: list[NapoleonicBattleView]
    sieges: list[NapoleonicSiegeView]
    control: dict[str, str]
    fortifications: list[FortificationView]
    fortresses_built: list[str]
    prisoners: dict[str, int]
    interceptions: list[InterceptionView]
    tables: NapoleonicTablesView


# --- the drill ------------------------------------------------------------------------------------------------------

class DrillCounterView(_Shape):
    """A counter on the drill's grid: [x, y] grid indices, y growing south (row 0 first)."""

    id: str
    team: str
    x: int
    y: int


class DrillView(_Shape):
    """The drill's state for one viewer class: the grid, the turn, the teams (colours) and those to move, and the
    counters the viewer sees: a team its own and enemies next to one of them, the moderator and spectators all,
    the public none."""

    width: int
    height: int
    turn: int
    teams: list[str]
    active: list[str]
    counters: list[DrillCounterView]
