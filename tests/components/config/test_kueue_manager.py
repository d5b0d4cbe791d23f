"""Manager settings that queue objects depend on, with the rules Kueue's manager exits on at start-up."""

from __future__ import annotations

from decimal import Decimal

import pytest

from components.config.kueue_manager import (
    AdmissionFairSharingSettings,
    CustomMetricLabel,
    FairSharingSettings,
    MetricsSettings,
    ObjectRetentionPolicies,
    ResourcesSettings,
    WaitForPodsReadySettings,
    duration_seconds,
)
from tests.support.config import model_error_keys


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
        ({"usageHalfLifeTime": "168h", "resourceWeights": {"cpu": -1.0}}, "resourceWeights.cpu"),
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
        ({"timeout": "0s"}, "timeout"),
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
