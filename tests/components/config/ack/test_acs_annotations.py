"""ACS pod annotations: refused where ACS ignores or refuses them, with the key, the value and what is allowed."""

from __future__ import annotations

import pytest

from components.config.ack.acs import AcsWorkloadConfig
from tests.support.config import model_error_keys

CPU = {"name": "web", "cluster": "c", "image": "nginx:1.27", "cpu": "2", "memory": "4Gi"}
GPU = {**CPU, "computeClass": "gpu", "gpuModelSeries": "T4", "gpu": 1}


@pytest.mark.parametrize(
    ("workload", "annotations"),
    [
        (CPU, {"alibabacloud.com/cpu-vendors": "amd"}),
        (CPU, {"alibabacloud.com/cpu-vendors": "intel,amd"}),
        (CPU, {"alibabacloud.com/pod-required-spec": "2-4Gi"}),
        ({**CPU, "computeClass": "performance"}, {"alibabacloud.com/pod-required-spec": "64-512Gi"}),
    ],
)
def test_documented_annotations_are_accepted_on_their_classes(workload, annotations):
    AcsWorkloadConfig.model_validate({**workload, "annotations": annotations})


@pytest.mark.parametrize(
    ("workload", "annotation", "value"),
    [
        (GPU, "alibabacloud.com/cpu-vendors", "intel"),
        (GPU, "alibabacloud.com/pod-required-spec", "2-4Gi"),
        (CPU, "alibabacloud.com/cpu-vendors", "arm"),
        (CPU, "alibabacloud.com/pod-required-spec", "2C4G"),
        (CPU, "alibabacloud.com/pod-required-spec", "65-128Gi"),
        (CPU, "alibabacloud.com/pod-required-spec", "8-513Gi"),
        (CPU, "alibabacloud.com/pod-use-spec", "2-4Gi"),
    ],
)
def test_annotations_acs_ignores_or_refuses_are_named(workload, annotation, value):
    assert model_error_keys(AcsWorkloadConfig, {**workload, "annotations": {annotation: value}}) == [
        f"annotations.{annotation}"
    ]


def test_resource_policy_unit_annotations_follow_the_same_rules():
    policy = {"units": [{"resource": "acs", "podAnnotations": {"alibabacloud.com/cpu-vendors": "intel"}}]}
    workload = {**GPU, "scheduling": "resource-policy", "resourcePolicy": policy}
    assert model_error_keys(AcsWorkloadConfig, workload) == [
        "resourcePolicy.units[0].podAnnotations.alibabacloud.com/cpu-vendors"
    ]
