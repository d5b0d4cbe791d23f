"""Rules of one ``ack.workloads`` entry: every rule has a good and a bad case and names the exact key; the spec ACS
bills is computed once; and what the workload needs of its cluster's addons. (Rules across workloads and clusters
are the section's, in ``test_ack``.)"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from components.config.ack import acs_sizing
from components.config.ack.acs import RESERVED_LABELS, AcsWorkloadConfig
from components.config.base import problems_from
from tests.support.ack import GPU, GPU_HPN, GPU_SCHEDULER_1_31, workload, workload_config
from tests.support.config import model_error_keys


def bad_keys(data: dict[str, Any]) -> list[str]:
    return model_error_keys(AcsWorkloadConfig, data)


def problems(data: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(ValidationError) as caught:
        AcsWorkloadConfig.model_validate(data)
    return problems_from(caught.value, "")


def test_defaults_follow_acks_examples():
    web = workload_config()
    assert (web.namespace, web.replicas, web.scheduling) == ("default", 1, "node-selector")
    assert (web.compute_class, web.compute_qos, web.gpu_resource_name) == (
        "general-purpose",
        "default",
        "nvidia.com/gpu",
    )
    assert (web.app, web.container, web.policy_name) == ("web", "web", "web")
    assert [u.resource for u in web.policy_units] == ["acs"]
    assert web.ready_timeout_minutes == 10, "pulumi-kubernetes' own Deployment await"
    assert (web.command, web.args, web.volumes, web.labels, web.annotations) == (None, None, [], {}, {})


@pytest.mark.parametrize(("minutes", "ok"), [(1, True), (720, True), (0, False), (721, False)])
def test_ready_timeout_minutes(minutes, ok):
    if ok:
        assert workload_config(readyTimeoutMinutes=minutes).ready_timeout_minutes == minutes
    else:
        assert bad_keys(workload(readyTimeoutMinutes=minutes)) == ["readyTimeoutMinutes"]


def test_explicit_names_override_the_defaults():
    rp = {"scheduling": "resource-policy", "resourcePolicy": {"name": "rp"}}
    demo = workload_config(appLabel="demo-app", containerName="main", **rp)
    assert (demo.app, demo.container, demo.policy_name) == ("demo-app", "main", "rp")


@pytest.mark.parametrize(("key", "bad"), [("name", "Web"), ("namespace", "team_a"), ("image", ""), ("replicas", -1)])
def test_names_image_and_replicas(key, bad):
    assert bad_keys(workload(**{key: bad})) == [key]


def test_cpu_and_memory_are_positive_quantities():
    web = workload_config(cpu=2, memory="3.5Gi")
    assert (web.cpu, web.memory) == ("2", "3.5Gi")
    assert bad_keys(workload(cpu=0)) == ["cpu"]
    assert bad_keys(workload(memory="0Gi")) == ["memory"]


# --- compute class x QoS, GPU fields, sizing ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "fields",
    [
        {"computeClass": "general-purpose", "computeQos": "best-effort"},
        {"computeClass": "performance", "computeQos": "best-effort"},
        {**GPU, "computeQos": "best-effort"},
        {**GPU_HPN, "computeQos": "default"},
    ],
)
def test_valid_class_and_qos(fields):
    config = workload_config(**fields)
    assert (config.compute_class, config.compute_qos) == (fields["computeClass"], fields["computeQos"])


def test_gpu_hpn_allows_only_default_qos():
    assert bad_keys(workload(**GPU_HPN, computeQos="best-effort")) == ["computeQos"]


@pytest.mark.parametrize("missing", ["gpuModelSeries", "gpu"])
def test_gpu_class_needs_model_series_and_count(missing):
    assert bad_keys(workload(**{**GPU, missing: None})) == [missing]


@pytest.mark.parametrize("missing", ["cpu", "memory"])
@pytest.mark.parametrize("base", [GPU, GPU_HPN], ids=["gpu", "gpu-hpn"])
def test_gpu_pods_must_be_guaranteed(base, missing):
    assert bad_keys(workload(**{**base, missing: None})) == [missing]


def test_gpu_hpn_may_omit_model_and_count():
    hpn = workload_config(**GPU_HPN)
    assert (hpn.gpu, hpn.gpu_model_series) == (None, None)


@pytest.mark.parametrize(("field", "value"), [("gpuModelSeries", "T4"), ("gpu", 1)])
def test_cpu_classes_refuse_gpu_fields(field, value):
    assert bad_keys(workload(**{field: value})) == [field]


@pytest.mark.parametrize(("fields", "key"), [({"cpu": 65}, "cpu"), ({"cpu": 2, "memory": "1Ti"}, "memory")])
def test_cpu_pods_must_fit_an_acs_spec(fields, key):
    ((found, message),) = problems(workload(**fields))
    assert found == key and "64 vCPU with 512 GiB" in message


def test_largest_acs_spec_is_accepted():
    assert workload_config(cpu=64, memory="512Gi").billed_spec == acs_sizing.billed_spec("64", "512Gi")


def test_a_cpu_workload_carries_the_spec_acs_bills_it_as():
    config = workload_config(cpu=2, memory="3.5Gi")
    assert (config.billed_spec.text, config.billed_spec.rounded_up) == ("2-4Gi", True)


def test_gpu_classes_have_no_billed_spec():
    assert workload_config(**GPU).billed_spec is None


# --- scheduling methods and volumes ------------------------------------------------------------------------------


@pytest.mark.parametrize("scheduling", ["pod-label", "resource-policy"])
def test_gpu_hpn_goes_by_node_selector_only(scheduling):
    assert bad_keys(workload(**GPU_HPN, scheduling=scheduling)) == ["scheduling"]


def test_resource_policy_options_need_resource_policy_scheduling():
    ((key, message),) = problems(workload(resourcePolicy={"name": "rp"}))
    assert key == "resourcePolicy"
    assert "it must not be set here; only used with scheduling: resource-policy" in message and "'set'" not in message


def volume(binding_mode: str, name: str = "data") -> dict[str, Any]:
    return {"name": name, "claimName": "disk", "mountPath": "/data", "bindingMode": binding_mode}


def test_pod_label_refuses_wait_for_first_consumer_volumes():
    volumes = [volume("Immediate", "a"), volume("WaitForFirstConsumer")]
    ((key, message),) = problems(workload(scheduling="pod-label", volumes=volumes))
    assert key == "scheduling"
    assert "volumes[1]" in message and "node-selector or resource-policy" in message


@pytest.mark.parametrize(
    ("scheduling", "binding_mode"),
    [
        ("pod-label", "Immediate"),
        ("node-selector", "WaitForFirstConsumer"),
        ("resource-policy", "WaitForFirstConsumer"),
    ],
)
def test_volumes_allowed(scheduling, binding_mode):
    [mounted] = workload_config(scheduling=scheduling, volumes=[volume(binding_mode)]).volumes
    assert (mounted.claim_name, mounted.mount_path, mounted.read_only) == ("disk", "/data", False)


def test_volume_names_are_unique_and_mounted_at_absolute_paths():
    volumes = [volume("Immediate"), volume("Immediate", "other"), volume("Immediate")]
    assert bad_keys(workload(volumes=volumes)) == ["volumes[2].name"]
    assert bad_keys(workload(volumes=[{**volume("Immediate"), "mountPath": "data"}])) == ["volumes[0].mountPath"]


@pytest.mark.parametrize(
    ("unit", "key"),
    [
        ({"resource": "ecs", "computeQos": "default"}, "computeQos"),
        ({"resource": "acs", "nodeSelector": {"pool": "a"}}, "nodeSelector"),
        ({"resource": "eci"}, "resource"),
        ({"max": -1}, "max"),
    ],
)
def test_unit_fields_match_their_resource(unit, key):
    spec = workload(scheduling="resource-policy", resourcePolicy={"units": [unit]})
    assert bad_keys(spec) == [f"resourcePolicy.units[0].{key}"]


def test_unit_list_may_not_be_empty():
    assert bad_keys(workload(scheduling="resource-policy", resourcePolicy={"units": []})) == ["resourcePolicy.units"]


# --- labels and annotations ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("label", [*RESERVED_LABELS, "alibabacloud.com/eci"])
def test_builder_owned_and_eci_labels_are_refused(label):
    assert bad_keys(workload(labels={label: "x"})) == [f"labels.{label}"]


def test_eci_is_refused_in_annotations_and_policy_units():
    eci = {"alibabacloud.com/eci": "true"}
    policy = {"units": [{"podLabels": {"team": "a"}}, {"podAnnotations": eci}]}
    assert bad_keys(workload(annotations=eci)) == ["annotations.alibabacloud.com/eci"]
    assert bad_keys(workload(scheduling="resource-policy", resourcePolicy=policy)) == [
        "resourcePolicy.units[1].podAnnotations.alibabacloud.com/eci"
    ]


@pytest.mark.parametrize("label", ["alibabacloud.com/compute-class", "alibabacloud.com/compute-qos", "app"])
def test_class_labels_are_refused_in_unit_pod_labels(label):
    spec = workload(scheduling="resource-policy", resourcePolicy={"units": [{"podLabels": {label: "x"}}]})
    assert bad_keys(spec) == [f"resourcePolicy.units[0].podLabels.{label}"]


def test_other_labels_and_annotations_pass():
    labels = {"team": "search", "example.com/tier": "web"}
    web = workload_config(labels=labels, annotations={"alibabacloud.com/cpu-vendors": "amd"})
    assert web.labels == labels


def test_label_values_must_be_label_values():
    assert bad_keys(workload(labels={"team": "not a label value"})) == ["labels.team"]


# --- what the workload needs of its cluster ----------------------------------------------------------------------


@pytest.mark.parametrize(("fields", "minimum"), [({}, "2.13.0"), (GPU, "2.13.0"), (GPU_HPN, "2.15.0")])
def test_virtual_node_minimum(fields, minimum):
    assert str(workload_config(**fields).virtual_node_minimum) == minimum


def test_scheduler_needs_of_a_gpu_workload_follow_its_clusters_minor():
    [need] = workload_config(**GPU).scheduler_needs("1.31", "who")
    assert (need.reason, need.text) == ("who", GPU_SCHEDULER_1_31)
    assert workload_config(**GPU).scheduler_needs("1.24", "who") == [], "below the table: the section refuses it"
    assert workload_config().scheduler_needs("1.35", "who") == []


@pytest.mark.parametrize(
    ("units", "level"), [((), "6.7.1"), (({}, {"computeQos": "best-effort"}), "6.8.3"), (({"resource": "ecs"},), None)]
)
def test_scheduler_needs_of_a_resource_policy_follow_its_acs_units(units, level):
    options = {"resourcePolicy": {"units": list(units)}} if units else {}
    needs = workload_config(scheduling="resource-policy", **options).scheduler_needs("1.35", "who")
    assert [str(n.feature_level) for n in needs] == ([level] if level else [])


# --- warnings: what the stack file already says about readiness and billing ---------------------------------------


def test_rounded_up_requests_warn_of_the_billed_spec():
    [(key, message)] = workload_config(cpu=2, memory="3.5Gi").warnings()
    assert key == ""
    assert "default/web as 2-4Gi" in message and "cpu 2 / memory 3.5Gi" in message


@pytest.mark.parametrize("fields", [{"cpu": 2, "memory": "4Gi"}, {}], ids=["exact-spec", "no-requests"])
def test_exact_or_default_specs_warn_of_nothing(fields):
    assert workload_config(**fields).warnings() == []


@pytest.mark.parametrize(
    ("fields", "says"),
    [(GPU, "invitational preview"), (GPU_HPN, "GPU-HPN capacity reservation")],
    ids=["gpu", "gpu-hpn"],
)
def test_gpu_classes_warn_about_their_acs_prerequisites_and_the_timeout(fields, says):
    [(key, message)] = workload_config(**fields, readyTimeoutMinutes=25).warnings()
    assert key == "computeClass"
    assert message.startswith("default/web: ") and says in message and "readyTimeoutMinutes (25)" in message
    assert "bills" not in message
