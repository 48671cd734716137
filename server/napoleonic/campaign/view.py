"""What each viewer sees of the Napoleonic campaign (C-1.3: the server hides what a side may not see).

A power sees its own armies in full, and an enemy army only within `sight_range` cells of one of its own armies or
when it fights it (name, general, cell, status, number of units — not their state). The moderator and spectators
see everything. Battles, sieges, fortress holders and prisoners are public.
"""

from __future__ import annotations

from typing import Any

from server.core.engine import MODERATOR, SPECTATOR

from .movement import cells_apart
from .records import SiegeRecord
from .state import NapoleonicState, cell_of


def view_of(s: NapoleonicState, viewer: str) -> dict[str, Any]:
    gm = s.map
    team = viewer[5:] if viewer.startswith("team:") else None
    everything = viewer in (MODERATOR, SPECTATOR)
    reach = int(s.tables["sight_range"])
    own = [cell_of(a.cell) for a in s.alive_armies(team)] if team else []
    fighting = {b.id for b in s.battles.values() if team in (b.attacker, b.defender)}
    armies = []
    for a in sorted(s.armies.values(), key=lambda a: a.id):
        if everything or a.team == team:
            armies.append(a.dump())
        elif a.status not in ("destroyed", "captured") and (
                a.battle in fighting or any(cells_apart(c, cell_of(a.cell)) <= reach for c in own)):
            armies.append({"id": a.id, "name": a.name, "team": a.team, "general": a.general, "cell": list(a.cell),
                           "status": a.status, "units": len(a.units)})
    return {
        "scenario": s.scenario, "title": s.scen.title, "turn": s.turn, "active": sorted(s.order.active),
        "teams": s.teams, "map": {"origin": list(gm.origin), "size": list(gm.size),
                                  "terrain": s.scen.raw["map"]["terrain"], "legend": s.scen.raw["map"]["legend"],
                                  "places": s.scen.raw["map"]["places"], "roads": s.scen.raw["map"]["roads"],
                                  "rivers": s.scen.raw["map"]["rivers"]},
        "armies": armies,
        "battles": [{k: dumped[k] for k in ("id", "cell", "kind", "status", "attacker", "defender", "armies",
                                            "reinforcements", "quick", "result")}
                    for dumped in (b.dump() for b in s.battles.values())],
        "sieges": [_siege(k, r) for k, r in s.sieges.items()],
        "control": dict(s.control),
        "fortifications": [{"city": c, "army": w["army"], "team": w["team"], "done": w["done"], "needed": w["needed"]}
                           for c, w in s.fortifications.items() if everything or w["team"] == team],
        "fortresses_built": sorted(s.fortresses),
        "prisoners": {t: len(p) for t, p in s.prisoners.items()},
        "interceptions": [i for i in s.interceptions if everything or s.armies[i["by"]].team == team],
        "tables": {"movement": s.tables["movement"], "reinforcement_range": s.tables["reinforcement_range"]},
    }


def _siege(city: str, rec: SiegeRecord) -> dict[str, Any]:
    """A siege as every viewer sees it: who besieges and who holds (teams), the first turn of the storm
    (N-SIEGE-2), whether the garrison has sortied (N-SIEGE-3) or holds (N-SIEGE-5), and the capitulation terms on
    the table (N-SIEGE-8) — what a client needs to offer each side only the decisions it may take."""
    siege = rec.siege
    talk = siege.talk
    return {"fortress": city, "cell": rec.cell, "phase": siege.phase, "battle": rec.battle,
            "besieger": siege.besieger.side, "garrison": siege.garrison.side, "storm_from": siege.storm_from,
            "sortied": siege.sortied, "holds": siege.holds,
            "proposal": talk.proposal.dump() if talk and talk.proposal else None,
            "proposer": talk.proposer if talk else None}
