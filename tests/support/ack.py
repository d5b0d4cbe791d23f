"""ACK and ACS test data: the one cluster factory and the one workload factory every ACK/ACS test uses, and the
program that runs ``AckProCluster`` components under the mocks (:func:`program_for`, :func:`build`).

Both factories return the stack-file shape (camelCase dicts) of a valid entry and take top-level keys to change:
a value replaces the key, ``None`` removes it. The ``*_config`` variants validate the same dict into the model.
"""

from __future__ import annotations

import copy
from typing import Any

import pulumi
import pytest
from packaging.version import Version

from components.alicloud.ack import AckProCluster
from components.config.ack.ack import AckClusterConfig
from components.config.ack.acs import AcsWorkloadConfig
from components.config.base import ConfigError
from components.config.deploy.checks import AckReport
from components.config.environment import EnvironmentConfig
from components.config.environment_rules import resolved_ack_cluster
from components.config.versions import SCHEDULER_MIN_GPU_HPN, ClusterNeeds, SchedulerNeed, VirtualNodeNeed
from tools import mock_runtime
from tools.recording import Recording, RecordingMonitor, Registration

CLUSTER_TYPE = "alicloud:cs/managedKubernetes:ManagedKubernetes"
ADDON_TYPE = "alicloud:cs/kubernetesAddon:KubernetesAddon"
NODE_POOL_TYPE = "alicloud:cs/nodePool:NodePool"
VPC_TYPE = "alicloud:vpc/network:Network"
SWITCH_TYPE = "alicloud:vpc/switch:Switch"
NAT_TYPE = "alicloud:vpc/natGateway:NatGateway"
EIP_TYPE = "alicloud:ecs/eipAddress:EipAddress"
EIP_ASSOCIATION_TYPE = "alicloud:ecs/eipAssociation:EipAssociation"
SNAT_TYPE = "alicloud:vpc/snatEntry:SnatEntry"
NETWORK_TYPES = (VPC_TYPE, SWITCH_TYPE, NAT_TYPE, EIP_TYPE, EIP_ASSOCIATION_TYPE, SNAT_TYPE)
DEPLOYMENT_TYPE = "kubernetes:apps/v1:Deployment"
NAMESPACE_TYPE = "kubernetes:core/v1:Namespace"
RESOURCE_POLICY_TYPE = "kubernetes:scheduling.alibabacloud.com/v1alpha1:ResourcePolicy"
PERMISSION_TYPE = "alicloud:cs/kubernetesPermission:KubernetesPermission"

VERSION_INVOKE = "alicloud:cs/getKubernetesVersion:getKubernetesVersion"
ADDONS_INVOKE = "alicloud:cs/getKubernetesAddons:getKubernetesAddons"
CREDENTIAL_INVOKE = "alicloud:cs/getClusterCredential:getClusterCredential"
CLUSTERS_INVOKE = "alicloud:cs/getClusters:getClusters"
NAT_ZONES_INVOKE = "alicloud:vpc/getEnhancedNatAvailableZones:getEnhancedNatAvailableZones"

KEY = "elastic-capacity:ack.clusters[0]"
"""The stack key of the first cluster, which deploy-time errors extend."""

ZONE_K = {"zoneId": "cn-hangzhou-k", "nodeCidr": "10.1.0.0/16", "podCidr": "10.4.0.0/16"}
ZONE_J = {"zoneId": "cn-hangzhou-j", "nodeCidr": "10.2.0.0/16", "podCidr": "10.5.0.0/16"}
NEW_VPC = {"vpcCidr": "10.0.0.0/8", "zones": [ZONE_K, ZONE_J]}
"""The default network: a new VPC in two zones of cn-hangzhou, both offering Enhanced NAT in the mocks."""
EXISTING = {"vswitchIds": ["vsw-node1", "vsw-node2"], "podVswitchIds": ["vsw-pod1", "vsw-pod2"]}
"""Existing vSwitches: no VPC resources and no NAT check."""
POOL = {"name": "system", "instanceTypes": ["ecs.g7.large"], "minSize": 2, "maxSize": 2}
"""A fixed pool of two ECS nodes, as the shipped stack has."""

SCHEDULER_1_35 = "v1.35.0-apsara.6.11.4.77470105"
"""A kube-scheduler build for 1.35 above every minimum: what ACK installs by default (see the mocks)."""
GPU_SCHEDULER_1_31 = "v1.31.0-aliyun.6.8.4.8f585f26"
"""ACK's minimum kube-scheduler for ACS GPU on 1.31, the newest row of its GPU table."""

CI_USER, OPS_ROLE = "2030000000000001", "300000000000000002"
GRANTS = [
    {"ramUserId": CI_USER, "role": "admin"},
    {"ramRoleId": OPS_ROLE, "role": "dev", "namespace": "team-a"},
    {"ramRoleId": OPS_ROLE, "role": "restricted"},
]
"""An ``rbac`` list: a CI user with admin on the cluster, a role with two scopes (two roles, one identity)."""

GPU = {"computeClass": "gpu", "gpuModelSeries": "T4", "gpu": 1, "cpu": 1, "memory": "1Gi"}
"""The fields that make a workload a valid ``gpu`` one."""
GPU_HPN = {"computeClass": "gpu-hpn", "cpu": 1, "memory": "1Gi"}
"""The fields that make a workload a valid ``gpu-hpn`` one."""


