"""The queue objects of one stack under its name suffix: every object renamed, and every reference with it.

An ephemeral stack on a cluster it shares with other pull-request stacks must never create, change or delete another
stack's Kueue objects. Kueue's objects are cluster-scoped except LocalQueues, and ClusterQueues naming the same Cohort
share quota, so every name of the stack's own gets the suffix: namespaces, Topologies, ResourceFlavors,
WorkloadPriorityClasses, ProvisioningRequestConfigs, AdmissionChecks, Cohorts (configured or only named by a
ClusterQueue), ClusterQueues and LocalQueues, and every field that names one of them, a namespace selector matching
one of the stack's namespaces by name included. Existing namespaces and external objects are not the stack's: their
names, and references to them, stay. Suffixing alike keeps every reference the config rules resolved resolving, so
nothing needs to be validated again, except the length of each new name
(:func:`~components.config.environment.suffixed`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from components.config.base import key_path
from components.config.environment import suffixed
from components.config.kube import NAMESPACE_NAME_LABEL, LabelSelector
from components.config.queues_checks import CheckParameters
from components.config.queues_objects import AdmissionChecksStrategy, ClusterQueueConfig, CohortConfig
from components.config.queues_quota import ResourceGroup

M = TypeVar("M", bound=BaseModel)

if TYPE_CHECKING:
    from components.config.queues import QueuesConfig

LABEL_MAX, SUBDOMAIN_MAX = 63, 253
"""Namespaces, ProvisioningRequestConfigs (their AdmissionCheck reference is a label) and LocalQueues (their name is
a label value on Jobs) are DNS labels; the other Kueue objects are DNS subdomains."""


def with_name_suffix(queues: QueuesConfig, suffix: str) -> QueuesConfig:
    """``queues`` with ``suffix`` on every object name and every reference to one of the stack's objects; names of
    existing namespaces and external objects stay as they are. A name too long for the suffix raises
    :class:`~components.config.base.RuleViolation` at its key under ``queues``."""
    if not suffix:
        return queues
    rename = _Renamer(queues, suffix)
    return queues.model_copy(
        update={
            "namespaces": [
                rename.new(key_path("namespaces", i), ns, LABEL_MAX) for i, ns in enumerate(queues.namespaces)
            ],
            "topologies": [rename.named("topologies", i, t) for i, t in enumerate(queues.topologies)],
            "resource_flavors": [
                rename.named("resourceFlavors", i, f, topology_name=rename.topology(f.topology_name))
                for i, f in enumerate(queues.resource_flavors)
            ],
            "workload_priority_classes": [
                rename.named("workloadPriorityClasses", i, c) for i, c in enumerate(queues.workload_priority_classes)
            ],
            "provisioning_checks": [
                rename.named(
                    "provisioningChecks",
                    i,
                    check,
                    config_name=rename.new(
                        key_path("provisioningChecks", i, "configName"), check.config_name, LABEL_MAX
                    ),
                )
                for i, check in enumerate(queues.provisioning_checks)
            ],
            "provisioning_request_configs": [
                rename.named("provisioningRequestConfigs", i, c, limit=LABEL_MAX)
                for i, c in enumerate(queues.provisioning_request_configs)
            ],
            "admission_checks": [
                rename.named("admissionChecks", i, c, parameters=rename.parameters(c.parameters))
                for i, c in enumerate(queues.admission_checks)
            ],
            "cohorts": [_cohort(rename, i, cohort) for i, cohort in enumerate(queues.cohorts)],
            "cluster_queues": [_cluster_queue(rename, i, queue) for i, queue in enumerate(queues.cluster_queues)],
            "local_queues": [
                rename.named(
                    "localQueues",
                    i,
                    local,
                    limit=LABEL_MAX,
                    namespace=rename.namespace(local.namespace),
                    cluster_queue=rename.cluster_queue(local.cluster_queue),
                )
                for i, local in enumerate(queues.local_queues)
            ],
        }
    )


class _Renamer:
    """Suffixes a name of the stack's own and leaves every other name (existing, external) alone."""

    def __init__(self, queues: QueuesConfig, suffix: str) -> None:
        self.suffix = suffix
        self.namespaces = set(queues.namespaces)
        self.topologies = {t.name for t in queues.topologies}
        self.flavors = {f.name for f in queues.resource_flavors}
        self.checks = {c.name for c in queues.all_admission_checks}
        self.configs = {c.name for c in queues.all_provisioning_request_configs}
        self.cluster_queues = {q.name for q in queues.cluster_queues}

    def new(self, key: str, value: str, limit: int = SUBDOMAIN_MAX) -> str:
        return suffixed(key, value, self.suffix, limit)

    def named(self, section: str, index: int, model: M, limit: int = SUBDOMAIN_MAX, **update: Any) -> M:
        name = self.new(key_path(section, index, "name"), model.name, limit)  # type: ignore[attr-defined]
        return model.model_copy(update={"name": name, **update})

    def _ours(self, name: str | None, ours: set[str]) -> str | None:
        return name + self.suffix if name is not None and name in ours else name

    def namespace(self, name: str) -> str:
        return self._ours(name, self.namespaces) or name

    def topology(self, name: str | None) -> str | None:
        return self._ours(name, self.topologies)

    def flavor(self, name: str) -> str:
        return self._ours(name, self.flavors) or name

    def check(self, name: str) -> str:
        return self._ours(name, self.checks) or name

    def cluster_queue(self, name: str) -> str:
        return self._ours(name, self.cluster_queues) or name

    def parameters(self, parameters: CheckParameters | None) -> CheckParameters | None:
        """A ProvisioningRequestConfig of the stack is renamed; so is a MultiKueueConfig, which only the stack's
        ``multiKueue`` section can make (its rules refuse a MultiKueue check naming another)."""
        if parameters is None:
            return parameters
        if parameters.is_provisioning_config:
            return parameters.model_copy(update={"name": self._ours(parameters.name, self.configs)})
        if parameters.is_multikueue_config:
            return parameters.model_copy(update={"name": parameters.name + self.suffix})
        return parameters

    def groups(self, groups: list[ResourceGroup] | None) -> list[ResourceGroup] | None:
        """Quota refers to flavors by name."""
        if groups is None:
            return None
        return [
            group.model_copy(
                update={"flavors": [f.model_copy(update={"name": self.flavor(f.name)}) for f in group.flavors]}
            )
            for group in groups
        ]


