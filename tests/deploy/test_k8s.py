"""deploy/k8s: every rendered resource is valid against the Kubernetes schemas (offline: kubernetes-validate ships
them), and the recipe does what docs/operating.md promises — probes on /healthz, a node name per pod, the public
URL and create token from a Secret, a grace period longer than the drain, a disruption budget, Redis with AOF
`always` on a volume, websockets with long idle timeouts, Redis and /metrics kept private."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest

from server.settings import Settings, parse
from tests.deploy.kustomize import by_kind_and_name, kubectl, render, render_plain, render_with_kubectl, routed

K8S = Path(__file__).resolve().parents[2] / "deploy" / "k8s"
KUBERNETES_VERSION = "1.30.0"  # the oldest release still commonly deployed; the recipe uses nothing newer


@pytest.fixture(scope="module")
def docs() -> list[dict[str, Any]]:
    return render(K8S)


@pytest.fixture(scope="module")
def res(docs: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    return by_kind_and_name(docs)


def test_every_resource_is_valid_against_the_kubernetes_schemas(docs: list[dict[str, Any]]) -> None:
    assert len(docs) >= 10
    for doc in docs:
        kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)  # raises on a bad or unknown field


def test_the_pure_python_rendering_agrees_with_kubectl_kustomize() -> None:
    if kubectl() is None:
        pytest.skip("kubectl is not installed: the tests use the pure-Python rendering alone")
    assert by_kind_and_name(render_plain(K8S)) == by_kind_and_name(render_with_kubectl(K8S))


def _server(res: dict[tuple[str, str], dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
    deployment = res[("Deployment", "kriegsspiel")]
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    return pod, container


def _env(container: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["name"]: e for e in container["env"]}


def _settings(container: dict[str, Any]) -> Settings:
    """What the server makes of the container's environment (secrets stand in as placeholders)."""
    return parse([], env={name: e.get("value", f"https://secret-{name.lower()}.example")
                          for name, e in _env(container).items()})


def test_the_server_takes_its_node_name_from_the_pod_and_its_url_and_create_token_from_a_secret(
        res: dict[tuple[str, str], dict[str, Any]]) -> None:
    _, container = _server(res)
    env = _env(container)
    assert env["KS_NODE"]["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.name"
    for name in ("KS_PUBLIC_URL", "KS_CREATE_TOKEN"):
        assert env[name]["valueFrom"]["secretKeyRef"]["name"] == "kriegsspiel"
    settings = _settings(container)
    assert settings.redis_url and settings.create_token and settings.public_url
    assert settings.host == "0.0.0.0"


def test_probes_ask_healthz_on_the_port_the_server_listens_on(
        res: dict[tuple[str, str], dict[str, Any]]) -> None:
    _, container = _server(res)
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    settings = _settings(container)
    assert ports["http"] == settings.port and ports["metrics"] == settings.metrics_port
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        get = container[probe]["httpGet"]
        assert get["path"] == "/healthz" and ports[get["port"]] == settings.port


def test_the_grace_period_outlasts_the_drain(
        res: dict[tuple[str, str], dict[str, Any]]) -> None:
    pod, container = _server(res)
    settings = _settings(container)
    command = container["lifecycle"]["preStop"]["exec"]["command"]
    assert command[0] == "sleep"
    drain_s = float(command[1]) + settings.shutdown_timeout_s
    assert pod["terminationGracePeriodSeconds"] >= drain_s + 10  # and time to snapshot and release the rooms


def test_a_disruption_budget_keeps_all_but_one_node_up(res: dict[tuple[str, str], dict[str, Any]]) -> None:
    deployment = res[("Deployment", "kriegsspiel")]
    pdb = res[("PodDisruptionBudget", "kriegsspiel")]
    assert pdb["spec"]["selector"]["matchLabels"] == deployment["spec"]["selector"]["matchLabels"]
    assert pdb["spec"]["maxUnavailable"] == 1 and deployment["spec"]["replicas"] >= 2
    assert deployment["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0


def test_redis_is_a_statefulset_with_a_volume_and_aof_fsync_always(
        res: dict[tuple[str, str], dict[str, Any]]) -> None:
    redis = res[("StatefulSet", "redis")]
    (container,) = redis["spec"]["template"]["spec"]["containers"]
    args = container["args"]

    def arg(flag: str) -> str:
        return str(args[args.index(flag) + 1])

    assert arg("--appendonly") == "yes" and arg("--appendfsync") == "always"
    (claim,) = redis["spec"]["volumeClaimTemplates"]
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    assert mounts[claim["metadata"]["name"]] == arg("--dir")
    service = res[("Service", "redis")]
    assert service["spec"]["clusterIP"] == "None" and redis["spec"]["serviceName"] == "redis"
    _, server = _server(res)
    assert _settings(server).redis_url == "redis://redis:6379/0"


def test_the_ingress_passes_websockets_with_idle_timeouts_above_the_heartbeat_and_hides_metrics(
        res: dict[tuple[str, str], dict[str, Any]]) -> None:
    ingress = res[("Ingress", "kriegsspiel")]
    notes = ingress["metadata"]["annotations"]
    for key in ("proxy-read-timeout", "proxy-send-timeout"):
        assert int(notes[f"nginx.ingress.kubernetes.io/{key}"]) > 3 * Settings().heartbeat_s
    assert ingress["spec"]["tls"]
    for path in ("/", "/ws", "/api/campaigns", "/api/lobby", "/api/rooms/c-1/replay", "/assets/index.js"):
        assert routed(ingress, path), path
    for path in ("/metrics", "/healthz", "/metricsx"):
        assert not routed(ingress, path), path


def _allowed(policies: list[dict[str, Any]], labels: dict[str, str], port: int) -> list[list[dict[str, Any]]]:
    """The `from` lists of every policy rule that lets traffic reach `port` of a pod with `labels`."""
    found = []
    for policy in policies:
        selector = policy["spec"]["podSelector"].get("matchLabels", {})
        if not selector.items() <= labels.items():
            continue
        for rule in policy["spec"].get("ingress", []):
            if any(p["port"] == port for p in rule.get("ports", [])) or "ports" not in rule:
                found.append(rule.get("from", []))
    return found


def test_network_policies_keep_redis_and_metrics_private(res: dict[tuple[str, str], dict[str, Any]]) -> None:
    policies = [d for (kind, _), d in res.items() if kind == "NetworkPolicy"]
    deny = res[("NetworkPolicy", "default-deny-ingress")]["spec"]
    assert deny["podSelector"] == {} and deny["policyTypes"] == ["Ingress"] and "ingress" not in deny
    server_labels = res[("Deployment", "kriegsspiel")]["spec"]["template"]["metadata"]["labels"]
    redis_labels = res[("StatefulSet", "redis")]["spec"]["template"]["metadata"]["labels"]

    (to_redis,) = _allowed(policies, redis_labels, 6379)
    assert to_redis == [{"podSelector": {"matchLabels": dict(server_labels)}}]
    (to_metrics,) = _allowed(policies, server_labels, 9100)
    (to_http,) = _allowed(policies, server_labels, 8080)
    namespaces = [{s["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"]} for s in to_metrics]
    assert namespaces == [{"monitoring"}]
    assert to_http != to_metrics and all("ipBlock" not in s for s in to_http + to_metrics)
