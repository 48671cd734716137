"""Our server as the benchmarks run it: `python -m server` with the bench engine registered (see bench_engine.py).

    python -m bench.servers.ours <the server's own flags>
"""

from __future__ import annotations

import sys

from bench.servers.bench_engine import BenchEngine
from server.__main__ import main
from server.rooms.engines import register

if __name__ == "__main__":
    register("bench", BenchEngine)
    sys.exit(main())
