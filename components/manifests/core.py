"""Core Kubernetes objects more than one half creates."""

from __future__ import annotations

from typing import Any


def namespace(name: str, labels: dict[str, str] | None = None) -> dict[str, Any]:
    """A Namespace with a name (and ``labels``, if any), as ``kubectl create namespace`` makes it."""
    metadata: dict[str, Any] = {"name": name, "labels": dict(labels)} if labels else {"name": name}
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": metadata}
