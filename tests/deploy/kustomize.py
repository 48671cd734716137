"""Render deploy/k8s as `kubectl apply -k` would: with `kubectl kustomize` when it is installed, else with a small
pure-Python rendering of the features deploy/k8s uses (resources, namespace, labels without selectors, images).
When kubectl is there the tests check that both renderings agree, so the fallback cannot drift."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import yaml

CLUSTER_SCOPED = {"Namespace", "ClusterRole", "ClusterRoleBinding", "PersistentVolume", "StorageClass",
                  "IngressClass", "CustomResourceDefinition", "PriorityClass"}


def kubectl() -> str | None:
    return shutil.which("kubectl")


def render_with_kubectl(directory: Path) -> list[dict[str, Any]]:
    exe = kubectl()
    assert exe is not None
    out = subprocess.run([exe, "kustomize", str(directory)], check=True, capture_output=True, text=True).stdout
    return [doc for doc in yaml.safe_load_all(out) if doc]


def render_plain(directory: Path) -> list[dict[str, Any]]:
    spec = yaml.safe_load((directory / "kustomization.yaml").read_text())
    known = {"apiVersion", "kind", "namespace", "labels", "resources", "images"}
    unknown = set(spec) - known
    assert not unknown, f"the pure-Python rendering does not know {sorted(unknown)}: teach it, or use kubectl"
    docs: list[dict[str, Any]] = []
    for name in spec["resources"]:
        for doc in yaml.safe_load_all((directory / name).read_text()):
            if doc:
                docs.append(json.loads(json.dumps(doc)))  # unshare YAML aliases: labels must not leak into selectors
    for doc in docs:
        meta = doc.setdefault("metadata", {})
        if spec.get("namespace") and doc["kind"] not in CLUSTER_SCOPED:
            meta["namespace"] = spec["namespace"]
        for entry in spec.get("labels", []):
            assert not entry.get("includeSelectors") and not entry.get("includeTemplates")
            meta.setdefault("labels", {}).update(entry["pairs"])
        for container in _containers(doc):
            for image in spec.get("images", []):
                if container["image"].split(":")[0] == image["name"]:
                    container["image"] = f"{image.get('newName', image['name'])}:{image['newTag']}"
    return docs


def _containers(doc: dict[str, Any]) -> list[dict[str, Any]]:
    pod = doc.get("spec", {}).get("template", {}).get("spec", {})
    return [*pod.get("initContainers", []), *pod.get("containers", [])]


def render(directory: Path) -> list[dict[str, Any]]:
    return render_with_kubectl(directory) if kubectl() else render_plain(directory)


def by_kind_and_name(docs: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(d["kind"], d["metadata"]["name"]): d for d in docs}


def routed(ingress: dict[str, Any], path: str) -> bool:
    """Whether the Ingress sends `path` to a backend (Exact and Prefix path types)."""
    for rule in ingress["spec"]["rules"]:
        for p in rule["http"]["paths"]:
            prefix = p["path"].rstrip("/")
            if path == p["path"] or (p["pathType"] == "Prefix" and (path == prefix or path.startswith(prefix + "/"))):
                return True
    return False
