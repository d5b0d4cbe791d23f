"""The ``ack`` section's ACS workload rules: every rule has a good and a bad case, and names the exact key."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from components.config.acs import RESERVED_LABELS, AckConfig
from components.config.base import PROJECT, problems_from
from tests.support.config import model_error_keys, stack_error_keys

GPU_SCHEDULER_131 = "v1.31.0-aliyun.6.8.4.8f585f26"
"""ACK's minimum kube-scheduler for ACS GPU on 1.31 (the newest row of its GPU table)."""
SCHEDULER_135 = "v1.35.0-apsara.6.11.4.77470105"
"""A kube-scheduler build for 1.35, above every minimum."""


def cluster(name: str = "prod", version: str = "1.35", virtual_node: str | None = None, scheduler=None):
    """A cluster on existing vSwitches; no addon pins unless given."""
    spec: dict[str, Any] = {
        "name": name,
        "region": "cn-hangzhou",
        "kubernetesVersion": version,
        "network": {"vswitchIds": ["vsw-node"], "podVswitchIds": ["vsw-pod"]},
    }
    if virtual_node:
        spec["virtualNode"] = {"version": virtual_node}
    if scheduler:
        spec["scheduler"] = {"version": scheduler}
    return spec


def workload(**fields: Any) -> dict[str, Any]:
    return {"name": "web", "cluster": "prod", "image": "nginx:1.27", **fields}


GPU = {"computeClass": "gpu", "gpuModelSeries": "T4", "gpu": 1, "cpu": 1, "memory": "1Gi"}
GPU_HPN = {"computeClass": "gpu-hpn", "cpu": 1, "memory": "1Gi"}


def section(workloads: list[dict[str, Any]], clusters: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"clusters": clusters or [cluster()], "workloads": workloads}


def load(workloads: list[dict[str, Any]], clusters: list[dict[str, Any]] | None = None) -> AckConfig:
    return AckConfig.model_validate(section(workloads, clusters))


def problems(workloads: list[dict[str, Any]], clusters: list[dict[str, Any]] | None = None) -> list[tuple[str, str]]:
    """The ``(key, message)`` pairs the stack loader reports for this ``ack`` section."""
    with pytest.raises(ValidationError) as caught:
        load(workloads, clusters)
    return problems_from(caught.value, "ack")


def bad_keys(workloads: list[dict[str, Any]], clusters: list[dict[str, Any]] | None = None) -> list[str]:
    return model_error_keys(AckConfig, section(workloads, clusters), "ack")


def test_section_is_read_from_the_ack_stack_key():
    keys = stack_error_keys({"ack": section([workload(computeQos="fast")])})
    assert keys == [f"{PROJECT}:ack.workloads[0].computeQos"]


def test_defaults_follow_acks_examples():
    (web,) = load([workload()]).workloads
    assert (web.namespace, web.replicas, web.scheduling) == ("default", 1, "node-selector")
    assert (web.compute_class, web.compute_qos, web.gpu_resource_name) == (
        "general-purpose",
        "default",
        "nvidia.com/gpu",
    )
    assert (web.app, web.container, web.policy_name) == ("web", "web", "web")
    assert [u.resource for u in web.policy_units] == ["acs"]
    assert web.ready_timeout_minutes == 10, "pulumi-kubernetes' own Deployment await"


@pytest.mark.parametrize(("minutes", "ok"), [(1, True), (720, True), (0, False), (721, False)])
def test_ready_timeout_minutes(minutes, ok):
    if ok:
        assert load([workload(readyTimeoutMinutes=minutes)]).workloads[0].ready_timeout_minutes == minutes
    else:
        assert bad_keys([workload(readyTimeoutMinutes=minutes)]) == ["ack.workloads[0].readyTimeoutMinutes"]


def test_explicit_names_override_the_defaults():
    rp = {"scheduling": "resource-policy", "resourcePolicy": {"name": "rp"}}
    (demo,) = load(
        [workload(appLabel="demo-app", containerName="main", **rp)], [cluster(scheduler=SCHEDULER_135)]
    ).workloads
    assert (demo.app, demo.container, demo.policy_name) == ("demo-app", "main", "rp")


