"""Typical create times per resource type: the weights of the critical-path benchmark (``python -m tools.bench``).

Nothing here is measured: a deploy is never run by the benchmark. Each weight is one number of seconds (the middle of
a range) with the range, its basis and its source:

- ``vendor``: the vendor publishes a figure or a bound (quoted in ``note``);
- ``estimate``: no vendor figure exists; the note says what the number is made of;
- ``none``: nothing is created in the cloud (components, providers configured in process).

Kubernetes objects that pulumi-kubernetes awaits (a Deployment's rollout, a Job's completion, a Helm chart's
children) weigh what the await takes; an object it does not await weighs one API round trip. A Job annotated
``pulumi.com/skipAwait`` is not awaited, so it has its own key (:func:`weight_key`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from components.config.base import PROJECT
from tools.bench_plan import metadata

SKIP_AWAIT = "pulumi.com/skipAwait"
"""The annotation that makes pulumi-kubernetes create an object without waiting for it."""
SKIP_AWAIT_SUFFIX = "#skipAwait"

AKS_QUICKSTART = "https://learn.microsoft.com/azure/aks/learn/quick-kubernetes-deploy-cli"
AKS_NODE_POOLS = "https://learn.microsoft.com/azure/aks/create-node-pools"
AZURE_RBAC_DELAY = "https://learn.microsoft.com/azure/role-based-access-control/troubleshooting"
ACK_CREATE = (
    "https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/create-an-ack-managed-cluster"
)
ACK_NODE_POOL = "https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/create-a-node-pool"
ACK_VIRTUAL_NODE = "https://www.alibabacloud.com/help/tc/cs/user-guide/access-acs-computing-power-in-an-ack-cluster"
NAT_GATEWAY = "https://www.alibabacloud.com/help/en/nat-gateway/developer-reference/api-vpc-2016-04-28-createnatgateway"
KUEUE_WEBHOOK = "https://github.com/kubernetes-sigs/kueue/issues/13036"
CHART_V4 = "https://www.pulumi.com/registry/packages/kubernetes/api-docs/helm/v4/chart/"
DEPLOYMENT_AWAIT = "https://www.pulumi.com/registry/packages/kubernetes/api-docs/apps/v1/deployment/"
JOB_AWAIT = "https://www.pulumi.com/registry/packages/kubernetes/api-docs/batch/v1/job/"
SCALE_UP = "https://learn.microsoft.com/azure/aks/configure-kueue-with-cluster-autoscaler"


@dataclasses.dataclass(frozen=True)
class Weight:
    """A typical create time in seconds, its range, and why."""

    seconds: float
    low: float
    high: float
    basis: str
    """``vendor``, ``estimate`` or ``none`` (see the module docstring)."""
    note: str
    source: str | None = None


NOTHING = Weight(0, 0, 0, "none", "no cloud call: a component, or a provider configured in process")
API_CALL = Weight(1, 1, 3, "estimate", "one API server request; pulumi-kubernetes awaits nothing more for this kind")
VERSION_PIN = Weight(
    0, 0, 0, "none", "no cloud call: a version pin's provider stores the version it checked in the state"
)

PROGRAM_COMPONENT = f"{PROJECT}:*"
"""The key of every component of this program (type ``elastic-capacity:<module>:<Name>``): they create nothing."""

_COMPONENTS = [
    PROGRAM_COMPONENT,
    "pulumi:providers:alicloud",
    "pulumi:providers:azure-native",
    "pulumi:providers:kubernetes",
]
_API_OBJECTS = [
    "kubernetes:core/v1:ConfigMap",
    "kubernetes:core/v1:Namespace",
    "kubernetes:core/v1:Secret",
    "kubernetes:core/v1:ServiceAccount",
    "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole",
    "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding",
    "kubernetes:rbac.authorization.k8s.io/v1:Role",
    "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding",
    "kubernetes:scheduling.alibabacloud.com/v1alpha1:ResourcePolicy",
    "kubernetes:azmonitoring.coreos.com/v1:ServiceMonitor",
    "kubernetes:monitoring.coreos.com/v1:ServiceMonitor",
    "kubernetes:monitoring.coreos.com/v1:PrometheusRule",
    f"kubernetes:batch/v1:Job{SKIP_AWAIT_SUFFIX}",
    *(
        f"kubernetes:kueue.x-k8s.io/v1beta2:{kind}"
        for kind in (
            "AdmissionCheck",
            "ClusterQueue",
            "Cohort",
            "LocalQueue",
            "MultiKueueCluster",
            "MultiKueueConfig",
            "ProvisioningRequestConfig",
            "ResourceFlavor",
            "Topology",
            "WorkloadPriorityClass",
        )
    ),
]

WEIGHTS: dict[str, Weight] = {
    **dict.fromkeys(_COMPONENTS, NOTHING),
    **dict.fromkeys(_API_OBJECTS, API_CALL),
    # Azure
    "azure-native:resources:ResourceGroup": Weight(5, 2, 10, "estimate", "one synchronous ARM request"),
    "azure-native:containerservice:ManagedCluster": Weight(
        450,
        300,
        600,
        "vendor",
        '"after a few minutes, the command completes" (az aks create); 5-10 min',
        AKS_QUICKSTART,
    ),
    "azure-native:containerservice:AgentPool": Weight(
        180, 60, 300, "estimate", "a VM scale set of 0-1 nodes joining the cluster; no published figure", AKS_NODE_POOLS
    ),
    "azure-native:containerservice:MaintenanceConfiguration": Weight(5, 2, 10, "estimate", "one ARM request"),
    "azure-native:authorization:RoleAssignment": Weight(5, 2, 10, "estimate", "one ARM request (not yet effective)"),
    **dict.fromkeys(
        [
            "azure-native:monitor:AzureMonitorWorkspace",
            "azure-native:monitor:DataCollectionEndpoint",
            "azure-native:monitor:DataCollectionRule",
            "azure-native:monitor:DataCollectionRuleAssociation",
            "azure-native:alertsmanagement:PrometheusRuleGroup",
        ],
        Weight(10, 5, 60, "estimate", "one ARM request; no published figure"),
    ),
    "azure-native:dashboard:Grafana": Weight(300, 180, 600, "estimate", "a Managed Grafana; no published figure"),
    "pulumi-python:dynamic/azure:ClusterAccess": Weight(
        120, 0, 600, "vendor", 'waits until the role assignment works: "can take up to 10 minutes"', AZURE_RBAC_DELAY
    ),
    # Alibaba Cloud
    "alicloud:vpc/network:Network": Weight(10, 5, 30, "estimate", "a VPC; seconds"),
    "alicloud:vpc/switch:Switch": Weight(10, 5, 30, "estimate", "a vSwitch; seconds"),
    "alicloud:vpc/natGateway:NatGateway": Weight(
        60, 30, 120, "estimate", "an Enhanced NAT gateway; asynchronous create, about a minute", NAT_GATEWAY
    ),
    "alicloud:ecs/eipAddress:EipAddress": Weight(5, 2, 10, "estimate", "an EIP; seconds"),
    "alicloud:ecs/eipAssociation:EipAssociation": Weight(10, 5, 30, "estimate", "binding the EIP to the NAT gateway"),
    "alicloud:vpc/snatEntry:SnatEntry": Weight(10, 5, 30, "estimate", "one SNAT entry; seconds"),
    "alicloud:cs/managedKubernetes:ManagedKubernetes": Weight(
        600,
        600,
        900,
        "estimate",
        "ACK Pro control plane and default addons; no published figure, 10-15 min",
        ACK_CREATE,
    ),
    "alicloud:cs/nodePool:NodePool": Weight(
        240, 180, 300, "estimate", "ECS instances created and joined; no published figure", ACK_NODE_POOL
    ),
    "alicloud:cs/kubernetesAddon:KubernetesAddon": Weight(
        120, 60, 180, "estimate", "ack-virtual-node installed and its controller running", ACK_VIRTUAL_NODE
    ),
    # Kubernetes objects pulumi-kubernetes awaits, and the program's waiters
    "kubernetes:helm.sh/v4:Chart": Weight(
        90,
        60,
        120,
        "estimate",
        "Kueue's controller image pulled and its Deployment ready (Chart v4 awaits it)",
        CHART_V4,
    ),
    "kubernetes:batch/v1:Job": Weight(
        30,
        10,
        60,
        "estimate",
        "the readiness gate: Kueue's webhook serves 10-30 s after its pod is Ready, plus the probe pod's start",
        KUEUE_WEBHOOK,
    ),
    "kubernetes:apps/v1:Deployment": Weight(
        60,
        30,
        120,
        "estimate",
        "ACS pods scheduled on the virtual node and Ready (the rollout is awaited)",
        DEPLOYMENT_AWAIT,
    ),
    "pulumi-python:dynamic/kueue:QueuesActive": Weight(
        10, 5, 60, "estimate", "Kueue reconciles the new checks and queues to Active; seconds"
    ),
    "pulumi-python:dynamic/kueue:CrdEstablished": Weight(
        5, 1, 600, "estimate", "one read when AKS already serves the CRD; up to crdTimeoutSeconds when it does not"
    ),
    "pulumi-python:dynamic/monitoring:MetricsAddonCrd": Weight(
        5, 1, 600, "estimate", "one read when AKS's metrics add-on already serves its CRD; up to crdTimeoutSeconds"
    ),
    "pulumi-python:dynamic/clusters:ClusterVersion": VERSION_PIN,
    "pulumi-python:dynamic/kueue:KueueVersion": VERSION_PIN,
    "pulumi-python:dynamic/multikueue:WorkerToken": Weight(
        1, 1, 3, "estimate", "one TokenRequest to the worker's API server (after the exec plugin signs in)"
    ),
    "pulumi-python:dynamic/kueue:JobCompletion": Weight(
        300,
        180,
        420,
        "estimate",
        "the smoke Job: a ProvisioningRequest grows the pool from 0 to 2 nodes, then runs",
        SCALE_UP,
    ),
}
"""Weight by :func:`weight_key`. A type missing here has no weight: the benchmark names it (and a test fails)."""


def weight_key(resource: Mapping[str, Any]) -> str:
    """The key of a plan.json resource in :data:`WEIGHTS`: its type, with :data:`SKIP_AWAIT_SUFFIX` for a Job that
    pulumi-kubernetes does not await; :data:`PROGRAM_COMPONENT` for any of the program's components."""
    type_ = str(resource["type"])
    if type_.startswith(f"{PROJECT}:"):
        return PROGRAM_COMPONENT
    annotations = metadata(resource).get("annotations") or {}
    if type_ == "kubernetes:batch/v1:Job" and str(annotations.get(SKIP_AWAIT, "")).lower() == "true":
        return type_ + SKIP_AWAIT_SUFFIX
    return type_


def seconds(resource: Mapping[str, Any]) -> float:
    """The typical create time of a plan.json resource; ``KeyError`` naming the key when the table has none."""
    key = weight_key(resource)
    if key not in WEIGHTS:
        raise KeyError(f"no weight for {key} in tools/bench_weights.py")
    return WEIGHTS[key].seconds


def missing(resources: Iterable[Mapping[str, Any]]) -> list[str]:
    """The weight keys of these resources that :data:`WEIGHTS` lacks, sorted."""
    return sorted({weight_key(r) for r in resources} - set(WEIGHTS))


def used_keys(resources: Iterable[Mapping[str, Any]]) -> list[str]:
    """The weight keys these resources use, sorted: the rows the benchmark prints."""
    return sorted({weight_key(r) for r in resources})
