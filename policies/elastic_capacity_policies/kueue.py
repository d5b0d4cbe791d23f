"""Kueue objects: only the ``v1beta2`` API, and a ProvisioningRequest admission check in front of every autoscaled
AKS pool a ClusterQueue hands out.

The second is a stack policy: it joins four kinds of resource. Its facts:

* autoscaled pools: the ``agentPoolProfiles`` of each ``ManagedCluster`` and each ``AgentPool`` with
  ``enableAutoScaling: true``, by pool name (a stack policy sees each resource as the engine holds it: its planned
  inputs in a preview, its outputs after an update);
* the ResourceFlavors that select one: ``spec.nodeLabels`` ``agentpool`` (or ``kubernetes.azure.com/agentpool``), the
  labels AKS puts on every node of a pool;
* the ProvisioningRequest AdmissionChecks: ``spec.controllerName`` ``kueue.x-k8s.io/provisioning-request``;
* each ClusterQueue's flavors (``spec.resourceGroups[].flavors[].name``) and its
  ``spec.admissionChecksStrategy.admissionChecks[]`` (``name``, and ``onFlavors``, where empty means every flavor),
  at the paths the program's reference table gives (:mod:`elastic_capacity_policies.kueue_references`): the flavors a
  ClusterQueue names under the entries naming its checks are the flavors those checks gate, the others its quota.

Kueue objects are compared within one Kubernetes provider (one cluster); pools are matched by name across the stack,
since nothing in a Kubernetes object names the AKS cluster it runs on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    PolicyResource,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)

from elastic_capacity_policies.aks import MANAGED_CLUSTER
from elastic_capacity_policies.facts import dig, mapping, names_at, sequence
from elastic_capacity_policies.kueue_references import REFERENCES
from elastic_capacity_policies.pools import AGENT_POOL

KUEUE_GROUP = "kueue.x-k8s.io"
KUEUE_VERSION = "v1beta2"
KUEUE_TYPE = re.compile(r"^kubernetes:kueue\.x-k8s\.io/(?P<version>[^:]+):(?P<kind>.+)$")
PROVISIONING_CONTROLLER = "kueue.x-k8s.io/provisioning-request"
POOL_LABELS = ("agentpool", "kubernetes.azure.com/agentpool")

KUEUE_API_URL = "https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/"
PROVISIONING_URL = "https://kueue.sigs.k8s.io/docs/admission-check-controllers/provisioning/"
AKS_KUEUE_URL = "https://learn.microsoft.com/azure/aks/configure-kueue-with-cluster-autoscaler"


def _paths(kind: str, target: str) -> list[str]:
    return [path for source, path, named in REFERENCES if (source, named) == (kind, target)]


[_CHECK_PATH] = _paths("ClusterQueue", "AdmissionCheck")
CHECK_ENTRIES, _, CHECK_NAME = _CHECK_PATH.rpartition(".")
"""Where a ClusterQueue lists the checks it requires, and the field of an entry naming the check."""
GATED_FLAVORS = [
    path.removeprefix(f"{CHECK_ENTRIES}.")
    for path in _paths("ClusterQueue", "ResourceFlavor")
    if path.startswith(f"{CHECK_ENTRIES}.")
]
"""The fields of a check entry naming the flavors it gates (none set: every flavor)."""
QUOTA_FLAVORS = [path for path in _paths("ClusterQueue", "ResourceFlavor") if not path.startswith(f"{CHECK_ENTRIES}.")]
"""Where a ClusterQueue names the flavors it hands out."""


def kueue_kind(resource_type: str) -> tuple[str, str] | None:
    """``(version, kind)`` of a Kueue object's type token, ``None`` for any other type."""
    match = KUEUE_TYPE.match(resource_type)
    return (match.group("version"), match.group("kind")) if match else None


