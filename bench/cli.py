"""The command line the benchmarks share: the flags they all take, running one (the load pinned to core 1, on
uvloop), printing its table and writing its result file (bench/results/<name>.json, the previous run inside)."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from bench.common import pin_self, run, write_result

Result = dict[str, Any]


def parser(
    doc: str | None, *, servers: str = "ours,bare", seconds: float = 2.0, seconds_help: str = "length of each step",
) -> argparse.ArgumentParser:
    """The flags of every load benchmark: which servers, how long a step, the send-buffer cap, where to write."""
    p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--servers", default=servers, help="servers to measure, comma-separated")
    p.add_argument("--seconds", type=float, default=seconds, help=seconds_help)
    p.add_argument("--cap", type=int, default=2 << 20, help="send-buffer cap per socket, every server")
    out_flag(p)
    return p


def out_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", type=Path, default=None, help="results directory (default bench/results)")


def rising(p: argparse.ArgumentParser, *, factor: float, max_steps: int) -> None:
    """The flags of a rising rate (bench/ceiling.py)."""
    p.add_argument("--factor", type=float, default=factor, help="rate multiplier from one step to the next")
    p.add_argument("--max-steps", type=int, default=max_steps)
    p.add_argument("--retries", type=int, default=1, help="a failed step is run again this many times")


def servers(args: argparse.Namespace) -> list[str]:
    return [s for s in args.servers.split(",") if s]


def settings(args: argparse.Namespace, *hidden: str) -> dict[str, Any]:
    """The flags of a run as recorded in its result (not where it was written, nor `hidden` ones)."""
    return {k: v for k, v in vars(args).items() if k not in ("out", *hidden)}


def report(name: str, result: Result, table: Callable[[Result], str], out: Path | None) -> int:
    print(table(result))
    print("wrote", write_result(name, result, out))
    return 0


def main(
    name: str, args: argparse.Namespace, amain: Callable[[argparse.Namespace], Coroutine[Any, Any, Result]],
    table: Callable[[Result], str],
) -> int:
    """Run a load benchmark from this process pinned to core 1 (the servers under test get core 0)."""
    pin_self(1)
    return report(name, run(amain(args)), table, args.out)


def _f(value: Any, width: int, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return f"{'—':>{width}}"
    return f"{value:>{width}.{digits}f}"


def ceiling_table(result: Result, size: str) -> str:
    """One line per server of a ceiling benchmark (`size`: the row's key that says how big it was, e.g. rooms)."""
    lines = [f"{'server':<6} {size:>5} {'ev/s/room':>9} {'fr/s':>9} {'p50':>7} {'p99':>7} {'p99.9':>7} "
             f"{'µs/fr':>7} {'KiB/conn':>8}"]
    for r in result["rows"]:
        at = r["at"] or {}
        rss = r.get("rss_per_conn_bytes")
        lines.append(
            f"{r['server']:<6} {r[size]:>5} {_f(at.get('rate'), 9, 1)} {_f(r['max_sustainable_fps'], 9, 0)} "
            f"{_f(at.get('p50_ms'), 7)} {_f(at.get('p99_ms'), 7)} {_f(at.get('p999_ms'), 7)} "
            f"{_f(at.get('cpu_us_per_frame'), 7)} {_f(rss / 1024 if rss is not None else None, 8, 1)}"
            + ("" if r["limit_reached"] else "  (limit not reached)")
        )
    for key, ratios in result.items():
        if key.startswith("ratios_ours_vs_") and ratios:
            lines.append(f"ours÷{key.removeprefix('ratios_ours_vs_')}: {ratios}")
    return "\n".join(lines)
