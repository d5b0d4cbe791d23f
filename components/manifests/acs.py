"""ACS workload manifests: the Deployment and its ResourcePolicy, exactly as ACK's ACS examples write them
(https://www.alibabacloud.com/help/tc/cs/user-guide/access-acs-computing-power-in-an-ack-cluster); their namespace
comes from :mod:`components.manifests.core`.

Pure functions of a validated :class:`AcsWorkloadConfig`. The three scheduling methods differ only in how a pod
reaches the virtual node and where the compute-class labels go:

* ``node-selector``: nodeSelector ``type: virtual-kubelet``, a toleration of the virtual node's taint, and the class
  and QoS pod labels (without them the virtual node runs the pod on ECI);
* ``pod-label``: the pod label ``alibabacloud.com/acs: "true"`` plus class and QoS labels;
* ``resource-policy``: no class labels on the pod; a ResourcePolicy selecting the ``app`` label carries them in its
  ``acs`` units, and the Deployment names the policy in its ``resourcePolicy`` annotation (ACK's dep-rp-demo).

GPU-HPN pods go to their reserved nodes by nodeSelector ``alibabacloud.com/node-type: reserved``, without a
toleration. Class and QoS labels never reach a selector. Every quantity is a string.
"""

from __future__ import annotations

from typing import Any

from components.config.ack.acs import (
    ACS_LABEL,
    APP_LABEL,
    COMPUTE_CLASS_LABEL,
    COMPUTE_QOS_LABEL,
    GPU_MODEL_SERIES_LABEL,
    AcsWorkloadConfig,
    PolicyUnitConfig,
)

RESOURCE_POLICY_API_VERSION = "scheduling.alibabacloud.com/v1alpha1"
RESOURCE_POLICY_ANNOTATION = "resourcePolicy"
"""The Deployment annotation naming its ResourcePolicy, as ACK's dep-rp-demo example writes it."""

VIRTUAL_NODE_SELECTOR = {"type": "virtual-kubelet"}
"""Every virtual node carries this label (ACK's ``kubectl get node virtual-kubelet-… -oyaml`` output)."""

VIRTUAL_NODE_TOLERATION = {"key": "virtual-kubelet.io/provider", "operator": "Exists", "effect": "NoSchedule"}
"""Tolerates the virtual node's taint ``virtual-kubelet.io/provider=alibabacloud:NoSchedule``."""

GPU_HPN_NODE_SELECTOR = {"alibabacloud.com/node-type": "reserved"}
"""GPU-HPN capacity reservations appear as nodes with this label."""


def deployment(args: AcsWorkloadConfig) -> dict[str, Any]:
    """The workload's Deployment: ``app`` is its only label and selector; the pod carries the ACS labels."""
    metadata: dict[str, Any] = {"name": args.name, "namespace": args.namespace, "labels": {APP_LABEL: args.app}}
    if args.scheduling == "resource-policy":
        metadata["annotations"] = {RESOURCE_POLICY_ANNOTATION: args.policy_name}
    pod_metadata: dict[str, Any] = {"labels": {APP_LABEL: args.app, **_placement_labels(args), **args.labels}}
    if args.annotations:
        pod_metadata["annotations"] = dict(args.annotations)
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": metadata,
        "spec": {
            "replicas": args.replicas,
            "selector": {"matchLabels": {APP_LABEL: args.app}},
            "template": {"metadata": pod_metadata, "spec": _pod_spec(args)},
        },
    }


def resource_policy(args: AcsWorkloadConfig) -> dict[str, Any] | None:
    """The ResourcePolicy of a ``resource-policy`` workload (``None`` for the other methods).

    It selects the workload's pods by their ``app`` label, in the workload's namespace.
    """
    if args.scheduling != "resource-policy":
        return None
    return {
        "apiVersion": RESOURCE_POLICY_API_VERSION,
        "kind": "ResourcePolicy",
        "metadata": {"name": args.policy_name, "namespace": args.namespace},
        "spec": {"selector": {APP_LABEL: args.app}, "units": [_unit(args, unit) for unit in args.policy_units]},
    }


def _acs_labels(args: AcsWorkloadConfig, qos: str) -> dict[str, str]:
    """Class and QoS labels, plus the GPU model for class ``gpu`` (GPU-HPN selects its model by nodeSelector)."""
    labels = {COMPUTE_CLASS_LABEL: args.compute_class, COMPUTE_QOS_LABEL: qos}
    if args.compute_class == "gpu" and args.gpu_model_series:
        labels[GPU_MODEL_SERIES_LABEL] = args.gpu_model_series
    return labels


def _placement_labels(args: AcsWorkloadConfig) -> dict[str, str]:
    if args.scheduling == "resource-policy":
        return {}
    if args.scheduling == "pod-label":
        return {ACS_LABEL: "true", **_acs_labels(args, args.compute_qos)}
    return _acs_labels(args, args.compute_qos)


def _pod_spec(args: AcsWorkloadConfig) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if args.compute_class == "gpu-hpn":
        node_selector = dict(GPU_HPN_NODE_SELECTOR)
        if args.gpu_model_series:
            node_selector[GPU_MODEL_SERIES_LABEL] = args.gpu_model_series
        spec["nodeSelector"] = node_selector
    elif args.scheduling == "node-selector":
        spec["nodeSelector"] = dict(VIRTUAL_NODE_SELECTOR)
        spec["tolerations"] = [dict(VIRTUAL_NODE_TOLERATION)]
    spec["containers"] = [_container(args)]
    if args.volumes:
        spec["volumes"] = [
            {"name": v.name, "persistentVolumeClaim": {"claimName": v.claim_name, **_read_only(read_only=v.read_only)}}
            for v in args.volumes
        ]
    return spec


def _container(args: AcsWorkloadConfig) -> dict[str, Any]:
    container: dict[str, Any] = {"name": args.container, "image": args.image}
    if args.command:
        container["command"] = list(args.command)
    if args.args:
        container["args"] = list(args.args)
    quantities = {"cpu": args.cpu, "memory": args.memory}
    if args.gpu is not None:
        quantities[args.gpu_resource_name] = str(args.gpu)
    amounts = {name: value for name, value in quantities.items() if value is not None}
    if amounts:
        # requests == limits: GPU pods in ACK must be Guaranteed (ACS pod overview), and ACK writes CPU pods so too.
        container["resources"] = {"limits": dict(amounts), "requests": dict(amounts)}
    if args.volumes:
        container["volumeMounts"] = [
            {"name": v.name, "mountPath": v.mount_path, **_read_only(read_only=v.read_only)} for v in args.volumes
        ]
    return container


def _read_only(*, read_only: bool) -> dict[str, bool]:
    return {"readOnly": True} if read_only else {}


def _unit(args: AcsWorkloadConfig, unit: PolicyUnitConfig) -> dict[str, Any]:
    out: dict[str, Any] = {"resource": unit.resource}
    if unit.node_selector:
        out["nodeSelector"] = dict(unit.node_selector)
    placement = _acs_labels(args, unit.compute_qos or args.compute_qos) if unit.resource == "acs" else {}
    pod_labels = {**placement, **unit.pod_labels}
    if pod_labels:
        out["podLabels"] = pod_labels
    if unit.pod_annotations:
        out["podAnnotations"] = dict(unit.pod_annotations)
    if unit.max is not None:
        out["max"] = unit.max
    return out
