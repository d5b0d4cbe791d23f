"""The documented ordering requirements: which waits the minimal chain of ``python -m tools.bench`` keeps.

An edge "R waits for D" of a plan is *really needed* when

1. D is R's provider (nothing is created before its provider is configured), or
2. R consumes an output of D: D is in one of R's ``propertyDependencies`` (an input value derived from D), or
3. one of :data:`REQUIREMENTS` below holds for the pair: an ordering a vendor or the program's documents require
   although no value flows (an object in a namespace after the namespace, Kueue objects after the readiness gate ...).

Anything else is a wait without need; docs/bench.md lists the ones this benchmark found and the program no longer has.

Each rule is a predicate over two plan.json resources and a :class:`Context` that answers for the whole plan.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Protocol

from components.manifests.kueue_gate import CRD_WAIT_CONTAINER
from tools.bench_plan import (
    JOB,
    QUEUE_NAME_LABEL,
    Resource,
    inputs,
    is_addon,
    is_kueue_object,
    is_queued_job,
    metadata,
    namespace_of,
    object_name,
    pod_spec,
    provider_urn,
    same_parent,
    same_provider,
    service_account,
)

KUEUE_COMPONENT = "elastic-capacity:kueue:Kueue"
CHART = "kubernetes:helm.sh/v4:Chart"
NAMESPACE = "kubernetes:core/v1:Namespace"
AGENT_POOL = "azure-native:containerservice:AgentPool"
CLUSTER_TYPES = frozenset(
    {"azure-native:containerservice:ManagedCluster", "alicloud:cs/managedKubernetes:ManagedKubernetes"}
)
PROVISIONING_CONTROLLER = "kueue.x-k8s.io/provisioning-request"


class Context(Protocol):
    """What a rule may ask about the plan the pair comes from."""

    def resource(self, urn: str | None) -> Resource | None: ...

    def reaches(self, dependent: str, dependency: str) -> bool:
        """True if ``dependent`` waits for ``dependency`` through any chain of the plan's waits."""
        ...

    def all_resources(self) -> list[Resource]: ...


@dataclasses.dataclass(frozen=True)
class Requirement:
    """One documented ordering: a kind of dependent must be created after a kind of dependency."""

    name: str
    what: str
    """Who waits for what: "a namespaced object after its Namespace"."""
    reason: str
    source: str
    holds: Callable[[Resource, Resource, Context], bool]


def parent_type(r: Resource, ctx: Context) -> str | None:
    parent = ctx.resource(r.get("parent"))
    return str(parent["type"]) if parent else None


def is_crd_wait(r: Resource, ctx: Context) -> bool:
    """The Kueue component's Job that waits for the ProvisioningRequest CRD before the chart."""
    containers = {c.get("name") for c in pod_spec(r).get("containers") or [] if isinstance(c, dict)}
    return r["type"] == JOB and parent_type(r, ctx) == KUEUE_COMPONENT and CRD_WAIT_CONTAINER in containers


def is_gate(r: Resource, ctx: Context) -> bool:
    """The Kueue readiness gate: the Job the Kueue component registers after the chart."""
    return r["type"] == JOB and parent_type(r, ctx) == KUEUE_COMPONENT and not is_crd_wait(r, ctx)


def is_kueue_chart(r: Resource, ctx: Context) -> bool:
    return r["type"] == CHART and parent_type(r, ctx) == KUEUE_COMPONENT


def _in_its_namespace(r: Resource, d: Resource, _: Context) -> bool:
    ns = namespace_of(r)
    return ns is not None and d["type"] == NAMESPACE and object_name(d) == ns and same_provider(r, d)


def _on_its_cluster(r: Resource, d: Resource, ctx: Context) -> bool:
    provider = provider_urn(r)
    return d["type"] in CLUSTER_TYPES and provider is not None and ctx.reaches(provider, str(d["urn"]))


def _after_kueue_gate(r: Resource, d: Resource, ctx: Context) -> bool:
    gated = is_kueue_object(r) or is_queued_job(r)
    return gated and same_provider(r, d) and (is_gate(d, ctx) or is_kueue_chart(d, ctx))


def _gate_after_chart(r: Resource, d: Resource, ctx: Context) -> bool:
    return is_gate(r, ctx) and is_kueue_chart(d, ctx) and same_parent(r, d)


