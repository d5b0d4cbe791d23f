"""Manager settings that queue objects depend on, with the rules Kueue's manager exits on at start-up."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from components.config.kueue.manager import (
    AdmissionFairSharingSettings,
    CustomMetricLabel,
    FairSharingSettings,
    MetricsSettings,
    ObjectRetentionPolicies,
    ResourcesSettings,
    WaitForPodsReadySettings,
    duration_seconds,
)
from components.config.kueue.profiles import PROFILES
from components.manifests.kueue_install import manager_config
from tests.support.config import error_keys_on_existing_cluster, load_on_existing_cluster, model_error_keys
from tests.support.kueue_sources import configuration_structs, source_dir, undecodable_keys


@pytest.mark.parametrize(
    "strategies",
    [
        ["LessThanOrEqualToFinalShare"],
        ["LessThanInitialShare"],
        ["LessThanOrEqualToFinalShare", "LessThanInitialShare"],
    ],
)
def test_fair_sharing_takes_kueues_three_strategy_lists(strategies):
    assert FairSharingSettings.model_validate({"preemptionStrategies": strategies}).preemption_strategies == strategies


@pytest.mark.parametrize(
    "strategies",
    [[], ["LessThanInitialShare", "LessThanOrEqualToFinalShare"], ["LessThanInitialShare", "LessThanInitialShare"]],
)
def test_other_strategy_lists_stop_the_manager_and_are_refused(strategies):
    assert model_error_keys(FairSharingSettings, {"preemptionStrategies": strategies}) == ["preemptionStrategies"]


def test_fair_sharing_without_strategies_gets_a_list_kueue_accepts():
    """Kueue's manager exits on ``fairSharing: {}``; the program writes both strategies instead."""
    assert FairSharingSettings().preemption_strategies == ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]


@pytest.mark.parametrize(("text", "seconds"), [("0", 0), ("0s", 0), ("5m", 300), ("1h30m", 5400), ("1.5s", 1.5)])
def test_go_durations_are_read_as_the_manager_reads_them(text, seconds):
    assert duration_seconds(text) == Decimal(str(seconds))


@pytest.mark.parametrize(
    ("settings", "key"),
    [
        ({"usageHalfLifeTime": "-1h"}, "usageHalfLifeTime"),
        ({"usageHalfLifeTime": "168 hours"}, "usageHalfLifeTime"),
        ({"usageHalfLifeTime": "168h", "usageSamplingInterval": "0s"}, "usageSamplingInterval"),
        ({"usageHalfLifeTime": "168h", "resourceWeights": {"cpu": -1.0}}, "resourceWeights[cpu]"),
        ({"usageHalfLifeTime": "168h", "resourceWeights": {"nvidia.com/gpu": -1.0}}, "resourceWeights[nvidia.com/gpu]"),
        ({"usageSamplingInterval": "5m"}, "usageHalfLifeTime"),
    ],
)
def test_admission_fair_sharing_refuses_what_the_manager_refuses(settings, key):
    assert model_error_keys(AdmissionFairSharingSettings, settings) == [key]


def test_admission_fair_sharing_takes_kueues_documented_settings():
    settings = AdmissionFairSharingSettings.model_validate(
        {"usageHalfLifeTime": "168h", "usageSamplingInterval": "5m", "resourceWeights": {"cpu": 2.0, "memory": 1.0}}
    )
    assert settings.resource_weights == {"cpu": 2.0, "memory": 1.0}


@pytest.mark.parametrize(
    ("resources", "key"),
    [
        ({"transformations": [{"input": "cpu", "outputs": {"cpu_credits": 1}}] * 2}, "transformations[1].input"),
        ({"transformations": [{"input": "cpu", "strategy": "Keep"}]}, "transformations[0].strategy"),
    ],
)
def test_transformations_refuse_what_the_manager_refuses(resources, key):
    assert model_error_keys(ResourcesSettings, resources) == [key]


