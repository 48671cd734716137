"""The drill: a small, honest stand-in game for the rooms' tests and the demo (server/drill/engine.py)."""

from server.drill.engine import DrillEngine

__all__ = ["DrillEngine"]
