"""The Continental War strategic engine (rules C-*, decisions D-C-*): pure, deterministic, no I/O beyond reading
its scenario data once. `CampaignEngine` implements `server.core.engine.Engine`."""

from server.continental.engine import CampaignEngine

__all__ = ["CampaignEngine"]