def test_a_transformation_renders_as_the_manager_reads_it():
    resources = ResourcesSettings.model_validate(
        {"transformations": [{"input": "cpu", "strategy": "Retain", "outputs": {"cpu_credits": 1}}]}
    )
    assert resources.model_dump(by_alias=True, exclude_none=True, mode="json") == {
        "transformations": [{"input": "cpu", "strategy": "Retain", "outputs": {"cpu_credits": "1"}}]
    }


@pytest.mark.parametrize(
    ("settings", "key"),
    [
        ({"timeout": "-5m"}, "timeout"),
        ({"timeout": "5m", "recoveryTimeout": "-1m"}, "recoveryTimeout"),
        ({"timeout": "5m", "requeuingStrategy": {"timestamp": "Admission"}}, "requeuingStrategy.timestamp"),
        ({"timeout": "5m", "requeuingStrategy": {"backoffLimitCount": -1}}, "requeuingStrategy.backoffLimitCount"),
        ({"timeout": "5m", "enable": True}, "enable"),
    ],
)
def test_wait_for_pods_ready_refuses_what_the_manager_refuses(settings, key):
    """``enable`` is v1beta1's: the v1beta2 Configuration is decoded strictly, so the manager would exit on it."""
    assert model_error_keys(WaitForPodsReadySettings, settings) == [key]


def test_retention_and_custom_labels_follow_the_manager_rules():
    assert model_error_keys(ObjectRetentionPolicies, {"workloads": {"afterFinished": "-1m"}}) == [
        "workloads.afterFinished"
    ]
    assert model_error_keys(MetricsSettings, {"customLabels": [{"name": "team"}, {"name": "team"}]}) == [
        "customLabels[1].name"
    ]
    assert model_error_keys(CustomMetricLabel, {"name": "1team"}) == ["name"]
    both = {"name": "cost", "sourceLabelKey": "billing/cost", "sourceAnnotationKey": "billing/cost"}
    assert model_error_keys(CustomMetricLabel, both) == ["sourceAnnotationKey"]
    CustomMetricLabel.model_validate({"name": "cost_center", "sourceLabelKey": "billing/cost-center"})


LABELS_ON = {"CustomMetricLabels": True}


def custom_labels(count: int) -> list[dict[str, str]]:
    return [{"name": f"label{i}"} for i in range(count)]


@pytest.mark.parametrize("version", ["0.17.8", "0.18.6"])
def test_before_0_19_the_manager_takes_any_number_of_custom_labels(version):
    kueue = {"chartVersion": version, "featureGates": LABELS_ON, "metrics": {"customLabels": custom_labels(7)}}
    metrics = load_on_existing_cluster(kueue=kueue).kueue.metrics
    assert metrics is not None and len(metrics.custom_labels) == 7


def test_0_19_takes_six_custom_labels_of_the_default_source_kind_and_refuses_a_seventh():
    """``maxCustomLabelsPerSourceKind`` of ``validateCustomLabels`` in v0.19.2: 6 for ClusterQueue, every label's
    kind here; the manager exits on a seventh."""
    six = {"chartVersion": "0.19.2", "featureGates": LABELS_ON, "metrics": {"customLabels": custom_labels(6)}}
    load_on_existing_cluster(kueue=six)
    seven = {**six, "metrics": {"customLabels": custom_labels(7)}}
    assert error_keys_on_existing_cluster(kueue=seven) == ["elastic-capacity:kueue.metrics.customLabels"]


@pytest.mark.parametrize("profile", PROFILES.values(), ids=PROFILES)
def test_the_custom_label_limit_is_the_one_the_minors_configuration_type_documents(profile):
    """0.19 gave each label a ``sourceKind`` and a limit per kind (its type says so); 0.17 and 0.18 have neither (their
    ``MaxItems=8`` marker is on a Configuration type, which no API server checks, and validateCustomLabels counts
    nothing)."""
    version = profile.latest
    fields = configuration_structs(version)["ControllerMetricsCustomLabel"]
    text = (source_dir(version) / "src/configuration_types.go").read_text()
    documented = re.search(r"A maximum of (\d+) labels are allowed per SourceKind", text)
    assert ("sourceKind" in fields) == (profile.custom_labels_max is not None)
    assert (int(documented.group(1)) if documented else None) == profile.custom_labels_max


