"""deploy/compose.yaml is valid against the Compose Specification's schema (vendored: offline) and runs as
docs/operating.md says: restart policies, Redis healthy before the nodes start, one public URL for every node, a
create token required, the health check on the configured port, TLS by Caddy for a domain, /metrics not proxied;
the image installs the locked dependencies and its build context leaves out .venv, node_modules, data/ and the
like. (Docker does not run here: the files are checked, no image is built.)"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from packaging.requirements import Requirement

from server.settings import parse
from tests.deploy.kustomize import by_kind_and_name, render, routed

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
SCHEMA = json.loads((Path(__file__).parent / "schemas" / "compose-spec.json").read_text())
NODES = ("node1", "node2", "node3")


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())  # anchors and `<<` merges resolved


def test_compose_is_valid_against_the_compose_specification(compose: dict[str, Any]) -> None:
    jsonschema.validate(compose, SCHEMA, cls=jsonschema.Draft202012Validator)
    broken = {**compose, "services": {**compose["services"], "redis": {**compose["services"]["redis"],
                                                                      "restrat": "always"}}}
    with pytest.raises(jsonschema.ValidationError):  # the schema is really applied
        jsonschema.validate(broken, SCHEMA, cls=jsonschema.Draft202012Validator)


def interpolate(value: Any, env: dict[str, str]) -> Any:
    """Compose's `${VAR}`, `${VAR:-default}` and `${VAR:?error}` (what deploy/compose.yaml uses)."""
    if isinstance(value, dict):
        return {k: interpolate(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, env) for v in value]
    if not isinstance(value, str):
        return value

    def one(m: re.Match[str]) -> str:
        name, op, arg = m.group(1), m.group(2), m.group(3)
        if env.get(name):
            return env[name]
        if op == ":?":
            raise LookupError(arg)
        return arg if op == ":-" else ""

    return re.sub(r"\$\{(\w+)(?:(:-|:\?)([^}]*))?\}", one, value)


def env_file(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if line and not line.startswith("#"))


def write_env(tmp_path: Path, *args: str) -> dict[str, str]:
    out = tmp_path / ".env"
    subprocess.run([str(DEPLOY / "compose-env"), *args, "--out", str(out)], check=True, capture_output=True)
    assert out.stat().st_mode & 0o077 == 0  # the token is the operator's secret
    return env_file(out)


def node_settings(compose: dict[str, Any], env: dict[str, str], name: str) -> Any:
    service = interpolate(compose["services"][name], env)
    return parse([], env={**service["environment"]}), service


def test_every_node_gets_the_one_public_url_and_a_create_token(compose: dict[str, Any], tmp_path: Path) -> None:
    env = write_env(tmp_path, "games.example.org")
    assert env["KS_SITE"] == "games.example.org" and env["KS_PUBLIC_URL"] == "https://games.example.org"
    names = set()
    for name in NODES:
        settings, _ = node_settings(compose, env, name)
        assert settings.public_url == "https://games.example.org"
        assert settings.create_token == env["KS_CREATE_TOKEN"] and len(settings.create_token) >= 32
        assert settings.redis_url == "redis://redis:6379/0"
        names.add(settings.node)
    assert names == set(NODES)
    with pytest.raises(LookupError, match="deploy/compose-env"):  # no token, no start: creation is never open
        node_settings(compose, {}, "node1")
    (tmp_path / "local").mkdir()
    local = write_env(tmp_path / "local")
    assert local["KS_SITE"] == ":80" and local["KS_PUBLIC_URL"] == "http://localhost"
    assert local["KS_CREATE_TOKEN"] != env["KS_CREATE_TOKEN"]


def test_compose_env_keeps_an_existing_token(tmp_path: Path) -> None:
    write_env(tmp_path)
    again = subprocess.run([str(DEPLOY / "compose-env"), "--out", str(tmp_path / ".env")], capture_output=True,
                           text=True)
    assert again.returncode == 1 and "--force" in again.stderr


