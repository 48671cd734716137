"""The tactical battle engine (rules N-*, decisions D-GEN-*, D-N-*): pure, deterministic, no I/O.

State model: `terrain` (map and terrain kinds), `units` (unit types and formations as data), `footprint`
(geometry), `state` (units, sides, melees, occupancy), `deployment` (zones and setup). The `BattleEngine` of
`engine` implements server.core.engine.Engine.
"""
