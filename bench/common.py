"""What every benchmark shares: the machine it ran on, process CPU/RSS from /proc, percentiles, result files."""

from __future__ import annotations

import asyncio
import json
import math
import os
import platform
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
_CLK_TCK = os.sysconf("SC_CLK_TCK")
_PAGE = os.sysconf("SC_PAGE_SIZE")


def machine() -> dict[str, Any]:
    """The machine a figure came from (this one is shared with other work: figures are noisy)."""
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_kib = 0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_kib = int(line.split()[1])
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "node": _node_version(),
        "mem_gib": round(mem_kib / 2**20, 1),
        "kernel": platform.release(),
        "python": platform.python_version(),
        "loadavg_1m": os.getloadavg()[0],
        "shared": True,
        "bench_nice": nice(),
    }


def _node_version() -> str | None:
    try:
        done = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True, timeout=10)
        return done.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None


def git_commit() -> str:
    """HEAD's short hash, `+dirty` when tracked files other than the figures differ from it."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True, timeout=10).stdout.strip()
        changed = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)bench/results",
             ":(exclude)bench/README.md"], cwd=ROOT, capture_output=True, text=True, check=True, timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return f"{head}+dirty" if changed else head


_CHECKOUTS: dict[str, Path] = {}


def checkout(ref: str) -> Path:
    """The tree of git ref `ref` (`git archive` into a temporary directory, once per ref and process, removed at
    exit): another commit's server run beside this one's, from the same benchmark."""
    if ref in _CHECKOUTS:
        return _CHECKOUTS[ref]
    import atexit
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix=f"bench-{ref.replace('/', '_')}-"))
    atexit.register(shutil.rmtree, folder, True)
    archive = subprocess.run(["git", "archive", ref], cwd=ROOT, check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    _CHECKOUTS[ref] = folder
    return folder


def previous_result(name: str, commit: str, out_dir: Path | None = None) -> dict[str, Any] | None:
    """What a new run of `name` at `commit` is compared with: the stored result, or, when that came from the same
    commit (a re-run), the one it was itself compared with, so that a change is always set against the last
    commit's figures."""
    path = (out_dir or RESULTS) / f"{name}.json"
    try:
        stored: dict[str, Any] = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    earlier = stored.pop("previous", None)
    if stored.get("commit") == commit and isinstance(earlier, dict):
        return earlier
    return stored


def write_result(name: str, body: Mapping[str, Any], out_dir: Path | None = None) -> Path:
    """Write `<out_dir>/<name>.json` (default bench/results) with the commit, time and machine, keeping the last
    commit's figures inside as `previous` (see `previous_result`)."""
    out = (out_dir or RESULTS) / f"{name}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    commit = git_commit()
    doc = {
        "benchmark": name,
        "commit": commit,
        "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": machine(),
        **body,
        "previous": previous_result(name, commit, out_dir),
    }
    out.write_text(json.dumps(doc, indent=2, sort_keys=False) + "\n")
    return out


def figure_at(doc: Mapping[str, Any], key: str) -> float | None:
    """A figure of a result by its dotted key ("resolution_ms.p99"), if it is a number."""
    value: Any = doc
    for part in key.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def against(figures: Mapping[str, Any], previous: Mapping[str, Any] | None,
            keys: Iterable[str]) -> dict[str, Any] | None:
    """This run ÷ the last commit's stored run, figure by figure (None without a stored run)."""
    if previous is None:
        return None
    ratios: dict[str, float | None] = {}
    for key in keys:
        now, then = figure_at(figures, key), figure_at(previous, key)
        ratios[key] = round(now / then, 3) if now is not None and then else None
    return {"commit": previous.get("commit", "unknown"), "utc": previous.get("utc"), "ratios": ratios}


def percentile(values: Sequence[float], q: float) -> float:
    """The q-quantile (0..1) by nearest rank; NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
    return ordered[rank]


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process (and its reaped children), from /proc/<pid>/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    utime, stime = int(fields[11]), int(fields[12])
    return (utime + stime) / _CLK_TCK


def rss_bytes(pid: int) -> int:
    pages = int(Path(f"/proc/{pid}/statm").read_text().split()[1])
    return pages * _PAGE


def core_ticks(core: int) -> tuple[int, int]:
    """(busy, total) jiffies of one core since boot, from /proc/stat; busy includes irq/softirq time."""
    for line in Path("/proc/stat").read_text().splitlines():
        if line.startswith(f"cpu{core} "):
            v = [int(x) for x in line.split()[1:]]
            idle = v[3] + v[4]
            return sum(v[:8]) - idle, sum(v[:8])
    return 0, 0


def self_cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def nice() -> int:
    """BENCH_NICE (e.g. -5, needs root): the scheduling priority of the load and the servers under test, so that
    other work on a shared machine disturbs the figures less. 0 (default) leaves priorities alone."""
    return int(os.environ.get("BENCH_NICE", "0"))


def pin_self(core: int) -> int | None:
    """Pin this process to `core` when the machine has it (and apply BENCH_NICE); returns the core or None."""
    if nice():
        os.setpriority(os.PRIO_PROCESS, 0, nice())
    if (os.cpu_count() or 1) > core and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {core})
        return core
    return None


def taskset_prefix(core: int) -> list[str]:
    """`[nice -n N] taskset -c <core>` for a child process, when taskset exists and the core does."""
    prefix = ["nice", "-n", str(nice())] if nice() else []
    if (os.cpu_count() or 1) > core and Path("/usr/bin/taskset").exists():
        return [*prefix, "taskset", "-c", str(core)]
    return prefix


def ratio(ours: float, baseline: float) -> float | None:
    return round(ours / baseline, 3) if baseline else None


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run a benchmark's main coroutine on uvloop when installed (as the server does), else asyncio."""
    try:
        import uvloop

        factory: Callable[[], asyncio.AbstractEventLoop] | None = uvloop.new_event_loop
    except ImportError:
        factory = None
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(coro)


def python() -> str:
    return sys.executable
