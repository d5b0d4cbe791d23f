"""The rules between the objects of the ``queues`` section: names that are unique and names that resolve.

Kueue itself accepts a queue that names a missing flavor, check or ClusterQueue, and leaves it inactive, so a typo
would only show as Jobs that never start. Checking here makes it fail ``pulumi preview`` with the key that is wrong.
The rules one Kueue object carries alone (its CRD's CEL rules and its webhook) live with its model in
:mod:`components.config.queues_objects`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from components.config.base import RuleViolation, key_path, require_unique

if TYPE_CHECKING:
    from components.config.queues import QueuesConfig

BUILTIN_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
"""Namespaces every cluster already has: the stack cannot create them, and must never delete them."""


def require_new_namespaces(queues: QueuesConfig) -> None:
    """The stack creates the namespaces it lists, and deletes them on ``pulumi destroy``."""
    for i, namespace in enumerate(queues.namespaces):
        if namespace in BUILTIN_NAMESPACES:
            allowed = f"the stack creates (and on destroy deletes) its namespaces; not one of {BUILTIN_NAMESPACES}"
            raise RuleViolation(key_path("namespaces", i), namespace, allowed)


def require_unique_names(queues: QueuesConfig) -> None:
    """The API server's own rule: one object per kind and name (per namespace for a LocalQueue)."""
    kinds: list[tuple[str, str, list[str], str]] = [
        ("namespaces", "", queues.namespaces, "namespaces"),
        ("resourceFlavors", "name", [f.name for f in queues.resource_flavors], "ResourceFlavor names"),
        ("provisioningChecks", "name", [c.name for c in queues.provisioning_checks], "AdmissionCheck names"),
        (
            "provisioningChecks",
            "configName",
            [c.config_name for c in queues.provisioning_checks],
            "ProvisioningRequestConfig names",
        ),
        ("cohorts", "name", [c.name for c in queues.cohorts], "Cohort names"),
        ("clusterQueues", "name", [q.name for q in queues.cluster_queues], "ClusterQueue names"),
        ("localQueues", "name", [f"{q.namespace}/{q.name}" for q in queues.local_queues], "LocalQueue names"),
    ]
    for section, field, names, what in kinds:
        keys = [key_path(section, i, field) for i in range(len(names))]
        require_unique(names, keys.__getitem__, what)


def require_configured_flavors(queues: QueuesConfig) -> None:
    """Every flavor a ClusterQueue or Cohort gives quota to is one of ``resourceFlavors``."""
    flavors = [flavor.name for flavor in queues.resource_flavors]
    owners = [("cohorts", i, c.resource_groups or []) for i, c in enumerate(queues.cohorts)]
    owners += [("clusterQueues", i, q.resource_groups) for i, q in enumerate(queues.cluster_queues)]
    for section, i, groups in owners:
        for g, group in enumerate(groups):
            for f, flavor in enumerate(group.flavors):
                if flavor.name not in flavors:
                    key = key_path(section, i, "resourceGroups", g, "flavors", f, "name")
                    raise RuleViolation(key, flavor.name, f"it must be one of resourceFlavors {flavors}")


def require_configured_checks(queues: QueuesConfig) -> None:
    """Every AdmissionCheck a ClusterQueue requires is one of ``provisioningChecks``."""
    checks = [check.name for check in queues.provisioning_checks]
    for i, queue in enumerate(queues.cluster_queues):
        strategy = queue.admission_checks_strategy
        for c, ref in enumerate(strategy.admission_checks if strategy else []):
            if ref.name not in checks:
                key = key_path("clusterQueues", i, "admissionChecksStrategy", "admissionChecks", c, "name")
                raise RuleViolation(key, ref.name, f"it must be one of provisioningChecks {checks}")


def require_local_queue_targets(queues: QueuesConfig) -> None:
    """Every LocalQueue points at one of ``clusterQueues`` and lives in one of ``namespaces``."""
    cluster_queues = [queue.name for queue in queues.cluster_queues]
    for i, local in enumerate(queues.local_queues):
        if local.cluster_queue not in cluster_queues:
            key = key_path("localQueues", i, "clusterQueue")
            raise RuleViolation(key, local.cluster_queue, f"it must be one of clusterQueues {cluster_queues}")
        if local.namespace not in queues.namespaces:
            key = key_path("localQueues", i, "namespace")
            raise RuleViolation(key, local.namespace, f"it must be one of namespaces {queues.namespaces}")


def require_cohort_tree(queues: QueuesConfig) -> None:
    """Kueue admits a cohort cycle but then disables every member of it, ClusterQueues included, until the cycle is
    removed (``CohortSpec.parentName`` in
    https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/apis/kueue/v1beta2/cohort_types.go)."""
    parents = {cohort.name: cohort.parent_name for cohort in queues.cohorts}
    for i, cohort in enumerate(queues.cohorts):
        seen, current = {cohort.name}, cohort.parent_name
        while current in parents:
            if current in seen:
                raise RuleViolation(key_path("cohorts", i, "parentName"), cohort.parent_name, "cohorts form a tree")
            seen.add(current)
            current = parents[current]


def require_managed_resources_covered(queues: QueuesConfig) -> None:
    """A managed resource no gated flavor covers never reaches a ProvisioningRequest: the gate would be a no-op."""
    for c, check in enumerate(queues.provisioning_checks):
        for queue in queues.cluster_queues:
            strategy = queue.admission_checks_strategy
            for ref in strategy.admission_checks if strategy else []:
                if ref.name != check.name:
                    continue
                covered = queue.covered_resources(ref.on_flavors)
                for r, resource in enumerate(check.managed_resources or []):
                    if resource not in covered:
                        allowed = f"ClusterQueue {queue.name!r} gates flavors covering only {sorted(covered)}"
                        raise RuleViolation(key_path("provisioningChecks", c, "managedResources", r), resource, allowed)
