"""What a `POST /api/campaigns` may set in `config`, per engine (issue 12 §11): one pydantic model each, every field
bounded, unknown fields refused — so that nothing a request can set makes a join, view or command cost more than a
bounded amount (a drill with `counters: 10000` froze a server 30 s at its first join). The engine still judges what
the rules say about a value (e.g. the Continental engine's `module` C-0.1, `mediator` C-1.3/C-1.4): these models
bound sizes and shapes. The server adds `teams`, `level`, `house_rules` and `lockout_minutes` itself."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from shared.protocol.http import ClockSpec

Name = Annotated[str, Field(min_length=1, max_length=64)]
Small = Annotated[int, Field(ge=0, le=1_000)]

DRILL_MAX_SIDE = 32
DRILL_MAX_COUNTERS = DRILL_MAX_SIDE // 2  # a team's counters stand on every second cell of its row
NAPOLEONIC_MAX_ARMIES = 24  # per power (the 1813 scenario has 9 at most)
NAPOLEONIC_MAX_UNITS = 60  # per army: a battle room deploys them on its 70x70 field


class _Config(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class DrillConfig(_Config):
    """The drill (the rooms' test game): a board, counters per team in its home row, an optional turn limit."""

    width: Annotated[int, Field(ge=2, le=DRILL_MAX_SIDE)] = 8
    height: Annotated[int, Field(ge=2, le=DRILL_MAX_SIDE)] = 8
    counters: Annotated[int, Field(ge=1, le=DRILL_MAX_COUNTERS)] = 2
    max_turns: Small = 0

    @model_validator(mode="after")
    def _fit(self) -> DrillConfig:
        if 2 * self.counters > self.width:
            raise ValueError(f"{self.counters} counters do not fit a row {self.width} cells wide")
        return self


class ContinentalConfig(_Config):
    """The Continental War (docs/campaign.md): the engine checks each value against its rule."""

    scenario: Name | None = None
    mediator: Annotated[str, Field(max_length=16)] = "server"
    module: Annotated[int, Field(ge=0, le=99)] = 1
    forces: Annotated[str, Field(max_length=16)] = "preset"
    penalise_refused_orders: bool = False
    recon_deception: bool = False


class UnitSpec(_Config):
    id: Name
    type: Annotated[str, Field(max_length=32)]
    morale: Annotated[int, Field(ge=0, le=20)] | None = None
    loss_tolerance: Annotated[int, Field(ge=0, le=20)] | None = None
    guns: Annotated[int, Field(ge=0, le=100)] | None = None
    accuracy: Annotated[int, Field(ge=0, le=20)] | None = None


class ArmySpec(_Config):
    id: Name
    name: Annotated[str, Field(max_length=80)] | None = None
    general: Annotated[str, Field(max_length=80)] | None = None
    seat: Annotated[int, Field(ge=1, le=3)] = 1
    cell: Annotated[list[Annotated[int, Field(ge=0, le=1_000)]], Field(min_length=2, max_length=2)]
    movement_points: Annotated[float, Field(ge=0, le=50)] = 6
    base: Name | None = None
    intercept: bool = False
    support: bool = False
    units: Annotated[list[UnitSpec], Field(min_length=1, max_length=NAPOLEONIC_MAX_UNITS)]


class NapoleonicConfig(_Config):
    """The Napoleonic campaign (docs/napoleonic.md): its order of battle may be replaced, its battles' clock set."""

    scenario: Name | None = None
    armies: Annotated[dict[Annotated[str, Field(max_length=16)],
                           Annotated[list[ArmySpec], Field(max_length=NAPOLEONIC_MAX_ARMIES)]],
                      Field(max_length=4)] | None = None
    battle_clock: ClockSpec | None = None


class SkirmishConfig(_Config):
    """A skirmish scenario: house rules over its settings (the engine's `Settings` bounds each: the table is 10 to
    200 cells a side, D-S-1)."""

    settings: Annotated[dict[Annotated[str, Field(max_length=32)], Any], Field(max_length=40)] | None = None


ENGINE_CONFIGS: dict[str, type[_Config]] = {
    "drill": DrillConfig, "campaign": ContinentalConfig, "napoleonic": NapoleonicConfig,
    "skirmish": SkirmishConfig,
}
"""By the engine's kind (`Engine.kind`): the model a request's config for it must fit."""
