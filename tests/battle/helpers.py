"""Small builders for battle tests: a setup with units at given places on an open or drawn field."""

from __future__ import annotations

from typing import Any


def side(name: str, edge: str, units: list[dict[str, Any]], *, attacker: bool = False,
         reinforcements: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"name": name, "edge": edge, "attacker": attacker, "units": units,
            "reinforcements": reinforcements or []}


def config(red: list[dict[str, Any]], blue: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """Red attacks from the south edge, blue defends the north."""
    cfg: dict[str, Any] = {
        "sides": [side("red", "south", red, attacker=True, reinforcements=extra.pop("red_reinf", None)),
                  side("blue", "north", blue, reinforcements=extra.pop("blue_reinf", None))],
    }
    cfg.update(extra)
    return cfg


def unit(uid: str, kind: str, x: int | None = None, y: int | None = None, **kw: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"id": uid, "type": kind, **kw}
    if x is not None:
        spec["x"], spec["y"] = x, y
    return spec
