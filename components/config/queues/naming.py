"""The queue objects of one stack under its name suffix: every object renamed, and every reference with it.

An ephemeral stack on a cluster it shares with other pull-request stacks must never create, change or delete another
stack's Kueue objects. Kueue's objects are cluster-scoped except LocalQueues, and ClusterQueues naming the same Cohort
share quota, so every name of the stack's own gets the suffix: namespaces, Topologies, ResourceFlavors,
WorkloadPriorityClasses, ProvisioningRequestConfigs, AdmissionChecks, Cohorts (configured or only named by a
ClusterQueue), ClusterQueues and LocalQueues, and every field that names one of them, a namespace selector matching
one of the stack's namespaces by name included. Existing namespaces and external objects are not the stack's: their
names, and references to them, stay. Suffixing alike keeps every reference the config rules resolved resolving, so
nothing needs to be validated again, except the length of each new name
(:func:`~components.config.environment.suffixed`). Where the names are and which fields reference them is
:mod:`components.config.queues.kueue_references`; a namespace selector is the one reference by label value, renamed
here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from components.config.environment import suffixed
from components.config.kube import NAMESPACE_NAME_LABEL, LabelSelector
from components.config.queues.kueue_references import BY_KIND, KINDS, REFERENCES, config_names, config_path, replaced

if TYPE_CHECKING:
    from components.config.queues.queues import QueuesConfig


def with_name_suffix(queues: QueuesConfig, suffix: str) -> QueuesConfig:
    """``queues`` with ``suffix`` on every object name and every reference to one of the stack's objects; names of
    existing namespaces and external objects stay as they are. A name too long for the suffix raises
    :class:`~components.config.base.RuleViolation` at its key under ``queues``.

    Both come from :mod:`components.config.queues.kueue_references`: the names of each kind, then each reference
    field."""
    if not suffix:
        return queues
    ours = {kind.kind: {name for path in kind.names for _, name in config_names(queues, path)} for kind in KINDS}
    renamed = queues
    for kind in KINDS:
        for path in kind.names:
            renamed = replaced(renamed, path, _Suffix(suffix, kind.max_length))
    for reference in REFERENCES:
        field, target = config_path(reference), BY_KIND[reference.target]
        if field is not None:
            # A name no object of the stack holds (an implicit Cohort) is checked for length here.
            rename = _Suffix(suffix, target.max_length, None if target.any_name else ours[target.kind])
            renamed = replaced(renamed, field, rename, reference)
    return _selecting_renamed_namespaces(renamed, sorted(ours["Namespace"]), suffix)


class _Suffix:
    """Renames a name of the stack's own (every name, without ``ours``) and leaves the others (existing,
    external)."""

    def __init__(self, suffix: str, limit: int, ours: set[str] | None = None) -> None:
        self.suffix, self.limit, self.ours = suffix, limit, ours

    def __call__(self, key: str, name: str) -> str:
        if self.ours is None:
            return suffixed(key, name, self.suffix, self.limit)
        return name + self.suffix if name in self.ours else name


def _selecting_renamed_namespaces(queues: QueuesConfig, namespaces: list[str], suffix: str) -> QueuesConfig:
    """A ClusterQueue's namespace selector matching one of the stack's namespaces by name follows its rename."""
    cluster_queues = [
        queue
        if queue.namespace_selector is None
        else queue.model_copy(
            update={"namespace_selector": renamed_namespaces(queue.namespace_selector, namespaces, suffix)}
        )
        for queue in queues.cluster_queues
    ]
    return queues.model_copy(update={"cluster_queues": cluster_queues})


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
