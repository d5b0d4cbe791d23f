"""Which field of which Kueue kind names which other object: declared once, here, for everything that follows names.

:data:`REFERENCES` holds one line per field; :data:`KINDS` says, per kind, where the ``queues`` section names the
stack's own objects of it and what else may satisfy a reference (``queues.external`` or ``existingNamespaces``).
Read by the reference rules (:mod:`components.config.queues.rules`), the renaming for a name suffix
(:mod:`components.config.queues.naming`), the manifests' references and apply order
(:mod:`components.manifests.queues`), the benchmark's ordering rules (:mod:`tools.bench_rules`) and, through the copy
``python -m tests.support.policy_references --write`` writes, the policy pack. A new reference field is one line in
:data:`REFERENCES`; ``tests/components/config/queues/test_kueue_references.py`` reads the Kueue CRDs to find one
missing.

A path is the field as the manifest spells it, ``[]`` stepping into a list: ``spec.resourceGroups[].flavors[].name``.
Its key in the config is the kind's section with the path after ``spec.`` (or ``metadata.``):
``clusterQueues[i].resourceGroups[g].flavors[f].name``, since the config models mirror Kueue's fields.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
from collections.abc import Callable, Iterator
from typing import Any

from pydantic import BaseModel

KUEUE_GROUP = "kueue.x-k8s.io"
LABEL_MAX, SUBDOMAIN_MAX = 63, 253
"""A DNS label's and a DNS subdomain's longest length: the names of namespaces, ProvisioningRequestConfigs (an
AdmissionCheck names one in a label-shaped field) and LocalQueues (Jobs carry one in a label value) are labels."""


@dataclasses.dataclass(frozen=True)
class Kind:
    """A kind references name: the ``queues`` paths holding the stack's own names of it, and what else may be named."""

    kind: str
    names: tuple[str, ...] = ()
    """Paths under ``queues`` of the names of the stack's own objects of this kind (none: another section makes
    them)."""
    section: str | None = None
    """The ``queues`` list whose items mirror this kind's manifest, where its reference fields are configured."""
    elsewhere: str | None = None
    """The ``queues`` path of names of this kind the stack may name without making them."""
    any_name: bool = False
    """Every name a reference gives one is the stack's own and needs no declaring (Kueue makes a Cohort a
    ClusterQueue names; a MultiKueueConfig a check names is the ``multiKueue`` section's or one of
    ``queues.multiKueueConfigs``)."""
    max_length: int = SUBDOMAIN_MAX


@dataclasses.dataclass(frozen=True)
class Wait:
    """Why the referring object must be created after the object it names (Kueue takes most in either order)."""

    name: str
    reason: str
    source: str


@dataclasses.dataclass(frozen=True)
class Reference:
    """One field of ``kind`` naming an object of ``target``."""

    kind: str
    path: str
    target: str
    typed: bool = False
    """The object holding the name says what it names (``kind`` and ``apiGroup`` beside it, as AdmissionCheck
    ``parameters`` do): the reference holds only where it says ``target`` in Kueue's group."""
    waits: Wait | None = None


KINDS: tuple[Kind, ...] = (
    Kind("Namespace", ("namespaces[]",), elsewhere="existingNamespaces[]", max_length=LABEL_MAX),
    Kind("Topology", ("topologies[].name",), "topologies[]", "external.topologies[]"),
    Kind("ResourceFlavor", ("resourceFlavors[].name",), "resourceFlavors[]", "external.resourceFlavors[]"),
    Kind("WorkloadPriorityClass", ("workloadPriorityClasses[].name",), "workloadPriorityClasses[]"),
    Kind(
        "ProvisioningRequestConfig",
        ("provisioningChecks[].configName", "provisioningRequestConfigs[].name"),
        "provisioningRequestConfigs[]",
        "external.provisioningRequestConfigs[]",
        max_length=LABEL_MAX,
    ),
    Kind(
        "AdmissionCheck",
        ("provisioningChecks[].name", "admissionChecks[].name"),
        "admissionChecks[]",
        "external.admissionChecks[]",
    ),
    Kind("Cohort", ("cohorts[].name",), "cohorts[]", any_name=True),
    Kind("ClusterQueue", ("clusterQueues[].name",), "clusterQueues[]", "external.clusterQueues[]"),
    Kind("LocalQueue", ("localQueues[].name",), "localQueues[]", max_length=LABEL_MAX),
    Kind("Secret"),
    Kind(
        "MultiKueueCluster",
        ("multiKueueClusters[].name",),
        "multiKueueClusters[]",
        "external.multiKueueClusters[]",
    ),
    Kind("MultiKueueConfig", ("multiKueueConfigs[].name",), "multiKueueConfigs[]", any_name=True, max_length=LABEL_MAX),
)
"""Every kind the stack makes that a reference may name, in the order :func:`creation_order` breaks ties by. A
``provisioningChecks`` entry is an AdmissionCheck and the ProvisioningRequestConfig it names (``configName``): that
reference is the entry itself."""

MULTIKUEUE_SECRET = Wait(
    "multikueue-secret",
    "a MultiKueueCluster whose Secret is missing stays BadKubeConfig, which Kueue never retries after a restart",
    "https://github.com/kubernetes-sigs/kueue/issues/13238",
)

_MIGRATION = "spec.concurrentAdmissionPolicy.migration"