def test_restart_policies_and_redis_healthy_before_the_nodes(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert all(s["restart"] == "unless-stopped" for s in services.values())
    redis = services["redis"]
    assert "redis-cli" in redis["healthcheck"]["test"]
    command = redis["command"]
    assert command[command.index("--appendfsync") + 1] == "always"
    for name in NODES:
        assert services[name]["depends_on"] == {"redis": {"condition": "service_healthy"}}


def test_the_health_check_asks_the_configured_port(compose: dict[str, Any], tmp_path: Path) -> None:
    env = write_env(tmp_path)
    settings, service = node_settings(compose, env, "node1")
    assert service["healthcheck"]["test"] == ["CMD", "python", "-m", "server.healthcheck"]
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert 'HEALTHCHECK' in dockerfile and '"server.healthcheck"' in dockerfile and "8080/healthz" not in dockerfile
    grace = float(service["stop_grace_period"].rstrip("s"))
    assert grace >= settings.shutdown_timeout_s + 10


def test_the_health_check_follows_ks_port(server_factory: Any) -> None:
    node = server_factory().start()
    env = {k: v for k, v in os.environ.items() if not k.startswith("KS_")}
    check = [sys.executable, "-m", "server.healthcheck"]
    ok = subprocess.run(check, env={**env, "KS_PORT": str(node.port)}, cwd=ROOT, capture_output=True)
    assert ok.returncode == 0
    node.stop()
    down = subprocess.run(check, env={**env, "KS_PORT": str(node.port)}, cwd=ROOT, capture_output=True, text=True)
    assert down.returncode == 1 and "unhealthy" in down.stderr


def test_metrics_are_neither_published_nor_proxied(compose: dict[str, Any]) -> None:
    services = compose["services"]
    for name in (*NODES, "redis"):
        assert "ports" not in services[name]  # only the proxy is reachable from outside
    assert services["node1"]["environment"]["KS_METRICS_PORT"] == "9100"
    caddy = (DEPLOY / "Caddyfile").read_text()
    (matcher,) = re.findall(r"@public path (.+)", caddy)
    public = matcher.split()
    ingress = by_kind_and_name(render(DEPLOY / "k8s"))[("Ingress", "kriegsspiel")]

    def caddy_routes(path: str) -> bool:
        return any(path == p or (p.endswith("/*") and path.startswith(p[:-1])) for p in public)

    for path in ("/", "/ws", "/api/campaigns", "/api/rooms/c-1/replay", "/assets/index.js", "/metrics", "/healthz"):
        assert caddy_routes(path) == routed(ingress, path), path  # the same public surface as the Ingress
    assert not caddy_routes("/metrics")
    assert re.search(r"handle \{\s*respond \"Not found\" 404", caddy)


def test_caddy_serves_tls_for_a_domain(compose: dict[str, Any], tmp_path: Path) -> None:
    proxy = interpolate(compose["services"]["proxy"], write_env(tmp_path, "games.example.org"))
    assert proxy["environment"]["KS_SITE"] == "games.example.org"  # a domain as the site address: automatic HTTPS
    assert {"80:80", "443:443"} <= set(proxy["ports"])
    assert "{$KS_SITE::80} {" in (DEPLOY / "Caddyfile").read_text()
    assert any(v.endswith(":/data") for v in proxy["volumes"])  # the certificates survive a restart


def test_the_image_installs_the_locked_dependencies(tmp_path: Path) -> None:
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert "pip install --no-cache-dir --require-hashes -r deploy/requirements.lock" in dockerfile
    assert "pip install --no-cache-dir --no-deps ." in dockerfile
    lock = (DEPLOY / "requirements.lock").read_text()
    assert lock.splitlines()[1].strip() == "#    deploy/lock"  # says how it was made
    pins = dict(re.findall(r"^([a-z0-9][a-z0-9._-]*)==([^\s;\\]+)", lock, re.M))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for spec in [*project["dependencies"], *project["optional-dependencies"]["fast"]]:
        req = Requirement(spec)
        name = req.name.lower().replace("_", "-")
        assert name in pins, f"{name} is not in deploy/requirements.lock: run deploy/lock"
        assert req.specifier.contains(pins[name]), f"{name}=={pins[name]} does not satisfy {req}: run deploy/lock"
    assert all(re.search(rf"^{re.escape(n)}==\S+ \\\n\s+--hash=sha256:", lock, re.M) for n in pins)


def _ignored(patterns: list[str], path: str) -> bool:
    def regex(pattern: str) -> str:
        out = re.escape(pattern.strip("/")).replace(r"\*\*/", "(?:.*/)?").replace(r"\*\*", ".*")
        return out.replace(r"\*", "[^/]*").replace(r"\?", "[^/]")

    parts = path.split("/")
    prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    return any(re.fullmatch(regex(p), prefix) for p in patterns for prefix in prefixes)


def test_the_build_context_leaves_out_what_the_image_must_not_carry() -> None:
    patterns = [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()
                if line.strip() and not line.startswith("#")]
    assert not any(p.startswith("!") for p in patterns)
    for path in (".venv/bin/python", "client_web/node_modules/vite/package.json", "data/demo-links-drill.json",
                 "client_web/dist/index.html", "dist/kriegsspiel.whl", "kriegsspiel.egg-info/PKG-INFO", ".git/HEAD",
                 "server/__pycache__/app.cpython-311.pyc", "deploy/.env"):
        assert _ignored(patterns, path), path
    copied = re.findall(r"^COPY (?!--from)(\S+)", (DEPLOY / "Dockerfile").read_text(), re.M)
    for source in copied:  # what the Dockerfile copies is in the context
        assert not _ignored(patterns, source.rstrip("/")), source
    for path in ("server/net/app.py", "shared/protocol/schema.json", "client_web/src/main.ts",
                 "client_web/package-lock.json", "deploy/requirements.lock"):
        assert not _ignored(patterns, path), path