def _cohort(rename: _Renamer, index: int, cohort: CohortConfig) -> CohortConfig:
    parent = cohort.parent_name
    return rename.named(
        "cohorts",
        index,
        cohort,
        parent_name=parent + rename.suffix if parent else None,
        resource_groups=rename.groups(cohort.resource_groups),
    )


def _cluster_queue(rename: _Renamer, index: int, queue: ClusterQueueConfig) -> ClusterQueueConfig:
    cohort = queue.cohort_name
    key = key_path("clusterQueues", index, "cohortName")
    selector = queue.namespace_selector
    return rename.named(
        "clusterQueues",
        index,
        queue,
        # A Cohort only named here is created by Kueue: it is the stack's too, so it gets the suffix as well.
        cohort_name=rename.new(key, cohort) if cohort else None,
        resource_groups=rename.groups(queue.resource_groups),
        admission_checks_strategy=_strategy(rename, queue.admission_checks_strategy),
        namespace_selector=renamed_namespaces(selector, sorted(rename.namespaces), rename.suffix) if selector else None,
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


def _strategy(rename: _Renamer, strategy: AdmissionChecksStrategy | None) -> AdmissionChecksStrategy | None:
    """Checks refer to AdmissionChecks by name, and to the flavors they gate."""
    if strategy is None:
        return None
    refs = [
        ref.model_copy(
            update={
                "name": rename.check(ref.name),
                "on_flavors": [rename.flavor(f) for f in ref.on_flavors] if ref.on_flavors is not None else None,
            }
        )
        for ref in strategy.admission_checks
    ]
    return strategy.model_copy(update={"admission_checks": refs})
