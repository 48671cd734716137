"""A new campaign, planned from its creation request: seats and their players, one token per seat plus the
moderator's and the spectators', the grants the store keeps (token hashes only), and the setup of its rooms."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from server.clock import ClockSettings
from server.core.registry import Registry
from server.core.turns import in_turn_order
from server.rooms.errors import RoomError
from server.rooms.ids import RoomId
from server.rooms.members import Member
from server.rooms.seats import new_token, token_hash
from server.rooms.state import LOCKOUT_MS
from shared.protocol.configs import ENGINE_CONFIGS


@dataclass(frozen=True, slots=True)
class CampaignPlan:
    meta: dict[str, Any]  # what the lobby and the sessions read
    grants: dict[str, dict[str, Any]]  # sha256(token) → Member
    rooms: dict[str, dict[str, Any]]  # room id → setup record body
    answer: dict[str, Any]  # for the creator: tokens in clear


@dataclass(frozen=True, slots=True)
class Tokens:
    """A campaign's tokens in clear (handed out once) and the grants the store keeps (their hashes only)."""

    grants: dict[str, dict[str, Any]]  # sha256(token) → Member
    seats: list[dict[str, Any]]  # {team, seat, player, token}, in turn order
    moderator: str
    spectator: str


def issue_tokens(campaign_id: str, teams: Sequence[Mapping[str, Any]]) -> Tokens:
    """A token for each seat of `teams` ({colour, seats}, in turn order; players `<colour>-<seat>`), the moderator's
    and the spectators': at a campaign's creation, and for a campaign imported or forked under new tokens."""
    seats: list[dict[str, Any]] = []
    grants: dict[str, dict[str, Any]] = {}
    for team in teams:
        colour = team["colour"]
        for seat in range(1, int(team["seats"]) + 1):
            token, player = new_token(), f"{colour}-{seat}"
            grants[token_hash(token)] = Member(campaign_id, "player", player, colour, seat).dump()
            seats.append({"team": colour, "seat": seat, "player": player, "token": token})
    moderator, spectator = new_token(), new_token()
    grants[token_hash(moderator)] = Member(campaign_id, "moderator", "moderator").dump()
    grants[token_hash(spectator)] = Member(campaign_id, "spectator", "spectator").dump()
    return Tokens(grants, seats, moderator, spectator)


def plan_campaign(spec: Mapping[str, Any], now_ms: int, engines: Registry) -> CampaignPlan:
    """Seats in turn order (C-1.7: red first), player ids `<colour>-<seat>`, clocks from the level's C-1.9
    defaults under the request's settings, house rules (C-0.3) for the engine. The engine vets the setup here, so
    a config it refuses is refused before anything is stored."""
    engine_name = str(spec.get("scenario") or "drill")
    if engine_name not in engines.names():
        raise KeyError(f"no campaign engine or scenario {engine_name!r}; known: {', '.join(engines.names())}")
    engine = engines.find(engine_name)
    user_config = dict(spec.get("config") or {})
    model = ENGINE_CONFIGS.get(engine.kind)
    if model is not None:
        model.model_validate(user_config)  # issue 12 §11: bounded, or a pydantic ValidationError (a 400)
    elif user_config:
        raise RoomError("bad_message", f"the {engine_name} engine takes no config")
    level = int(spec.get("level", 1))
    campaign_id = secrets.token_hex(5)
    teams = list(in_turn_order([t["colour"] for t in spec["teams"]]))
    tokens = issue_tokens(campaign_id, sorted(spec["teams"], key=lambda t: teams.index(t["colour"])))
    seats, grants = tokens.seats, tokens.grants
    moderator_token, spectator_token = tokens.moderator, tokens.spectator
    players = {s["player"]: s["team"] for s in seats}
    clock: dict[str, Any] | None = None
    if spec.get("clock") is not None:
        chosen = {k: v for k, v in spec["clock"].items() if v is not None}
        clock = ClockSettings.load({**ClockSettings.for_level(level).dump(), **chosen}).dump()
    meta: dict[str, Any] = {
        "id": campaign_id, "name": spec.get("name") or f"Campaign {campaign_id}", "scenario": engine_name,
        "level": level, "teams": [{"colour": c, "seats": sum(1 for s in seats if s["team"] == c)} for c in teams],
        "clock": clock, "house_rules": list(spec.get("house_rules") or []), "public": bool(spec.get("public", True)),
        "created_ms": now_ms,
    }
    ai_teams = {t["colour"] for t in spec["teams"] if t.get("ai")}
    ai = [s["player"] for s in seats if s["team"] in ai_teams]  # issue 18: seats the AI plays from the start
    if ai:
        meta["ai"] = ai
    if spec.get("open_spectating"):
        meta["spectator_token"] = spectator_token  # deliberately public: the lobby hands it to anyone
    # D-N-14, issue 12 §7: one lockout setting, honoured by the moderator's lockout (the room's `lockout_ms`) and by
    # the engine's, when a general falls or is captured (its config's `lockout_minutes`)
    lockout_minutes = float(spec.get("lockout_minutes", LOCKOUT_MS / 60_000))
    config = engines.config(engine_name, {**user_config, "teams": meta["teams"], "level": level,
                                         "house_rules": meta["house_rules"], "lockout_minutes": lockout_minutes})
    seed = secrets.randbits(62)
    engine.setup(config, seed)
    lockout_ms = int(lockout_minutes * 60_000)
    rooms: dict[str, dict[str, Any]] = {
        RoomId.campaign_room(campaign_id): {
            "engine": engine_name, "campaign": campaign_id, "teams": teams, "players": players, "clock": clock,
            "seed": seed, "lockout_ms": lockout_ms, "config": config,
            "clocks_paused": bool(spec.get("clocks_paused", False)),
            "spectating": {"full": bool(spec.get("spectators_see_all", False)),
                           "delay_ms": int(float(spec.get("spectator_delay_minutes", 10)) * 60_000)},
            "public_replays": bool(spec.get("public_replays", True)), "ai": ai,
            **({"ai_stand_in_ms": int(float(spec["ai_stand_in"]) * 60_000)}
               if spec.get("ai_stand_in") is not None else {}),
        },
        RoomId.secret_room(campaign_id): {
            "engine": None, "campaign": campaign_id, "teams": teams, "players": players, "clock": None,
        },
    }
    answer = {"campaign": campaign_id, "room": RoomId.campaign_room(campaign_id), "meta": meta, "seats": seats,
              "moderator_token": moderator_token, "spectator_token": spectator_token}
    return CampaignPlan(meta, grants, rooms, answer)
