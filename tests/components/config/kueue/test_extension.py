"""``kueue.install: aks-extension``: where AKS offers the managed Kueue extension, pinned to a profiled Kueue, with
every chart key refused and none of the extension's ``aks-`` objects created by the stack."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from components.config.base import ConfigError
from components.config.kueue import extension as kueue_extension
from components.config.kueue.kueue import EXTENSION_KEYS, KueueConfig
from components.config.loader import load_stack_config
from tests.support import PROJECT_ROOT
from tests.support.config import WALKTHROUGH_OBJECTS, as_config, model_error_keys, stack_error_keys
from tools import render

VERSION = "0.19.6-aks.0.4.4"
EXTENSION: dict[str, Any] = {"install": "aks-extension", "extension": {"version": VERSION, "acceptPreview": True}}
OFFERED = {"location": "eastus"}
EXISTING_AKS = {"source": "aks", "resourceGroupName": "rg", "clusterName": "kueue"}


def with_extension(**changes: Any) -> dict[str, Any]:
    return {**EXTENSION, **changes}


@pytest.mark.parametrize("install", [True, False, "aks-extension", "yes"])
def test_install_is_a_boolean_or_the_extension(install):
    sections: dict[str, Any] = {"install": install}
    if install == "aks-extension":
        sections = EXTENSION
    assert KueueConfig.model_validate(sections).install == (True if install == "yes" else install)


def test_any_other_install_is_refused_naming_the_key():
    assert model_error_keys(KueueConfig, {"install": "helm"}, "kueue") == ["kueue.install"]


def test_the_extension_maps_to_its_upstream_kueue_and_that_minors_profile():
    kueue = KueueConfig.model_validate(with_extension(extension={"version": "0.18.6-aks.1", "acceptPreview": True}))
    assert (kueue.kueue_version, kueue.installed_version, kueue.profile.minor) == ("0.18.6", "0.18.6-aks.1", "0.18")


def test_the_chart_install_keeps_its_chart_version_as_the_installed_version():
    kueue = KueueConfig.model_validate({"chartVersion": "0.18.6"})
    assert (kueue.kueue_version, kueue.installed_version, kueue.extension) == ("0.18.6", "0.18.6", None)


@pytest.mark.parametrize(
    ("extension", "key"),
    [
        (None, "kueue.extension"),
        ({"version": VERSION}, "kueue.extension.acceptPreview"),
        ({"version": "0.19.6", "acceptPreview": True}, "kueue.extension.version"),
        ({"version": "v0.19.6-aks.0.4.4", "acceptPreview": True}, "kueue.extension.version"),
        ({"version": "0.20.1-aks.0.1", "acceptPreview": True}, "kueue.extension.version"),
        ({"version": "0.19.1-aks.0.1", "acceptPreview": True}, "kueue.extension.version"),
    ],
)
def test_the_extension_needs_a_pinned_profiled_version_and_the_preview_acknowledged(extension, key):
    sections = {"install": "aks-extension"} | ({"extension": extension} if extension else {})
    assert model_error_keys(KueueConfig, sections, "kueue") == [key]


CHART_KEYS = {
    "chartRepository": "oci://registry.k8s.io/kueue/charts/kueue",
    "chartVersion": "0.19.2",
    "releaseName": "kueue",
    "replicas": 2,
    "managerResources": {"requests": {"cpu": "1"}, "limits": {"cpu": "1"}},
    "imageRepository": "registry.k8s.io/kueue/kueue",
    "frameworks": ["batch/job"],
    "featureGates": {"TopologyAwareScheduling": True},
    "fairSharing": {},
    "admissionFairSharing": {"usageHalfLifeTime": "168h", "usageSamplingInterval": "5m"},
    "waitForPodsReady": {"timeout": "10m"},
    "metrics": {"customLabels": []},
}


def test_the_refused_keys_are_every_key_but_the_shared_and_the_gates():
    fields = KueueConfig.model_fields
    refused = {fields[name].alias or name for name in fields if name not in EXTENSION_KEYS}
    assert set(CHART_KEYS) <= refused
    assert refused - set(CHART_KEYS) <= {"resources", "objectRetentionPolicies", "multiKueue"}


@pytest.mark.parametrize("key", list(CHART_KEYS))
def test_every_chart_key_is_refused_with_the_extension_naming_it(key):
    assert model_error_keys(KueueConfig, with_extension(**{key: CHART_KEYS[key]}), "kueue") == [f"kueue.{key}"]


def test_the_gate_and_what_describes_the_extensions_kueue_stay_allowed():
    kueue = KueueConfig.model_validate(
        with_extension(
            readinessGate={"timeoutSeconds": 900},
            tolerations=[],
            nodeSelector={},
            managedJobsNamespaceSelector={"matchLabels": {"team": "a"}},
        )
    )
    assert kueue.readiness_gate.timeout_seconds == 900


@pytest.mark.parametrize("install", [True, False])
def test_the_extension_block_is_refused_without_the_extension(install):
    assert model_error_keys(KueueConfig, {"install": install, "extension": EXTENSION["extension"]}, "kueue") == [
        "kueue.extension"
    ]


def test_the_extension_runs_in_kueue_system_only():
    assert model_error_keys(KueueConfig, with_extension(namespace="kueue"), "kueue") == ["kueue.namespace"]


def test_only_the_gates_image_is_a_source_the_stack_pulls():
    assert [source.key for source in KueueConfig.model_validate(EXTENSION).sources()] == ["readinessGate.probeImage"]


# --- across sections -----------------------------------------------------------------------------------------


def test_a_new_cluster_in_an_offered_region_and_an_existing_aks_cluster_are_accepted():
    assert load_stack_config(as_config({"aks": OFFERED, "kueue": EXTENSION})).kueue.extension is not None
    assert load_stack_config(as_config({"existingCluster": EXISTING_AKS, "kueue": EXTENSION})).kueue.install


@pytest.mark.parametrize("location", ["eastus2", "westeurope", "chinanorth3"])
def test_a_region_the_extension_is_not_offered_in_is_refused_naming_the_location(location):
    assert stack_error_keys({"aks": {"preset": "aks-walkthrough", "location": location}, "kueue": EXTENSION}) == [
        "elastic-capacity:aks.location"
    ]


@pytest.mark.parametrize(("version", "refused"), [("1.33", True), ("1.33.4", True), ("1.34", False), ("1.36.1", False)])
def test_kubernetes_below_the_extensions_minimum_is_refused_naming_the_key(version, refused):
    if refused:
        with pytest.raises(kueue_extension.RuleViolation) as caught:
            kueue_extension.require_kubernetes(version, "aks.kubernetesVersion")
        assert caught.value.key == "aks.kubernetesVersion" and "1.34 or later" in caught.value.allowed
    else:
        kueue_extension.require_kubernetes(version, "aks.kubernetesVersion")


def test_a_new_clusters_requested_version_is_checked(monkeypatch):
    monkeypatch.setattr(kueue_extension, "MIN_KUBERNETES", (1, 36))
    sections = {"aks": {**OFFERED, "kubernetesVersion": "1.35"}, "kueue": EXTENSION}
    assert stack_error_keys(sections) == ["elastic-capacity:aks.kubernetesVersion"]


def test_a_cluster_given_by_kubeconfig_cannot_take_the_extension():
    sections = {"existingCluster": {"source": "kubeconfig"}, "kubeconfig": "apiVersion: v1\n", "kueue": EXTENSION}
    assert stack_error_keys(sections, ["elastic-capacity:kubeconfig"]) == ["elastic-capacity:kueue.install"]


def test_rendering_for_a_gitops_controller_is_refused():
    sections = {"aks": OFFERED, "kueue": EXTENSION, "gitops": {"renderToDirectory": "gitops"}}
    assert stack_error_keys(sections) == ["elastic-capacity:gitops.renderToDirectory"]


AKS_NAMED = [
    ({"resourceFlavors": [{"name": "aks-cpu"}], "clusterQueues": [], "localQueues": []}, "resourceFlavors[0].name"),
    ({"workloadPriorityClasses": [{"name": "aks-low-priority", "value": 100}]}, "workloadPriorityClasses[0].name"),
    ({"cohorts": [{"name": "aks-team"}]}, "cohorts[0].name"),
    ({"provisioningChecks": [{"name": "aks-provisioning", "configName": "cas"}]}, "provisioningChecks[0].name"),
    ({"provisioningChecks": [{"name": "cas", "configName": "aks-config"}]}, "provisioningChecks[0].configName"),
]


@pytest.mark.parametrize(("queues", "key"), AKS_NAMED, ids=[key for _, key in AKS_NAMED])
def test_a_queue_object_named_like_the_extensions_own_is_refused(queues, key):
    defaults = copy.deepcopy(WALKTHROUGH_OBJECTS)
    if "provisioningChecks" in queues:  # the walkthrough's ClusterQueue names the walkthrough's check
        defaults["clusterQueues"][0]["admissionChecksStrategy"]["admissionChecks"][0]["name"] = queues[
            "provisioningChecks"
        ][0]["name"]
    sections = {"aks": OFFERED, "kueue": EXTENSION, "queues": {**defaults, **queues}}
    assert stack_error_keys(sections) == [f"elastic-capacity:queues.{key}"]


def test_the_same_names_are_fine_with_the_chart():
    queues = {"workloadPriorityClasses": [{"name": "aks-low-priority", "value": 100}]}
    assert load_stack_config(as_config({"aks": OFFERED, "queues": queues})).queues.workload_priority_classes


def test_multikueue_is_refused_with_the_extension():
    """The burst stack, moved to a region the extension is offered in, with the extension for its manager."""
    _, config, secret_keys = render.read_stack_file(PROJECT_ROOT / "stacks/Pulumi.burst.yaml")
    aks = json.loads(config["elastic-capacity:aks"]) | OFFERED
    config |= {"elastic-capacity:aks": json.dumps(aks), "elastic-capacity:kueue": json.dumps(EXTENSION)}
    config["azure-native:location"] = OFFERED["location"]
    with pytest.raises(ConfigError) as caught:
        load_stack_config(config, secret_keys)
    assert caught.value.keys == ["elastic-capacity:multiKueue"]
