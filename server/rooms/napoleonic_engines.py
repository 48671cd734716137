"""Engine registry entries of this package: the Napoleonic campaign (scenario "napoleonic", overriding the plain
campaign engine the registry would otherwise give that scenario folder), and the engines its battle rooms play:
"battle" (BattleEngine) and "siege" (the storm, SiegeEngine)."""

from __future__ import annotations

from server.battle.engine import BattleEngine
from server.napoleon.engine import NapoleonicEngine
from server.rooms.engines import register
from server.siege.engine import SiegeEngine


def register_all() -> None:
    register("napoleonic", NapoleonicEngine, {"scenario": "napoleonic"})
    register("battle", BattleEngine, campaign=False)
    register("siege", SiegeEngine, campaign=False)
