"""The ACS builders reproduce the ACS documentation's examples field for field and emit only schema-valid objects."""

from __future__ import annotations

import jsonschema
import pytest

from components.config.ack.acs import COMPUTE_CLASS_LABEL, COMPUTE_QOS_LABEL
from components.manifests.acs import deployment, resource_policy
from components.manifests.core import namespace
from tests.support.ack import workload_config as workload
from tests.support.schemas import resource_policy_schema, validate_core
from tests.support.vendor_examples import (
    GPU_BY_NODE_SELECTOR,
    GPU_BY_POD_LABEL,
    GPU_BY_RESOURCE_POLICY,
    GPU_HPN,
    MODEL,
    NGINX,
    NGINX_BY_NODE_SELECTOR,
    NGINX_BY_POD_LABEL,
    STRESS,
    acs_guide_objects,
    as_emitted,
)

RP_SCHEMA = resource_policy_schema()


GUIDE_NGINX = {"name": "nginx", "replicas": 2, "image": NGINX, "cpu": 2}
GUIDE_GPU = {
    "name": "dep-node-selector-demo",
    "appLabel": "node-selector-demo",
    "image": STRESS,
    "command": ["sleep", "1000h"],
    "cpu": 1,
    "memory": "1Gi",
    "gpu": 1,
}

GUIDE_CASES = {
    "nginx-node-selector": (NGINX_BY_NODE_SELECTOR, GUIDE_NGINX),
    "nginx-pod-label": (NGINX_BY_POD_LABEL, {**GUIDE_NGINX, "scheduling": "pod-label"}),
    "gpu-node-selector": (GPU_BY_NODE_SELECTOR, {**GUIDE_GPU, "computeClass": "gpu", "gpuModelSeries": MODEL}),
    "gpu-pod-label": (
        GPU_BY_POD_LABEL,
        {**GUIDE_GPU, "computeClass": "gpu", "gpuModelSeries": MODEL, "scheduling": "pod-label"},
    ),
    "gpu-hpn": (GPU_HPN, {**GUIDE_GPU, "computeClass": "gpu-hpn"}),
}

GUIDE_RP_WORKLOAD = {
    **GUIDE_GPU,
    "name": "dep-rp-demo",
    "appLabel": "dep-rp-demo",
    "containerName": "demo",
    "computeClass": "gpu",
    "gpuModelSeries": MODEL,
    "scheduling": "resource-policy",
}


def test_normalisations_touch_only_the_three_documented_fields():
    (raw,) = acs_guide_objects(NGINX_BY_NODE_SELECTOR)
    normalised = as_emitted(raw)
    assert normalised["metadata"]["namespace"] == "default" and "namespace" not in raw["metadata"]
    assert "name" in raw["spec"]["template"]["metadata"] and "name" not in normalised["spec"]["template"]["metadata"]
    resources = normalised["spec"]["template"]["spec"]["containers"][0]["resources"]
    assert resources == {"limits": {"cpu": "2"}, "requests": {"cpu": "2"}}
    for obj in (raw, normalised):
        obj["metadata"].pop("namespace", None)
        obj["spec"]["template"]["metadata"].pop("name", None)
        obj["spec"]["template"]["spec"]["containers"][0].pop("resources")
    assert normalised == raw


@pytest.mark.parametrize("case", GUIDE_CASES)
def test_the_acs_guides_deployments_are_reproduced(case):
    text, fields = GUIDE_CASES[case]
    (expected,) = acs_guide_objects(text)
    assert deployment(workload(**fields)) == as_emitted(expected)
    assert resource_policy(workload(**fields)) is None


def test_the_acs_guides_resource_policy_and_its_deployment_are_reproduced():
    expected_policy, expected_deployment = acs_guide_objects(GPU_BY_RESOURCE_POLICY)
    cfg = workload(**GUIDE_RP_WORKLOAD)
    assert resource_policy(cfg) == expected_policy
    assert deployment(cfg) == as_emitted(expected_deployment)


