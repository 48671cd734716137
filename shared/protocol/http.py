"""The HTTP API's request and response bodies (JSON): create a campaign, the lobby."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from shared.protocol.bounds import bounded

Colour = Literal["red", "blue", "green", "black"]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TeamSpec(_Body):
    """C-1.2: a team has a colour and 1–3 players (seats)."""

    colour: Colour
    seats: Annotated[int, Field(ge=1, le=3)] = 1
    ai: bool = False  # issue 18: every seat of the team played by the AI from the start ("play against the computer")


class ClockSpec(_Body):
    """Clock settings (server/clock.py); fields left out take the level's C-1.9 defaults."""

    mode: Literal["per_turn", "fischer", "per_turn_reserve"] | None = None
    turn_ms: Annotated[int, Field(ge=1_000, le=86_400_000)] | None = None
    initial_ms: Annotated[int, Field(ge=0, le=604_800_000)] | None = None
    increment_ms: Annotated[int, Field(ge=0, le=86_400_000)] | None = None
    reserve_ms: Annotated[int, Field(ge=0, le=604_800_000)] | None = None
    lag_cap_ms: Annotated[int, Field(ge=0, le=60_000)] | None = None


class CreateCampaign(_Body):
    """POST /api/campaigns. `scenario` names the engine/scenario (GET /api/engines lists them); `clock` null plays
    without clocks; `house_rules` are the agreed changes written down for everyone (C-0.3)."""

    name: Annotated[str, Field(max_length=80)] = ""
    scenario: Annotated[str, Field(min_length=1, max_length=64)] = "drill"
    level: Annotated[int, Field(ge=1, le=3)] = 1
    teams: Annotated[list[TeamSpec], Field(min_length=2, max_length=4)]
    clock: ClockSpec | None = None
    clocks_paused: bool = False  # start with the clocks paused: the moderator starts the game by resuming them
    house_rules: Annotated[list[Annotated[str, Field(max_length=500)]], Field(max_length=50)] = Field(
        default_factory=list)
    public: bool = True
    open_spectating: bool = False  # the lobby lists the spectators' link (anyone, players too, may watch)
    spectators_see_all: bool = False  # issue 12 item 1: the spectators' link shows everything, delayed (else public)
    spectator_delay_minutes: Annotated[float, Field(gt=0, le=24 * 60)] = 10.0
    public_replays: bool = True  # issue 12 item 2: every replay is everyone's once the whole campaign is over
    lockout_minutes: Annotated[float, Field(gt=0, le=24 * 60)] = 20.0
    ai_stand_in: Annotated[float, Field(ge=0, le=24 * 60)] | None = None
    """Issue 18: minutes after a team's turn begins with none of its seats connected before the AI stands in for
    it (the player takes over on return); null: it never does."""
    config: dict[str, Any] = Field(default_factory=dict)

    @field_validator("config")
    @classmethod
    def _loggable(cls, config: dict[str, Any]) -> dict[str, Any]:
        """Issue 12 §14: a config the room's log could not hold (an integer ≥ 2**64, nesting without end) is a 400,
        not a 500 after the campaign was listed; the engine's own model checks its settings (server/engines.py)."""
        why = bounded(config)
        if why is not None:
            raise ValueError(f"config: {why}")
        return config

    @model_validator(mode="after")
    def _teams(self) -> CreateCampaign:
        colours = [t.colour for t in self.teams]
        if len(set(colours)) != len(colours):
            raise ValueError("each team needs its own colour (C-1.2)")
        if not 2 <= sum(t.seats for t in self.teams) <= 10:
            raise ValueError("2 to 10 players take part (C-1.2)")
        return self


class SeatLink(_Body):
    team: str
    seat: int
    player: str
    token: str
    link: str


class CampaignCreated(_Body):
    """The tokens in clear, once: the server keeps only their hashes."""

    campaign: str
    room: str
    moderator_token: str
    moderator_link: str
    spectator_token: str
    spectator_link: str
    seats: list[SeatLink]


class LobbyRoom(_Body):
    id: str
    room: str
    name: str
    scenario: str
    level: int
    teams: list[dict[str, Any]]
    players_online: int
    spectators_online: int
    created_ms: int
    spectator_link: str | None = None  # only for campaigns created with open_spectating
    winner: str | None = None  # a finished battle's winner


class Lobby(_Body):
    campaigns: list[LobbyRoom]
    battles: list[LobbyRoom]
    finished: list[LobbyRoom] = []  # battles fought to their end: their replays and reports open from the lobby


class ReissueToken(_Body):
    """POST /api/campaigns/{id}/tokens, authorized by the moderator's token: replace a lost or leaked token."""

    player: Annotated[str, Field(min_length=1, max_length=64)]


class NameSpectator(_Body):
    """POST /api/campaigns/{id}/spectators, authorized by the moderator's token: a personal spectator token whose
    holder sees everything live (issue 12 item 1); asked again for the same name, the old token stops working."""

    name: Annotated[str, Field(min_length=1, max_length=40, pattern=r"^[\w .'-]+$")]


class TokenReissued(_Body):
    player: str
    token: str
    link: str