def test_cpu_and_memory_are_positive_quantities():
    (web,) = load([workload(cpu=2, memory="3.5Gi")]).workloads
    assert (web.cpu, web.memory) == ("2", "3.5Gi")
    assert bad_keys([workload(cpu=0)]) == ["ack.workloads[0].cpu"]
    assert bad_keys([workload(memory="0Gi")]) == ["ack.workloads[0].memory"]


def test_workloads_on_groups_by_cluster():
    config = load(
        [workload(name="a"), workload(name="b", cluster="dev"), workload(name="c")],
        [cluster(), cluster("dev")],
    )
    assert [w.name for w in config.workloads_on("prod")] == ["a", "c"]
    assert [w.name for w in config.workloads_on("dev")] == ["b"]


# --- compute class x QoS, GPU fields ---------------------------------------------------------------------------


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
    load([workload(**fields)])


def test_gpu_hpn_allows_only_default_qos():
    assert bad_keys([workload(**GPU_HPN, computeQos="best-effort")]) == ["ack.workloads[0].computeQos"]


@pytest.mark.parametrize(("missing", "key"), [("gpuModelSeries", "gpuModelSeries"), ("gpu", "gpu")])
def test_gpu_class_needs_model_series_and_count(missing, key):
    fields = {k: v for k, v in GPU.items() if k != missing}
    assert bad_keys([workload(**fields)]) == [f"ack.workloads[0].{key}"]


@pytest.mark.parametrize("missing", ["cpu", "memory"])
@pytest.mark.parametrize("base", [GPU, GPU_HPN], ids=["gpu", "gpu-hpn"])
def test_gpu_pods_must_be_guaranteed(base, missing):
    fields = {k: v for k, v in base.items() if k != missing}
    assert bad_keys([workload(**fields)]) == [f"ack.workloads[0].{missing}"]


def test_gpu_hpn_may_omit_model_and_count():
    (hpn,) = load([workload(**GPU_HPN)]).workloads
    assert (hpn.gpu, hpn.gpu_model_series) == (None, None)


@pytest.mark.parametrize(("field", "value"), [("gpuModelSeries", "T4"), ("gpu", 1)])
def test_cpu_classes_refuse_gpu_fields(field, value):
    assert bad_keys([workload(**{field: value})]) == [f"ack.workloads[0].{field}"]


@pytest.mark.parametrize(("fields", "key"), [({"cpu": 65}, "cpu"), ({"cpu": 2, "memory": "1Ti"}, "memory")])
def test_cpu_pods_must_fit_an_acs_spec(fields, key):
    assert bad_keys([workload(**fields)]) == [f"ack.workloads[0].{key}"]


def test_largest_acs_spec_is_accepted():
    load([workload(cpu=64, memory="512Gi")])


# --- scheduling methods -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("scheduling", ["pod-label", "resource-policy"])
def test_gpu_hpn_goes_by_node_selector_only(scheduling):
    assert bad_keys([workload(**GPU_HPN, scheduling=scheduling)]) == ["ack.workloads[0].scheduling"]


def test_resource_policy_options_need_resource_policy_scheduling():
    assert bad_keys([workload(resourcePolicy={"name": "rp"})]) == ["ack.workloads[0].resourcePolicy"]


def volume(binding_mode: str, name: str = "data") -> dict[str, Any]:
    return {"name": name, "claimName": "disk", "mountPath": "/data", "bindingMode": binding_mode}


def test_pod_label_refuses_wait_for_first_consumer_volumes():
    volumes = [volume("Immediate", "a"), volume("WaitForFirstConsumer")]
    ((key, message),) = problems([workload(scheduling="pod-label", volumes=volumes)])
    assert key == "ack.workloads[0].scheduling"
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
    load([workload(scheduling=scheduling, volumes=[volume(binding_mode)])], [cluster(scheduler=SCHEDULER_135)])


def test_volume_names_are_unique():
    volumes = [volume("Immediate"), volume("Immediate")]
    assert bad_keys([workload(volumes=volumes)]) == ["ack.workloads[0].volumes[1].name"]


