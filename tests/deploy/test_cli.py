"""`python -m server` as an operator meets it: every start-up failure is one line saying what and what to do, with a
non-zero exit and no traceback (unless --debug); --help gives every flag's default; the stop says what it did;
printed links use the public URL; a Redis password is never printed; the web client is found wherever it starts."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from server.settings import _parser, parse, redacted
from tests.conftest import ROOT, HttpStatus, free_port
from tests.net.client import signed_in
from tests.net.test_play import campaign


def run_server(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """A server start expected to fail quickly."""
    base = {k: v for k, v in os.environ.items() if k != "REDIS_URL" and not k.startswith("KS_")}
    return subprocess.run([sys.executable, "-m", "server", "--host", "127.0.0.1", *args], cwd=cwd, text=True,
                          capture_output=True, timeout=60, env={**base, **(env or {})})


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode != 0
    assert "Traceback" not in result.stderr + result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_a_port_in_use_is_one_line_and_nothing_is_opened(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_server("--port", str(port), "--data-dir", str(tmp_path / "data"), "--demo")
    line = one_line(result)
    assert f"127.0.0.1:{port} is already in use" in line and "choose another port" in line
    assert not (tmp_path / "data").exists()  # the port is checked before the store is opened or a demo made


def test_debug_shows_the_traceback(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        result = run_server("--port", str(taken.getsockname()[1]), "--data-dir", str(tmp_path), "--debug")
    assert result.returncode != 0 and "Traceback" in result.stderr and "StartError" in result.stderr


def test_a_locked_data_directory_is_one_line(server_factory: Any) -> None:
    running = server_factory().start()
    line = one_line(run_server("--port", str(free_port()), "--data-dir", str(running.data_dir)))
    assert f"data directory {running.data_dir} is in use by another server process" in line
    assert "--data-dir" in line


def test_an_unreachable_redis_is_one_line_without_its_password(tmp_path: Path) -> None:
    url = f"redis://kriegsspiel:hunter2-secret@127.0.0.1:{free_port()}/0"
    line = one_line(run_server("--port", str(free_port()), "--data-dir", str(tmp_path), "--redis-url", url))
    assert "cannot reach Redis at redis://kriegsspiel:***@127.0.0.1:" in line and "REDIS_URL" in line
    assert "hunter2" not in line


@pytest.mark.parametrize(("args", "env", "expected"), [
    (["--prot", "9000"], {}, "unrecognized arguments: --prot 9000"),
    (["--port", "99999"], {}, "argument --port: invalid port (0-65535) value: '99999'"),
    (["--rate", "-1"], {}, "argument --rate: invalid non-negative number value: '-1'"),
    ([], {"KS_PORT": "eighty"}, "KS_PORT='eighty' is not a valid port (0-65535) (for --port)"),
    ([], {"KS_LEASE_MS": "1.5"}, "KS_LEASE_MS='1.5' is not a valid non-negative integer"),
])
def test_a_bad_flag_or_variable_is_one_line(args: list[str], env: dict[str, str], expected: str) -> None:
    result = run_server(*args, env=env)
    assert result.returncode == 2
    line = one_line(result)
    assert line.startswith(f"python -m server: error: {expected}") and line.endswith("(see --help)")


def test_help_gives_every_flag_its_default_and_variable() -> None:
    parser = _parser({})
    for action in parser._actions:
        if action.dest == "help":
            continue
        text = parser.formatter_class(prog="x")._get_help_string(action)  # type: ignore[attr-defined]
        assert "default" in text or "unset" in text, action.option_strings
        assert "[env " in text, action.option_strings
    out = subprocess.run([sys.executable, "-m", "server", "--help"], capture_output=True, text=True, check=True)
    assert "(default: 8080)" in out.stdout and "KS_CREATE_TOKEN" in out.stdout


def test_flags_win_over_variables_which_win_over_defaults() -> None:
    env = {"KS_PORT": "9001", "KS_HOST": "0.0.0.0", "KS_LEASE_MS": "3000"}
    assert parse(["--port", "9002"], env=env).port == 9002
    settings = parse([], env=env)
    assert (settings.port, settings.host, settings.lease_ms) == (9001, "0.0.0.0", 3000)
    assert settings.public_url == f"http://{socket.gethostname()}:9001"  # not 0.0.0.0, which no browser opens
    assert parse([], env={}).public_url == "http://127.0.0.1:8080"
    assert parse(["--public-url", "https://games.example.org/"], env={}).public_url == "https://games.example.org"


def test_redacted_hides_only_the_password() -> None:
    assert redacted("redis://:pw@redis:6379/0") == "redis://:***@redis:6379/0"
    assert redacted("rediss://user:p%40ss@h/1") == "rediss://user:***@h/1"
    assert redacted("redis://redis:6379/0") == "redis://redis:6379/0"


def test_the_web_client_is_found_beside_the_package_from_any_directory(tmp_path: Path) -> None:
    here = Path.cwd()
    os.chdir(tmp_path)
    try:
        settings = parse([], env={})
    finally:
        os.chdir(here)
    assert Path(settings.client_dir) == ROOT / "client_web" / "dist"


async def test_started_elsewhere_it_serves_its_client_and_says_where_it_is(server_factory: Any,
                                                                        tmp_path: Path) -> None:
    node = server_factory()
    node.cwd = tmp_path
    node.start()
    banner = node.log.read_text()
    assert f"web client {ROOT / 'client_web' / 'dist'}" in banner or \
        f"web client not built ({ROOT / 'client_web' / 'dist'})" in banner
    if (ROOT / "client_web" / "dist" / "index.html").is_file():
        assert node.http("GET", "/") == (ROOT / "client_web" / "dist" / "index.html").read_text()


async def test_the_stop_says_what_it_did(server_factory: Any) -> None:
    node = server_factory().start()
    made = campaign(node)
    red = await signed_in(node.ws_url, made["seats"][0]["token"], made["room"])
    assert node.proc is not None
    node.proc.send_signal(signal.SIGTERM)
    await asyncio.to_thread(node.proc.wait, 20)
    await red.close()
    log = node.log.read_text()
    assert "Stopping (SIGTERM): closing 1 connection(s) with 1001" in log
    stopped = re.search(r"Stopped: 1 connection\(s\) closed, (\d+) room\(s\) saved and released, embedded store "
                        r".* closed", log)
    assert stopped and int(stopped.group(1)) >= 1  # the campaign room (and its secret module's)
    assert node.proc.returncode == 0


def test_links_use_the_public_url(server_factory: Any) -> None:
    node = server_factory("--demo", "--public-url", "https://games.example.org").start()
    log = node.log.read_text()
    assert "Kriegsspiel server on https://games.example.org " in log
    links = re.findall(r"(https?://\S+)/#token=", log)
    assert links and set(links) == {"https://games.example.org"}
    made = campaign(node)
    assert made["moderator_link"].startswith("https://games.example.org/#token=")


def test_the_redis_password_is_not_printed(server_factory: Any, redis_url: str, redis_prefix: str) -> None:
    with_password = redis_url.replace("redis://", "redis://default:hunter2-secret@", 1)  # `default` is nopass
    node = server_factory("--redis-url", with_password, "--redis-prefix", redis_prefix).start()
    node.stop()
    log = node.log.read_text()
    assert "hunter2" not in log and "redis://default:***@" in log


def test_metrics_on_their_own_port_only(server_factory: Any) -> None:
    port = free_port()
    node = server_factory("--metrics-port", str(port)).start()
    with pytest.raises(HttpStatus) as info:
        node.http("GET", "/metrics")
    assert info.value.code == 404
    import urllib.request

    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        text = r.read().decode()
    samples = {s.name for family in text_string_to_metric_families(text) for s in family.samples}
    assert {"ks_connections", "ks_connections_total", "ks_command_latency_ms_count",
            "process_resident_memory_bytes"} <= samples
    assert "# TYPE ks_connections gauge" in text and "# TYPE ks_command_latency_ms histogram" in text
