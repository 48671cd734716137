"""The WWII squad skirmish (rules S-1 … S-9 of shared/rules/skirmish.md, completed by decisions D-S-1 … D-S-15).

A pure, deterministic engine behind server.core.engine.Engine: the scenario (order of battle, terrain, settings)
comes in through `setup`'s config; every die comes from the state's seeded dice and is an event (D-GEN-1).
"""
