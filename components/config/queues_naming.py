"""The queue objects of one stack under its name suffix: every object renamed, and every reference with it.

An ephemeral stack on a cluster it shares with other pull-request stacks must never create, change or delete another
stack's Kueue objects. Kueue's objects are cluster-scoped except LocalQueues, and ClusterQueues naming the same Cohort
share quota, so every name gets the suffix: namespaces, ResourceFlavors, ProvisioningRequestConfigs, AdmissionChecks,
Cohorts (configured or only named by a ClusterQueue), ClusterQueues and LocalQueues, and every field that names one
of them, a namespace selector matching one of the stack's namespaces by name included. Suffixing all of them alike
keeps every reference the config rules resolved resolving, so nothing needs to be validated again, except the length
of each new name (:func:`~components.config.environment.suffixed`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from components.config.base import key_path
from components.config.environment import suffixed
from components.config.kube import LabelSelector
from components.config.kueue import NAMESPACE_NAME_LABEL
from components.config.queues_objects import AdmissionChecksStrategy, ClusterQueueConfig, CohortConfig
from components.config.queues_quota import ResourceGroup

if TYPE_CHECKING:
    from components.config.queues import QueuesConfig

LABEL_MAX, SUBDOMAIN_MAX = 63, 253
"""Namespaces, ProvisioningRequestConfigs (their AdmissionCheck reference is a label) and LocalQueues (their name is
a label value on Jobs) are DNS labels; the other Kueue objects are DNS subdomains."""


def with_name_suffix(queues: QueuesConfig, suffix: str) -> QueuesConfig:
    """``queues`` with ``suffix`` on every object name and reference; a name too long for it raises
    :class:`~components.config.base.RuleViolation` at its key under ``queues``."""
    if not suffix:
        return queues

    def name(key: str, value: str, limit: int = SUBDOMAIN_MAX) -> str:
        return suffixed(key, value, suffix, limit)

    flavors = [
        flavor.model_copy(update={"name": name(key_path("resourceFlavors", i, "name"), flavor.name)})
        for i, flavor in enumerate(queues.resource_flavors)
    ]
    checks = [
        check.model_copy(
            update={
                "name": name(key_path("provisioningChecks", i, "name"), check.name),
                "config_name": name(key_path("provisioningChecks", i, "configName"), check.config_name, LABEL_MAX),
            }
        )
        for i, check in enumerate(queues.provisioning_checks)
    ]
    locals_ = [
        local.model_copy(
            update={
                "name": name(key_path("localQueues", i, "name"), local.name, LABEL_MAX),
                "namespace": local.namespace + suffix,
                "cluster_queue": local.cluster_queue + suffix,
            }
        )
        for i, local in enumerate(queues.local_queues)
    ]
    return queues.model_copy(
        update={
            "namespaces": [name(key_path("namespaces", i), ns, LABEL_MAX) for i, ns in enumerate(queues.namespaces)],
            "resource_flavors": flavors,
            "provisioning_checks": checks,
            "cohorts": [_cohort(i, cohort, suffix) for i, cohort in enumerate(queues.cohorts)],
            "cluster_queues": [
                _cluster_queue(i, queue, suffix, queues.namespaces) for i, queue in enumerate(queues.cluster_queues)
            ],
            "local_queues": locals_,
        }
    )


def _cohort(index: int, cohort: CohortConfig, suffix: str) -> CohortConfig:
    parent = cohort.parent_name
    return cohort.model_copy(
        update={
            "name": suffixed(key_path("cohorts", index, "name"), cohort.name, suffix, SUBDOMAIN_MAX),
            "parent_name": parent + suffix if parent else None,
            "resource_groups": _groups(cohort.resource_groups, suffix) if cohort.resource_groups else None,
        }
    )


def _cluster_queue(index: int, queue: ClusterQueueConfig, suffix: str, namespaces: list[str]) -> ClusterQueueConfig:
    cohort = queue.cohort_name
    key = key_path("clusterQueues", index, "cohortName")
    return queue.model_copy(
        update={
            "name": suffixed(key_path("clusterQueues", index, "name"), queue.name, suffix, SUBDOMAIN_MAX),
            # A Cohort only named here is created by Kueue: it is the stack's too, so it gets the suffix as well.
            "cohort_name": suffixed(key, cohort, suffix, SUBDOMAIN_MAX) if cohort else None,
            "resource_groups": _groups(queue.resource_groups, suffix),
            "admission_checks_strategy": _strategy(queue.admission_checks_strategy, suffix),
            "namespace_selector": renamed_namespaces(queue.namespace_selector, namespaces, suffix),
        }
    )


def renamed_namespaces(selector: LabelSelector, namespaces: list[str], suffix: str) -> LabelSelector:
    """``selector`` with every value of the namespace name label (``kubernetes.io/metadata.name``) that names one of
    ``namespaces`` suffixed, so it keeps selecting the renamed namespaces; every other part stays as it is."""

    def rename(value: str) -> str:
        return value + suffix if value in namespaces else value

    labels = selector.match_labels
    if labels is not None and NAMESPACE_NAME_LABEL in labels:
        labels = {**labels, NAMESPACE_NAME_LABEL: rename(labels[NAMESPACE_NAME_LABEL])}
    expressions = [
        e.model_copy(update={"values": [rename(v) for v in e.values]})
        if e.key == NAMESPACE_NAME_LABEL and e.values
        else e
        for e in selector.match_expressions or []
    ]
    return selector.model_copy(
        update={"match_labels": labels, "match_expressions": expressions if selector.match_expressions else None}
    )


def _groups(groups: list[ResourceGroup], suffix: str) -> list[ResourceGroup]:
    """Quota refers to flavors by name."""
    return [
        group.model_copy(
            update={"flavors": [flavor.model_copy(update={"name": flavor.name + suffix}) for flavor in group.flavors]}
        )
        for group in groups
    ]


def _strategy(strategy: AdmissionChecksStrategy | None, suffix: str) -> AdmissionChecksStrategy | None:
    """Checks refer to AdmissionChecks by name, and to the flavors they gate."""
    if strategy is None:
        return None
    refs = [
        ref.model_copy(
            update={
                "name": ref.name + suffix,
                "on_flavors": [flavor + suffix for flavor in ref.on_flavors] if ref.on_flavors is not None else None,
            }
        )
        for ref in strategy.admission_checks
    ]
    return strategy.model_copy(update={"admission_checks": refs})
