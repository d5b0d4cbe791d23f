"""Core Kubernetes objects more than one half creates."""

from __future__ import annotations

from typing import Any


def namespace(name: str) -> dict[str, Any]:
    """A Namespace with a name and nothing else, as ``kubectl create namespace`` makes it."""
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
