"""The rules between the objects of the ``queues`` section: names that are unique and names that resolve.

Kueue itself accepts a queue that names a missing flavor, check or ClusterQueue, and leaves it inactive, so a typo
would only show as Jobs that never start. Checking here makes it fail ``pulumi preview`` with the key that is wrong;
which fields are references, and what may satisfy each, is :mod:`components.config.queues.kueue_references`.
The rules one Kueue object carries alone (its CRD's CEL rules and its webhook) live with its model in
:mod:`components.config.queues.objects`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from components.config.base import RuleViolation, key_path, require_unique
from components.config.kube import NAMESPACE_NAME_LABEL
from components.config.queues.checks import ProvisioningRequestSpec
from components.config.queues.kueue_references import BY_KIND, REFERENCES, config_names, config_path
from components.config.rules import rule

_CLUSTER_QUEUE_URL = (
    "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/site/content/en/docs/concepts/cluster_queue.md"
)
_K8S_NAMES_URL = "https://kubernetes.io/docs/concepts/overview/working-with-objects/names/"
_NAMESPACES_URL = "https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces/#initial-namespaces"
_PROVISIONING_URL = "https://kueue.sigs.k8s.io/docs/admission-check-controllers/provisioning/"
_SETUP_MULTIKUEUE_URL = (
    "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/site/content/en/docs/tasks/manage/setup_multikueue.md"
)
_V1BETA2_REF_URL = "https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/"

if TYPE_CHECKING:
    from components.config.queues.queues import QueuesConfig

BUILTIN_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
"""Namespaces every cluster already has: the stack cannot create them, and must never delete them."""


@rule("queues.new-namespaces", source=_NAMESPACES_URL)
def require_new_namespaces(queues: QueuesConfig) -> None:
    """The stack creates the namespaces it lists, and deletes them on ``pulumi destroy``: never a built-in one."""
    for i, namespace in enumerate(queues.namespaces):
        if namespace in BUILTIN_NAMESPACES:
            allowed = (
                f"the stack creates (and on destroy deletes) its namespaces, never one of {BUILTIN_NAMESPACES}; "
                "list a namespace that exists already under existingNamespaces"
            )
            raise RuleViolation(key_path("namespaces", i), namespace, allowed)
    for i, namespace in enumerate(queues.existing_namespaces):
        if namespace in queues.namespaces:
            allowed = "a namespace is either created by the stack (namespaces) or existing, not both"
            raise RuleViolation(key_path("existingNamespaces", i), namespace, allowed)


@rule("queues.unique-names", source=_K8S_NAMES_URL)
def require_unique_names(queues: QueuesConfig) -> None:
    """The API server's own rule: one object per kind and name (per namespace for a LocalQueue)."""
    pairs = queues.provisioning_checks
    kinds: list[tuple[list[str], list[str], str]] = [
        (_keys("namespaces", queues.namespaces, ""), queues.namespaces, "namespaces"),
        (_keys("existingNamespaces", queues.existing_namespaces, ""), queues.existing_namespaces, "namespaces"),
        (_keys("topologies", queues.topologies), [t.name for t in queues.topologies], "Topology names"),
        (_keys("resourceFlavors", queues.resource_flavors), [f.name for f in queues.resource_flavors], "flavor names"),
        (
            _keys("workloadPriorityClasses", queues.workload_priority_classes),
            [c.name for c in queues.workload_priority_classes],
            "WorkloadPriorityClass names",
        ),
        (
            _keys("provisioningChecks", pairs) + _keys("admissionChecks", queues.admission_checks),
            [c.name for c in queues.all_admission_checks],
            "AdmissionCheck names",
        ),
        (
            _keys("provisioningChecks", pairs, "configName")
            + _keys("provisioningRequestConfigs", queues.provisioning_request_configs),
            [c.name for c in queues.all_provisioning_request_configs],
            "ProvisioningRequestConfig names",
        ),
        (_keys("cohorts", queues.cohorts), [c.name for c in queues.cohorts], "Cohort names"),
        (_keys("clusterQueues", queues.cluster_queues), [q.name for q in queues.cluster_queues], "ClusterQueue names"),
        (
            _keys("localQueues", queues.local_queues),
            [f"{q.namespace}/{q.name}" for q in queues.local_queues],
            "LocalQueue names",
        ),
        (
            _keys("multiKueueConfigs", queues.multi_kueue_configs),
            [c.name for c in queues.multi_kueue_configs],
            "MultiKueueConfig names",
        ),
        (
            _keys("multiKueueClusters", queues.multi_kueue_clusters),
            [c.name for c in queues.multi_kueue_clusters],
            "MultiKueueCluster names",
        ),
    ]
    for keys, names, what in kinds:
        require_unique(names, keys.__getitem__, what)


def _keys(section: str, items: Sequence[object], field: str = "name") -> list[str]:
    return [key_path(section, i, field) for i in range(len(items))]


@rule("queues.resolved", source=_V1BETA2_REF_URL)
def _require_resolved(queues: QueuesConfig, target: str) -> None:
    """References to a ``target`` kind that name an object of the stack or one declared as made elsewhere, because
    Kueue leaves an object whose reference is missing inactive. Walks
    :data:`~components.config.queues.kueue_references.REFERENCES`."""
    kind = BY_KIND[target]
    created = [name for path in kind.names for _, name in config_names(queues, path)]
    others = [name for _, name in config_names(queues, kind.elsewhere)] if kind.elsewhere else []
    sections = "/".join(f"queues.{path.removesuffix('[].name').removesuffix('[]')}" for path in kind.names)
    elsewhere = f"queues.{(kind.elsewhere or '').removesuffix('[]')}"
    allowed = f"it must be one of {sections} {created} (made by the stack) or {elsewhere} {others} (made elsewhere)"
    for reference in REFERENCES:
        path = config_path(reference)
        if reference.target == target and path is not None:
            for key, name in config_names(queues, path, reference):
                if name not in created and name not in others:
                    raise RuleViolation(key, name, allowed)


