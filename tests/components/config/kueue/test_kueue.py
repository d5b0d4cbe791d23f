"""The ``kueue`` section: defaults, overrides for mirrors, and every rule with its key."""

from __future__ import annotations

import pytest

from components.config.base import ConfigError
from components.config.kueue.kueue import KueueConfig, kueue_default_selector
from components.config.kueue.profiles import KNOWN_FRAMEWORKS, LATEST_CHART_VERSION, PROFILES
from tests.support.config import error_keys_on_existing_cluster as error_keys
from tests.support.config import load_on_existing_cluster as load


def test_defaults_install_the_latest_supported_chart_from_the_official_registry_on_the_aks_system_pool():
    kueue = load().kueue
    assert (kueue.chart_repository, kueue.chart_version) == ("oci://registry.k8s.io/kueue/charts/kueue", "0.19.2")
    assert kueue.image_repository == "registry.k8s.io/kueue/kueue"
    assert (kueue.namespace, kueue.release_name) == ("kueue-system", "kueue")
    assert [(t.key, t.operator, t.effect) for t in kueue.tolerations] == [
        ("CriticalAddonsOnly", "Exists", "NoSchedule")
    ]
    assert KueueConfig().node_selector == {"kubernetes.azure.com/mode": "system"}, "on AKS; by kubeconfig it is {}"
    assert kueue.frameworks == ["batch/job"]
    assert kueue.readiness_gate.probe_image == "registry.k8s.io/kubectl", "its tag follows the cluster"
    assert kueue.readiness_gate.crd_timeout_seconds == 600, "bounded: a region without the CRD fails the up"


def test_default_selector_is_opt_in_by_the_label_the_stack_puts_on_its_namespaces():
    """A Kueue outage then blocks Job creation only in the stack's own LocalQueue namespaces."""
    kueue = KueueConfig()
    assert kueue.managed_namespace_labels == {"managed-by-kueue": "true"}
    assert not kueue.manages_namespace("kube-system")
    assert not kueue.manages_namespace("default")
    assert kueue.manages_namespace("cas-kueue-demo", kueue.managed_namespace_labels)
    opted_out = KueueConfig(managed_jobs_namespace_selector=kueue_default_selector())
    assert opted_out.managed_namespace_labels == {}
    assert opted_out.manages_namespace("default") and not opted_out.manages_namespace("kueue-system")


def test_mirrors_and_non_aks_overrides_are_accepted_on_a_cluster_of_unknown_cloud():
    kueue = load(
        kueue={
            "chartRepository": "oci://k8sgcr.azk8s.cn/kueue/charts/kueue",
            "imageRepository": "mcr.microsoft.com/oss/v2/kueue/kueue",
            "nodeSelector": {},
            "tolerations": [],
            "frameworks": ["batch/job", "pod", "ray.io/rayjob"],
            "featureGates": {"PartialAdmission": True},
            "readinessGate": {"probeImage": "registryk8s.azk8s.cn/kubectl"},
        }
    ).kueue
    assert kueue.chart_repository == "oci://k8sgcr.azk8s.cn/kueue/charts/kueue"
    assert kueue.node_selector == {} and kueue.tolerations == []
    assert kueue.feature_gates == {"PartialAdmission": True}


@pytest.mark.parametrize("version", ["0.17.1", "0.17.8"])
def test_supported_chart_versions_are_accepted(version):
    assert load(kueue={"chartVersion": version}).kueue.chart_version == version


@pytest.mark.parametrize(
    "version", ["v0.19.2", "0.19", "latest", "0.14.2", "0.16.9", "0.18.5", "0.19.1", "0.20.0", "1.0.0", "0.19.3-rc.1"]
)
def test_chart_version_must_be_a_profiled_patch_at_or_above_its_floor(version):
    assert error_keys(kueue={"chartVersion": version}) == ["elastic-capacity:kueue.chartVersion"]


@pytest.mark.parametrize("version", ["0.17.1", "0.17.5", "0.17.8", "0.18.6", "0.18.9", "0.19.2", "0.19.14"])
def test_any_patch_of_a_profiled_minor_from_its_floor_on_is_accepted(version):
    assert load(kueue={"chartVersion": version}).kueue.profile is PROFILES[version.rsplit(".", 1)[0]]


def test_an_unprofiled_minor_is_refused_in_one_line_naming_what_is_supported_and_why():
    with pytest.raises(ConfigError) as caught:
        load(kueue={"chartVersion": "0.20.6"})
    message = str(caught.value)
    assert "\n" not in message.strip()
    assert "elastic-capacity:kueue.chartVersion: '0.20.6' is not allowed" in message
    assert "0.17.1+ (0.17.x), 0.18.6+ (0.18.x), 0.19.2+ (0.19.x)" in message
    assert "Kueue 0.20 is not yet verified" in message and "use 0.19.2" in message


