"""Our server as the benchmarks run it: `python -m server` with the bench engine registered (see bench_engine.py).

    python -m bench.servers.ours <the server's own flags>

With BENCH_VIEWS=1 every event also changes the room's view, so a `view` follows each event to every socket (see
bench_engine.py). With BENCH_PROFILE=<file> the server runs under cProfile and writes its stats there when it
stops (SIGTERM); read them with `python -m pstats <file>`.
"""

from __future__ import annotations

import os
import sys

from bench.servers.bench_engine import BenchEngine
from server.__main__ import main
from server.engines import ENGINES

if __name__ == "__main__":
    BenchEngine.views_change = os.environ.get("BENCH_VIEWS") == "1"
    ENGINES.register("bench", BenchEngine)
    profile = os.environ.get("BENCH_PROFILE")
    if profile:
        import cProfile

        with cProfile.Profile() as prof:
            code = main()
        prof.dump_stats(profile)
        sys.exit(code)
    sys.exit(main())
