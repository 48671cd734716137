"""The leak soak (issue 12 item 4): the leak property test's state machine (tests/hostile/test_leaks.py) for many
sequences — a Napoleonic campaign with battles, every viewer class (a player holding the spectators' link among
them), every outbound path scanned against the oracle. Prints what it did and how fast; exits 1 on a leak (with
Hypothesis's shrunk sequence).

    python -m bench.leaks                      # 10 000 sequences of up to 12 steps
    python -m bench.leaks --sequences 300 --steps 20

Not a server benchmark: no baseline; the figures say how much was checked (sequences, steps, battles fought,
messages scanned) and at what rate on this machine.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from hypothesis import HealthCheck, settings

from tests.hostile.test_leaks import Leaks


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.leaks", description=__doc__.split("\n\n")[0])
    p.add_argument("--sequences", type=int, default=10_000, help="how many sequences (Hypothesis examples)")
    p.add_argument("--steps", type=int, default=12, help="the most steps in one sequence")
    args = p.parse_args(argv)
    figures = {"sequences": 0, "messages": 0, "battles": 0, "refusals": 0, "replays": 0}
    original_teardown = Leaks.teardown

    def counted_teardown(self: Leaks) -> None:
        figures["sequences"] += 1
        figures["messages"] += self.messages
        if hasattr(self, "made"):
            figures["battles"] += len(self.game.battles)
            for out in self.outlets.values():
                figures["refusals"] += sum(1 for m in out.got if m.get("t") == "error")
                figures["replays"] += sum(1 for m in out.got if m.get("t") == "replay")
        original_teardown(self)

    Leaks.teardown = counted_teardown  # type: ignore[method-assign]
    Leaks.TestCase.settings = settings(max_examples=args.sequences, stateful_step_count=args.steps, deadline=None,
                                       suppress_health_check=list(HealthCheck), database=None)
    start = time.monotonic()
    failure: Any = None
    try:
        Leaks.TestCase().runTest()
    except AssertionError as exc:
        failure = exc
    took = time.monotonic() - start
    print(f"leak soak: {figures['sequences']} sequences of up to {args.steps} steps, "
          f"{figures['battles']} battles, {figures['refusals']} refusals, {figures['replays']} replays, "
          f"{figures['messages']} messages scanned in {took:.1f} s "
          f"({figures['sequences'] / took:.1f} sequences/s, {figures['messages'] / took:.0f} messages/s)")
    if failure is not None:
        print(f"LEAK: {failure}", file=sys.stderr)
        return 1
    print("no leak")
    return 0


if __name__ == "__main__":
    sys.exit(main())