def test_0_19_refuses_wait_for_pods_ready_that_its_disable_gate_would_ignore():
    wait = {"chartVersion": "0.19.2", "waitForPodsReady": {"timeout": "10m"}}
    load_on_existing_cluster(kueue={**wait, "featureGates": {"DisableWaitForPodsReady": False}})
    disabled = {**wait, "featureGates": {"DisableWaitForPodsReady": True}}
    assert error_keys_on_existing_cluster(kueue=disabled) == ["elastic-capacity:kueue.waitForPodsReady"]
    load_on_existing_cluster(kueue={"chartVersion": "0.19.2", "featureGates": {"DisableWaitForPodsReady": True}})


def test_before_0_19_the_disable_gate_does_not_exist():
    gate = {"chartVersion": "0.18.6", "featureGates": {"DisableWaitForPodsReady": True}}
    assert error_keys_on_existing_cluster(kueue=gate) == ["elastic-capacity:kueue.featureGates.DisableWaitForPodsReady"]


def test_a_0s_wait_for_pods_ready_timeout_on_0_19_is_accepted_warning_that_it_becomes_30m():
    """``SetDefaults_Configuration`` (apis/config/v1beta2/defaults.go, v0.19.2) replaces a 0 timeout by 30m before
    the manager validates, and an unset recoveryTimeout takes it."""
    config = load_on_existing_cluster(kueue={"chartVersion": "0.19.2", "waitForPodsReady": {"timeout": "0s"}})
    [(key, message)] = [(k, m) for k, m in config.warnings() if k.startswith("kueue.")]
    assert key == "kueue.waitForPodsReady.timeout"
    assert "reads timeout 0s as its default 30m, and the unset recoveryTimeout with it" in message
    written = {"chartVersion": "0.19.2", "waitForPodsReady": {"timeout": "10m"}}
    assert [k for k, _ in load_on_existing_cluster(kueue=written).warnings() if k.startswith("kueue.")] == []


@pytest.mark.parametrize("version", ["0.17.8", "0.18.6"])
def test_a_0s_wait_for_pods_ready_timeout_before_0_19_is_refused_as_the_manager_refuses_it(version):
    kueue = {"chartVersion": version, "waitForPodsReady": {"timeout": "0"}}
    assert error_keys_on_existing_cluster(kueue=kueue) == ["elastic-capacity:kueue.waitForPodsReady.timeout"]


def test_ignore_undeclared_quota_checks_on_0_19_reach_the_manager_as_it_decodes_them():
    """tasks/manage/administer_cluster_quotas.md (v0.19.2), "Change quota check strategy for admission"."""
    config = load_on_existing_cluster(kueue={"resources": {"quotaCheckStrategy": "IgnoreUndeclared"}})
    written = manager_config(config.kueue)
    assert written["resources"] == {"quotaCheckStrategy": "IgnoreUndeclared"}
    assert undecodable_keys(written, "Configuration", configuration_structs("0.19.2")) == []


@pytest.mark.parametrize(
    ("kueue", "says"),
    [
        ({"chartVersion": "0.17.8", "resources": {"quotaCheckStrategy": "IgnoreUndeclared"}}, "came with Kueue 0.18"),
        ({"chartVersion": "0.18.6", "resources": {"quotaCheckStrategy": "IgnoreUndeclared"}},
         "featureGates.QuotaCheckStrategy is true"),
        ({"resources": {"quotaCheckStrategy": "IgnoreUndeclared", "excludeResourcePrefixes": ["example.com/"]}},
         "excludeResourcePrefixes is not allowed"),
    ],
    ids=["0.17", "0.18 gate off", "with excluded prefixes"],
)  # fmt: skip
def test_a_quota_check_strategy_the_manager_refuses_or_ignores_is_refused_naming_the_key(kueue, says):
    assert error_keys_on_existing_cluster(kueue=kueue) == ["elastic-capacity:kueue.resources.quotaCheckStrategy"]
    with pytest.raises(Exception, match=says):
        load_on_existing_cluster(kueue=kueue)
    if kueue.get("chartVersion") == "0.18.6":
        load_on_existing_cluster(kueue={**kueue, "featureGates": {"QuotaCheckStrategy": True}})


