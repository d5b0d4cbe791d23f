"""The documented ordering requirements: which waits the minimal chain of ``python -m tools.bench`` keeps.

An edge "R waits for D" of a plan is *really needed* when

1. D is R's provider (nothing is created before its provider is configured), or
2. R consumes an output of D: D is in one of R's ``propertyDependencies`` (an input value derived from D), or
3. one of :data:`REQUIREMENTS` below holds for the pair: an ordering a vendor or the program's documents require
   although no value flows (an object in a namespace after the namespace, Kueue objects after the readiness gate ...);
   those between a Kueue object and an object it names are the waits of the reference table
   (:mod:`components.config.queues.kueue_references`).

Anything else is a wait without need; docs/bench.md lists the ones this benchmark found and the program no longer has.

Each rule is a predicate over two plan.json resources and a :class:`Context` that answers for the whole plan.
"""

from __future__ import annotations

from collections.abc import Callable

from components.config.queues.kueue_references import REFERENCES, Reference, manifest_names
from tools.bench_plan import (
    CHART,
    JOB,
    QUEUE_NAME_LABEL,
    Context,
    Requirement,
    Resource,
    inputs,
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
from tools.bench_rules_ack import ACK_REQUIREMENTS

KUEUE_COMPONENT = "elastic-capacity:kueue:Kueue"
CRD_WAIT = "pulumi-python:dynamic/kueue:CrdEstablished"
KUEUE_VERSION_PIN = "pulumi-python:dynamic/kueue:KueueVersion"
KUEUE_EXTENSION = "azure-native:kubernetesconfiguration:Extension"
NAMESPACE = "kubernetes:core/v1:Namespace"
AGENT_POOL = "azure-native:containerservice:AgentPool"
CLUSTER_TYPES = frozenset(
    {"azure-native:containerservice:ManagedCluster", "alicloud:cs/managedKubernetes:ManagedKubernetes"}
)
CLUSTER_OPERATIONS = frozenset({AGENT_POOL, "azure-native:containerservice:MaintenanceConfiguration"})
PROVISIONING_CONTROLLER = "kueue.x-k8s.io/provisioning-request"


def parent_type(r: Resource, ctx: Context) -> str | None:
    parent = ctx.resource(r.get("parent"))
    return str(parent["type"]) if parent else None


def is_crd_wait(r: Resource, ctx: Context) -> bool:
    """The Kueue component's wait for the ProvisioningRequest CRD before the chart."""
    return r["type"] == CRD_WAIT and parent_type(r, ctx) == KUEUE_COMPONENT


def is_gate(r: Resource, ctx: Context) -> bool:
    """The Kueue readiness gate: the Job the Kueue component registers after the chart."""
    return r["type"] == JOB and parent_type(r, ctx) == KUEUE_COMPONENT


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


def _after_its_version_pin(r: Resource, d: Resource, ctx: Context) -> bool:
    """What installs Kueue (the chart, the AKS extension) and the CRD wait before it, after their Kueue's pin."""
    installs = is_kueue_chart(r, ctx) or is_crd_wait(r, ctx) or r["type"] == KUEUE_EXTENSION
    return installs and d["type"] == KUEUE_VERSION_PIN and same_parent(r, d)


def _kueue_after_provisioning_crd(r: Resource, d: Resource, ctx: Context) -> bool:
    if is_kueue_chart(r, ctx) and is_crd_wait(d, ctx):
        return same_parent(r, d)
    autoscaling_pool = d["type"] == AGENT_POOL and bool(inputs(d).get("enableAutoScaling"))
    if is_crd_wait(r, ctx):  # it exists only for a ProvisioningRequest check
        return autoscaling_pool
    if not (is_kueue_chart(r, ctx) and autoscaling_pool):
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


def _grants_account(binding: Resource, account: str, namespace: str | None) -> bool:
    subjects = inputs(binding).get("subjects") or []
    return any(
        s.get("kind") == "ServiceAccount" and (s.get("name"), s.get("namespace")) == (account, namespace)
        for s in subjects
    )


def _pod_permissions(r: Resource, d: Resource, ctx: Context) -> bool:
    """The binding that grants the pod's ServiceAccount, or the role such a binding names."""
    account = service_account(r)
    if account is None or not same_provider(r, d):
        return False
    if str(d["type"]).endswith("RoleBinding"):
        return _grants_account(d, account, namespace_of(r))
    if not str(d["type"]).endswith(("rbac.authorization.k8s.io/v1:Role", "rbac.authorization.k8s.io/v1:ClusterRole")):
        return False
    return any(
        str(b["type"]).endswith("RoleBinding")
        and same_provider(b, d)
        and (inputs(b).get("roleRef") or {}).get("name") == object_name(d)
        and _grants_account(b, account, namespace_of(r))
        for b in ctx.all_resources()
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


def _one_cluster_operation_at_a_time(r: Resource, d: Resource, _: Context) -> bool:
    return r["type"] in CLUSTER_OPERATIONS and d["type"] in CLUSTER_OPERATIONS and same_parent(r, d)


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
    token = r["type"] == "pulumi-python:dynamic/multikueue:WorkerToken"
    account = (inputs(r).get("serviceAccount"), inputs(r).get("namespace"))
    is_account = d["type"] == "kubernetes:core/v1:ServiceAccount" and (object_name(d), namespace_of(d)) == account
    return token and is_account and same_parent(r, d)


def _kind(r: Resource) -> str | None:
    """The kind of a Kubernetes object's type token (``kubernetes:<apiVersion>:<kind>``)."""
    return str(r["type"]).rsplit(":", 1)[-1] if str(r["type"]).startswith("kubernetes:") else None


def _after_what_it_names(reference: Reference) -> Callable[[Resource, Resource, Context], bool]:
    """The ordering a :class:`~components.config.queues.kueue_references.Wait` of the reference table documents."""

    def holds(r: Resource, d: Resource, _: Context) -> bool:
        if _kind(r) != reference.kind or _kind(d) != reference.target or not same_provider(r, d):
            return False
        return object_name(d) in set(manifest_names({**inputs(r), "kind": reference.kind}, reference))

    return holds


def _reference_requirements() -> tuple[Requirement, ...]:
    return tuple(
        Requirement(
            wait.name,
            f"a {reference.kind} after the {reference.target} its {reference.path} names",
            wait.reason,
            wait.source,
            _after_what_it_names(reference),
        )
        for reference in REFERENCES
        if (wait := reference.waits) is not None
    )


def _provider_after_access(r: Resource, d: Resource, _: Context) -> bool:
    return (
        r["type"].startswith("pulumi:providers:")
        and d["type"] == "pulumi-python:dynamic/azure:ClusterAccess"
        and same_parent(r, d)
    )


MULTIKUEUE_WORKER = "elastic-capacity:multikueue:Worker"
WORKER_READY = ("Job", "ResourcePolicy", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding", "WorkerToken")
"""What a worker hands its manager as ``ready``: the readiness gate, the ACS placement, the grants and the token (the
queues come in as their component, whose children these kinds are not)."""


def _within(r: Resource, component: str, ctx: Context) -> bool:
    parent = ctx.resource(r.get("parent"))
    while parent is not None:
        if parent["type"] == component:
            return True
        parent = ctx.resource(parent.get("parent"))
    return False


def _multikueue_cluster_after_its_worker(r: Resource, d: Resource, ctx: Context) -> bool:
    ready = str(d["type"]).rsplit(":", 1)[-1] in WORKER_READY or d["type"].startswith("kubernetes:kueue.x-k8s.io")
    return r["type"].endswith(":MultiKueueCluster") and ready and _within(d, MULTIKUEUE_WORKER, ctx)


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
        "version-pin",
        "the Kueue chart (or AKS extension) and its CRD wait after the Kueue version pin",
        "a refused Kueue version (a skipped minor, a minor down) must fail before anything is installed or waited for",
        "docs/kueue-upgrades.md",
        _after_its_version_pin,
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
        "a pod template after the binding that grants its ServiceAccount's requests, and the role it names",
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
        "aks-operations",
        "an AgentPool or MaintenanceConfiguration after the one before it on the same cluster",
        "AKS refuses a pool or maintenance operation while another runs on the cluster (OperationNotAllowed)",
        "https://learn.microsoft.com/troubleshoot/azure/azure-kubernetes/create-upgrade-delete/error-code-operationnotallowed",
        _one_cluster_operation_at_a_time,
    ),
    Requirement(
        "waiter",
        "a waiter (QueuesActive, JobCompletion, ClusterAccess) after the objects it watches",
        "its timeout must measure the watched objects, not their creation",
        "docs/decisions/0003-waiters-as-dynamic-resources.md",
        _waiter_observes,
    ),
    Requirement(
        "token-request",
        "a MultiKueue worker token after the ServiceAccount it is requested for",
        "the TokenRequest API issues tokens of existing ServiceAccounts only",
        "https://kubernetes.io/docs/reference/kubernetes-api/authentication-resources/token-request-v1/",
        _token_after_account,
    ),
    *_reference_requirements(),
    Requirement(
        "rbac-propagation",
        "an AKS cluster's Kubernetes provider after the deployer's access waiter",
        "Azure role assignments can take up to 10 minutes to take effect; requests fail with 403 until then",
        "https://learn.microsoft.com/azure/role-based-access-control/troubleshooting",
        _provider_after_access,
    ),
    Requirement(
        "multikueue-worker",
        "a MultiKueueCluster after its worker's Kueue gate, burst queues, ACS placement, grants and token",
        "MultiKueue backs off for minutes (5 s doubling to 320 s) after a failed connection, and a copy that lands "
        "before its namespace's ResourcePolicy runs on ECI",
        "https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/pkg/controller/admissionchecks/multikueue/multikueuecluster.go",
        _multikueue_cluster_after_its_worker,
    ),
    *ACK_REQUIREMENTS,
)
"""The documented ordering requirements, in the order the benchmark prints them."""


def requirement(dependent: Resource, dependency: Resource, ctx: Context) -> Requirement | None:
    """The first requirement that makes ``dependent`` wait for ``dependency``, or ``None``."""
    return next((rule for rule in REQUIREMENTS if rule.holds(dependent, dependency, ctx)), None)
