"""The Flux Kustomization of one rendered layer."""

from __future__ import annotations

from components.manifests.flux import kustomization


def test_the_first_layer_waits_for_nothing_and_every_layer_waits_until_healthy():
    first = kustomization("aks-10-kueue", path="./gitops/aks/10-kueue", after=None)
    assert first == {
        "apiVersion": "kustomize.toolkit.fluxcd.io/v1",
        "kind": "Kustomization",
        "metadata": {"name": "aks-10-kueue", "namespace": "flux-system"},
        "spec": {
            "interval": "10m",
            "retryInterval": "1m",
            "timeout": "5m",
            "path": "./gitops/aks/10-kueue",
            "prune": True,
            "wait": True,
            "sourceRef": {"kind": "GitRepository", "name": "flux-system"},
        },
    }


def test_a_later_layer_depends_on_the_one_before():
    later = kustomization("aks-20-queues", path="./gitops/aks/20-queues", after="aks-10-kueue")
    assert later["spec"]["dependsOn"] == [{"name": "aks-10-kueue"}]
