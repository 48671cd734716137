"""The demo campaign of `python -m server --demo`: created once per data directory, its join links printed at
every start. Its tokens are kept in clear in `<data-dir>/demo-links-<scenario>.json` (the operator's own machine)
so the links can be printed again; real campaigns keep only token hashes. `--demo-scenario` picks the engine
(the Napoleonic campaign of 1813 by default — two powers of two players, whose armies meet in battle rooms; `drill`
for the room's test engine, `continental` for the campaign engine)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from server.rooms.hub import Hub
from server.settings import Settings

DEMO_NAMES = {"napoleonic": "Demo: 1813, the Napoleonic campaign", "drill": "Demo: drill on an 8×8 grid"}
DEMO_SPEC: dict[str, Any] = {
    "name": DEMO_NAMES["napoleonic"], "scenario": "napoleonic", "level": 2,
    "teams": [{"colour": "red", "seats": 2}, {"colour": "blue", "seats": 2}],
    "clock": {"mode": "per_turn", "turn_ms": 5 * 60_000}, "house_rules": [], "public": True, "open_spectating": True,
    "lockout_minutes": 20.0, "config": {}, "clocks_paused": True,
}


async def ensure_demo(hub: Hub, link: Callable[[str], str], settings: Settings) -> dict[str, Any]:
    path = Path(settings.data_dir) / f"demo-links-{settings.demo_scenario}.json"
    made: dict[str, Any] | None = None
    if path.exists():
        made = json.loads(path.read_text())
        if await hub.store.grants.get_campaign(made["campaign"]) is None:
            made = None
    if made is None:
        scenario = settings.demo_scenario
        spec = {**DEMO_SPEC, "scenario": scenario, "name": DEMO_NAMES.get(scenario, f"Demo: {scenario}")}
        made = await hub.create_campaign(spec)
        made.pop("meta", None)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(made, indent=2))
        os.chmod(path, 0o600)
    lines = [f"Demo campaign {made['campaign']} (room {made['room']}) — open a link in a browser:"]
    for seat in made["seats"]:
        lines.append(f"  {seat['team']:>5} seat {seat['seat']}: {link(seat['token'])}")
    lines.append(f"  moderator:    {link(made['moderator_token'])}")
    lines.append(f"  spectators:   {link(made['spectator_token'])}")
    lines.append("The clocks start paused: the moderator resumes them when the players are ready.")
    print("\n".join(lines), flush=True)
    return made