def test_a_patch_below_its_minors_floor_is_refused_naming_the_floor():
    with pytest.raises(ConfigError) as caught:
        load(kueue={"chartVersion": "0.18.2"})
    assert "older than 0.18.6, the oldest 0.18 patch verified; use 0.18.6" in str(caught.value)


def test_the_default_is_the_newest_verified_patch_of_the_newest_minor():
    assert KueueConfig().chart_version == LATEST_CHART_VERSION == "0.19.2"
    assert list(PROFILES) == ["0.17", "0.18", "0.19"]
    for minor, profile in PROFILES.items():
        assert profile.release_notes == f"https://github.com/kubernetes-sigs/kueue/releases/tag/v{minor}.0"
        assert profile.floor == profile.verified[0] and profile.changes


@pytest.mark.parametrize(
    ("repository", "ok"),
    [("https://kubernetes-sigs.github.io/kueue/charts", True), ("registry.k8s.io/kueue/charts/kueue", False)],
)
def test_chart_repository_is_an_oci_or_https_reference(repository, ok):
    if ok:
        assert load(kueue={"chartRepository": repository}).kueue.chart_repository == repository
    else:
        assert error_keys(kueue={"chartRepository": repository}) == ["elastic-capacity:kueue.chartRepository"]


def test_every_known_framework_is_accepted():
    assert load(kueue={"frameworks": list(KNOWN_FRAMEWORKS)}).kueue.frameworks == list(KNOWN_FRAMEWORKS)


@pytest.mark.parametrize(
    ("frameworks", "key"),
    [
        (["batch/job", "sparkoperator.k8s.io/sparkapplication"], "kueue.frameworks[1]"),
        (["batch/job", "pod", "batch/job"], "kueue.frameworks[2]"),
        ([], "kueue.frameworks"),
    ],
)
def test_frameworks_are_known_unique_and_not_empty(frameworks, key):
    assert error_keys(kueue={"frameworks": frameworks}) == [f"elastic-capacity:{key}"]


@pytest.mark.parametrize("gate", ["ProvisioningACC", "partialAdmission"])
def test_removed_or_misspelled_feature_gates_are_named(gate):
    assert error_keys(kueue={"featureGates": {gate: True}}) == [f"elastic-capacity:kueue.featureGates.{gate}"]


def test_image_repository_must_not_carry_a_tag():
    keys = error_keys(kueue={"imageRepository": "registry.k8s.io/kueue/kueue:v0.17.1"})
    assert keys == ["elastic-capacity:kueue.imageRepository"]


@pytest.mark.parametrize(
    "selector",
    [
        {},
        {"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": ["kube-system"]}]},
        {"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "Exists"}]},
    ],
)
def test_selector_that_matches_the_kueue_namespace_is_refused(selector):
    assert error_keys(kueue={"managedJobsNamespaceSelector": selector}) == [
        "elastic-capacity:kueue.managedJobsNamespaceSelector"
    ]