def _kueue_after_provisioning_crd(r: Resource, d: Resource, ctx: Context) -> bool:
    if is_kueue_chart(r, ctx) and is_crd_wait(d, ctx):
        return same_parent(r, d)
    starts_kueue = is_kueue_chart(r, ctx) or is_crd_wait(r, ctx)
    if not (starts_kueue and d["type"] == AGENT_POOL and inputs(d).get("enableAutoScaling")):
        return False
    return any(
        x["type"].endswith(":AdmissionCheck")
        and (inputs(x).get("spec") or {}).get("controllerName") == PROVISIONING_CONTROLLER
        and same_provider(x, r)
        for x in ctx.all_resources()
    )


def _pod_service_account(r: Resource, d: Resource, _: Context) -> bool:
    account = service_account(r)
    same_place = namespace_of(r) == namespace_of(d) and same_provider(r, d)
    return (
        account is not None
        and d["type"] == "kubernetes:core/v1:ServiceAccount"
        and object_name(d) == account
        and same_place
    )


def _pod_config_map(r: Resource, d: Resource, _: Context) -> bool:
    volumes = pod_spec(r).get("volumes") or []
    names = {(v.get("configMap") or {}).get("name") for v in volumes if isinstance(v, dict)}
    same_place = namespace_of(r) == namespace_of(d) and same_provider(r, d)
    return d["type"] == "kubernetes:core/v1:ConfigMap" and object_name(d) in names and same_place


def _pod_permissions(r: Resource, d: Resource, _: Context) -> bool:
    account = service_account(r)
    if account is None or not str(d["type"]).endswith(("RoleBinding",)) or not same_provider(r, d):
        return False
    subjects = inputs(d).get("subjects") or []
    return any(
        s.get("kind") == "ServiceAccount" and (s.get("name"), s.get("namespace")) == (account, namespace_of(r))
        for s in subjects
    )


def _queued_job_after_queue(r: Resource, d: Resource, _: Context) -> bool:
    if not is_queued_job(r) or not same_provider(r, d):
        return False
    queue = (metadata(r).get("labels") or {}).get(QUEUE_NAME_LABEL)
    local = d["type"].endswith(":LocalQueue") and (object_name(d), namespace_of(d)) == (queue, namespace_of(r))
    return local


def _queued_job_after_activation(r: Resource, d: Resource, _: Context) -> bool:
    return is_queued_job(r) and d["type"] == "pulumi-python:dynamic/kueue:QueuesActive"


def _pods_on_their_pool(r: Resource, d: Resource, _: Context) -> bool:
    selector = pod_spec(r).get("nodeSelector") or {}
    return d["type"] == AGENT_POOL and selector.get("agentpool") == inputs(d).get("agentPoolName") is not None


def _waiter_observes(r: Resource, d: Resource, ctx: Context) -> bool:
    r_inputs = inputs(r)
    if r["type"] == "pulumi-python:dynamic/kueue:QueuesActive":
        watched = {(o.get("kind"), o.get("name")) for o in r_inputs.get("objects") or []}
        return is_kueue_object(d) and (inputs(d).get("kind"), object_name(d)) in watched
    if r["type"] == "pulumi-python:dynamic/kueue:JobCompletion":
        return d["type"] == JOB and (namespace_of(d), object_name(d)) == (
            r_inputs.get("jobNamespace"),
            r_inputs.get("jobName"),
        )
    if r["type"] == "pulumi-python:dynamic/azure:ClusterAccess":
        return d["type"] == "azure-native:authorization:RoleAssignment" and same_parent(r, d)
    return False


def _token_after_account(r: Resource, d: Resource, _: Context) -> bool:
    token = inputs(r).get("type") == "kubernetes.io/service-account-token"
    account = (metadata(r).get("annotations") or {}).get("kubernetes.io/service-account.name")
    same_place = namespace_of(r) == namespace_of(d) and same_provider(r, d)
    return token and d["type"] == "kubernetes:core/v1:ServiceAccount" and object_name(d) == account and same_place


def _pods_on_ack_nodes(r: Resource, d: Resource, ctx: Context) -> bool:
    """A chart or an awaited workload whose pods (not ACS pods) need the cluster's ECS nodes to become ready."""
    runs_pods = r["type"] == CHART or (r["type"] == JOB and not is_queued_job(r))
    provider = ctx.resource(provider_urn(r))
    same_cluster = provider is not None and same_parent(provider, d)
    return runs_pods and d["type"] == "alicloud:cs/nodePool:NodePool" and same_cluster