def validate_kueue_version(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    found = kueue_kind(args.resource_type)
    if found is None:
        return
    version, kind = found
    api_version = args.props.get("apiVersion")
    expected = f"{KUEUE_GROUP}/{KUEUE_VERSION}"
    if version != KUEUE_VERSION or (api_version is not None and api_version != expected):
        shown = api_version if api_version is not None else f"{KUEUE_GROUP}/{version}"
        report_violation(f"{kind} {args.name!r} is {shown}: write it as {expected}.", None)


def _kueue(resources: Iterable[PolicyResource], kind: str) -> list[PolicyResource]:
    return [r for r in resources if (found := kueue_kind(r.resource_type)) is not None and found[1] == kind]


def _name(resource: PolicyResource) -> Any:
    return dig(resource.props, "metadata", "name")


def autoscaled_pools(resources: Iterable[PolicyResource]) -> set[str]:
    """The names of the stack's AKS pools that the cluster autoscaler scales."""
    pools: set[str] = set()
    for resource in resources:
        if resource.resource_type == MANAGED_CLUSTER:
            for profile in map(mapping, sequence(resource.props.get("agentPoolProfiles"))):
                if profile.get("enableAutoScaling") is True and isinstance(profile.get("name"), str):
                    pools.add(profile["name"])
        elif resource.resource_type == AGENT_POOL and resource.props.get("enableAutoScaling") is True:
            # agentPoolName is an input only: after an update the engine holds the pool's ARM name as ``name``.
            pools.add(str(resource.props.get("agentPoolName") or resource.props.get("name") or resource.name))
    return pools


def _selected_pool(flavor: PolicyResource, pools: set[str]) -> str | None:
    labels = mapping(dig(flavor.props, "spec", "nodeLabels"))
    return next((labels[key] for key in POOL_LABELS if labels.get(key) in pools), None)


def _queue_problems(queue: PolicyResource, flavors: Mapping[Any, str], checks: set[Any]) -> list[str]:
    """The autoscaled flavors of one ClusterQueue that no ProvisioningRequest check covers, as messages."""
    entries = names_at(queue.props, CHECK_ENTRIES)
    problems = []
    for name in dict.fromkeys(name for path in QUOTA_FLAVORS for name in names_at(queue.props, path)):
        if name not in flavors:
            continue
        covered = any(
            mapping(entry).get(CHECK_NAME) in checks
            and (not (gated := [f for path in GATED_FLAVORS for f in names_at(entry, path)]) or name in gated)
            for entry in entries
        )
        if not covered:
            problems.append(
                f"ClusterQueue {_name(queue)!r} hands out flavor {name!r}, which selects the autoscaled AKS pool "
                f"{flavors[name]!r}, but no admissionChecksStrategy.admissionChecks entry for it names an "
                f"AdmissionCheck of controller {PROVISIONING_CONTROLLER} (provisioning checks here: "
                f"{sorted(checks) or 'none'}): add one whose onFlavors is empty or includes {name!r}."
            )
    return problems


def validate_provisioning_checks(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    pools = autoscaled_pools(args.resources)
    if not pools:
        return
    clusters: dict[str, list[PolicyResource]] = {}
    for resource in args.resources:
        if kueue_kind(resource.resource_type) is not None:
            clusters.setdefault(resource.provider.urn if resource.provider else "", []).append(resource)
    for objects in clusters.values():
        flavors = {
            _name(flavor): pool
            for flavor in _kueue(objects, "ResourceFlavor")
            if (pool := _selected_pool(flavor, pools)) is not None
        }
        checks = {
            _name(check)
            for check in _kueue(objects, "AdmissionCheck")
            if dig(check.props, "spec", "controllerName") == PROVISIONING_CONTROLLER
        }
        for queue in _kueue(objects, "ClusterQueue"):
            for problem in _queue_problems(queue, flavors, checks):
                report_violation(problem, queue.urn)


KUEUE_V1BETA2 = ResourceValidationPolicy(
    name="kueue-v1beta2-only",
    description=(
        f"Every Kueue object is written at {KUEUE_GROUP}/{KUEUE_VERSION}, the API the program and its CRD checks "
        "are written for: v1beta1 is deprecated since Kueue 0.16 and v1beta2 renamed several of its fields (cohort, "
        "admissionChecks, retryDelayMinutes), so a v1beta1 object stops applying once a Kueue upgrade drops that "
        f"version ({KUEUE_API_URL})."
    ),
    validate=validate_kueue_version,
    enforcement_level=EnforcementLevel.MANDATORY,
    url=KUEUE_API_URL,
)

PROVISIONING_CHECKS = StackValidationPolicy(
    name="kueue-provisioning-check-on-autoscaled-pools",
    description=(
        "A ClusterQueue that hands out a ResourceFlavor of an autoscaled AKS pool requires a ProvisioningRequest "
        "admission check for that flavor: without it Kueue admits a job on quota alone, its pods wait for nodes one "
        "scale-up at a time, and a gang can hold part of the pool forever; with it the cluster autoscaler provisions "
        f"all of a job's nodes before admission ({PROVISIONING_URL}, {AKS_KUEUE_URL})."
    ),
    validate=validate_provisioning_checks,
    enforcement_level=EnforcementLevel.MANDATORY,
    url=PROVISIONING_URL,
)

POLICIES = [KUEUE_V1BETA2, PROVISIONING_CHECKS]