WORKLOAD_TYPE = {
    "name": "workload_type",
    "sourceKind": "Workload",
    "sourceLabelKey": "company.com/workload-type",
    "trackedValues": ["inference", "training"],
}
"""The Workload label of configure_custom_metric_labels.md at v0.19.2."""


def test_0_19_takes_workload_labels_with_their_tracked_values_as_the_manager_decodes_them():
    labels = [*custom_labels(6), WORKLOAD_TYPE, {**WORKLOAD_TYPE, "name": "tier"}]
    kueue = {"chartVersion": "0.19.2", "featureGates": LABELS_ON, "metrics": {"customLabels": labels}}
    written = manager_config(load_on_existing_cluster(kueue=kueue).kueue)
    assert written["metrics"]["customLabels"][6] == WORKLOAD_TYPE
    assert undecodable_keys(written, "Configuration", configuration_structs("0.19.2")) == []


@pytest.mark.parametrize(
    ("labels", "key"),
    [
        ([WORKLOAD_TYPE, {**WORKLOAD_TYPE, "name": "b"}, {**WORKLOAD_TYPE, "name": "c"}], "metrics.customLabels"),
        ([{**WORKLOAD_TYPE, "trackedValues": []}], "metrics.customLabels[0].trackedValues"),
        ([{**WORKLOAD_TYPE, "trackedValues": [f"v{i}" for i in range(13)]}], "metrics.customLabels[0].trackedValues"),
        ([{"name": "team", "trackedValues": [f"v{i}" for i in range(17)]}], "metrics.customLabels[0].trackedValues"),
        ([{**WORKLOAD_TYPE, "trackedValues": ["a", "a"]}], "metrics.customLabels[0].trackedValues[1]"),
        ([{"name": "team", "sourceKind": "Job"}], "metrics.customLabels[0].sourceKind"),
        ([{"name": "team"}, {"name": "team", "sourceKind": "Cohort"}], "metrics.customLabels[1].name"),
    ],
    ids=["three workload labels", "workload without values", "13 workload values", "17 values", "value twice",
         "unknown kind", "name twice"],
)  # fmt: skip
def test_custom_labels_0_19_refuses_are_refused_naming_the_key(labels, key):
    kueue = {"chartVersion": "0.19.2", "featureGates": LABELS_ON, "metrics": {"customLabels": labels}}
    assert error_keys_on_existing_cluster(kueue=kueue) == [f"elastic-capacity:kueue.{key}"]


def test_0_19_takes_at_most_20_custom_labels_in_all():
    labels = [{"name": f"{kind.lower()}{i}", "sourceKind": kind} for kind in ("ClusterQueue", "LocalQueue", "Cohort")
              for i in range(6)] + [WORKLOAD_TYPE, {**WORKLOAD_TYPE, "name": "tier"}]  # fmt: skip
    kueue = {"chartVersion": "0.19.2", "featureGates": LABELS_ON, "metrics": {"customLabels": labels}}
    load_on_existing_cluster(kueue=kueue)
    kueue["metrics"]["customLabels"] = [*labels, {"name": "one_more", "sourceKind": "Cohort"}]
    assert error_keys_on_existing_cluster(kueue=kueue) == ["elastic-capacity:kueue.metrics.customLabels"]


@pytest.mark.parametrize("version", ["0.17.8", "0.18.6"])
def test_before_0_19_a_source_kind_or_tracked_values_is_refused_naming_the_version(version):
    kueue = {"chartVersion": version, "featureGates": LABELS_ON, "metrics": {"customLabels": [WORKLOAD_TYPE]}}
    assert error_keys_on_existing_cluster(kueue=kueue) == ["elastic-capacity:kueue.metrics.customLabels[0].sourceKind"]