def _provider_after_access(r: Resource, d: Resource, _: Context) -> bool:
    return (
        r["type"].startswith("pulumi:providers:")
        and d["type"] == "pulumi-python:dynamic/azure:ClusterAccess"
        and same_parent(r, d)
    )


def _snat_after_association(r: Resource, d: Resource, _: Context) -> bool:
    return (
        r["type"] == "alicloud:vpc/snatEntry:SnatEntry"
        and d["type"] == "alicloud:ecs/eipAssociation:EipAssociation"
        and same_parent(r, d)
    )


def _ack_cluster_after_snat(r: Resource, d: Resource, _: Context) -> bool:
    own_nat = inputs(r).get("newNatGateway") is False
    return (
        r["type"] == "alicloud:cs/managedKubernetes:ManagedKubernetes"
        and own_nat
        and d["type"] == "alicloud:vpc/snatEntry:SnatEntry"
        and same_parent(r, d)
    )


def _virtual_node_after_pool(r: Resource, d: Resource, _: Context) -> bool:
    return is_addon(r, "ack-virtual-node") and d["type"] == "alicloud:cs/nodePool:NodePool" and same_parent(r, d)


def _acs_pods_after_virtual_node(r: Resource, d: Resource, ctx: Context) -> bool:
    provider = ctx.resource(provider_urn(r))
    same_cluster = provider is not None and same_parent(provider, d)
    acs = r["type"] in (
        "kubernetes:apps/v1:Deployment",
        "kubernetes:scheduling.alibabacloud.com/v1alpha1:ResourcePolicy",
    )
    return acs and is_addon(d, "ack-virtual-node") and same_cluster


def _pods_after_resource_policy(r: Resource, d: Resource, _: Context) -> bool:
    policy = d["type"] == "kubernetes:scheduling.alibabacloud.com/v1alpha1:ResourcePolicy"
    return r["type"] == "kubernetes:apps/v1:Deployment" and policy and same_parent(r, d)