REFERENCES: tuple[Reference, ...] = (
    Reference("ResourceFlavor", "spec.topologyName", "Topology"),
    Reference("Cohort", "spec.resourceGroups[].flavors[].name", "ResourceFlavor"),
    Reference("ClusterQueue", "spec.resourceGroups[].flavors[].name", "ResourceFlavor"),
    Reference("ClusterQueue", "spec.admissionChecksStrategy.admissionChecks[].onFlavors[]", "ResourceFlavor"),
    Reference("ClusterQueue", "spec.admissionChecksStrategy.admissionChecks[].name", "AdmissionCheck"),
    Reference("ClusterQueue", f"{_MIGRATION}.constraints.lastAcceptableFlavorName", "ResourceFlavor"),
    Reference("AdmissionCheck", "spec.parameters.name", "ProvisioningRequestConfig", typed=True),
    Reference("AdmissionCheck", "spec.parameters.name", "MultiKueueConfig", typed=True),
    Reference("Cohort", "spec.parentName", "Cohort"),
    Reference("ClusterQueue", "spec.cohortName", "Cohort"),
    Reference("LocalQueue", "spec.clusterQueue", "ClusterQueue"),
    Reference("LocalQueue", "metadata.namespace", "Namespace"),
    Reference("MultiKueueConfig", "spec.clusters[]", "MultiKueueCluster"),
    Reference("MultiKueueCluster", "spec.clusterSource.kubeConfig.location", "Secret", waits=MULTIKUEUE_SECRET),
)
"""Every field of a kind the stack writes that names another object, in the order the reference rules check them.
A namespaced object waits for its Namespace by Kubernetes' rule for every kind, so that reference needs no
:class:`Wait`; Kueue reconciles the others in whatever order they arrive."""

BY_KIND = {kind.kind: kind for kind in KINDS}


def config_path(reference: Reference) -> str | None:
    """The reference's path under ``queues`` (None when no ``queues`` list configures its kind)."""
    section = BY_KIND[reference.kind].section
    return f"{section}.{reference.path.split('.', 1)[1]}" if section else None


def creation_order() -> list[str]:
    """Every kind after each kind it names (a kind naming itself orders within, :func:`self_references`), else in
    :data:`KINDS` order."""
    order: list[str] = []

    def place(kind: str) -> None:
        if kind not in order:
            for reference in REFERENCES:
                if reference.kind == kind and reference.target != kind:
                    place(reference.target)
            order.append(kind)

    for kind in KINDS:
        place(kind.kind)
    return order


def self_references(kind: str) -> list[Reference]:
    """The fields by which one object of ``kind`` names another of its kind (a Cohort its parent)."""
    return [r for r in REFERENCES if r.kind == kind and r.target == kind]


def _steps(path: str) -> list[tuple[str, bool]]:
    return [(step.removesuffix("[]"), step.endswith("[]")) for step in path.split(".")]


def _names_the_target(holder: Any, reference: Reference, read: Callable[[Any, str], Any]) -> bool:
    return not reference.typed or (read(holder, "kind"), read(holder, "apiGroup")) == (reference.target, KUEUE_GROUP)


def _read_dict(holder: Any, field: str) -> Any:
    return holder.get(field) if isinstance(holder, dict) else None


def manifest_names(manifest: dict[str, Any], reference: Reference) -> Iterator[str]:
    """The names ``reference`` finds in a manifest of its kind."""
    if manifest.get("kind") != reference.kind:
        return
    values: list[tuple[Any, Any]] = [(None, manifest)]
    for field, many in _steps(reference.path):
        values = [(holder, _read_dict(holder, field)) for _, holder in values]
        if many:
            values = [(holder, item) for holder, items in values for item in items or ()]
    for holder, value in values:
        if isinstance(value, str) and _names_the_target(holder, reference, _read_dict):
            yield value


@functools.cache
def _attribute(model: type[BaseModel], alias: str) -> str | None:
    return next((name for name, field in model.model_fields.items() if (field.alias or name) == alias), None)


def _read_model(holder: Any, field: str) -> Any:
    attribute = _attribute(type(holder), field) if isinstance(holder, BaseModel) else None
    return getattr(holder, attribute) if attribute else None


Rename = Callable[[str, str], str]
"""A new name for the name found at a key: ``(key, name) -> name``."""


def replaced(model: Any, path: str, rename: Rename, typed: Reference | None = None, key: str = "") -> Any:
    """``model`` (a config model) with every name at ``path`` renamed; a missing or unset step leaves it as it is.
    ``typed``: only the names its :attr:`Reference.typed` check holds for. Keys are as the user writes them. A rename
    that changes nothing returns the same model, uncopied: the rules read names through it (:func:`config_names`)."""
    (field, many), rest = _steps(path)[0], path.partition(".")[2]
    attribute = _attribute(type(model), field) if isinstance(model, BaseModel) else None
    value = getattr(model, attribute) if attribute else None
    if value is None or (typed is not None and not rest and not _names_the_target(model, typed, _read_model)):
        return model
    here = f"{key}.{field}" if key else field

    def step(item: Any, item_key: str) -> Any:
        return replaced(item, rest, rename, typed, item_key) if rest else rename(item_key, item)

    new = [step(item, f"{here}[{i}]") for i, item in enumerate(value)] if many else step(value, here)
    unchanged = all(map(operator.is_, new, value)) if many else new is value
    return model if unchanged else model.model_copy(update={attribute: new})


def config_names(queues: BaseModel, path: str, typed: Reference | None = None) -> list[tuple[str, str]]:
    """Every ``(key, name)`` at ``path`` under ``queues``, in order."""
    found: list[tuple[str, str]] = []

    def collect(key: str, name: str) -> str:
        found.append((key, name))
        return name

    replaced(queues, path, collect, typed)
    return found
