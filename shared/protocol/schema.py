"""Generate the protocol's JSON Schema: `python -m shared.protocol.schema` writes shared/protocol/schema.json —
the messages, the options answers and the rulesets' orders.

tests/protocol/test_schema.py fails when the checked-in file is stale.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from server.continental.orders import ContinentalOrder
from server.napoleonic.battle.orders import BattleOrder
from server.napoleonic.campaign.orders import NapoleonicOrder
from shared.protocol.campaign_views import ContinentalView, DrillView, NapoleonicView
from shared.protocol.client import ClientMessage
from shared.protocol.events import EVENTS
from shared.protocol.server import ServerMessage
from shared.protocol.skirmish_views import SkirmishView
from shared.protocol.views import BattleView

SCHEMA_PATH = Path(__file__).with_name("schema.json")
ORDERS: dict[str, Any] = {"BattleOrder": BattleOrder, "NapoleonicOrder": NapoleonicOrder,
                          "ContinentalOrder": ContinentalOrder}
"""The typed orders of each ruleset (their wire models live in the ruleset's package, which validates with them;
the schema gathers them for clients and bots)."""
VIEWS: dict[str, Any] = {"BattleView": BattleView, "ContinentalView": ContinentalView,
                         "NapoleonicView": NapoleonicView, "DrillView": DrillView, "SkirmishView": SkirmishView}
"""The rooms' `state` (snapshot and view) by ruleset (shared/protocol/views.py, campaign_views.py,
skirmish_views.py)."""


def _define(defs: dict[str, Any], new: dict[str, Any]) -> None:
    """Add definitions; two different models of one name (one would silently replace the other) are an error."""
    for name, definition in new.items():
        if defs.get(name, definition) != definition:
            raise ValueError(f"two protocol models are named {name}: rename one")
        defs[name] = definition


def build_schema() -> dict[str, Any]:
    client = TypeAdapter(ClientMessage).json_schema(ref_template="#/$defs/{model}")
    server = TypeAdapter(ServerMessage).json_schema(ref_template="#/$defs/{model}")
    orders = {name: TypeAdapter(model).json_schema(ref_template="#/$defs/{model}")
              for name, model in ORDERS.items()}
    views = {name: TypeAdapter(model).json_schema(ref_template="#/$defs/{model}") for name, model in VIEWS.items()}
    defs: dict[str, Any] = {}
    for part in (client, server, *orders.values(), *views.values()):
        _define(defs, part.pop("$defs", {}))
    _define(defs, views)  # the views are models of their own: each a definition
    models = {model.__name__: model for kinds in EVENTS.values() for model in kinds.values()}
    for model in models.values():  # the `data` of each event kind of each room kind (shared/protocol/events.py)
        part = TypeAdapter(model).json_schema(ref_template="#/$defs/{model}")
        _define(defs, part.pop("$defs", {}))
        _define(defs, {model.__name__: part})
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Kriegsspiel wire protocol",
        "description": "Client and server messages; msgpack binary frames, JSON text frames accepted. The `order` "
                       "of an `order` message, per ruleset: the properties named *Order.",
        "$defs": defs,
        "properties": {"ClientMessage": client, "ServerMessage": server, **orders},
    }


def render() -> str:
    return json.dumps(build_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main() -> int:
    SCHEMA_PATH.write_text(render(), encoding="utf-8")
    print(f"wrote {SCHEMA_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