def _changed(base: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    data = copy.deepcopy(base)
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = copy.deepcopy(value)
    return data


def cluster(name: str = "demo", **changes: Any) -> dict[str, Any]:
    """An ``ack.clusters`` entry: ACK 1.35 in cn-hangzhou on :data:`NEW_VPC`, nothing pinned, no node pool."""
    base = {"name": name, "region": "cn-hangzhou", "kubernetesVersion": "1.35", "network": NEW_VPC}
    return _changed(base, changes)


def cluster_config(name: str = "demo", **changes: Any) -> AckClusterConfig:
    """:func:`cluster`, validated."""
    return AckClusterConfig.model_validate(cluster(name, **changes))


EXISTING_ID = "c0123456789abcdef0123456789abcdef"
"""The id of the existing ACK cluster of :func:`existing_cluster`."""


def existing_cluster(name: str = "shared", **changes: Any) -> dict[str, Any]:
    """An ``ack.existingClusters`` entry: :data:`EXISTING_ID` in cn-hangzhou on 1.35."""
    base = {"name": name, "clusterId": EXISTING_ID, "region": "cn-hangzhou", "kubernetesVersion": "1.35"}
    return _changed(base, changes)


def workload(name: str = "web", **changes: Any) -> dict[str, Any]:
    """An ``ack.workloads`` entry: nginx on cluster ``demo``, every other field at its default."""
    return _changed({"name": name, "cluster": "demo", "image": "nginx:1.27"}, changes)


def workload_config(name: str = "web", **changes: Any) -> AcsWorkloadConfig:
    """:func:`workload`, validated."""
    return AcsWorkloadConfig.model_validate(workload(name, **changes))


def section(workloads: list[dict[str, Any]], clusters: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The ``ack`` section: these workloads, on one default :func:`cluster` unless clusters are given."""
    return {"clusters": clusters or [cluster()], "workloads": workloads}


def invokes(recording: Recording, token: str) -> list[Any]:
    """The invokes of one function the recorded program made, in order."""
    return [call for call in recording.invokes if call.token == token]


def failed_run(
    monkeypatch: pytest.MonkeyPatch, program: Any, *, preview: bool = False
) -> tuple[ConfigError, list[Registration]]:
    """Run ``program`` under the mocks expecting a ``ConfigError``; return it and what was registered before it."""
    monitors: list[RecordingMonitor] = []

    class Kept(RecordingMonitor):
        def __init__(self, mocks: Any) -> None:
            super().__init__(mocks)
            monitors.append(self)

    monkeypatch.setattr(mock_runtime, "RecordingMonitor", Kept)
    with pytest.raises(ConfigError) as caught:
        mock_runtime.run(program, {}, preview=preview)
    assert "\n" not in str(caught.value), "a config error is one line"
    return caught.value, monitors[-1].registrations


COMPONENT_TYPE = "elastic-capacity:alicloud:AckProCluster"
ACS_ONLY = ClusterNeeds((), VirtualNodeNeed(Version("2.13.0"), "ACS on Kubernetes 1.26 or later"))
GPU_HPN_NEEDS = ClusterNeeds(
    (SchedulerNeed("ack.workloads[5] (hpn, gpu-hpn)", Version("6.9.4"), SCHEDULER_MIN_GPU_HPN["1.33"]),),
    VirtualNodeNeed(Version("2.15.0"), "ack.workloads[5] (hpn, gpu-hpn)"),
)


def program_for(
    *configs: AckClusterConfig, needs: ClusterNeeds = ACS_ONLY, environment: EnvironmentConfig | None = None
):
    """A program registering one component per config (named ``ack-<name>``, resolved for ``environment`` as the
    loader resolves it) and exporting its outputs, and a
    stand-in for an ACS workload (``<name>-workload``) that waits for the component's addons as the real ones do."""

    def program() -> None:
        for index, given in enumerate(configs):
            key = f"elastic-capacity:ack.clusters[{index}]"
            cfg = resolved_ack_cluster(index, given, environment) if environment is not None else given
            component = AckProCluster(f"ack-{cfg.name}", cfg, needs, AckReport(key))
            pulumi.export(f"{cfg.name}-kubeconfig", component.kubeconfig)
            pulumi.export(f"{cfg.name}-endpoint", component.api_server_endpoint)
            pulumi.export(f"{cfg.name}-cluster-id", component.cluster_id)
            pulumi.export(f"{cfg.name}-version", component.kubernetes_version)
            pulumi.export(f"{cfg.name}-addons", component.addons.apply(lambda addons: [a.urn for a in addons]))
            pulumi.CustomResource(
                "test:index:Workload", f"{cfg.name}-workload", {}, pulumi.ResourceOptions(depends_on=component.addons)
            )

    return program


def build(
    run_program: Any, *configs: AckClusterConfig, needs: ClusterNeeds = ACS_ONLY, **environment: str
) -> Recording:
    """``environment`` holds the keys of an ``environment`` section (``kind``, ``name_suffix``), if any."""
    return run_program(program_for(*configs, needs=needs, environment=EnvironmentConfig(**environment)))
