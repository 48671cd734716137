"""The server's engine registry: every game it plays, by name, imported explicitly — an engine that fails to
import stops the server at its start instead of disappearing from the list.

"drill" (the rooms' small test game), "campaign" (the Continental War engine, default scenario), every scenario
under shared/scenarios/ by its folder name (the campaign engine with `scenario` set; "napoleonic" is the
Napoleonic campaign's own engine), the skirmish scenarios (skirmish, skirmish-platoon, skirmish-tanks), and the
engines only child rooms play: "battle" and "siege" (the storm).
"""

from __future__ import annotations

from server import scenarios
from server.continental.engine import CampaignEngine
from server.core.registry import Registry
from server.drill import DrillEngine
from server.napoleonic.battle.commander import CommandedBattleEngine
from server.napoleonic.campaign.engine import NapoleonicEngine
from server.napoleonic.siege.commander import CommandedSiegeEngine
from server.skirmish.engine import SkirmishEngine

ENGINES = Registry()
ENGINES.register("drill", DrillEngine)
ENGINES.register("campaign", CampaignEngine)
for _name in scenarios.provide_all():
    ENGINES.register(_name, CampaignEngine, {"scenario": _name})
ENGINES.register("napoleonic", NapoleonicEngine, {"scenario": "napoleonic"})
for _name, _data in scenarios.skirmish_scenarios().items():
    ENGINES.register(_name, SkirmishEngine, {"scenario": _data})
ENGINES.register("battle", CommandedBattleEngine, campaign=False)  # with its AI commander (issue 18)
ENGINES.register("siege", CommandedSiegeEngine, campaign=False)  # with its AI commander (issue 18)
