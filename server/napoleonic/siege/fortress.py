"""Fortified cities and the building of new fortresses (N-SIEGE-1, D-N-16).

A `Fortress` is the data the siege needs about a city: whether it is a port (D-N-16: a besieger cannot stop a
port's resupply unless the scenario blockades it) and how many fixed gun positions its wall carries (N-SIEGE-11:
"several"; D-N-16: one per 10 wall cells, at least two). The cities the rules name are `NAMED_FORTRESSES`.

Building (D-N-16): an army with at least one artillery company that stays in a city for 10 campaign turns (a
scenario setting) fortifies it. `Fortification` counts those turns; the campaign calls `begin_fortifying` when it
gives the order and `fortification_turn` at the end of every campaign turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from server.core.engine import Event
from server.core.errors import IllegalOrder

FORTIFY_TURNS = 10
"""D-N-16: campaign turns an army with artillery must stay in a city to fortify it (scenario setting)."""
CELLS_PER_GUN_POSITION = 10
MIN_GUN_POSITIONS = 2


@dataclass(frozen=True, slots=True)
class Fortress:
    """A fortified city (N-SIEGE-1). `gun_positions` None: derived from the wall (D-N-16). `town_depth`: rows of
    town behind the wall on the siege map (N-SIEGE-6)."""

    city: str
    port: bool = False
    blockade: bool = False
    gun_positions: int | None = None
    town_depth: int = 8

    @property
    def resupplied_by_sea(self) -> bool:
        """D-N-16: a port's garrison keeps its supply during a siege unless the scenario blockades it."""
        return self.port and not self.blockade

    def dump(self) -> dict[str, Any]:
        return {"city": self.city, "port": self.port, "blockade": self.blockade,
                "gun_positions": self.gun_positions, "town_depth": self.town_depth}

    @classmethod
    def load(cls, d: Mapping[str, Any]) -> Fortress:
        gp = d.get("gun_positions")
        return cls(str(d["city"]), bool(d.get("port", False)), bool(d.get("blockade", False)),
                   None if gp is None else int(gp), int(d.get("town_depth", 8)))


def gun_positions_for(wall_cells: int) -> int:
    """D-N-16: one fortress gun position per 10 cells of wall, at least two."""
    return max(MIN_GUN_POSITIONS, wall_cells // CELLS_PER_GUN_POSITION)


NAMED_FORTRESSES: dict[str, Fortress] = {
    f.city: f
    for f in (
        # N-SIEGE-1 names these; "some fortresses are also ports" — Hamburg, Danzig and Lisbon are on the sea.
        Fortress("Hamburg", port=True),
        Fortress("Danzig", port=True),
        Fortress("Dresden"),
        Fortress("Badajoz"),
        Fortress("Lisbon", port=True),
    )
}


@dataclass(frozen=True, slots=True)
class Fortification:
    """Work on a new fortress (D-N-16): `army` has stayed `done` of `needed` campaign turns in `city`."""

    city: str
    army: str
    started: int
    needed: int = FORTIFY_TURNS
    done: int = 0
    port: bool = False

    def dump(self) -> dict[str, Any]:
        return {"city": self.city, "army": self.army, "started": self.started, "needed": self.needed,
                "done": self.done, "port": self.port}

    @classmethod
    def load(cls, d: Mapping[str, Any]) -> Fortification:
        return cls(str(d["city"]), str(d["army"]), int(d["started"]), int(d.get("needed", FORTIFY_TURNS)),
                   int(d.get("done", 0)), bool(d.get("port", False)))


def begin_fortifying(city: str, army: str, artillery: int, turn: int, *, is_city: bool, fortified: bool,
                     coastal: bool = False, needed: int = FORTIFY_TURNS) -> tuple[Fortification, list[Event]]:
    """D-N-16: the order to fortify `city`. The army must stand in a city that is not yet a fortress and have at
    least one artillery company. A coastal city becomes a port fortress."""
    if not is_city:
        raise IllegalOrder("fortresses are built in cities", rule="D-N-16", details={"city": city})
    if fortified:
        raise IllegalOrder(f"{city} is already a fortress", rule="N-SIEGE-1", details={"city": city})
    if artillery < 1:
        raise IllegalOrder("only an army with an artillery company can fortify a city", rule="D-N-16",
                           details={"army": army})
    if needed < 1:
        raise ValueError("fortifying takes at least one turn")
    work = Fortification(city, army, turn, needed, 0, coastal)
    return work, [Event("fortifying_begun", {"city": city, "army": army, "turn": turn, "needed": needed,
                                             "rule": "D-N-16"})]


def fortification_turn(work: Fortification, *, army_in_city: bool,
                       artillery: int) -> tuple[Fortification | None, Fortress | None, list[Event]]:
    """End of a campaign turn for a fortification (D-N-16). Returns (work still going, fortress built, events):
    the work stops when the army has left the city or lost its artillery (the 10 turns are consecutive);
    after the last turn the city is a fortress with a wall, two forts and fortress guns."""
    if not army_in_city or artillery < 1:
        why = "army left the city" if not army_in_city else "army has no artillery left"
        return None, None, [Event("fortifying_abandoned", {"city": work.city, "army": work.army, "reason": why,
                                                            "done": work.done, "rule": "D-N-16"})]
    work = replace(work, done=work.done + 1)
    if work.done < work.needed:
        return work, None, [Event("fortifying_progress", {"city": work.city, "done": work.done,
                                                          "needed": work.needed, "rule": "D-N-16"})]
    fortress = Fortress(work.city, port=work.port)
    return None, fortress, [Event("fortress_built", {"city": work.city, "army": work.army, "port": work.port,
                                                     "rule": "D-N-16"})]
