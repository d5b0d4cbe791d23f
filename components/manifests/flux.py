"""The Flux Kustomization that applies one rendered layer, as a plain dict.

Flux generates a ``kustomization.yaml`` for a path without one, taking every manifest in its directory tree, so the
provider's ``0-crd/`` and ``1-manifest/`` sub-directories are both applied
(https://github.com/fluxcd/kustomize-controller/blob/main/docs/spec/v1/kustomizations.md, "Generating a
kustomization.yaml file").
"""

from __future__ import annotations

from typing import Any

FLUX_NAMESPACE = "flux-system"
SOURCE = {"kind": "GitRepository", "name": "flux-system"}
"""The GitRepository ``flux bootstrap`` creates for the repository it is bootstrapped from: the rendered directory is
committed to this repository, so the paths below are relative to its root."""


def kustomization(name: str, *, path: str, after: str | None) -> dict[str, Any]:
    """Apply ``path`` once the Kustomization ``after`` is Ready. ``wait`` makes Ready mean every object applied is
    healthy (Kueue's controller Deployment available, the CRDs established), and a Kustomization that ``dependsOn``
    one with ``wait`` is applied only after those health checks pass; ``prune`` deletes what a later render no longer
    holds. Available is not yet serving: Kueue's webhooks refuse objects for 10-30 s more
    (https://github.com/kubernetes-sigs/kueue/issues/13036), and a failed apply is tried again after
    ``retryInterval``, not ``interval`` (``Reconcile`` in
    https://github.com/fluxcd/kustomize-controller/blob/main/internal/controller/kustomization_controller.go)."""
    spec: dict[str, Any] = {
        "interval": "10m",
        "retryInterval": "1m",
        "timeout": "5m",
        "path": path,
        "prune": True,
        "wait": True,
        "sourceRef": dict(SOURCE),
    }
    if after is not None:
        spec["dependsOn"] = [{"name": after}]
    return {
        "apiVersion": "kustomize.toolkit.fluxcd.io/v1",
        "kind": "Kustomization",
        "metadata": {"name": name, "namespace": FLUX_NAMESPACE},
        "spec": spec,
    }