@pytest.mark.parametrize(
    ("unit", "key"),
    [
        ({"resource": "ecs", "computeQos": "default"}, "computeQos"),
        ({"resource": "acs", "nodeSelector": {"pool": "a"}}, "nodeSelector"),
    ],
)
def test_unit_fields_match_their_resource(unit, key):
    spec = workload(scheduling="resource-policy", resourcePolicy={"units": [unit]})
    assert bad_keys([spec]) == [f"ack.workloads[0].resourcePolicy.units[0].{key}"]


def test_unit_list_may_not_be_empty():
    spec = workload(scheduling="resource-policy", resourcePolicy={"units": []})
    assert bad_keys([spec]) == ["ack.workloads[0].resourcePolicy.units"]


# --- labels and annotations ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("label", [*RESERVED_LABELS, "alibabacloud.com/eci"])
def test_builder_owned_and_eci_labels_are_refused(label):
    assert bad_keys([workload(labels={label: "x"})]) == [f"ack.workloads[0].labels.{label}"]


def test_eci_is_refused_in_annotations_and_policy_units():
    eci = {"alibabacloud.com/eci": "true"}
    policy = {"units": [{"podLabels": {"team": "a"}}, {"podAnnotations": eci}]}
    assert bad_keys([workload(annotations=eci)]) == ["ack.workloads[0].annotations.alibabacloud.com/eci"]
    assert bad_keys([workload(scheduling="resource-policy", resourcePolicy=policy)]) == [
        "ack.workloads[0].resourcePolicy.units[1].podAnnotations.alibabacloud.com/eci"
    ]


@pytest.mark.parametrize("label", ["alibabacloud.com/compute-class", "alibabacloud.com/compute-qos", "app"])
def test_class_labels_are_refused_in_unit_pod_labels(label):
    spec = workload(scheduling="resource-policy", resourcePolicy={"units": [{"podLabels": {label: "x"}}]})
    assert bad_keys([spec]) == [f"ack.workloads[0].resourcePolicy.units[0].podLabels.{label}"]


def test_other_labels_and_annotations_pass():
    (web,) = load(
        [
            workload(
                labels={"team": "search", "example.com/tier": "web"},
                annotations={"alibabacloud.com/cpu-vendors": "amd"},
            )
        ]
    ).workloads
    assert web.labels == {"team": "search", "example.com/tier": "web"}


def test_label_values_must_be_label_values():
    assert bad_keys([workload(labels={"team": "not a label value"})]) == ["ack.workloads[0].labels.team"]


# --- names across the section -----------------------------------------------------------------------------------


def test_workload_cluster_must_exist():
    assert bad_keys([workload(cluster="staging")]) == ["ack.workloads[0].cluster"]


def test_cluster_names_are_unique():
    assert bad_keys([], [cluster(), cluster()]) == ["ack.clusters[1].name"]


def test_the_section_needs_a_cluster():
    assert model_error_keys(AckConfig, {"clusters": []}, "ack") == ["ack.clusters"]


def test_workload_names_are_unique_per_cluster_and_namespace():
    assert bad_keys([workload(), workload(appLabel="other")]) == ["ack.workloads[1].name"]
    load(
        [workload(), workload(namespace="team-a", appLabel="x"), workload(cluster="dev")],
        [cluster(), cluster("dev")],
    )


def test_app_labels_are_unique_per_namespace():
    assert bad_keys([workload(), workload(name="api", appLabel="web")]) == ["ack.workloads[1].appLabel"]
    load([workload(), workload(name="api", namespace="team-a", appLabel="web")])


def test_policy_names_are_unique_per_namespace():
    rp = {"scheduling": "resource-policy", "resourcePolicy": {"name": "shared"}}
    assert bad_keys([workload(**rp), workload(name="api", **rp)]) == ["ack.workloads[1].resourcePolicy.name"]
    load([workload(**rp), workload(name="api", namespace="team-a", **rp)], [cluster(scheduler=SCHEDULER_135)])


# --- versions the workloads need of their cluster ---------------------------------------------------------------


def test_nothing_needs_a_pin():
    """ACK's own addon versions are checked at deploy time; no rule forces a pin (which could ask for a downgrade)."""
    policy = {"scheduling": "resource-policy", "resourcePolicy": {"units": [{}, {"computeQos": "best-effort"}]}}
    config = load([workload(**GPU), workload(name="hpn", **GPU_HPN), workload(name="rp", **policy)])
    assert (config.clusters[0].scheduler, config.clusters[0].virtual_node.version) == (None, None)


