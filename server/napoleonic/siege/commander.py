"""The storm's AI commander (issue 18): each side's phase planned by the battle AI on the belief its view gives
(server/napoleonic/battle/commander.py) — the storm's view is the battle's, with the fortress beside it. The
garrison holds and fires as a defender does; the besieger's guns bombard and its columns close on the walls. The
storm engine judges every order again (walls, breaches and ladders: D-N-15, N-SIEGE-13): what the battle AI plans
that the walls forbid is refused and dropped. The besieger's infantry first tries to climb (N-SIEGE-10, N-SIEGE-13:
the engine refuses it unless the unit stands at the wall with its ladders set up on an earlier turn)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from server.napoleonic.battle.ai import BattleAI
from server.napoleonic.battle.commander import command

from .engine import SiegeEngine


class CommandedSiegeEngine(SiegeEngine):
    """The storm engine with its AI commander (the registry's "siege")."""

    def commander(self, view: Mapping[str, Any], team: str, rng_seed: int) -> Sequence[Mapping[str, Any]] | None:
        orders = list(command(view, team, rng_seed, BattleAI(self.battle)))
        if (view.get("siege") or {}).get("besieger") != team or view.get("active") != team:
            return orders
        climbs = [{"type": "climb", "unit": u["id"]} for u in view.get("units") or ()
                  if u["side"] == team and u["type"] == "infantry" and u["status"] == "field"]
        return [*climbs, *orders]
