"""Reading plan.json resources (as ``tools.render`` writes them) for the benchmark's graph, rules and weights."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, Protocol

Resource = Mapping[str, Any]
CHART = "kubernetes:helm.sh/v4:Chart"
JOB = "kubernetes:batch/v1:Job"
ADDON = "alicloud:cs/kubernetesAddon:KubernetesAddon"
QUEUE_NAME_LABEL = "kueue.x-k8s.io/queue-name"


def inputs(r: Resource) -> dict[str, Any]:
    value = r.get("inputs")
    return value if isinstance(value, dict) else {}


def metadata(r: Resource) -> dict[str, Any]:
    value = inputs(r).get("metadata")
    return value if isinstance(value, dict) else {}


def object_name(r: Resource) -> str | None:
    return metadata(r).get("name")


def namespace_of(r: Resource) -> str | None:
    """The namespace a Kubernetes object (or a Helm chart's release) is created in."""
    if r["type"] == CHART:
        return inputs(r).get("namespace")
    return metadata(r).get("namespace") if str(r["type"]).startswith("kubernetes:") else None


def provider_urn(r: Resource) -> str | None:
    ref = r.get("provider")
    return str(ref).rsplit("::", 1)[0] if ref else None


def pod_spec(r: Resource) -> dict[str, Any]:
    spec = inputs(r).get("spec") or {}
    template = spec.get("template") or {} if isinstance(spec, dict) else {}
    value = template.get("spec") if isinstance(template, dict) else None
    return value if isinstance(value, dict) else {}


def same_provider(a: Resource, b: Resource) -> bool:
    return provider_urn(a) is not None and provider_urn(a) == provider_urn(b)


def same_parent(a: Resource, b: Resource) -> bool:
    return a.get("parent") is not None and a.get("parent") == b.get("parent")


def is_kueue_object(r: Resource) -> bool:
    return str(r["type"]).startswith("kubernetes:kueue.x-k8s.io/")


def is_queued_job(r: Resource) -> bool:
    """A Job submitted to a Kueue LocalQueue (it carries the queue-name label)."""
    return r["type"] == JOB and QUEUE_NAME_LABEL in (metadata(r).get("labels") or {})


def is_addon(r: Resource, name: str) -> bool:
    return r["type"] == ADDON and inputs(r).get("name") == name


def service_account(r: Resource) -> str | None:
    spec = pod_spec(r)
    return spec.get("serviceAccountName") or spec.get("serviceAccount") if spec else None


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
