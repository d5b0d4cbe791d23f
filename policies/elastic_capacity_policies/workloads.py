"""Workloads: ACS compute-class labels stay out of Deployment selectors, and GPU pods are Guaranteed.

Both read the Kubernetes objects' own fields: ``spec.selector`` of a Deployment, and the containers of a Deployment's
or Job's pod template (``spec.template.spec``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, ResourceValidationPolicy

from elastic_capacity_policies.facts import dig, mapping, quantity, sequence

DEPLOYMENT = "kubernetes:apps/v1:Deployment"
JOB = "kubernetes:batch/v1:Job"
POD_TEMPLATE_OWNERS = (DEPLOYMENT, JOB)

ACS_SELECTOR_LABELS = ("alibabacloud.com/compute-class", "alibabacloud.com/compute-qos")
"""ACS's system labels for a pod's compute class and QoS (docs/ack-acs.md; ``components/config/ack/acs.py``)."""

GPU_RESOURCE = "nvidia.com/gpu"
"""The GPU resource ACS pods request (``components/config/ack/acs.py`` ``gpuResourceName``'s default, as in ACK's
examples). Another device plugin's name counts too: any ``<vendor>/gpu`` or ``<vendor>/gpu-…`` resource, such as
``amd.com/gpu`` or ACK's shared-GPU ``aliyun.com/gpu-mem``."""

GUARANTEED_RESOURCES = ("cpu", "memory")

ACS_LABELS_URL = "https://www.alibabacloud.com/help/en/cs/user-guide/custom-resource-priority-scheduling"
ACS_POD_URL = "https://www.alibabacloud.com/help/en/cs/user-guide/acs-pod-instance-overview"
POD_QOS_URL = "https://kubernetes.io/docs/concepts/workloads/pods/pod-qos/#guaranteed"


def validate_selector(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    if args.resource_type != DEPLOYMENT:
        return
    selector = mapping(dig(args.props, "spec", "selector"))
    keys: set[Any] = {*mapping(selector.get("matchLabels"))}
    keys |= {mapping(expression).get("key") for expression in sequence(selector.get("matchExpressions"))}
    for label in ACS_SELECTOR_LABELS:
        if label in keys:
            report_violation(
                f"Deployment {_object_name(args)} selects on {label}: ACS may change that label on its pods, so "
                "keep it on the pod template only and select on the app label.",
                None,
            )


def is_gpu_resource(name: Any) -> bool:
    """Whether a container resource name is a GPU device."""
    if not isinstance(name, str) or "/" not in name:
        return False
    device = name.rsplit("/", 1)[1]
    return name == GPU_RESOURCE or device == "gpu" or device.startswith("gpu-")


def _resources(container: Any) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
    resources = mapping(mapping(container).get("resources"))
    return mapping(resources.get("requests")), mapping(resources.get("limits"))


def requests_gpu(container: Any) -> bool:
    requests, limits = _resources(container)
    return any(is_gpu_resource(name) for name in (*requests, *limits))


def _not_guaranteed(container: Any) -> list[str]:
    """How one container falls short of Guaranteed for cpu and memory (a request left out defaults to the limit)."""
    requests, limits = _resources(container)
    problems = []
    for resource in GUARANTEED_RESOURCES:
        limit = limits.get(resource)
        request = requests.get(resource, limit)
        if limit is None:
            problems.append(f"no {resource} limit")
        elif quantity(request) is None or quantity(request) != quantity(limit):
            problems.append(f"{resource} request {request!r} is not its limit {limit!r}")
    return problems


def validate_gpu_guaranteed(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    if args.resource_type not in POD_TEMPLATE_OWNERS:
        return
    pod = mapping(dig(args.props, "spec", "template", "spec"))
    containers = [("containers", c) for c in sequence(pod.get("containers"))]
    containers += [("initContainers", c) for c in sequence(pod.get("initContainers"))]
    if not any(requests_gpu(container) for _, container in containers):
        return
    for field, container in containers:
        problems = _not_guaranteed(container)
        if problems:
            report_violation(
                f"{args.resource_type.rsplit(':', 1)[1]} {_object_name(args)} runs GPU pods, but its {field} "
                f"entry {mapping(container).get('name')!r} has {'; '.join(problems)}: set cpu and memory requests "
                "equal to their limits in every container, so the pod is Guaranteed.",
                None,
            )


def _object_name(args: ResourceValidationArgs) -> str:
    metadata = mapping(args.props.get("metadata"))
    name, namespace = metadata.get("name"), metadata.get("namespace")
    if not isinstance(name, str):
        return repr(args.name)
    return repr(f"{namespace}/{name}" if isinstance(namespace, str) else name)


ACS_SELECTOR = ResourceValidationPolicy(
    name="acs-compute-class-not-in-selector",
    description=(
        "A Deployment's selector never names alibabacloud.com/compute-class or alibabacloud.com/compute-qos: ACS "
        "reserves them as system labels and its documentation warns against using them in a workload's matchLabels "
        f"({ACS_LABELS_URL}); with a ResourcePolicy the scheduler sets them on each pod itself, so a selector on them "
        "can stop matching the Deployment's own pods."
    ),
    validate=validate_selector,
    enforcement_level=EnforcementLevel.MANDATORY,
    url=ACS_LABELS_URL,
)

GPU_GUARANTEED = ResourceValidationPolicy(
    name="gpu-pods-guaranteed",
    description=(
        "A Deployment or Job whose pods request a GPU (nvidia.com/gpu, or another <vendor>/gpu resource) has cpu and "
        "memory requests equal to their limits in every container and init container, so the pod is in the "
        f"Guaranteed QoS class ({POD_QOS_URL}): a scarce GPU is not left idle because its pod was throttled or "
        f"evicted first under node pressure, and ACS's GPU examples write GPU pods this way ({ACS_POD_URL})."
    ),
    validate=validate_gpu_guaranteed,
    enforcement_level=EnforcementLevel.MANDATORY,
    url=POD_QOS_URL,
)

POLICIES = [ACS_SELECTOR, GPU_GUARANTEED]
