"""Sieges (rules N-SIEGE-1 … N-SIEGE-13, decisions D-N-15, D-N-16): pure, deterministic, no I/O.

`fortress` (fortified cities and building new ones), `sequence` (the campaign-side siege: investment, sortie,
surrender, storm or lifting, capitulation terms), `terms` (the capitulation terms exchange), `siege_map` (the
generated 70×70 storm field), `rules` (the siege terrain and unit types registered on the battle engine's hooks),
`engine` (the storm on the tactical battle engine).
"""
