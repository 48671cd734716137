"""A command's path in-process: CPU µs per command of our server's Python, sockets left out, this tree against
other commits in the same run (issue 20).

On the shared 2-core machine a socket benchmark's CPU per frame swings by ±10% from one run to the next (other
work's cache and core), more than most single cuts on the command path save; and its figure is half system calls
(the `send()`s every server pays). This one measures only what a command costs in our code: each server tree runs
bench/command_worker.py in its own process — R bench rooms (moderator, 2 players, 10 spectators each, signed in and
joined), the moderators' `mod_ruling` emits through `Session.on_frame` the whole way (decode and validate, limits,
room, engine, journal, views, feed, ack) to transports that only count writes — `--rounds` rounds of `--commands`
commands, one room after the other (or with `--concurrent` the rooms at once, each sending its next command when
the last returned; with `--fsync` too their appends are group-committed, as in bench.durable), the trees taking
turns `--repeat` times, the order reversed each time. Printed per tree: the least and the median round (the least
is the round other work disturbed least), and ÷ the first tree's. The CPU is the whole process's (an fsync's
thread too).

    python -m bench.command --servers ours,ours@main [--rooms 20] [--payload small] [--repeat 3]
    python -m bench.command --servers ours,ours@main --rooms 100 --fsync --concurrent
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench import cli
from bench.common import ROOT, checkout, write_result
from bench.payloads import payload

WORKER = ROOT / "bench" / "command_worker.py"


def tree(server: str) -> Path:
    if server == "ours":
        return ROOT
    if server.startswith("ours@"):
        return checkout(server.removeprefix("ours@"))
    raise ValueError(f"bench.command measures our server's trees: 'ours' or 'ours@REF', not {server!r}")


def run_worker(folder: Path, spec: dict[str, Any]) -> list[float]:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(spec, f)
    done = subprocess.run([sys.executable, str(WORKER), f.name], cwd=folder, capture_output=True, text=True,
                          check=False, timeout=600)
    Path(f.name).unlink(missing_ok=True)
    if done.returncode != 0:
        raise RuntimeError(f"bench/command_worker.py failed in {folder}:\n{done.stderr[-3000:]}")
    rounds: list[float] = json.loads(done.stdout.strip().splitlines()[-1])["us_per_command"]
    return rounds


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--servers", default="ours", help="trees to measure, comma-separated: ours, ours@REF")
    p.add_argument("--rooms", type=int, default=20)
    p.add_argument("--commands", type=int, default=1500, help="commands per round")
    p.add_argument("--rounds", type=int, default=6, help="rounds per run of a tree")
    p.add_argument("--repeat", type=int, default=3, help="runs per tree, alternating")
    p.add_argument("--payload", default="small", choices=["small", "turn"])
    p.add_argument("--fsync", action="store_true", help="the journal fsynced (group commit, as the server's default)")
    p.add_argument("--concurrent", action="store_true",
                   help="the rooms at once, each sending its next command when the last returned (bench.durable's "
                        "closed loop; with --fsync the appends of the rooms share fsyncs)")
    cli.out_flag(p)
    args = p.parse_args(argv)
    servers = [s for s in args.servers.split(",") if s]
    folders = {s: tree(s) for s in servers}
    spec = {"rooms": args.rooms, "commands": args.commands, "rounds": args.rounds, "fsync": args.fsync,
            "concurrent": args.concurrent, "data": payload(args.payload, "c-bench00000")}
    rounds: dict[str, list[float]] = {s: [] for s in servers}
    for i in range(args.repeat):
        for server in servers if i % 2 == 0 else reversed(servers):
            got = run_worker(folders[server], spec)
            rounds[server] += got
            print(f"  {server:<16} least {min(got):7.1f}  median {statistics.median(got):7.1f} µs/command",
                  flush=True)
    rows = []
    first = min(rounds[servers[0]])
    for server in servers:
        least = min(rounds[server])
        rows.append({"server": server, "us_per_command": [round(x, 2) for x in rounds[server]],
                     "least": round(least, 2), "median": round(statistics.median(rounds[server]), 2),
                     "least_vs_first": round(least / first, 3)})
        print(f"{server:<16} least {least:7.1f}  median {statistics.median(rounds[server]):7.1f} µs/command"
              f"  ÷ first {least / first:.3f}")
    settings = {k: v for k, v in vars(args).items() if k != "out"}
    path = write_result("command", {"settings": settings, "rows": rows}, args.out)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