@pytest.mark.parametrize(
    "selector",
    [
        {"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": ["kueue-system"]}]},
        {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
        {
            "matchExpressions": [
                {"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["kube-system", "a"]}
            ]
        },
        {"matchExpressions": [{"key": "team", "operator": "DoesNotExist"}]},
        {"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "Exists"}]},
    ],
)
def test_selector_that_matches_kube_system_is_refused_as_kueue_refuses_it(selector):
    """Kueue's validateManagedJobsNamespaceSelector judges kube-system by its name label alone; the manager exits."""
    with pytest.raises(ConfigError) as caught:
        load(kueue={"managedJobsNamespaceSelector": selector})
    [(key, message)] = caught.value.problems
    assert key == "elastic-capacity:kueue.managedJobsNamespaceSelector"
    assert "it must not match the 'kube-system' namespace" in message
    assert "Kueue's manager refuses such a selector and exits at start" in message


@pytest.mark.parametrize(
    "selector",
    [
        {"matchExpressions": [{"key": "team", "operator": "Exists"}]},
        {"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["team-a"]}]},
        {"matchLabels": {"team": "a", "kubernetes.io/metadata.name": "team-a"}},
    ],
)
def test_a_selector_that_spares_kube_system_and_kueue_by_name_passes(selector):
    """Only the name label counts: a selector needing another label never matches either namespace."""
    assert load(kueue={"managedJobsNamespaceSelector": selector}, queues={"lints": {"managedNamespaces": False}})


def test_opt_in_selector_by_label_is_accepted():
    selector = {"matchLabels": {"kueue-managed": "true"}}
    kueue = KueueConfig.model_validate({"managedJobsNamespaceSelector": selector})
    assert not kueue.manages_namespace("kueue-system")


def test_another_kueue_namespace_needs_a_name_based_selector_to_follow():
    """The opt-in default never selects Kueue's namespace (the stack does not label it); Kueue's own default does."""
    assert load(kueue={"namespace": "kueue"}).kueue.namespace == "kueue"
    kueues_own = kueue_default_selector().model_dump(by_alias=True, exclude_none=True)
    keys = error_keys(kueue={"namespace": "kueue", "managedJobsNamespaceSelector": kueues_own})
    assert keys == ["elastic-capacity:kueue.managedJobsNamespaceSelector"]
    moved = {
        "namespace": "kueue",
        "managedJobsNamespaceSelector": {
            "matchExpressions": [
                {"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": ["kube-system", "kueue"]}
            ]
        },
    }
    assert load(kueue=moved).kueue.namespace == "kueue"


@pytest.mark.parametrize(
    ("expression", "key"),
    [
        ({"key": "team", "operator": "In"}, "values"),
        ({"key": "team", "operator": "Exists", "values": ["a"]}, "values"),
    ],
)
def test_selector_expression_values_follow_the_operator(expression, key):
    selector = {"matchExpressions": [expression]}
    assert error_keys(kueue={"managedJobsNamespaceSelector": selector}) == [
        f"elastic-capacity:kueue.managedJobsNamespaceSelector.matchExpressions[0].{key}"
    ]


def test_toleration_with_exists_takes_no_value():
    toleration = {"key": "CriticalAddonsOnly", "operator": "Exists", "value": "true", "effect": "NoSchedule"}
    assert error_keys(kueue={"tolerations": [toleration]}) == ["elastic-capacity:kueue.tolerations[0].value"]


def test_manager_requests_within_limits():
    good = {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "2", "memory": "1Gi"}}
    assert load(kueue={"managerResources": good}).kueue.manager_resources.requests["memory"] == "1Gi"
    bad = {"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"cpu": "2", "memory": "512Mi"}}
    assert error_keys(kueue={"managerResources": bad}) == ["elastic-capacity:kueue.managerResources.requests.memory"]


def test_manager_resources_are_quantities():
    bad = {"requests": {"cpu": "lots", "memory": "1Gi"}, "limits": {"cpu": "2", "memory": "1Gi"}}
    assert error_keys(kueue={"managerResources": bad}) == ["elastic-capacity:kueue.managerResources.requests.cpu"]


@pytest.mark.parametrize(
    ("gate", "key"),
    [
        ({"probeImage": "registry.k8s.io/kubectl:latest"}, "probeImage"),
        ({"probeImage": "Registry.k8s.io/Kubectl"}, "probeImage"),
        ({"backoffLimit": 0}, "backoffLimit"),
        ({"timeoutSeconds": 10}, "timeoutSeconds"),
        ({"crdTimeoutSeconds": 10}, "crdTimeoutSeconds"),
        ({"crdTimeoutSeconds": 7200}, "crdTimeoutSeconds"),
    ],
)
def test_readiness_gate_rules(gate, key):
    assert error_keys(kueue={"readinessGate": gate}) == [f"elastic-capacity:kueue.readinessGate.{key}"]


def test_readiness_gate_accepts_a_digest_pinned_image():
    image = "registry.k8s.io/kubectl@sha256:" + "0" * 64
    assert load(kueue={"readinessGate": {"probeImage": image}}).kueue.readiness_gate.probe_image == image


def test_without_an_install_the_clusters_own_kueue_is_described_and_nothing_is_pulled():
    selector = {"matchLabels": {"kueue-managed": "true"}}
    kueue = KueueConfig.model_validate(
        {"install": False, "namespace": "kueue", "managedJobsNamespaceSelector": selector}
    )
    assert not kueue.install and kueue.sources() == []
    assert kueue.manages_namespace("team-a") is False


@pytest.mark.parametrize(
    ("key", "value"),
    [("chartVersion", "0.17.8"), ("replicas", 2), ("imageRepository", "mcr.microsoft.com/oss/v2/kueue/kueue")],
)
def test_install_keys_are_refused_without_an_install(key, value):
    assert error_keys(kueue={"install": False, key: value}) == [f"elastic-capacity:kueue.{key}"]


def test_custom_metric_labels_need_their_gate():
    labels = {"customLabels": [{"name": "team"}]}
    assert error_keys(kueue={"metrics": labels}) == ["elastic-capacity:kueue.metrics.customLabels"]
    with_gate = {"metrics": labels, "featureGates": {"CustomMetricLabels": True}}
    assert KueueConfig.model_validate(with_gate).metrics is not None