def test_the_acs_guides_resource_policy_matches_the_schema():
    policy, _ = acs_guide_objects(GPU_BY_RESOURCE_POLICY)
    jsonschema.Draft202012Validator.check_schema(RP_SCHEMA)
    jsonschema.validate(policy, RP_SCHEMA, cls=jsonschema.Draft202012Validator)


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("spec", "units", 0, "resource"), "gpu"),
        (("spec", "units", 0, "podLabel"), {"a": "b"}),
        (("spec", "strategy"), "require"),
        (("spec", "whenTryNextUnits"), {"policy": "Always"}),
        (("spec", "units"), []),
        (("spec", "units", 0, "max"), -1),
        (("kind",), "Policy"),
    ],
)
def test_schema_rejects_undocumented_shapes(path, value):
    policy, _ = acs_guide_objects(GPU_BY_RESOURCE_POLICY)
    target = policy
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(policy, RP_SCHEMA, cls=jsonschema.Draft202012Validator)


def test_schema_requires_a_namespace():
    policy, _ = acs_guide_objects(GPU_BY_RESOURCE_POLICY)
    del policy["metadata"]["namespace"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(policy, RP_SCHEMA, cls=jsonschema.Draft202012Validator)


VOLUME = {"name": "data", "claimName": "disk-data", "mountPath": "/data", "bindingMode": "WaitForFirstConsumer"}

VARIED = {"guide-" + case: fields for case, (_, fields) in GUIDE_CASES.items()} | {
    "guide-rp": GUIDE_RP_WORKLOAD,
    "defaults": {"name": "web", "image": "nginx:1.27"},
    "performance-best-effort": {
        "name": "batch",
        "namespace": "team-a",
        "image": "busybox:1.36",
        "args": ["sh", "-c", "sleep 60"],
        "computeClass": "performance",
        "computeQos": "best-effort",
        "cpu": "500m",
        "memory": "1536Mi",
        "replicas": 0,
        "labels": {"team": "search"},
        "annotations": {"alibabacloud.com/cpu-vendors": "amd"},
        "volumes": [VOLUME, {**VOLUME, "name": "cfg", "claimName": "cfg", "mountPath": "/cfg", "readOnly": True}],
    },
    "policy-fallback": {
        "name": "api",
        "image": "nginx:1.27",
        "cpu": 2,
        "memory": "4Gi",
        "scheduling": "resource-policy",
        "resourcePolicy": {
            "name": "api-fallback",
            "units": [
                {"resource": "ecs", "nodeSelector": {"alibabacloud.com/nodepool-id": "np-1"}, "max": 4},
                {"computeQos": "best-effort", "max": 10, "podLabels": {"tier": "burst"}},
                {"podAnnotations": {"note": "last"}},
            ],
        },
        "volumes": [VOLUME],
    },
    "hpn-with-model": {**GUIDE_GPU, "computeClass": "gpu-hpn", "gpuModelSeries": MODEL, "gpu": None},
    "ppu": {**GUIDE_GPU, "computeClass": "gpu", "gpuModelSeries": "PPU810E", "gpuResourceName": "alibabacloud.com/ppu"},
}


@pytest.mark.parametrize("case", VARIED)
def test_every_deployment_is_a_valid_kubernetes_object(case):
    validate_core(deployment(workload(**VARIED[case])), "1.31")


@pytest.mark.parametrize("case", VARIED)
def test_every_resource_policy_matches_the_schema(case):
    policy = resource_policy(workload(**VARIED[case]))
    if VARIED[case].get("scheduling") != "resource-policy":
        assert policy is None
        return
    jsonschema.validate(policy, RP_SCHEMA, cls=jsonschema.Draft202012Validator)


@pytest.mark.parametrize("case", VARIED)
def test_selector_is_only_the_app_label(case):
    cfg = workload(**VARIED[case])
    obj = deployment(cfg)
    assert obj["spec"]["selector"] == {"matchLabels": {"app": cfg.app}}
    assert obj["metadata"]["labels"] == {"app": cfg.app}
    assert obj["spec"]["template"]["metadata"]["labels"]["app"] == cfg.app


def test_resource_policy_pods_carry_no_class_labels():
    cfg = workload(**VARIED["policy-fallback"])
    obj = deployment(cfg)
    pod_labels = obj["spec"]["template"]["metadata"]["labels"]
    assert pod_labels == {"app": "api"}
    assert obj["metadata"]["annotations"] == {"resourcePolicy": "api-fallback"}
    assert "nodeSelector" not in obj["spec"]["template"]["spec"]
    assert "tolerations" not in obj["spec"]["template"]["spec"]


def test_policy_units_in_order_with_their_labels():
    policy = resource_policy(workload(**VARIED["policy-fallback"]))
    assert policy is not None
    assert policy["metadata"] == {"name": "api-fallback", "namespace": "default"}
    assert policy["spec"]["selector"] == {"app": "api"}
    assert policy["spec"]["units"] == [
        {"resource": "ecs", "nodeSelector": {"alibabacloud.com/nodepool-id": "np-1"}, "max": 4},
        {
            "resource": "acs",
            "podLabels": {COMPUTE_CLASS_LABEL: "general-purpose", COMPUTE_QOS_LABEL: "best-effort", "tier": "burst"},
            "max": 10,
        },
        {
            "resource": "acs",
            "podLabels": {COMPUTE_CLASS_LABEL: "general-purpose", COMPUTE_QOS_LABEL: "default"},
            "podAnnotations": {"note": "last"},
        },
    ]


def test_extra_labels_annotations_and_volumes_go_to_the_pod():
    obj = deployment(workload(**VARIED["performance-best-effort"]))
    template = obj["spec"]["template"]
    assert obj["metadata"]["namespace"] == "team-a"
    assert template["metadata"]["labels"] == {
        "app": "batch",
        COMPUTE_CLASS_LABEL: "performance",
        COMPUTE_QOS_LABEL: "best-effort",
        "team": "search",
    }
    assert template["metadata"]["annotations"] == {"alibabacloud.com/cpu-vendors": "amd"}
    assert template["spec"]["volumes"] == [
        {"name": "data", "persistentVolumeClaim": {"claimName": "disk-data"}},
        {"name": "cfg", "persistentVolumeClaim": {"claimName": "cfg", "readOnly": True}},
    ]
    (container,) = template["spec"]["containers"]
    assert container["volumeMounts"] == [
        {"name": "data", "mountPath": "/data"},
        {"name": "cfg", "mountPath": "/cfg", "readOnly": True},
    ]
    assert container["args"] == ["sh", "-c", "sleep 60"] and "command" not in container
    assert container["resources"] == {
        "limits": {"cpu": "500m", "memory": "1536Mi"},
        "requests": {"cpu": "500m", "memory": "1536Mi"},
    }
    assert obj["spec"]["replicas"] == 0


def test_no_requests_means_no_resources_block():
    (container,) = deployment(workload(**VARIED["defaults"]))["spec"]["template"]["spec"]["containers"]
    assert container == {"name": "web", "image": "nginx:1.27"}


def test_gpu_hpn_selects_its_model_by_node_selector():
    template = deployment(workload(**VARIED["hpn-with-model"]))["spec"]["template"]
    assert template["spec"]["nodeSelector"] == {
        "alibabacloud.com/node-type": "reserved",
        "alibabacloud.com/gpu-model-series": MODEL,
    }
    assert "alibabacloud.com/gpu-model-series" not in template["metadata"]["labels"]
    assert "tolerations" not in template["spec"]
    # Alibaba Cloud's ACS guide: GPU-HPN pods may leave the GPU count out; requests still equal limits.
    (container,) = template["spec"]["containers"]
    assert container["resources"] == {
        "limits": {"cpu": "1", "memory": "1Gi"},
        "requests": {"cpu": "1", "memory": "1Gi"},
    }


def test_gpu_resource_name_is_configurable():
    (container,) = deployment(workload(**VARIED["ppu"]))["spec"]["template"]["spec"]["containers"]
    assert container["resources"]["limits"] == {"cpu": "1", "memory": "1Gi", "alibabacloud.com/ppu": "1"}
    assert container["resources"]["requests"] == container["resources"]["limits"]


def test_the_namespace_is_a_bare_valid_namespace():
    assert namespace("team-a") == {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}}
    validate_core(namespace("team-a"), "1.31")
