"""MultiKueue test data: a burst stack of an AKS manager and one ACK worker, a worker given by kubeconfig, and
Kueue's own MultiKueue set-up as the ``queues`` section writes it. Each factory returns stack sections (camelCase)
and takes sections to replace."""

from __future__ import annotations

from typing import Any

from components import yaml_text
from tests.support import ack as ack_data
from tests.support.config import WALKTHROUGH

MIRROR = {"imageRepository": "k8s.m.daocloud.io/kueue/kueue", "probeImage": "k8s.m.daocloud.io/kubectl"}
"""What a worker in mainland China pulls instead of registry.k8s.io."""
WORKER = ack_data.cluster("worker", nodePool=ack_data.POOL)
BURST = {"workers": [{"cluster": "worker", **MIRROR}]}
KUBECONFIGS = "elastic-capacity:multiKueueKubeconfigs"
WORKER_KUBECONFIG = yaml_text.dump(
    {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {"name": "w1", "cluster": {"server": "https://w1.example.com:6443", "certificate-authority-data": "Q0E="}}
        ],
        "users": [{"name": "w1", "user": {"token": "sa-token-not-to-be-quoted"}}],
        "contexts": [{"name": "w1", "context": {"cluster": "w1", "user": "w1"}}],
        "current-context": "w1",
    },
    sort_keys=True,
)
"""What Kueue's create-multikueue-kubeconfig.sh writes: a ServiceAccount token and inline CA data."""


def stack(**changes: Any) -> dict[str, Any]:
    """An AKS manager on Kubernetes 1.35 with Kueue 0.17.8 and the walkthrough's queues (as the shipped burst stack),
    and one ACK worker with a node pool and a public API; a change to ``None`` leaves its section out."""
    sections: dict[str, Any] = {
        "aks": {"preset": "aks-walkthrough"},
        **WALKTHROUGH,
        "ack": {"clusters": [WORKER]},
        "multiKueue": BURST,
    }
    sections.update(changes)
    return {section: value for section, value in sections.items() if value is not None}


def kubeconfig_stack(**changes: Any) -> dict[str, Any]:
    """A manager whose one worker is given by kubeconfig, as in Kueue's own MultiKueue guide."""
    sections: dict[str, Any] = {
        "aks": {"preset": "aks-walkthrough"},
        "multiKueue": {"workers": [{"source": "kubeconfig", "name": "w1"}]},
        "multiKueueKubeconfigs": {"w1": WORKER_KUBECONFIG},
    }
    sections.update(changes)
    return sections


QUEUES_WITH_MULTIKUEUE: dict[str, Any] = {
    "namespaces": [],
    "existingNamespaces": ["default"],
    "resourceFlavors": [{"name": "default-flavor"}],
    "provisioningChecks": [],
    "admissionChecks": [
        {
            "name": "sample-multikueue",
            "controllerName": "kueue.x-k8s.io/multikueue",
            "parameters": {"apiGroup": "kueue.x-k8s.io", "kind": "MultiKueueConfig", "name": "multikueue-test"},
        }
    ],
    "clusterQueues": [
        {
            "name": "cluster-queue",
            "namespaceSelector": {},
            "resourceGroups": [
                {
                    "coveredResources": ["cpu", "memory"],
                    "flavors": [
                        {
                            "name": "default-flavor",
                            "resources": [
                                {"name": "cpu", "nominalQuota": 9},
                                {"name": "memory", "nominalQuota": "36Gi"},
                            ],
                        }
                    ],
                }
            ],
            "admissionChecksStrategy": {"admissionChecks": [{"name": "sample-multikueue"}]},
        }
    ],
    "localQueues": [{"name": "user-queue", "namespace": "default", "clusterQueue": "cluster-queue"}],
}
"""Kueue's multikueue-setup.yaml as the ``queues`` section writes it."""
OWN_QUEUES = {"burstQueue": False, "configName": "multikueue-test", "workers": [{"cluster": "worker", **MIRROR}]}


def queues_stack(queues: dict[str, Any] | None = None, **burst: Any) -> dict[str, Any]:
    """:func:`stack` with the ``queues`` section holding the MultiKueue check (``burstQueue: false``)."""
    labels = {"managedJobsNamespaceSelector": {"matchLabels": {"managed-by-kueue": "true"}}}
    return stack(queues=queues or QUEUES_WITH_MULTIKUEUE, multiKueue={**OWN_QUEUES, **burst}, kueue=labels)
