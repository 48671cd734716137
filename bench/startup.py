"""Start-up cost with many campaigns on the embedded store: time from `python -m server` to `/healthz` 200 over a
data directory of N campaigns x M records (each server started twice on its own copy).

    python -m bench.startup --campaigns 300 --records 500 [--compare-with main]

`--compare-with REF` also runs the server code of that git ref (checked out with `git archive` into a temporary
directory) on a copy of the same data, as the "before" figure. Prints the figures; writes nothing else.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from bench.common import ROOT, checkout, free_port


async def make_data(path: Path, campaigns: int, records: int) -> None:
    """Campaigns with running 5-minute turn clocks, each room `records` long (chat lines), written by this code."""
    from server.bus.local import LocalBus
    from server.engines import ENGINES
    from server.rooms.hub import Hub
    from server.rooms.members import Member
    from server.store.embedded import open_embedded

    hub = Hub(open_embedded(path, fsync=False), LocalBus(), ENGINES)
    for _ in range(campaigns):
        made = await hub.create_campaign({
            "name": "Bench", "scenario": "drill", "level": 2, "clock": {"mode": "per_turn", "turn_ms": 300_000},
            "teams": [{"colour": "red", "seats": 1}, {"colour": "blue", "seats": 1}]})
        red = Member(made["campaign"], "player", "red-1", "red", 1)
        for i in range(records - 1):
            await hub.submit(made["room"], "chat", {"channel": "team", "text": f"line {i}"}, red)
    await hub.close()
    await hub.store.close()


def time_to_healthy(code_root: Path, data: Path) -> float:
    """Seconds from starting the server process to /healthz 200."""
    port = free_port()
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", str(port),
                             "--data-dir", str(data), "--no-fsync"], cwd=code_root,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(0.01)
            if proc.poll() is not None:
                raise RuntimeError("server exited")
        return time.perf_counter() - started
    finally:
        proc.terminate()
        proc.wait(30)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--campaigns", type=int, default=300)
    p.add_argument("--records", type=int, default=500)
    p.add_argument("--compare-with", default=None, help="git ref whose server code gives the 'before' figure")
    a = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="ks-startup-") as tmp:
        base = Path(tmp)
        t0 = time.perf_counter()
        asyncio.run(make_data(base / "data", a.campaigns, a.records))
        print(f"data: {a.campaigns} campaigns x {a.records} records in {time.perf_counter() - t0:.1f} s")
        runs = [("this code", ROOT)]
        if a.compare_with:
            runs.append((a.compare_with, checkout(a.compare_with)))
        for name, code in runs:
            for attempt in (1, 2):
                data = base / f"data-{name.replace(' ', '_')}"
                if attempt == 1:
                    shutil.copytree(base / "data", data)
                healthy = time_to_healthy(code, data)
                print(f"{name:>12} start {attempt}: healthy after {healthy:.2f} s")


if __name__ == "__main__":
    main()
