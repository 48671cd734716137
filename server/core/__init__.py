"""Pure building blocks shared by the rules engines: dice, rule errors, the engine interface.

Nothing here does I/O, reads the wall clock or touches asyncio (tests/test_architecture.py keeps it so).
"""