K8S_NAMESPACES = "https://kubernetes.io/docs/reference/access-authn-authz/admission-controllers/#namespacelifecycle"
REQUIREMENTS: tuple[Requirement, ...] = (
    Requirement(
        "namespace",
        "a namespaced Kubernetes object (or Helm release) after its Namespace",
        "requests in a namespace that does not exist are rejected",
        K8S_NAMESPACES,
        _in_its_namespace,
    ),
    Requirement(
        "cluster",
        "a Kubernetes object after the cluster behind its provider",
        "the object is created through that cluster's API server",
        "https://kubernetes.io/docs/concepts/overview/kubernetes-api/",
        _on_its_cluster,
    ),
    Requirement(
        "kueue-gate",
        "a Kueue object, or a Job with the queue-name label, after the Kueue readiness gate (or chart)",
        "Kueue's CRDs must exist and its webhooks serve (10-30 s after its pod is Ready) before its objects",
        "docs/decisions/0002-readiness-gate.md; https://github.com/kubernetes-sigs/kueue/issues/13036",
        _after_kueue_gate,
    ),
    Requirement(
        "gate-after-chart",
        "the readiness gate Job after the Kueue chart",
        "the gate probes the chart's webhooks",
        "docs/decisions/0002-readiness-gate.md",
        _gate_after_chart,
    ),
    Requirement(
        "provisioning-crd",
        "the Kueue chart after its ProvisioningRequest CRD wait, and both after the autoscaling AgentPools, when the "
        "queues use ProvisioningRequests",
        "Kueue sets up its ProvisioningRequest controller only if the CRD exists when it starts; AKS serves the CRD "
        "once an autoscaling pool exists, and the wait ends once the CRD is Established",
        "https://github.com/kubernetes-sigs/kueue/issues/3195; docs/decisions/0002-readiness-gate.md",
        _kueue_after_provisioning_crd,
    ),
    Requirement(
        "service-account",
        "a pod template after the ServiceAccount its pods run as",
        "the ServiceAccount admission controller rejects a pod whose ServiceAccount does not exist",
        "https://kubernetes.io/docs/reference/access-authn-authz/admission-controllers/#serviceaccount",
        _pod_service_account,
    ),
    Requirement(
        "config-map",
        "a pod template after the ConfigMaps its pods mount",
        "a ConfigMap must exist before a pod references it",
        "https://kubernetes.io/docs/concepts/configuration/configmap/#restrictions",
        _pod_config_map,
    ),
    Requirement(
        "rbac",
        "a pod template after the binding that grants its ServiceAccount's requests",
        "the gate's probe requests are denied until the binding exists, and a failed gate fails `pulumi up`",
        "https://kubernetes.io/docs/reference/access-authn-authz/rbac/",
        _pod_permissions,
    ),
    Requirement(
        "local-queue",
        "a Job with the queue-name label after that LocalQueue",
        "the Job is submitted to it",
        "https://kueue.sigs.k8s.io/docs/tasks/run/jobs/",
        _queued_job_after_queue,
    ),
    Requirement(
        "smoke-after-active",
        "the smoke Job after the activation waiter",
        "the smoke Job proves admission through queues proven Active; its waiter's timeout measures only the Job",
        "docs/aks-kueue.md (SmokeJob)",
        _queued_job_after_activation,
    ),
    Requirement(
        "pool",
        "a pod template with an agentpool nodeSelector after that AgentPool",
        "a ProvisioningRequest for a pool that does not exist fails (CapacityIsNotFound) and is retried with back-off",
        "https://learn.microsoft.com/azure/aks/configure-kueue-with-cluster-autoscaler",
        _pods_on_their_pool,
    ),
    Requirement(
        "waiter",
        "a waiter (QueuesActive, JobCompletion, ClusterAccess) after the objects it watches",
        "its timeout must measure the watched objects, not their creation",
        "docs/decisions/0003-waiters-as-dynamic-resources.md",
        _waiter_observes,
    ),
    Requirement(
        "token-secret",
        "a ServiceAccount token Secret after its ServiceAccount",
        "the annotation kubernetes.io/service-account.name must name an existing ServiceAccount",
        "https://kubernetes.io/docs/concepts/configuration/secret/#serviceaccount-token-secrets",
        _token_after_account,
    ),
    Requirement(
        "ack-nodes",
        "a Helm chart or awaited Job on an ACK cluster after that cluster's node pool",
        "their pods run on ECS nodes, and Pulumi waits for them to be ready",
        "https://www.pulumi.com/registry/packages/kubernetes/api-docs/helm/v4/chart/",
        _pods_on_ack_nodes,
    ),
    Requirement(
        "rbac-propagation",
        "an AKS cluster's Kubernetes provider after the deployer's access waiter",
        "Azure role assignments can take up to 10 minutes to take effect; requests fail with 403 until then",
        "https://learn.microsoft.com/azure/role-based-access-control/troubleshooting",
        _provider_after_access,
    ),
    Requirement(
        "snat-eip",
        "a SNAT entry after the EIP's association with its NAT gateway",
        "a SNAT entry's IP must be an EIP associated with the NAT gateway",
        "https://www.alibabacloud.com/help/en/nat-gateway/developer-reference/api-vpc-2016-04-28-createsnatentry",
        _snat_after_association,
    ),
    Requirement(
        "cluster-egress",
        "an ACK cluster without ACK's own SNAT (newNatGateway false) after the SNAT entries of its vSwitches",
        "without ACK's own SNAT the VPC must already give the nodes Internet access",
        "https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/create-an-ack-managed-cluster",
        _ack_cluster_after_snat,
    ),
    Requirement(
        "addon-nodes",
        "the ack-virtual-node addon after its cluster's node pool",
        "the addon's controller and CoreDNS run as pods on ECS nodes",
        "https://www.alibabacloud.com/help/tc/cs/user-guide/access-acs-computing-power-in-an-ack-cluster",
        _virtual_node_after_pool,
    ),
    Requirement(
        "virtual-node",
        "an ACS Deployment or ResourcePolicy after its own cluster's ack-virtual-node addon",
        "ACS pods are scheduled onto the virtual node; pods created before it never reach ACS, and ACK documents "
        "ResourcePolicy scheduling to ACS only with it installed",
        "https://www.alibabacloud.com/help/tc/cs/user-guide/access-acs-computing-power-in-an-ack-cluster",
        _acs_pods_after_virtual_node,
    ),
    Requirement(
        "resource-policy",
        "a Deployment after the ResourcePolicy that schedules it",
        "a policy only affects pods created after it",
        "https://www.alibabacloud.com/help/en/cs/user-guide/custom-resource-priority-scheduling",
        _pods_after_resource_policy,
    ),
)
"""The documented ordering requirements, in the order the benchmark prints them."""


def requirement(dependent: Resource, dependency: Resource, ctx: Context) -> Requirement | None:
    """The first requirement that makes ``dependent`` wait for ``dependency``, or ``None``."""
    return next((rule for rule in REQUIREMENTS if rule.holds(dependent, dependency, ctx)), None)
