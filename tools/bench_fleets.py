"""Synthetic fleets for the render benchmark: stack configs built in memory, N of one thing each.

Each builder returns a :class:`Spec`: the stack name and the config as the engine hands it to the program (every
top-level ``elastic-capacity:`` key a JSON string), so a render child runs it exactly like a stack file.

- ``queues``: Kueue (installed by the stack) on an existing AKS cluster with N ClusterQueues, each with its
  LocalQueue in a namespace of its own, sharing the walkthrough's flavor and provisioning check;
- ``workloads``: one ACK Pro cluster (network, node pool, virtual node) with N ACS CPU workloads;
- ``clusters``: N ACK Pro clusters in one region, each with its own network, node pool and one ACS workload.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

from components.config.base import PROJECT
from components.config.queues.presets import AKS_WALKTHROUGH, PRESETS

IMAGE = "registry.openanolis.cn/openanolis/nginx:1.14.1-8.6"
WALKTHROUGH = PRESETS[AKS_WALKTHROUGH]
"""The queue objects of Azure's article, whose flavor and provisioning check every benchmark ClusterQueue shares."""


@dataclasses.dataclass(frozen=True)
class Spec:
    """What a render child runs: a stack name, its engine config and its secret keys."""

    stack: str
    config: dict[str, str]
    secret_keys: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"stack": self.stack, "config": self.config, "secretKeys": list(self.secret_keys)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Spec:
        return cls(str(data["stack"]), dict(data["config"]), tuple(data.get("secretKeys") or ()))


def _engine_config(sections: dict[str, Any]) -> dict[str, str]:
    return {f"{PROJECT}:{key}": json.dumps(value) for key, value in sections.items()}


def _cluster_queue(index: int) -> dict[str, Any]:
    quota = [{"name": "cpu", "nominalQuota": "100"}, {"name": "memory", "nominalQuota": "200Gi"}]
    return {
        "name": f"cq-{index}",
        "resourceGroups": [
            {"coveredResources": ["cpu", "memory"], "flavors": [{"name": "scalepool", "resources": quota}]}
        ],
        "admissionChecksStrategy": {"admissionChecks": [{"name": "cas-provisioning", "onFlavors": ["scalepool"]}]},
    }


def queues(n: int) -> Spec:
    """N ClusterQueues and LocalQueues (and N namespaces) with Kueue on an existing AKS cluster."""
    sections = {
        "existingCluster": {"source": "aks", "resourceGroupName": "bench-rg", "clusterName": "bench"},
        "queues": {
            "namespaces": [f"team-{i}" for i in range(n)],
            "resourceFlavors": WALKTHROUGH["resourceFlavors"],
            "provisioningChecks": WALKTHROUGH["provisioningChecks"],
            "clusterQueues": [_cluster_queue(i) for i in range(n)],
            "localQueues": [{"name": f"lq-{i}", "namespace": f"team-{i}", "clusterQueue": f"cq-{i}"} for i in range(n)],
        },
    }
    return Spec(f"bench-queues-{n}", _engine_config(sections))


def _ack_cluster(name: str) -> dict[str, Any]:
    zone = {"zoneId": "cn-hangzhou-k", "nodeCidr": "10.1.0.0/16", "podCidr": "10.4.0.0/16"}
    return {
        "name": name,
        "region": "cn-hangzhou",
        "kubernetesVersion": "1.35",
        "network": {"vpcCidr": "10.0.0.0/8", "zones": [zone]},
        "nodePool": {"name": "system", "instanceTypes": ["ecs.g7.large"], "minSize": 2, "maxSize": 2},
    }


def _workload(name: str, cluster: str) -> dict[str, Any]:
    return {"name": name, "cluster": cluster, "replicas": 1, "image": IMAGE, "scheduling": "pod-label", "cpu": "1"}


def workloads(n: int) -> Spec:
    """One ACK Pro cluster with N ACS workloads."""
    ack = {"clusters": [_ack_cluster("c0")], "workloads": [_workload(f"w{i}", "c0") for i in range(n)]}
    return Spec(f"bench-workloads-{n}", _engine_config({"ack": ack}))


def clusters(n: int) -> Spec:
    """N ACK Pro clusters, one ACS workload on each."""
    names = [f"c{i}" for i in range(n)]
    ack = {"clusters": [_ack_cluster(c) for c in names], "workloads": [_workload("web", c) for c in names]}
    return Spec(f"bench-clusters-{n}", _engine_config({"ack": ack}))


FLEETS: dict[str, Callable[[int], Spec]] = {"queues": queues, "workloads": workloads, "clusters": clusters}
"""Every synthetic fleet by name, in the order the benchmark runs them."""
