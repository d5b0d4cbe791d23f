"""The Kueue install builders: the namespace and the Helm values, valid as written."""

from __future__ import annotations

import pytest

from components import yaml_text
from components.config.kueue.kueue import KueueConfig
from components.manifests import kueue_install
from tests.support.kueue_sources import VERIFIED, chart_manager_config
from tests.support.schemas import validate_core

DEFAULT = KueueConfig()


# --- Helm values --------------------------------------------------------------------------------------------------


def test_chart_reference_is_the_oci_chart_itself_or_a_chart_in_an_https_repository():
    assert kueue_install.chart_reference(DEFAULT) == ("oci://registry.k8s.io/kueue/charts/kueue", None)
    https = KueueConfig(chart_repository="https://kubernetes-sigs.github.io/kueue/charts")
    assert kueue_install.chart_reference(https) == ("kueue", "https://kubernetes-sigs.github.io/kueue/charts")


def test_values_run_the_manager_on_the_system_pool_with_the_chart_default_resources():
    manager = kueue_install.chart_values(DEFAULT)["controllerManager"]
    assert manager["tolerations"] == [{"key": "CriticalAddonsOnly", "operator": "Exists", "effect": "NoSchedule"}]
    assert manager["nodeSelector"] == {"kubernetes.azure.com/mode": "system"}
    assert manager["replicas"] == 1
    assert manager["podDisruptionBudget"] == {"enabled": False, "minAvailable": 1}, "one replica: never block drains"
    assert manager["manager"]["resources"] == {
        "requests": {"cpu": "500m", "memory": "512Mi"},
        "limits": {"cpu": "2", "memory": "512Mi"},
    }
    assert manager["manager"]["image"] == {"repository": "registry.k8s.io/kueue/kueue"}, "the chart keeps its tag"
    assert manager["featureGates"] == []


def test_manager_config_always_carries_the_namespace_selector_and_frameworks():
    config = kueue_install.manager_config(DEFAULT)
    assert (config["apiVersion"], config["kind"]) == ("config.kueue.x-k8s.io/v1beta2", "Configuration")
    assert config["managedJobsNamespaceSelector"] == {"matchLabels": {"managed-by-kueue": "true"}}
    assert config["integrations"] == {"frameworks": ["batch/job"]}
    values = kueue_install.chart_values(DEFAULT)["managerConfig"]["controllerManagerConfigYaml"]
    assert yaml_text.load(values) == config


@pytest.mark.parametrize(("version", "profile"), VERIFIED, ids=[v for v, _ in VERIFIED])
def test_manager_config_keeps_the_chart_defaults_of_the_installed_version(version, profile):
    chart = chart_manager_config(version)
    ours = kueue_install.manager_config(KueueConfig(chart_version=version))
    for key in ("apiVersion", "kind", "health", "metrics", "webhook", "leaderElection", "controller"):
        assert ours[key] == chart[key], key
    assert ours["clientConnection"] == chart["clientConnection"]


def test_overrides_reach_the_values():
    config = KueueConfig(
        image_repository="mcr.microsoft.com/oss/v2/kueue/kueue",
        replicas=2,
        node_selector={},
        frameworks=["batch/job", "pod"],
        feature_gates={"PartialAdmission": True},
    )
    manager = kueue_install.chart_values(config)["controllerManager"]
    assert manager["manager"]["image"] == {"repository": "mcr.microsoft.com/oss/v2/kueue/kueue"}
    assert (manager["replicas"], manager["nodeSelector"]) == (2, {})
    assert manager["podDisruptionBudget"] == {"enabled": True, "minAvailable": 1}
    assert manager["featureGates"] == [{"name": "PartialAdmission", "enabled": True}]
    assert kueue_install.manager_config(config)["integrations"]["frameworks"] == ["batch/job", "pod"]


def test_fair_sharing_and_resource_settings_go_into_the_manager_config_only_when_set():
    """Their presence is what turns each on in Kueue's v1beta2 Configuration (there is no ``enable`` field)."""
    assert not {"fairSharing", "admissionFairSharing", "resources"} & set(kueue_install.manager_config(DEFAULT))
    config = KueueConfig.model_validate(
        {
            "fairSharing": {},
            "admissionFairSharing": {"usageHalfLifeTime": "168h", "resourceWeights": {"cpu": 2.0}},
            "resources": {"transformations": [{"input": "cpu", "strategy": "Retain", "outputs": {"cpu_credits": 1}}]},
        }
    )
    manager = kueue_install.manager_config(config)
    assert manager["fairSharing"] == {"preemptionStrategies": ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]}
    assert manager["admissionFairSharing"] == {"usageHalfLifeTime": "168h", "resourceWeights": {"cpu": 2.0}}
    assert manager["resources"] == {
        "transformations": [{"input": "cpu", "strategy": "Retain", "outputs": {"cpu_credits": "1"}}]
    }
    values = kueue_install.chart_values(config)["managerConfig"]["controllerManagerConfigYaml"]
    assert yaml_text.load(values) == manager


def test_pods_ready_retention_and_metric_labels_reach_the_manager_config():
    config = KueueConfig.model_validate(
        {
            "waitForPodsReady": {"timeout": "10m", "requeuingStrategy": {"backoffLimitCount": 5}},
            "objectRetentionPolicies": {"workloads": {"afterFinished": "1h"}},
            "metrics": {"customLabels": [{"name": "team"}]},
            "featureGates": {"CustomMetricLabels": True},
        }
    )
    manager = kueue_install.manager_config(config)
    assert manager["waitForPodsReady"] == {"timeout": "10m", "requeuingStrategy": {"backoffLimitCount": 5}}
    assert manager["objectRetentionPolicies"] == {"workloads": {"afterFinished": "1h"}}
    assert manager["metrics"] == {"bindAddress": ":8443", "customLabels": [{"name": "team"}]}
    assert kueue_install.manager_config(DEFAULT)["metrics"] == {"bindAddress": ":8443"}


def test_namespace_is_valid():
    validate_core(kueue_install.kueue_namespace(DEFAULT), "1.33")