def require_configured_flavors(queues: QueuesConfig) -> None:
    """Every flavor a ClusterQueue or Cohort gives quota to (or gates) is one of ``resourceFlavors`` or external."""
    _require_resolved(queues, "ResourceFlavor")


def require_configured_topologies(queues: QueuesConfig) -> None:
    """Every ``topologyName`` of a flavor is one of ``topologies`` or external."""
    _require_resolved(queues, "Topology")


def require_configured_checks(queues: QueuesConfig) -> None:
    """Every AdmissionCheck a ClusterQueue requires is created by the stack or external."""
    _require_resolved(queues, "AdmissionCheck")


def require_configured_provisioning_configs(queues: QueuesConfig) -> None:
    """Every AdmissionCheck whose parameters are a ProvisioningRequestConfig names one created here or external."""
    _require_resolved(queues, "ProvisioningRequestConfig")


@rule("queues.local-queue-targets", source=_SETUP_MULTIKUEUE_URL)
def require_configured_multikueue_clusters(queues: QueuesConfig) -> None:
    """Every cluster a MultiKueueConfig lists is one of ``multiKueueClusters`` or external."""
    _require_resolved(queues, "MultiKueueCluster")


def require_local_queue_targets(queues: QueuesConfig) -> None:
    """Every LocalQueue points at a ClusterQueue of the stack or an external one, and lives in a namespace the stack
    creates or one declared as existing."""
    _require_resolved(queues, "ClusterQueue")
    _require_resolved(queues, "Namespace")


@rule("queues.local-queue-namespaces-selected", source=_CLUSTER_QUEUE_URL)
def require_local_queue_namespaces_selected(queues: QueuesConfig) -> None:
    """A ClusterQueue admits workloads only from LocalQueues in namespaces its ``namespaceSelector`` selects; unset, it
    selects none. Only decidable from the namespace name, so a selector on other labels is left to Kueue."""
    by_name = {queue.name: (i, queue) for i, queue in enumerate(queues.cluster_queues)}
    for n, local in enumerate(queues.local_queues):
        if local.cluster_queue not in by_name:
            continue
        i, queue = by_name[local.cluster_queue]
        selector = queue.namespace_selector
        key = key_path("clusterQueues", i, "namespaceSelector")
        if selector is None:
            allowed = (
                f"localQueues[{n}] ({local.namespace}/{local.name}) submits to it, but an unset namespaceSelector "
                "selects no namespace; use {} for every namespace (or turn off "
                "queues.lints.localQueueNamespaceSelected)"
            )
            raise RuleViolation(key, None, allowed)
        if selector.decidable_by({NAMESPACE_NAME_LABEL}) and not selector.matches(
            {NAMESPACE_NAME_LABEL: local.namespace}
        ):
            allowed = (
                f"it must select namespace {local.namespace!r} of localQueues[{n}], which submits to it (or turn off "
                "queues.lints.localQueueNamespaceSelected)"
            )
            raise RuleViolation(key, selector.model_dump(by_alias=True, exclude_none=True), allowed)


@rule("queues.cohort-tree")
def require_cohort_tree(queues: QueuesConfig) -> None:
    """Kueue admits a cohort cycle but then disables every member of it, ClusterQueues included, until the cycle is
    removed (``CohortSpec.parentName`` in
    https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/apis/kueue/v1beta2/cohort_types.go, same in
    v0.17.8-v0.19.2)."""
    parents = {cohort.name: cohort.parent_name for cohort in queues.cohorts}
    for i, cohort in enumerate(queues.cohorts):
        seen, current = {cohort.name}, cohort.parent_name
        while current in parents:
            if current in seen:
                allowed = "cohorts form a tree (or turn off queues.lints.cohortTree)"
                raise RuleViolation(key_path("cohorts", i, "parentName"), cohort.parent_name, allowed)
            seen.add(current)
            current = parents[current]


@rule("queues.managed-resources-covered", source=_PROVISIONING_URL)
def require_managed_resources_covered(queues: QueuesConfig) -> None:
    """A managed resource no gated flavor covers never reaches a ProvisioningRequest: the gate would be a no-op. Checked
    for every AdmissionCheck whose ProvisioningRequestConfig the stack creates."""
    configs: dict[str, tuple[str, ProvisioningRequestSpec]] = {
        check.name: (key_path("provisioningChecks", c), check) for c, check in enumerate(queues.provisioning_checks)
    }
    by_name = {
        config.name: (key_path("provisioningRequestConfigs", c), config)
        for c, config in enumerate(queues.provisioning_request_configs)
    }
    for check in queues.admission_checks:
        if (
            check.parameters is not None
            and check.parameters.is_provisioning_config
            and check.parameters.name in by_name
        ):
            configs[check.name] = by_name[check.parameters.name]
    for queue in queues.cluster_queues:
        strategy = queue.admission_checks_strategy
        for ref in strategy.admission_checks if strategy else []:
            if ref.name not in configs:
                continue
            key, config = configs[ref.name]
            covered = queue.covered_resources(ref.on_flavors)
            for r, resource in enumerate(config.managed_resources or []):
                if resource not in covered:
                    allowed = (
                        f"ClusterQueue {queue.name!r} gates flavors covering only {sorted(covered)} "
                        "(or turn off queues.lints.managedResourcesCovered)"
                    )
                    raise RuleViolation(key_path(key, "managedResources", r), resource, allowed)
