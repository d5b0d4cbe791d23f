"""The ``kueue`` and ``smokeJob`` sections: seed defaults, overrides for mirrors, and every rule with its key."""

from __future__ import annotations

import pytest

from components.config.kueue import KNOWN_FRAMEWORKS, KueueConfig, SmokeJobConfig
from components.config.stack import load_stack_config
from tests.conftest import as_config, stack_error_keys

ON_EXISTING_CLUSTER = {"existingCluster": {"source": "kubeconfig"}, "kubeconfig": "apiVersion: v1\nkind: Config\n"}
SECRET = ["elastic-capacity:kubeconfig"]


def load(**sections):
    return load_stack_config(as_config({**ON_EXISTING_CLUSTER, **sections}), SECRET)


def error_keys(**sections) -> list[str]:
    return stack_error_keys({**ON_EXISTING_CLUSTER, **sections}, SECRET)


def test_defaults_install_the_seed_chart_on_the_aks_system_pool():
    kueue = load().kueue
    assert (kueue.chart_repository, kueue.chart_version) == ("oci://registry.k8s.io/kueue/charts/kueue", "0.17.1")
    assert (kueue.namespace, kueue.release_name) == ("kueue-system", "kueue")
    assert [(t.key, t.operator, t.effect) for t in kueue.tolerations] == [
        ("CriticalAddonsOnly", "Exists", "NoSchedule")
    ]
    assert kueue.node_selector == {"kubernetes.azure.com/mode": "system"}
    assert kueue.frameworks == ["batch/job"]
    assert kueue.readiness_gate.probe_image.startswith("registry.k8s.io/kubectl:v1.33.")


def test_default_selector_leaves_system_and_kueue_namespaces_alone_and_manages_the_seed_namespace():
    kueue = KueueConfig()
    assert not kueue.manages_namespace("kube-system")
    assert not kueue.manages_namespace("kueue-system")
    assert kueue.manages_namespace("cas-kueue-demo")


def test_seed_mirrors_and_non_aks_overrides_are_accepted():
    kueue = load(
        kueue={
            "chartRepository": "oci://k8sgcr.azk8s.cn/kueue/charts/kueue",
            "imageRepository": "mcr.microsoft.com/oss/v2/kueue/kueue",
            "nodeSelector": {},
            "tolerations": [],
            "frameworks": ["batch/job", "pod", "ray.io/rayjob"],
            "featureGates": {"PartialAdmission": True},
            "readinessGate": {"probeImage": "k8sgcr.azk8s.cn/kubectl:v1.33.4"},
        }
    ).kueue
    assert kueue.chart_repository == "oci://k8sgcr.azk8s.cn/kueue/charts/kueue"
    assert kueue.node_selector == {} and kueue.tolerations == []
    assert kueue.feature_gates == {"PartialAdmission": True}


@pytest.mark.parametrize("version", ["0.15.0", "0.17.1", "0.17.8", "0.18.0-rc.1"])
def test_chart_versions_serving_v1beta2_are_accepted(version):
    assert load(kueue={"chartVersion": version}).kueue.chart_version == version


@pytest.mark.parametrize("version", ["v0.17.1", "0.17", "latest", "0.14.2", "0.15.0-rc.1"])
def test_chart_version_must_be_semver_and_serve_v1beta2(version):
    assert error_keys(kueue={"chartVersion": version}) == ["elastic-capacity:kueue.chartVersion"]


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
        (["batch/job", "batch/job"], "kueue.frameworks"),
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


def test_opt_in_selector_by_label_is_accepted():
    selector = {"matchLabels": {"kueue-managed": "true"}}
    kueue = KueueConfig.model_validate({"managedJobsNamespaceSelector": selector})
    assert not kueue.manages_namespace("kueue-system")


def test_another_kueue_namespace_needs_the_selector_to_follow():
    assert error_keys(kueue={"namespace": "kueue"}) == ["elastic-capacity:kueue.managedJobsNamespaceSelector"]
    moved = {
        "namespace": "kueue",
        "managedJobsNamespaceSelector": {
            "matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": ["kueue"]}]
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
        ({"probeImage": "registry.k8s.io/kubectl"}, "probeImage"),
        ({"backoffLimit": 0}, "backoffLimit"),
        ({"timeoutSeconds": 10}, "timeoutSeconds"),
    ],
)
def test_readiness_gate_rules(gate, key):
    assert error_keys(kueue={"readinessGate": gate}) == [f"elastic-capacity:kueue.readinessGate.{key}"]


def test_readiness_gate_accepts_a_digest_pinned_image():
    image = "registry.k8s.io/kubectl@sha256:" + "0" * 64
    assert load(kueue={"readinessGate": {"probeImage": image}}).kueue.readiness_gate.probe_image == image


def test_smoke_job_defaults_reproduce_the_seed_job_and_stay_off():
    job = load().smoke_job
    assert not job.enabled
    assert (job.name, job.namespace, job.local_queue, job.pool) == (
        "kueue-cas-job",
        "cas-kueue-demo",
        "cas-local-queue",
        "scalepool",
    )
    assert (job.parallelism, job.completions, job.cpu, job.memory) == (3, 3, "1800m", "256Mi")
    assert job.image == "mcr.microsoft.com/azurelinux/busybox:1.36"
    assert job.command == ["sh", "-c", "echo running on $(hostname); sleep 30"]
    assert job.restart_policy == "Never"


def test_smoke_job_accepts_the_seed_mirror_image():
    job = SmokeJobConfig.model_validate({"image": "mcr.azk8s.cn/azurelinux/busybox:1.36"})
    assert job.image == "mcr.azk8s.cn/azurelinux/busybox:1.36"


@pytest.mark.parametrize(
    ("smoke_job", "key"),
    [
        ({"parallelism": 4}, "parallelism"),
        ({"cpu": "fast"}, "cpu"),
        ({"memory": "-1Gi"}, "memory"),
        ({"image": "busybox"}, "image"),
        ({"command": []}, "command"),
        ({"restartPolicy": "Always"}, "restartPolicy"),
        ({"timeoutSeconds": 5}, "timeoutSeconds"),
        ({"localQueue": "Cas_Queue"}, "localQueue"),
    ],
)
def test_smoke_job_rules(smoke_job, key):
    assert error_keys(smokeJob=smoke_job) == [f"elastic-capacity:smokeJob.{key}"]


def test_smoke_job_may_run_fewer_pods_at_once_than_it_completes():
    assert load(smokeJob={"parallelism": 1, "completions": 3}).smoke_job.parallelism == 1