def test_needs_collect_what_each_workload_asks_of_its_cluster():
    policy = {"scheduling": "resource-policy", "resourcePolicy": {"units": [{}, {"computeQos": "best-effort"}]}}
    config = load(
        [workload(**GPU), workload(name="hpn", **GPU_HPN), workload(name="rp", **policy), workload(name="cpu")],
        [cluster()],
    )
    needs = config.needs(config.clusters[0])
    assert [(n.reason, n.text) for n in needs.scheduler] == [
        ("ack.workloads[0] (web, gpu)", "v1.31.0-aliyun.6.8.4.8f585f26"),
        ("ack.workloads[1] (hpn, gpu-hpn)", "v1.33.0-aliyun.6.9.4.8b58e6b4"),
        ("ack.workloads[2] (rp, general-purpose) with 2 acs ResourcePolicy unit(s)", "feature level 6.8.3"),
    ]
    assert (str(needs.virtual_node.minimum), needs.virtual_node.reason) == ("2.15.0", "ack.workloads[1] (hpn, gpu-hpn)")


def test_cpu_only_clusters_need_the_acs_virtual_node_and_no_scheduler():
    config = load([workload(), workload(name="perf", computeClass="performance")])
    needs = config.needs(config.clusters[0])
    assert (needs.scheduler, str(needs.virtual_node.minimum)) == ((), "2.13.0")


def test_a_gpu_hpn_workload_holds_a_virtual_node_pin_to_2_15():
    load([workload(**GPU_HPN)], [cluster(virtual_node="v2.15.0")])
    ((key, message),) = problems([workload(**GPU_HPN)], [cluster(virtual_node="v2.14.9")])
    assert key == "ack.clusters[0].virtualNode.version"
    assert "ack.workloads[0] (web, gpu-hpn)" in message and "v2.15.0" in message


@pytest.mark.parametrize(
    ("fields", "version", "good", "bad"),
    [
        (GPU, "1.26.15-aliyun.1", "v1.26.3-aliyun-6.8.4.4b180111", "v1.26.3-aliyun-6.8.3.4b180111"),
        (GPU, "1.28", "v1.28.12-aliyun-6.8.4.b27c0009", "v1.28.12-aliyun-6.7.9.b27c0009"),
        (GPU, "1.30", "v1.30.3-aliyun.6.8.4.946f90e8", "v1.30.2-aliyun.6.8.4.946f90e8"),
        (GPU, "1.31", GPU_SCHEDULER_131, "v1.31.0-aliyun.6.8.3.8f585f26"),
        (GPU, "1.35", SCHEDULER_135, "v1.35.0-apsara.6.8.3.aaaaaaaa"),  # newer than the table: its newest row
        (GPU_HPN, "1.28", "v1.28.12-aliyun-6.9.3.cd73f3fe", "v1.28.12-aliyun-6.8.4.b27c0009"),
        (GPU_HPN, "1.31", "v1.31.0-aliyun.6.9.3.051bb0e8", GPU_SCHEDULER_131),
        (GPU_HPN, "1.33.3-aliyun.1", "v1.33.0-aliyun.6.9.4.8b58e6b4", "v1.33.0-aliyun.6.9.3.8b58e6b4"),
        (GPU_HPN, "1.36", "v1.36.0-apsara.6.9.4.aaaaaaaa", "v1.36.0-apsara.6.9.3.aaaaaaaa"),
    ],
)
def test_a_scheduler_pin_must_meet_the_gpu_minimum_of_the_cluster_minor(fields, version, good, bad):
    load([workload(**fields)], [cluster(version=version, scheduler=good)])
    ((key, message),) = problems([workload(**fields)], [cluster(version=version, scheduler=bad)])
    assert key == "ack.clusters[0].scheduler.version"
    assert f"ack.workloads[0] (web, {fields['computeClass']})" in message


