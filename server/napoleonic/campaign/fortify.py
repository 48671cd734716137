"""Building fortresses on the campaign map (N-SIEGE-1 "new fortresses can be built in cities", D-N-16): an army with
at least one artillery company that stays in a city for 10 campaign turns (`tables.json` `fortify_turns`) fortifies
it. The counting is
server.napoleonic.siege.fortress's pure rule (`begin_fortifying`, `fortification_turn`); this module keeps
the work in the campaign state and makes the finished city a fortress that `fortress_at` knows — a port
fortress when the city is on the coast (D-N-16: its resupply by sea cannot be stopped).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from server.continental.grid import Cell, neighbours
from server.core.engine import Event
from server.core.errors import IllegalOrder
from server.napoleonic.battle.units import ARTILLERY, UNIT_TYPES
from server.napoleonic.siege.fortress import (
    NAMED_FORTRESSES,
    Fortification,
    Fortress,
    begin_fortifying,
    fortification_turn,
)

from .events import Ctx
from .records import Army
from .state import GONE, READY, NapoleonicState, cell_of

CITY_KINDS = ("city", "capital", "fortress")  # a fortress city is a city already fortified


def artillery(army: Army) -> int:
    return sum(1 for u in army.units if UNIT_TYPES[u["type"]].arm == ARTILLERY)


def coastal(state: NapoleonicState, city: str) -> bool:
    """A city the scenario marks as a port, or one next to the sea."""
    place = state.map.places[city]
    raw: Mapping[str, Any] = next((p for p in state.scen.raw["map"]["places"] if p["name"] == city), {})
    return bool(raw.get("port")) or any(state.map.contains(n) and state.map.terrain[n] == "sea"
                                        for n in neighbours(place.cell))


def fortress_at(state: NapoleonicState, cell: Cell) -> Fortress | None:
    """N-SIEGE-1: the fortress in a cell (scenario places of kind "fortress", ports from the place's flag; and the
    fortresses built during the campaign, D-N-16)."""
    place = state.map.place_at.get(cell)
    if place is not None and place.name in state.fortresses:
        return Fortress.load(state.fortresses[place.name])
    if place is None or place.kind != "fortress":
        return None
    raw: Mapping[str, Any] = next((p for p in state.scen.raw["map"]["places"] if p["name"] == place.name), {})
    return NAMED_FORTRESSES.get(place.name) or Fortress(place.name, port=bool(raw.get("port")))


def order(ctx: Ctx, army: Army) -> None:
    """D-N-16: the army begins fortifying the city it stands in (in its team's turn)."""
    s = ctx.state
    if army.status != READY:
        raise IllegalOrder(f"{army.id} is {army.status}", rule="D-L-1", details={"army": army.id})
    place = s.map.place_at.get(cell_of(army.cell))
    city = place.name if place is not None else f"{army.cell[0]}-{army.cell[1]}"
    if city in s.fortifications:
        raise IllegalOrder(f"{city} is being fortified already", rule="D-N-16", details={"city": city})
    work, events = begin_fortifying(
        city, army.id, artillery(army), s.turn, is_city=place is not None and place.kind in CITY_KINDS,
        fortified=fortress_at(s, cell_of(army.cell)) is not None,
        coastal=place is not None and coastal(s, city), needed=int(s.tables.get("fortify_turns", 10)))
    s.fortifications[city] = {**work.dump(), "team": army.team}
    _tell(ctx, str(army.team), events)


def moved(ctx: Ctx, army: Army) -> None:
    """D-N-16: the ten turns are spent in the city — an army that marches off abandons its work at once."""
    s = ctx.state
    for city, rec in sorted(s.fortifications.items()):
        if rec["army"] == army.id and cell_of(army.cell) != s.map.places[city].cell:
            del s.fortifications[city]
            ctx.team(str(rec["team"]), "fortifying_abandoned", city=city, army=army.id, reason="army left the city",
                     done=rec["done"], rule="D-N-16")


def end_of_turn(ctx: Ctx) -> None:
    """D-N-16: every fortification counts a campaign turn while its army stays in the city with artillery; the
    tenth makes the city a fortress (held by the builder's power)."""
    s = ctx.state
    for city, rec in sorted(s.fortifications.items()):
        army = s.armies.get(str(rec["army"]))
        here = army is not None and army.status not in GONE and cell_of(army.cell) == s.map.places[city].cell
        work, built, events = fortification_turn(Fortification.load(rec), army_in_city=here,
                                                 artillery=artillery(army) if army is not None else 0)
        _tell(ctx, str(rec["team"]), events)
        if work is not None:
            s.fortifications[city] = {**work.dump(), "team": rec["team"]}
            continue
        del s.fortifications[city]
        if built is not None:
            s.fortresses[city] = built.dump()
            s.control[city] = str(rec["team"])


def _tell(ctx: Ctx, team: str, events: list[Event]) -> None:
    """The work is the builder's own news (C-1.3: it would show where its army stands); the finished fortress is
    public."""
    for e in events:
        if e.kind == "fortress_built":
            ctx.public(e.kind, **e.data, team=team)
        else:
            ctx.team(team, e.kind, **e.data)
