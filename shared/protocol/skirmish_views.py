"""What a skirmish room's `state` is in `snapshot` and `view` messages (issue 14): the skirmish engine's projection
for one viewer class (server/skirmish/view.py), as typed models for clients, bots and the schema. Tests validate
every view the engine builds along random games against them (tests/protocol/test_skirmish_shapes.py).

Coordinates: cells are [x, y] on the table (5 cm each, D-S-1), x east, y south from the north-west corner; a
figure's `facing` is a compass point ("n" … "nw"; docs/protocol.md, Coordinates).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

Cell = Annotated[list[int], Field(min_length=2, max_length=2, description="[x, y], y south")]


class _Shape(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SkirmishElementView(_Shape):
    """A terrain element (D-S-2): its kind, its rectangle of cells, whether it is the objective, who placed it
    (`scenario`, a team, or `server`)."""

    id: str
    kind: str
    x: int
    y: int
    w: int
    h: int
    objective: bool
    by: str


class SkirmishTableView(_Shape):
    width: int
    height: int
    elements: list[SkirmishElementView]


class SkirmishSideView(_Shape):
    """A side (public, D-GEN-1): the team playing it, its role and table edge, its order dice this turn (rolled,
    left, given: S-5.2) and its victory points."""

    team: str
    name: str
    nation: str
    role: str
    edge: str
    orders_rolled: int
    orders_left: int
    orders_given: int
    deployed: bool
    points: int


class SkirmishResultView(_Shape):
    """D-S-15: who won, why, in which turn, and the sides' points."""

    winner: str | None
    reason: str
    turn: int
    points: dict[str, int]


class SkirmishSettingsView(_Shape):
    """Every number of the skirmish (D-S-*; a scenario's settings under the room's house rules), distances in
    cells; the weapons are the view's `weapons`."""

    width: int
    height: int
    turns: int
    terrain_count: int | None
    terrain_margin: int
    defender_zone: int
    attacker_zone: int
    deploy_distance: int
    ambush_zone: int
    ambush_distance: int
    infantry_move: int
    rough_cost: int
    obstacle_cost: int
    tank_rough_cost: int
    tank_turn_cost: int
    soft_cover: int
    hard_cover: int
    six_hits_short: bool
    move_fire_penalty: int
    random_fire_penalty: int
    knock_out_front: int
    knock_out_side: int
    grenade_need: int
    melee_close_weapon: int
    melee_commander: int
    melee_contact: int
    melee_extra: int
    melee_max_rolls: int
    survive_on: int
    morale_losses: list[int]
    morale_hold: int
    morale_commander: int
    objective_radius: int
    pickup_turns: int
    choose_hits: bool
    fog: str


class WeaponView(_Shape):
    """A weapon (D-S-8, D-S-14): short and long range in cells, dice and the number needed at each, the dice
    without an assistant, the minimum range, and what it does (blast, indirect fire, harms vehicles, fires at
    random, crew-served, close combat)."""

    name: str
    short: int
    long: int
    dice_short: int
    dice_long: int
    need_short: int
    need_long: int
    dice_alone: int | None
    min_range: int
    blast: bool
    indirect: bool
    harms_vehicles: bool
    random_fire: bool
    crew_served: bool
    close_combat: bool


class SkirmishTerrainView(_Shape):
    """A kind of ground (D-S-2, D-S-6, D-S-7): cover it gives, whether it blocks sight, the movement multiplier of
    a step into it for infantry and tanks (null: impassable), whether it is an obstacle (wall, hedge)."""

    cover: int
    blocks: bool
    infantry_cost: int
    tank_cost: int | None
    obstacle: bool


class HitsPendingView(_Shape):
    """D-S-9: a side choosing which of its figures take hits (public: who, how many, which tier)."""

    owner: str
    count: int
    tier: str


class SkirmishFigureView(_Shape):
    """A figure the viewer sees. Of its own side's (all, for the moderator and spectators) also whether it has
    been `ordered` this turn, is in `contact`, its fire `group` and the enemies it may not fire at."""

    id: str
    side: str
    unit: str
    role: str
    weapon: str | None
    model: str
    vehicle: str | None
    x: int
    y: int
    facing: str
    cells: list[Cell]
    status: str
    ordered: bool | None = None
    contact: bool | None = None
    group: str | None = None
    no_fire_at: list[str] | None = None


class SkirmishUnitView(_Shape):
    """A unit of the viewer's side (S-8): its commander, members and sub-units, its strength at the start, figures
    lost, morale (D-S-12), whether ordered this turn, and the members in its commander's cohesion (S-8.3)."""

    id: str
    name: str
    kind: str
    parent: str | None
    commander: str | None
    members: list[str]
    children: list[str]
    start: int
    lost: int
    demoralised: bool
    ordered: bool
    in_cohesion: list[str]


class SkirmishGroupView(_Shape):
    """S-8.7: figures a commander leads together."""

    id: str
    commander: str
    members: list[str]


class SkirmishDecisionView(_Shape):
    """D-S-9: the viewer's side chooses `count` of the `candidates` to take hits of `tier`, caused by `cause`."""

    owner: str
    candidates: list[str]
    count: int
    tier: str
    cause: str


class DroppedWeaponView(_Shape):
    """S-8.5: a crew-served weapon dropped in `cell`, to be taken up until turn `until`."""

    weapon: str
    unit: str
    cell: Cell
    until: int


class LastSeenView(_Shape):
    x: int
    y: int
    turn: int


class ReachView(_Shape):
    """D-S-6: the cells a figure could move to (`full`) and move to before firing (`half`)."""

    full: list[Cell]
    half: list[Cell]


class SkirmishView(_Shape):
    """A skirmish room's state for one viewer class. Everyone: the table and its terrain kinds, the settings and
    weapons, the stage and turn, whose order it is (`next`, `active`), the sides and their order dice, the hits a
    side is choosing, the result. The figures the viewer sees (the moderator and spectators all, a side its own
    and the enemies it sees now: D-S-7, never a held-back ambush: D-S-13), its side's units, groups, hits to
    choose (`decision`) and dropped weapons, where it `last_seen` enemies, and for the side to order now the
    `reach` of its figures free to act and the ambushes it may spring (unit → figure → cell)."""

    kind: Literal["skirmish"]
    scenario: str
    table: SkirmishTableView
    objective: str | None
    stage: str
    turn: int
    turns: int
    initiative: str | None
    active: list[str]
    next: str | None
    terrain_left: int
    terrain_next: str | None
    sides: list[SkirmishSideView]
    result: SkirmishResultView | None
    fog: str
    settings: SkirmishSettingsView
    weapons: dict[str, WeaponView]
    hits_pending: HitsPendingView | None
    terrain: dict[str, SkirmishTerrainView]
    figures: list[SkirmishFigureView]
    units: list[SkirmishUnitView]
    groups: list[SkirmishGroupView]
    decision: SkirmishDecisionView | None
    dropped: list[DroppedWeaponView]
    last_seen: dict[str, LastSeenView]
    reach: dict[str, ReachView] | None
    ambushes: dict[str, dict[str, Cell]] | None