@pytest.mark.parametrize(("fields", "version"), [(GPU, "1.32"), (GPU, "1.35"), (GPU_HPN, "1.35"), (GPU_HPN, "1.36")])
def test_minors_newer_than_acks_tables_are_allowed(fields, version):
    """The tables are minimums ("1.26 and above"), not a whitelist of minors."""
    load([workload(**fields)], [cluster(version=version)])


def test_a_minor_older_than_the_gpu_hpn_table_is_refused():
    ((key, message),) = problems([workload(**GPU_HPN)], [cluster(version="1.26")])
    assert key == "ack.clusters[0].kubernetesVersion"
    assert "needs Kubernetes 1.28 or later" in message and "ack.workloads[0] (web, gpu-hpn)" in message


def test_rules_apply_to_the_workloads_own_cluster_only():
    """An old scheduler pin is fine on ``prod``, which runs only CPU pods, and refused on ``gpu``."""
    old = "v1.35.0-apsara.6.7.0.aaaaaaaa"
    load([workload(), workload(name="train", cluster="gpu", **GPU)], [cluster(scheduler=old), cluster("gpu")])
    clusters = [cluster(), cluster("gpu", scheduler=old)]
    assert bad_keys([workload(name="train", cluster="gpu", **GPU)], clusters) == ["ack.clusters[1].scheduler.version"]


def policy_workload(*units: dict[str, Any]) -> dict[str, Any]:
    """A resource-policy workload; without units it gets the default single acs unit."""
    options = {"resourcePolicy": {"units": list(units)}} if units else {}
    return workload(scheduling="resource-policy", **options)


@pytest.mark.parametrize(
    ("units", "good", "bad"),
    [
        ((), "v1.35.0-apsara.6.7.1.aaaaaaaa", "v1.35.0-apsara.6.7.0.aaaaaaaa"),
        (
            ({"computeQos": "best-effort"}, {"computeQos": "default"}),
            "v1.35.0-apsara.6.8.3.aaaaaaaa",
            "v1.35.0-apsara.6.8.2.aaaaaaaa",
        ),
    ],
    ids=["one-acs-unit", "two-acs-units"],
)
def test_acs_units_hold_a_scheduler_pin_to_their_feature_level(units, good, bad):
    spec = policy_workload(*units)
    load([spec], [cluster(scheduler=good)])
    load([spec], [cluster()])
    assert bad_keys([spec], [cluster(scheduler=bad)]) == ["ack.clusters[0].scheduler.version"]


def test_ecs_only_policy_needs_no_acs_scheduler():
    config = load([policy_workload({"resource": "ecs", "nodeSelector": {"alibabacloud.com/nodepool-id": "np-1"}})])
    assert config.needs(config.clusters[0]).scheduler == ()


# --- warnings: settings that may be right but usually are not ---------------------------------------------------


@pytest.mark.parametrize("model", ["GN8IS", "T4", "GU8TF", "L20N"])
def test_documented_gpu_models_do_not_warn(model):
    pool = {"name": "system", "instanceTypes": ["ecs.g7.large"], "minSize": 2, "maxSize": 2}
    config = load([workload(**{**GPU, "gpuModelSeries": model})], [{**cluster(), "nodePool": pool}])
    assert config.warnings() == []


@pytest.mark.parametrize(("fields", "model"), [(GPU, "L20"), (GPU_HPN, "example-model")])
def test_an_undocumented_gpu_model_is_a_warning_naming_the_key_and_the_documented_values(fields, model):
    config = load([workload(name="a"), workload(**{**fields, "gpuModelSeries": model})])
    [(key, message)] = [w for w in config.warnings() if "gpuModelSeries" in w[0]]
    assert key == f"{PROJECT}:ack.workloads[1].gpuModelSeries"
    assert repr(model) in message and "GN8IS" in message and "T4" in message


def test_a_cluster_without_a_node_pool_warns_that_it_has_no_dns():
    config = load([], [cluster(), cluster("dev")])
    assert [key for key, _ in config.warnings()] == [
        f"{PROJECT}:ack.clusters[0].nodePool",
        f"{PROJECT}:ack.clusters[1].nodePool",
    ]
    assert "CoreDNS" in config.warnings()[0][1]


def test_cluster_keys_are_full_stack_keys():
    assert load([]).cluster_key(0) == f"{PROJECT}:ack.clusters[0]"
