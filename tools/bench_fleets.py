"""Synthetic fleets for the render benchmark: stack configs built in memory, N of one thing each.

Each builder returns a :class:`Spec`: the stack name and the config as the engine hands it to the program (every
top-level ``elastic-capacity:`` key a JSON string), so a render child runs it exactly like a stack file.

- ``queues``: Kueue (installed by the stack) on an existing AKS cluster with N ClusterQueues, each with its
  LocalQueue in a namespace of its own, sharing the walkthrough's flavor and provisioning check;
- ``workloads``: one ACK Pro cluster (network, node pool, virtual node) with N ACS CPU workloads;
- ``clusters``: N ACK Pro clusters in one region, each with its own network, node pool and one ACS workload;
- ``aks-pools``: one AKS cluster with N autoscaling user pools (at most 99: AKS's 100 pools include the system pool);
- ``ack-pools``: one ACK Pro cluster with its system pool and N fixed user pools;
- ``multikueue-workers``: Kueue on an existing AKS cluster as the MultiKueue manager of N new ACK Pro clusters (at
  most 20: the MultiKueueConfig CRD's ``maxItems``).

A fleet with a limit (:data:`CAPS`) builds its limit when asked for more: the benchmark says so beside the N it was
asked for, rather than failing.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

from components.config.aks.aks import MAX_POOLS
from components.config.base import PROJECT
from components.config.multikueue.multikueue import MultiKueueConfig
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


def _ack_cluster(name: str, **extra: Any) -> dict[str, Any]:
    zone = {"zoneId": "cn-hangzhou-k", "nodeCidr": "10.1.0.0/16", "podCidr": "10.4.0.0/16"}
    return {
        "name": name,
        "region": "cn-hangzhou",
        "kubernetesVersion": "1.35",
        "network": {"vpcCidr": "10.0.0.0/8", "zones": [zone]},
        "nodePool": {"name": "system", "instanceTypes": ["ecs.g7.large"], "minSize": 2, "maxSize": 2},
        **extra,
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


MAX_WORKERS = MultiKueueConfig.model_fields["workers"].metadata[-1].max_length
CAPS: dict[str, tuple[int, str]] = {
    "aks-pools": (MAX_POOLS - 1, "AKS limit"),
    "multikueue-workers": (MAX_WORKERS, "MultiKueue limit"),
}
"""The fleets with a limit: the most of their thing a valid stack has, and whose limit it is."""


def capped(fleet: str, n: int) -> int:
    """The N a fleet builds when asked for ``n``: ``n``, or the fleet's limit below it."""
    return min(n, CAPS[fleet][0]) if fleet in CAPS else n


def aks_pools(n: int) -> Spec:
    """One AKS cluster with N autoscaling user pools (N capped at 99)."""
    pools = [
        {"name": f"pool{i}", "vmSize": "Standard_D4s_v3", "initialCount": 0, "minCount": 0, "maxCount": 5}
        for i in range(capped("aks-pools", n))
    ]
    aks = {"location": "eastus2", "resourceGroup": {"name": "bench-rg", "create": True}, "userPools": pools}
    return Spec(f"bench-aks-pools-{capped('aks-pools', n)}", _engine_config({"aks": aks}))


def ack_pools(n: int) -> Spec:
    """One ACK Pro cluster with its system pool and N fixed user pools."""
    pools = [{"name": f"pool-{i}", "instanceTypes": ["ecs.g7.large"], "maxSize": 1} for i in range(n)]
    ack = {"clusters": [_ack_cluster("c0", userPools=pools)]}
    return Spec(f"bench-ack-pools-{n}", _engine_config({"ack": ack}))


def multikueue_workers(n: int) -> Spec:
    """Kueue on an existing AKS cluster, the MultiKueue manager of N new ACK Pro clusters (N capped at 20)."""
    names = [f"w{i}" for i in range(capped("multikueue-workers", n))]
    mirror = {"imageRepository": "m.daocloud.io/registry.k8s.io/kueue/kueue"}
    mirror["probeImage"] = "m.daocloud.io/registry.k8s.io/kubectl"
    sections = {
        "existingCluster": {"source": "aks", "resourceGroupName": "bench-rg", "clusterName": "bench"},
        "kueue": {"frameworks": ["batch/job"]},
        "queues": {"preset": AKS_WALKTHROUGH},
        "ack": {"clusters": [_ack_cluster(c, slbInternetEnabled=True) for c in names]},
        "multiKueue": {"workers": [{"cluster": c, **mirror} for c in names]},
    }
    return Spec(f"bench-multikueue-workers-{len(names)}", _engine_config(sections))


FLEETS: dict[str, Callable[[int], Spec]] = {
    "queues": queues,
    "workloads": workloads,
    "clusters": clusters,
    "aks-pools": aks_pools,
    "ack-pools": ack_pools,
    "multikueue-workers": multikueue_workers,
}
"""Every synthetic fleet by name, in the order the benchmark runs them."""
