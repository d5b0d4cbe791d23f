"""Workloads: every shipped Deployment selects on its app label only and every shipped GPU pod is Guaranteed; the same
objects with a compute-class label in the selector, or a GPU container whose cpu or memory request is not its limit,
fail, naming the object, the label or the container."""

from __future__ import annotations

import pytest
from elastic_capacity_policies.workloads import (
    ACS_SELECTOR,
    DEPLOYMENT,
    GPU_GUARANTEED,
    JOB,
    is_gpu_resource,
    requests_gpu,
)

GPU_DEPLOYMENTS = [
    "acs-acs-hangzhou-default-dep-node-selector-demo-deployment",
    "acs-acs-hangzhou-default-dep-rp-demo-deployment",
    "acs-acs-beijing-default-dep-node-selector-demo-deployment",
    "acs-acs-hpn-default-dep-node-selector-demo-deployment",
]


def workloads(engine):
    return [(n, r) for n, rec in engine.recordings.items() for r in rec.registrations if r.type in (DEPLOYMENT, JOB)]


def test_every_shipped_deployment_and_job_passes_and_the_gpu_ones_are_recognised(engine):
    gpu = []
    for name, registration in workloads(engine):
        args = engine.resource_args(registration)
        assert engine.messages(ACS_SELECTOR, args) == engine.messages(GPU_GUARANTEED, args) == [], name
        containers = registration.inputs["spec"]["template"]["spec"]["containers"]
        if any(requests_gpu(container) for container in containers):
            gpu.append(registration.name)
    assert sorted(gpu) == sorted(GPU_DEPLOYMENTS)


@pytest.mark.parametrize("label", ["alibabacloud.com/compute-class", "alibabacloud.com/compute-qos"])
def test_a_compute_class_or_qos_label_in_the_selector_fails(engine, label):
    deployment = engine.stack("ack-acs-dev").one(DEPLOYMENT, "acs-acs-hangzhou-default-nginx-deployment")
    props = engine.props(deployment)
    value = props["spec"]["template"]["metadata"]["labels"][label]
    props["spec"]["selector"]["matchLabels"][label] = value
    assert engine.messages(ACS_SELECTOR, engine.resource_args(deployment, props)) == [
        f"Deployment 'default/nginx' selects on {label}: ACS may change that label on its pods, so keep it on the pod "
        "template only and select on the app label."
    ]


def test_a_match_expression_on_a_compute_label_fails_too(engine):
    deployment = engine.stack("multicloud").by_type(DEPLOYMENT)[0]
    props = engine.props(deployment)
    expression = {"key": "alibabacloud.com/compute-qos", "operator": "In", "values": ["default"]}
    props["spec"]["selector"]["matchExpressions"] = [expression]
    [message] = engine.messages(ACS_SELECTOR, engine.resource_args(deployment, props))
    assert "selects on alibabacloud.com/compute-qos" in message


def gpu_deployment(engine, name="acs-acs-hangzhou-default-dep-rp-demo-deployment"):
    return engine.stack("ack-acs-dev").one(DEPLOYMENT, name)


def containers(props):
    return props["spec"]["template"]["spec"]["containers"]


@pytest.mark.parametrize(
    ("side", "resource", "value", "problem"),
    [
        ("limits", "memory", "2Gi", "memory request '1Gi' is not its limit '2Gi'"),
        ("requests", "cpu", "500m", "cpu request '500m' is not its limit '1'"),
    ],
)
def test_a_gpu_deployment_with_a_request_that_is_not_its_limit_fails(engine, side, resource, value, problem):
    deployment = gpu_deployment(engine)
    props = engine.props(deployment)
    containers(props)[0]["resources"][side][resource] = value
    assert engine.messages(GPU_GUARANTEED, engine.resource_args(deployment, props)) == [
        f"Deployment 'default/dep-rp-demo' runs GPU pods, but its containers entry 'demo' has {problem}: set cpu and "
        "memory requests equal to their limits in every container, so the pod is Guaranteed."
    ]


def test_a_missing_limit_fails_a_missing_request_defaults_to_its_limit_and_units_compare_by_value(engine):
    deployment = gpu_deployment(engine)
    props = engine.props(deployment)
    resources = containers(props)[0]["resources"]
    del resources["requests"]["cpu"]
    resources["limits"]["memory"] = "1024Mi"
    assert engine.messages(GPU_GUARANTEED, engine.resource_args(deployment, props)) == []
    del resources["limits"]["cpu"]
    [message] = engine.messages(GPU_GUARANTEED, engine.resource_args(deployment, props))
    assert "'demo' has no cpu limit:" in message


def test_every_container_of_a_gpu_pod_counts_and_a_cpu_pod_is_not_checked(engine):
    deployment = gpu_deployment(engine, "acs-acs-hpn-default-dep-node-selector-demo-deployment")
    props = engine.props(deployment)
    props["spec"]["template"]["spec"]["initContainers"] = [{"name": "fetch", "image": "busybox"}]
    [message] = engine.messages(GPU_GUARANTEED, engine.resource_args(deployment, props))
    assert "its initContainers entry 'fetch' has no cpu limit; no memory limit:" in message
    cpu_only = engine.stack("ack-acs-dev").one(DEPLOYMENT, "acs-acs-beijing-default-nginx-deployment")
    props = engine.props(cpu_only)
    containers(props)[0]["resources"]["requests"]["cpu"] = "1"
    assert engine.messages(GPU_GUARANTEED, engine.resource_args(cpu_only, props)) == []


def test_a_job_whose_pods_request_a_gpu_must_be_guaranteed_too(engine):
    job = engine.stack("aks-kueue-dev").one(JOB, "smoke-job-job")
    props = engine.props(job)
    worker = containers(props)[0]
    worker["resources"]["requests"]["nvidia.com/gpu"] = "1"
    assert engine.messages(GPU_GUARANTEED, engine.resource_args(job, props)) == [
        "Job 'cas-kueue-demo/kueue-cas-job' runs GPU pods, but its containers entry 'worker' has no cpu limit; no "
        "memory limit: set cpu and memory requests equal to their limits in every container, so the pod is "
        "Guaranteed."
    ]
    worker["resources"]["limits"] = dict(worker["resources"]["requests"])
    assert engine.messages(GPU_GUARANTEED, engine.resource_args(job, props)) == []


def test_which_resources_are_gpus():
    for name in ("nvidia.com/gpu", "amd.com/gpu", "aliyun.com/gpu-mem"):
        assert is_gpu_resource(name)
    for name in ("cpu", "memory", "ephemeral-storage", "example.com/gpus", "hugepages-2Mi", None):
        assert not is_gpu_resource(name)
